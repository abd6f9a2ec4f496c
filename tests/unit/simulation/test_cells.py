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

"""Running an experiment's cells (:mod:`preemptible_sched.simulation.cells`)
on an executor that runs them here, one after the other: a run stopped
after some cells keeps them, the next runs only the others and ends with
the same files; a changed input runs a cell again.
"""

import concurrent.futures
import os
import pickle
import shutil
import tempfile

from preemptible_sched.simulation import cell_workers
from preemptible_sched.simulation import cells
from preemptible_sched.simulation import experiment
from preemptible_sched.simulation import experiment_plan
from preemptible_sched.simulation import infrastructure
from preemptible_sched.simulation.traces import reading
from tests import base

POLICIES = ['qos', 'priority']
SEEDS = [0, 1]
DETERMINISTIC = ('instances.csv', 'instances.parquet')


def write_workload(path, count, every=10):
    """``count`` requests of the three classes, one every ``every`` s."""
    with open(path, 'w') as stream:
        stream.write('id,submit_s,duration_s,vcpus,memory_mb,disk_gb,'
                     'service_class,preemptible,constraints\n')
        for index in range(count):
            stream.write('r%03d,%d,%d,%d,1000,0,%s,false,\n' % (
                index, index * every, 100 + 37 * index % 300,
                1 + index % 2, ('gold', 'silver', 'bronze')[index % 3]))


class Stop(BaseException):
    """Stands for SIGTERM between two cells."""


class InlineCells:
    """Runs each cell here when submitted; stops after ``stop_after``."""

    def __init__(self, jobs, workloads, stop_after=None):
        self.workloads = workloads
        self.stop_after = stop_after
        self.ran = []
        self.closed = None

    def submit(self, task):
        future = concurrent.futures.Future()
        future.set_result(cell_workers.run_cell(
            task, self.workloads[task.workload]))
        self.ran.append(task.cell)
        return future

    def as_completed(self, futures):
        for done, future in enumerate(futures):
            if done == self.stop_after:
                raise Stop()
            yield future

    def close(self, abort=False):
        self.closed = 'aborted' if abort else 'done'


class CellsCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.executors = []

    def plan(self, count=12):
        path = os.path.join(self.tmp, 'w%d.csv' % count)
        write_workload(path, count)
        items = reading.read_workload(path)
        hosts = infrastructure.hosts_from_flavor(2, '4:8000:0')
        return experiment_plan.Plan(
            workloads={'w': (path, items)}, policies=POLICIES,
            size_factors=[None], seeds=SEEDS,
            hosts={('w', None, seed): hosts for seed in SEEDS},
            classes=['gold', 'silver', 'bronze'], slos={}, jobs=2)

    def executor(self, stop_after=None):
        def make(jobs, workloads):
            executor = InlineCells(jobs, workloads, stop_after)
            self.executors.append(executor)
            return executor
        return make

    def run_into(self, output, plan=None, until=None, stop_after=None):
        return cells.run(plan or self.plan(), output, until, False,
                         executor=self.executor(stop_after))

    def files(self, output):
        return base.tree_bytes(output)


class TestResume(CellsCase):

    def test_stopped_run_resumed_ends_with_the_same_cells(self):
        whole = os.path.join(self.tmp, 'whole')
        self.run_into(whole)
        output = os.path.join(self.tmp, 'out')
        self.assertRaises(Stop, self.run_into, output, stop_after=2)
        self.assertEqual('aborted', self.executors[-1].closed)
        design = experiment.design(['w'], POLICIES, [None], SEEDS)
        finished = design[:2]
        self.assertEqual(
            sorted(cell.path for cell in finished),
            sorted(os.path.relpath(root, output)
                   for root, _dirs, names in os.walk(output)
                   if 'cell.json' in names))
        self.assertFalse(os.path.exists(os.path.join(output,
                                                     'comparison.csv')))
        kept = {cell: os.stat(os.path.join(output, cell.path,
                                           'summary.json')).st_mtime_ns
                for cell in finished}

        outcome = self.run_into(output)
        self.assertEqual(design[2:], outcome.ran)
        self.assertEqual(design[2:], self.executors[-1].ran)
        self.assertEqual(design, outcome.cells)
        for cell, mtime in kept.items():
            self.assertEqual(mtime, os.stat(os.path.join(
                output, cell.path, 'summary.json')).st_mtime_ns)
        mine, reference = self.files(output), self.files(whole)
        self.assertEqual(sorted(reference), sorted(mine))
        for name in reference:
            if os.path.basename(name) in DETERMINISTIC:
                self.assertEqual(reference[name], mine[name], name)

    def test_nothing_left_runs_nothing_and_rebuilds_the_same_files(self):
        output = os.path.join(self.tmp, 'out')
        self.run_into(output)
        before = self.files(output)
        outcome = self.run_into(output)
        self.assertEqual([], outcome.ran)
        self.assertEqual(4, len(outcome.cells))
        self.assertEqual(before, self.files(output))

    def test_changed_input_runs_again(self):
        output = os.path.join(self.tmp, 'out')
        self.run_into(output)
        outcome = self.run_into(output, until=5000.0)
        self.assertEqual(4, len(outcome.ran))
        outcome = self.run_into(output, plan=self.plan(count=11),
                                until=5000.0)
        self.assertEqual(4, len(outcome.ran))
        outcome = self.run_into(output, plan=self.plan(count=11),
                                until=5000.0)
        self.assertEqual([], outcome.ran)

    def test_a_changed_configuration_file_runs_again(self):
        config = os.path.join(self.tmp, 'sched.conf')
        with open(config, 'w') as stream:
            stream.write('[qos]\nslo_tolerance = 0.05\n')
        self.patch(cell_workers, 'configured_paths',
                   lambda: ((config,), ()))
        first, _ = cells.tasks_of(self.plan(), None)
        with open(config, 'w') as stream:
            stream.write('[qos]\nslo_tolerance = 0.01\n')
        second, _ = cells.tasks_of(self.plan(), None)
        self.assertEqual(4, len({task.digest for task in first}))
        self.assertFalse({task.digest for task in first} &
                         {task.digest for task in second})


class TestWorkloadShippedOnce(CellsCase):

    def test_one_workload_for_every_cell(self):
        tasks, workloads = cells.tasks_of(self.plan(), None)
        self.assertEqual(1, len(workloads))
        self.assertEqual({next(iter(workloads))},
                         {task.workload for task in tasks})

    def test_a_task_does_not_carry_its_workload(self):
        small, _ = cells.tasks_of(self.plan(count=10), None)
        large, _ = cells.tasks_of(self.plan(count=1000), None)
        self.assertEqual(
            len(pickle.dumps(small[0])) + len('w1000') - len('w10'),
            len(pickle.dumps(large[0])))
