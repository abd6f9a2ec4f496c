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

"""The workers of an experiment
(:mod:`preemptible_sched.simulation.cell_workers`): they exit with the
command they work for.
"""

import os
import signal
import subprocess
import sys
import tempfile
import time

from preemptible_sched.simulation import cell_workers
from tests import base

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))


# A command whose pool worker outlives it: the parent starts the
# experiment's worker pool, gives it work, says the worker's pid and is
# killed with SIGKILL.
_ORPHAN = """
import os, signal, time
from preemptible_sched.conf import CONF
from preemptible_sched.simulation import cell_workers
if __name__ == '__main__':
    CONF([], project='preemptible-sched', default_config_files=[],
         default_config_dirs=[])
    pool = cell_workers.worker_pool(1)
    pool.submit(time.sleep, 0.1).result()
    pid, = list(pool._processes)
    print(pid, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
"""


class TestWorkersOfAKilledCommand(base.TestCase):

    def test_worker_exits_when_the_command_is_killed(self):
        # Files, not pipes: an orphan would hold a pipe open.
        out = tempfile.TemporaryFile('w+')
        self.addCleanup(out.close)
        process = subprocess.run(
            [sys.executable, '-c', _ORPHAN], stdout=out, stderr=out,
            text=True, timeout=120, cwd=REPO)
        out.seek(0)
        said = out.read()
        self.assertEqual(-signal.SIGKILL, process.returncode, said)
        worker = int(said.split()[0])
        self.addCleanup(_kill, worker)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and _alive(worker):
            time.sleep(0.1)
        self.assertFalse(_alive(worker), 'worker %d outlived its command'
                         % worker)

    def test_worker_waits_while_its_command_runs(self):
        sleeps = []

        def sleep(interval):
            sleeps.append(interval)
            if len(sleeps) == 3:
                raise _Stop()

        def exit_(code):
            raise SystemExit(code)
        self.patch(cell_workers.os, 'getppid', lambda: 7)
        self.patch(cell_workers.time, 'sleep', sleep)
        self.patch(cell_workers.os, '_exit', exit_)
        self.assertRaises(_Stop, cell_workers.exit_with_parent, 7, 0.5)
        self.assertEqual([0.5] * 3, sleeps)
        # Another parent: it exits at once.
        self.assertRaises(SystemExit, cell_workers.exit_with_parent, 8)
        self.assertEqual(3, len(sleeps))


class _Stop(Exception):
    pass


def _kill(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass


def _alive(pid):
    """Whether ``pid`` runs (a zombie does not)."""
    try:
        with open('/proc/%d/stat' % pid) as stream:
            return stream.read().rsplit(')', 1)[-1].split()[0] != 'Z'
    except OSError:
        return False
