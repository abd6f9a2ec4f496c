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

"""``preemptible-sched experiment`` stopped and started again, and run on
a Dask cluster, as a separate process.

A sweep of 8 cells (two policies, four seeds) on 150 requests, one run
at a time: an uninterrupted run is the reference. Another is sent
SIGTERM (or SIGKILL) once two cells are written, then started again with
the same command: it runs only the missing cells and ends with the same
files (the instances byte for byte; the timings differ from run to run).
On a Dask ``LocalCluster`` of two worker processes on 127.0.0.1 the
files are the same as on the local pool, also when a worker is killed
in the middle of a cell.
"""

import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

from tests import base
from tests.unit.simulation import test_cells

CELLS = 8
#: Seconds a run may take at most, here on a busy machine.
WAIT = 600
DETERMINISTIC = ('instances.csv', 'instances.parquet')
#: What summary.json has that is measured anew by each run.
TIMED = ('wall_time_s', 'scheduling_latency_ms', 'stage_time_ms')
HAS_DASK = importlib.util.find_spec('distributed') is not None


def write_workload(path):
    test_cells.write_workload(path, 150, every=7)


def command(workload, output, *extra):
    return [sys.executable, '-m', 'preemptible_sched.cmd.sched',
            'experiment', '--workload', workload, '--hosts', '3',
            '--host-flavor', '4:8000:0', '--policies', 'qos,priority',
            '--seeds', '0,1,2,3', '--jobs', '1', '--no-plots',
            '--output', output] + list(extra)


def finished(output):
    """The cells written so far (their manifest is there)."""
    return sorted(os.path.relpath(root, output)
                  for root, _dirs, names in os.walk(output)
                  if 'cell.json' in names)


def wait_for(predicate, process=None):
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        if predicate():
            return True
        if process is not None and process.poll() is not None:
            return predicate()
        time.sleep(0.05)
    return False


cell_files = base.tree_bytes


#: The uninterrupted run on the local pool, made once for the module.
_REFERENCE = {}


def reference():
    """``(tmp, workload, reference output, its files)``."""
    if not _REFERENCE:
        tmp = tempfile.mkdtemp()
        workload = os.path.join(tmp, 'small.csv')
        write_workload(workload)
        output = os.path.join(tmp, 'reference')
        done = subprocess.run(command(workload, output),
                              capture_output=True, text=True, timeout=WAIT)
        if done.returncode != 0:
            shutil.rmtree(tmp, True)
            raise AssertionError(done.stderr)
        _REFERENCE.update(tmp=tmp, workload=workload, output=output,
                          files=cell_files(output))
    return _REFERENCE


def tearDownModule():
    if _REFERENCE:
        shutil.rmtree(_REFERENCE['tmp'], True)


class ResumeCase(base.TestCase):

    # Each test runs the command once or twice on 8 cells, and the Dask
    # ones start a cluster: more than OS_TEST_TIMEOUT on a busy machine.
    TIMEOUT_SCALING_FACTOR = 4

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        made = reference()
        cls.workload = made['workload']
        cls.reference = made['output']
        cls.reference_files = made['files']
        cls.tmp = tempfile.mkdtemp()
        cls.addClassCleanup(shutil.rmtree, cls.tmp, True)

    def assertSameOutputs(self, output):
        mine = cell_files(output)
        self.assertEqual(sorted(self.reference_files), sorted(mine))
        self.assertEqual(CELLS, len(finished(output)))
        for name, content in self.reference_files.items():
            if os.path.basename(name) in DETERMINISTIC:
                self.assertEqual(content, mine[name], name)
            elif name.endswith('summary.json'):
                # The same but for the wall-clock timings.
                expected, actual = (
                    {key: value for key, value in json.loads(text).items()
                     if key not in TIMED}
                    for text in (content, mine[name]))
                self.assertEqual(expected, actual, name)
            elif name.endswith('cell.json'):
                # The same cell and digest; the same instances files.
                expected, actual = (json.loads(text)
                                    for text in (content, mine[name]))
                for manifest in (expected, actual):
                    for timed in ('stages.csv', 'stages.parquet',
                                  'summary.json'):
                        del manifest['files'][timed]
                self.assertEqual(expected, actual, name)
        self.assertEqual([], [name for name in os.listdir(self.tmp)
                              if name.endswith('.tmp')])

    def stop_after_two_cells(self, output, signum):
        process = subprocess.Popen(command(self.workload, output),
                                   stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
        self.addCleanup(process.kill)
        self.assertTrue(wait_for(lambda: len(finished(output)) >= 2,
                                 process))
        process.send_signal(signum)
        _out, err = process.communicate(timeout=WAIT)
        return process.returncode, err


class TestResume(ResumeCase):

    def resume(self, output):
        kept = finished(output)
        self.assertLess(len(kept), CELLS)
        done = subprocess.run(command(self.workload, output),
                              capture_output=True, text=True, timeout=WAIT)
        self.assertEqual(0, done.returncode, done.stderr)
        self.assertIn('%d of %d runs already done' % (len(kept), CELLS),
                      done.stderr)
        self.assertIn('(%d done by an earlier run)' % len(kept),
                      done.stdout)
        self.assertSameOutputs(output)

    def test_sigterm_then_again(self):
        output = os.path.join(self.tmp, 'term')
        code, err = self.stop_after_two_cells(output, signal.SIGTERM)
        self.assertEqual(143, code, err)
        self.assertIn('run the same command again', err)
        self.assertNotIn('Traceback', err)
        self.assertFalse(os.path.exists(os.path.join(output,
                                                     'comparison.csv')))
        self.resume(output)

    def test_sigkill_then_again(self):
        output = os.path.join(self.tmp, 'kill')
        code, _err = self.stop_after_two_cells(output, signal.SIGKILL)
        self.assertEqual(-9, code)
        # Every cell directory there is complete.
        for root, dirs, names in os.walk(output):
            dirs[:] = [name for name in dirs if not name.endswith('.tmp')]
            if names:
                self.assertIn('cell.json', names, root)
        self.resume(output)

    def test_again_when_done_runs_nothing(self):
        output = os.path.join(self.tmp, 'again')
        shutil.copytree(self.reference, output)
        done = subprocess.run(command(self.workload, output),
                              capture_output=True, text=True, timeout=WAIT)
        self.assertEqual(0, done.returncode, done.stderr)
        self.assertIn('8 of 8 runs already done', done.stderr)
        mine = cell_files(output)
        # report.html names the command that made it: this one.
        self.assertIn('--output %s' % output,
                      mine.pop('report.html').decode('utf-8'))
        expected = dict(self.reference_files)
        expected.pop('report.html')
        self.assertEqual(expected, mine)


def _executing(dask_worker):
    """The keys of the tasks a Dask worker is running."""
    return [str(task.key) for task in dask_worker.state.executing]


@unittest.skipUnless(HAS_DASK, 'distributed is not installed')
class TestDask(ResumeCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        import distributed
        cls.cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True,
            host='127.0.0.1', dashboard_address=None)
        cls.addClassCleanup(cls.cluster.close)
        cls.client = distributed.Client(cls.cluster)
        cls.addClassCleanup(cls.client.close)

    def dask_command(self, output):
        return command(self.workload, output, '--executor', 'dask',
                       '--scheduler-address', self.cluster.scheduler_address)

    def test_same_outputs_as_the_local_pool(self):
        output = os.path.join(self.tmp, 'dask')
        done = subprocess.run(self.dask_command(output), capture_output=True,
                              text=True, timeout=WAIT)
        self.assertEqual(0, done.returncode, done.stderr)
        self.assertSameOutputs(output)

    def test_worker_killed_in_a_cell_runs_it_again(self):
        output = os.path.join(self.tmp, 'dask-killed')
        process = subprocess.Popen(self.dask_command(output),
                                   stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
        self.addCleanup(process.kill)
        running = {}

        def a_cell_runs():
            running.clear()
            running.update({address: keys for address, keys in
                            self.client.run(_executing).items() if keys})
            return bool(running)

        self.assertTrue(wait_for(a_cell_runs, process))
        address, (key, *_rest) = next(iter(running.items()))
        pid = self.client.run(os.getpid, workers=[address])[address]
        os.kill(pid, signal.SIGKILL)
        _out, err = process.communicate(timeout=WAIT)
        self.assertEqual(0, process.returncode, err)
        # The scheduler gave the cell to a worker again.
        story = self.cluster.scheduler.story(key)
        self.assertGreaterEqual(
            len([entry for entry in story if entry[2] == 'processing']), 2,
            story)
        self.assertSameOutputs(output)
