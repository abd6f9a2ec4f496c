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

"""The directory of a finished cell
(:mod:`preemptible_sched.simulation.cell_files`): written whole or not
at all, done only when complete and written for the same inputs.
"""

import json
import os
import shutil
import tempfile
from unittest import mock

from pyarrow import parquet

from preemptible_sched.simulation import cell_files
from preemptible_sched.simulation import experiment
from preemptible_sched.simulation import metrics
from preemptible_sched.simulation import report
from tests import base

CELL = experiment.Cell('trace', 'qos', 0.9, 3)
DIGEST = 'a' * 64
FILES = ['cell.json', 'instances.csv', 'instances.parquet', 'stages.csv',
         'stages.parquet', 'summary.json']


def record(name, availability, service_class='gold'):
    return metrics.InstanceRecord(
        id=name, service_class=service_class, preemptible=False,
        submit_s=0.0, end_s=100.0, running_s=100.0 * availability,
        pending_s=100.0 * (1 - availability), overhead_s=0.0,
        availability=availability, preemptions=1, terminated=False,
        host='h1')


RECORDS = [record('r1', 0.75), record('r2', 0.5, 'bronze')]
STAGES = [(1, 0.0, 'F', 3, 4, 0.25, 0.125), (1, 0.0, 'W', 2, 4, 0.5, 0.25)]
SUMMARY = {'policy': 'qos', 'requests': 2}


class CellFilesCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.output = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.output, True)
        self.directory = os.path.join(self.output, CELL.path)

    def write(self, digest=DIGEST, summary=SUMMARY, records=RECORDS):
        cell_files.write(self.output, CELL, digest, summary, records,
                         STAGES)

    def leftovers(self):
        parent = os.path.dirname(self.directory)
        return [name for name in os.listdir(parent)
                if name.endswith('.tmp')]


class TestWrite(CellFilesCase):

    def test_files_and_manifest(self):
        self.write()
        self.assertEqual(FILES, sorted(os.listdir(self.directory)))
        with open(os.path.join(self.directory, 'cell.json')) as stream:
            manifest = json.load(stream)
        self.assertEqual({'workload': 'trace', 'policy': 'qos',
                          'size_factor': 0.9, 'seed': 3}, manifest['cell'])
        self.assertEqual(DIGEST, manifest['digest'])
        self.assertEqual(FILES[1:], sorted(manifest['files']))
        size = os.stat(os.path.join(self.directory, 'instances.csv')).st_size
        self.assertEqual(size, manifest['files']['instances.csv']['bytes'])
        self.assertEqual([], self.leftovers())

    def test_parquet_holds_the_records_as_typed_values(self):
        self.write()
        table = parquet.read_table(os.path.join(self.directory,
                                                'instances.parquet'))
        self.assertEqual([name for name, _ in report.INSTANCE_COLUMNS],
                         table.column_names)
        rows = table.to_pylist()
        self.assertEqual(['r1', 'r2'], [row['id'] for row in rows])
        self.assertEqual([0.75, 0.5], [row['availability'] for row in rows])
        self.assertEqual([1, 1], [row['preemptions'] for row in rows])
        stages = parquet.read_table(os.path.join(
            self.directory, 'stages.parquet')).to_pylist()
        self.assertEqual([0.25, 0.5], [row['wall_ms'] for row in stages])
        self.assertEqual(['F', 'W'], [row['stage'] for row in stages])

    def test_read_back(self):
        self.write()
        self.assertEqual(SUMMARY, cell_files.read_summary(self.output, CELL))
        back = cell_files.read_records(self.output, CELL)
        self.assertEqual([('gold', False, 0.75), ('bronze', False, 0.5)],
                         [(r.service_class, r.preemptible, r.availability)
                          for r in back])

    def test_a_failure_leaves_nothing(self):
        with mock.patch.object(cell_files, '_write_parquet',
                               side_effect=OSError(28, 'No space left')):
            self.assertRaises(OSError, self.write)
        self.assertFalse(os.path.exists(self.directory))
        self.assertEqual([], self.leftovers())

    def test_a_failure_keeps_the_cell_there(self):
        self.write()
        with mock.patch.object(cell_files, '_write_parquet',
                               side_effect=OSError(28, 'No space left')):
            self.assertRaises(OSError, self.write, digest='b' * 64,
                              summary={'policy': 'new'})
        self.assertTrue(cell_files.is_done(self.output, CELL, DIGEST))
        self.assertEqual(SUMMARY, cell_files.read_summary(self.output, CELL))

    def test_replaces_the_cell_of_other_inputs_whole(self):
        self.write()
        with open(os.path.join(self.directory, 'stray.txt'), 'w'):
            pass
        self.write(digest='b' * 64, summary={'policy': 'new'})
        self.assertEqual(FILES, sorted(os.listdir(self.directory)))
        self.assertEqual({'policy': 'new'},
                         cell_files.read_summary(self.output, CELL))
        self.assertEqual([], self.leftovers())

    def test_staging_left_by_a_killed_run_is_removed(self):
        os.makedirs(os.path.dirname(self.directory))
        stale = os.path.join(os.path.dirname(self.directory),
                             '.seed3.999999999.k1ll3d.tmp')
        os.mkdir(stale)
        cell_files.remove_stale(self.output, CELL)
        self.assertFalse(os.path.exists(stale))


class TestIsDone(CellFilesCase):

    def test_written_cell_is_done(self):
        self.write()
        self.assertTrue(cell_files.is_done(self.output, CELL, DIGEST))

    def test_missing_cell_is_not_done(self):
        self.assertFalse(cell_files.is_done(self.output, CELL, DIGEST))

    def test_other_inputs_are_not_done(self):
        self.write()
        self.assertFalse(cell_files.is_done(self.output, CELL, 'b' * 64))

    def test_other_cell_is_not_done(self):
        # The same files moved under another seed's name.
        self.write()
        other = experiment.Cell('trace', 'qos', 0.9, 4)
        shutil.copytree(self.directory, os.path.join(self.output,
                                                     other.path))
        self.assertFalse(cell_files.is_done(self.output, other, DIGEST))

    def test_truncated_or_missing_file_is_not_done(self):
        self.write()
        path = os.path.join(self.directory, 'instances.parquet')
        with open(path, 'r+b') as stream:
            stream.truncate(10)
        self.assertFalse(cell_files.is_done(self.output, CELL, DIGEST))
        self.write()
        os.unlink(os.path.join(self.directory, 'summary.json'))
        self.assertFalse(cell_files.is_done(self.output, CELL, DIGEST))

    def test_no_or_bad_manifest_is_not_done(self):
        # A directory of an earlier version (no manifest), or torn.
        self.write()
        manifest = os.path.join(self.directory, 'cell.json')
        with open(manifest, 'w') as stream:
            stream.write('{"layout": 1, ')
        self.assertFalse(cell_files.is_done(self.output, CELL, DIGEST))
        os.unlink(manifest)
        self.assertFalse(cell_files.is_done(self.output, CELL, DIGEST))

    def test_other_layout_is_not_done(self):
        self.write()
        with mock.patch.object(cell_files, 'LAYOUT', cell_files.LAYOUT + 1):
            self.assertFalse(cell_files.is_done(self.output, CELL, DIGEST))
