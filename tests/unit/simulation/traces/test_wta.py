# Copyright 2026 The preemptible_sched developers
#
#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
#    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
#    License for the specific language governing permissions and limitations
#    under the License.

"""Workflow Trace Archive (parquet) traces: read, checked, and equal to
the same workflows read from GWF."""

import os

import fixtures
import pyarrow
import pyarrow.parquet

from preemptible_sched import exception
from preemptible_sched.simulation.traces import reading
from preemptible_sched.simulation.traces import wta
from tests import base
from tests.unit.simulation.traces import samples
from tests import wta_traces

#: The workflows of samples.WORKFLOWS_GWF, as WTA rows.
TASKS = [(1, 0, 16, 11, 1, ()), (2, 0, 40, 11, 1, (1,)),
         (3, 0, 40, 0, 1, (1,)), (7, 5, 3, 20, 2, ()), (8, 5, 27, 0, 1, (7,))]


class TestWta(base.TestCase):

    def directory(self):
        return self.useFixture(fixtures.TempDir()).path

    def two_tasks(self, **columns):
        """A trace of tasks 1 and 2, ``columns`` replacing theirs."""
        path = self.directory()
        folder = os.path.join(path, 'tasks')
        os.makedirs(folder)
        table = {'id': [1, 2], 'workflow_id': [0, 0], 'ts_submit': [0, 1000],
                 'runtime': [1000, 1000],
                 'resource_amount_requested': [1.0, 1.0]}
        table.update(columns)
        pyarrow.parquet.write_table(pyarrow.table(table),
                                    os.path.join(folder, 'p.parquet'))
        return path

    def test_same_items_as_the_gwf_trace(self):
        path = wta_traces.write_trace(self.directory(), TASKS)
        self.assertEqual('wta', reading.detect_format(path))
        gwf = os.path.join(self.directory(), 'w.gwf')
        with open(gwf, 'w') as stream:
            stream.write(samples.WORKFLOWS_GWF)
        for origin in ('trace', 'first_request'):
            self.assertEqual(
                reading.read_workload(gwf, time_origin=origin),
                reading.read_workload(path, time_origin=origin))

    def test_timestamp_submit_times_and_workflow_table(self):
        path = wta_traces.write_trace(self.directory(), TASKS,
                                      workflows=[(0, 10), (5, 2)],
                                      timestamps=True)
        items = reading.read_workload(path, time_origin='trace',
                                      task_submit='workflow')
        self.assertEqual({'0-1': 10.0, '0-2': 10.0, '0-3': 10.0,
                          '5-7': 2.0, '5-8': 2.0},
                         {item.id: item.submit_s for item in items})

    def test_unknown_values_are_skipped(self):
        path = wta_traces.write_trace(self.directory(), [
            (1, 0, 16, 11, 1, ()), (2, 0, 17, -0.001, 1, (1,)),
            (3, 0, 18, 5, 1, (2,)), (4, 0, 18, 5, -1, ())])
        items, stats = reading.read_workload_with_stats(path)
        self.assertEqual(['0-1'], [item.id for item in items])
        self.assertEqual({'unknown submit time, run time or processors': 2,
                          'depends on a skipped task': 1}, stats['skipped'])

    def test_missing_column(self):
        path = self.directory()
        folder = os.path.join(path, 'tasks')
        os.makedirs(folder)
        pyarrow.parquet.write_table(pyarrow.table({'id': [1]}),
                                    os.path.join(folder, 'p.parquet'))
        error = self.assertRaises(exception.InvalidInput, wta.read_tasks(
            path).__next__)
        self.assertEqual('%s: tasks: field workflow_id: missing column'
                         % path, str(error))

    def test_not_a_number_and_nulls(self):
        path = self.directory()
        folder = os.path.join(path, 'tasks')
        os.makedirs(folder)
        pyarrow.parquet.write_table(pyarrow.table({
            'id': [1, 2], 'workflow_id': [0, 0], 'ts_submit': [0, 1000],
            'runtime': [1000, 1000],
            'resource_amount_requested': [1.0, float('nan')]}),
            os.path.join(folder, 'p.parquet'))
        error = self.assertRaises(exception.InvalidInput,
                                  reading.read_workload, path)
        self.assertIn('tasks: row 2: field resource_amount_requested',
                      str(error))
        pyarrow.parquet.write_table(pyarrow.table({
            'id': [1, 2], 'workflow_id': [0, None], 'ts_submit': [0, 1000],
            'runtime': [1000, 1000],
            'resource_amount_requested': [1.0, 1.0]}),
            os.path.join(folder, 'p.parquet'))
        error = self.assertRaises(exception.InvalidInput,
                                  reading.read_workload, path)
        self.assertIn('tasks: field workflow_id: 1 null value(s)',
                      str(error))

    def test_not_parquet(self):
        path = self.directory()
        os.makedirs(os.path.join(path, 'tasks'))
        with open(os.path.join(path, 'tasks', 'p.parquet'), 'w') as stream:
            stream.write('not parquet')
        error = self.assertRaises(exception.InvalidInput,
                                  reading.read_workload, path)
        self.assertIn('cannot read the parquet table', str(error))

    def test_duplicate_task(self):
        # Two rows of task 1 of workflow 0 used to reach the simulation,
        # which stopped with a traceback ("request '0-1' exists already").
        path = wta_traces.write_trace(self.directory(), [
            (1, 0, 16, 11, 1, ()), (2, 0, 17, 11, 1, ()),
            (1, 0, 40, 11, 1, ())])
        error = self.assertRaises(exception.InvalidInput,
                                  reading.read_workload, path)
        self.assertEqual('%s: tasks: row 3: field id: duplicate task 1 of '
                         'workflow 0 (first on row 1)' % path, str(error))

    def test_same_task_id_in_two_workflows(self):
        path = wta_traces.write_trace(self.directory(), [
            (1, 0, 16, 11, 1, ()), (1, 5, 17, 11, 1, ())])
        self.assertEqual(['0-1', '5-1'], [
            item.id for item in reading.read_workload(path)])

    def test_symlink_to_an_ancestor(self):
        # pyarrow followed it until the path was too long: every task
        # many times over.
        path = wta_traces.write_trace(self.directory(), TASKS)
        os.symlink('..', os.path.join(path, 'tasks', 'schema-1.0', 'up'))
        error = self.assertRaises(exception.InvalidInput,
                                  reading.read_workload, path)
        self.assertEqual('%s: tasks/schema-1.0/up: symbolic link loop (a '
                         'directory reached twice)' % path, str(error))

    def test_symlink_loop(self):
        path = wta_traces.write_trace(self.directory(), TASKS)
        tasks = os.path.join(path, 'tasks')
        os.symlink(os.path.join(tasks, 'b'), os.path.join(tasks, 'a'))
        os.symlink(os.path.join(tasks, 'a'), os.path.join(tasks, 'b'))
        error = self.assertRaises(exception.InvalidInput,
                                  reading.read_workload, path)
        self.assertIn('%s: tasks/a: cannot read: ' % path, str(error))
        self.assertIn('symbolic links', str(error))

    def test_special_files_are_refused_unread(self):
        path = wta_traces.write_trace(self.directory(), TASKS)
        os.mkfifo(os.path.join(path, 'tasks', 'part.1.parquet'))
        error = self.assertRaises(exception.InvalidInput,
                                  reading.read_workload, path)
        self.assertEqual('%s: tasks/part.1.parquet: not a regular file (a '
                         'FIFO)' % path, str(error))

    def test_hidden_files_are_left_out_as_pyarrow_does(self):
        path = wta_traces.write_trace(self.directory(), TASKS)
        for name in ('.part.1.parquet', '_SUCCESS'):
            with open(os.path.join(path, 'tasks', name), 'w') as stream:
                stream.write('not parquet')
        self.assertEqual(5, len(reading.read_workload(path)))

    def test_parents_that_are_not_a_list(self):
        # A float gave a traceback ("'float' object is not iterable"), a
        # string its characters as parents.
        for parents in ([1.5, None], ['12', None]):
            path = self.two_tasks(parents=parents)
            error = self.assertRaises(exception.InvalidInput,
                                      reading.read_workload, path)
            self.assertEqual(
                '%s: tasks: row 1: field parents: expected a list of task '
                'ids, got %r' % (path, parents[0]), str(error))
