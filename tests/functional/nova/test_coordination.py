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

"""The decision lock between two OS processes, on each backend: tooz's
Redis driver (the local server), tooz's file driver (a folder the
schedulers share) and the fallback without ``coordination_url`` (the file
lock of oslo.concurrency in ``lock_path``).

Each process enters the lock ``ROUNDS`` times and, inside, appends an
``enter`` line, waits ``HOLD`` seconds (so that two holders would meet)
and appends an ``exit`` line, to one file opened for appending (each line
one write). The lock holds if the file reads enter/exit, enter/exit...
with the same process on both lines of each pair: 2 x ROUNDS pairs, never
two enters in a row. Without the lock the two processes' pairs interleave
(checked by making the lock a no-op: the test fails).
"""

import multiprocessing
import os
import time

import fixtures

from preemptible_sched.nova import coordination
from tests import base
from tests.functional.nova import test_decisions_across_processes as across

ROUNDS = 15
HOLD = 0.02


def _append(path, line):
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, (line + '\n').encode())
    finally:
        os.close(fd)


def _contend(name, url, lock_path, log_path, start):
    """One process: ROUNDS turns inside the lock, logged."""
    lock = coordination.DecisionLock(url, 60, lock_path, member=name)
    start.wait()
    for _ in range(ROUNDS):
        with lock():
            _append(log_path, 'enter %s %.6f' % (name, time.time()))
            time.sleep(HOLD)
            _append(log_path, 'exit %s %.6f' % (name, time.time()))
    lock.stop()


def _hold(url, lock_path, held, release):
    """Hold the lock until ``release`` is set (at most 60 s)."""
    lock = coordination.DecisionLock(url, 60, lock_path, member='holder')
    with lock():
        held.set()
        release.wait(60)
    lock.stop()


class LockBehaviour:
    """Subclasses give :meth:`lock_url` (None: the fallback)."""

    def setUp(self):
        super().setUp()
        self.folder = self.useFixture(fixtures.TempDir()).path
        self.lock_path = os.path.join(self.folder, 'locks')
        self.context = multiprocessing.get_context('spawn')

    def test_two_processes_never_hold_the_lock_at_once(self):
        log_path = os.path.join(self.folder, 'turns.log')
        start = self.context.Event()
        url = self.lock_url()
        processes = [
            self.context.Process(target=_contend, args=(
                name, url, self.lock_path, log_path, start))
            for name in ('p1', 'p2')]
        for process in processes:
            process.start()
        start.set()
        for process in processes:
            process.join(120)
            self.assertEqual(0, process.exitcode)
        with open(log_path) as turns:
            lines = [line.split() for line in turns]
        self.assertEqual(4 * ROUNDS, len(lines))
        pairs = [(lines[i], lines[i + 1]) for i in range(0, len(lines), 2)]
        self.assertEqual([('enter', 'exit')] * (2 * ROUNDS),
                         [(a[0], b[0]) for a, b in pairs])
        self.assertEqual([], [(a, b) for a, b in pairs if a[1] != b[1]])
        self.assertEqual({'p1': ROUNDS, 'p2': ROUNDS},
                         {name: sum(a[1] == name for a, _ in pairs)
                          for name in ('p1', 'p2')})
        # Each turn starts after the previous one ended.
        times = [float(line[2]) for line in lines]
        self.assertEqual(sorted(times), times)

    def test_bounded_wait_raises_lock_timeout(self):
        held, release = self.context.Event(), self.context.Event()
        holder = self.context.Process(
            target=_hold, args=(self.lock_url(), self.lock_path, held,
                                release))
        holder.start()
        self.addCleanup(holder.join, 60)
        self.addCleanup(release.set)
        self.assertTrue(held.wait(60))
        lock = coordination.DecisionLock(self.lock_url(), 0.2,
                                         self.lock_path, member='waiter')
        self.addCleanup(lock.stop)
        entered = []

        def enter():
            with lock():
                entered.append(True)

        error = self.assertRaises(coordination.LockTimeout, enter)
        self.assertEqual([], entered)
        self.assertIn('was not acquired in 0.2 s', str(error))
        release.set()
        holder.join(60)
        enter()
        self.assertEqual([True], entered)


class TestHostFileLock(LockBehaviour, base.TestCase):
    """No coordination_url: oslo.concurrency's file lock in lock_path."""

    def lock_url(self):
        return None


class TestToozFileDriver(LockBehaviour, base.TestCase):

    def lock_url(self):
        return 'file://%s' % os.path.join(self.folder, 'tooz')


class TestToozRedis(LockBehaviour, base.TestCase):

    def lock_url(self):
        return across.redis_url(self)
