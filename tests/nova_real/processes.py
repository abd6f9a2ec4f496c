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

"""The processes of the test cloud: started, logged, stopped by their PID.

Each process is the leader of a session of its own, so that stopping it
also stops what it forked (gunicorn's workers) and a terminal's signals do
not reach it. A process is known by its PID and its start time (from
``/proc``), so that a PID the kernel gave to another process since is
never signalled. Processes started by a test are tied to it (the kernel
kills them if the test's process dies); those of ``cloud up`` outlive the
command, and ``cloud down`` stops them by the PIDs it saved.
"""

import ctypes
import os
import signal
import subprocess
import time

#: How long a process may take to stop after SIGTERM before SIGKILL.
STOP_WAIT = 30.0
_PR_SET_PDEATHSIG = 1


def _tie_to_parent():
    """In the child, before exec: SIGKILL when the parent dies."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def start_time(pid):
    """The start time of ``pid`` in clock ticks since boot, or None when
    there is no such process (or it is a zombie).
    """
    try:
        with open('/proc/%d/stat' % pid) as stream:
            fields = stream.read().rsplit(')', 1)[1].split()
    except (OSError, IndexError):
        return None
    # fields[0] is the state (field 3); field 22 is the start time.
    return None if fields[0] == 'Z' else int(fields[19])


class Process:
    """``argv`` run with its output appended to ``log_path``."""

    def __init__(self, name, argv, log_path, cwd=None, env=None, tied=True):
        self.name = name
        self.log_path = log_path
        with open(log_path, 'ab') as log:
            self.popen = subprocess.Popen(
                argv, stdout=log, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, cwd=cwd, env=env,
                start_new_session=True,
                preexec_fn=_tie_to_parent if tied else None)
        self.pid = self.popen.pid
        self.started = start_time(self.pid)

    def alive(self):
        return self.popen.poll() is None

    def kill(self):
        """``kill -9`` (and what it forked)."""
        kill(self.pid, self.started)
        self.popen.wait(STOP_WAIT)

    def stop(self):
        stop(self.pid, self.started, self.popen)

    def log(self):
        with open(self.log_path, errors='replace') as stream:
            return stream.read()


def _ours(pid, started):
    return started is not None and start_time(pid) == started


def kill(pid, started):
    """SIGKILL the session ``pid`` leads, if ``pid`` is still ours."""
    if _ours(pid, started):
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def stop(pid, started, popen=None, wait=STOP_WAIT):
    """SIGTERM ``pid``; SIGKILL its session if it has not stopped within
    ``wait`` seconds. ``popen`` reaps it when it is our child.
    """
    stop_all([(pid, started, popen)], wait)


def stop_all(targets, wait=STOP_WAIT):
    """Stop ``[(pid, started, popen or None)]`` at once: SIGTERM to each,
    a shared wait of ``wait`` seconds at most, then SIGKILL to the
    sessions they lead (what they forked goes with them).
    """
    targets = [target for target in targets if _ours(*target[:2])]
    for pid, _started, _popen in targets:
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline and any(
            _running(*target) for target in targets):
        time.sleep(0.1)
    for pid, _started, popen in targets:
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if popen is not None:
            popen.wait(wait)


def _running(pid, started, popen):
    if popen is not None:
        return popen.poll() is None
    return _ours(pid, started)
