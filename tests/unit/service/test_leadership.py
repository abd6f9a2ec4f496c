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

"""The leader's keeper of its lease: deposed when a check fails or does
not answer before two thirds of the lease have passed.
"""

import threading
import time

from preemptible_sched.service import leadership
from tests import base

#: A short lease: checked every 0.1 s, given up after 0.27 s.
LEASE = 0.4


class Lease:

    def __init__(self, answers):
        self.answers = list(answers)
        self.checks = 0
        self.hang = threading.Event()

    def check(self):
        self.checks += 1
        answer = self.answers.pop(0) if self.answers else True
        if answer == 'hang':
            self.hang.wait(30)
            return True
        return answer


class TestKeeper(base.TestCase):

    def keep(self, lease):
        lost = []
        done = threading.Event()

        def on_lost(why):
            lost.append((why, time.monotonic()))
            done.set()
        keeper = leadership.Keeper(lease, LEASE, on_lost)
        started = time.monotonic()
        keeper.start()
        self.addCleanup(keeper.stop)
        self.addCleanup(lease.hang.set)
        return keeper, lost, done, started

    def test_a_held_lock_is_kept(self):
        lease = Lease([True] * 100)
        keeper, lost, done, _ = self.keep(lease)
        deadline = time.monotonic() + 30
        while lease.checks < 5 and time.monotonic() < deadline:
            time.sleep(0.02)
        self.assertGreaterEqual(lease.checks, 5)
        self.assertEqual([], lost)

    def test_a_failed_check_deposes_at_once(self):
        lease = Lease([True, True, False])
        keeper, lost, done, _ = self.keep(lease)
        self.assertTrue(done.wait(30))
        self.assertEqual(1, len(lost))
        self.assertIn('no longer holds', lost[0][0])
        checks = lease.checks
        time.sleep(LEASE)
        self.assertEqual(checks, lease.checks, 'checked after it was lost')

    def test_a_check_that_hangs_deposes_before_the_lease_ends(self):
        lease = Lease([True, 'hang'])
        keeper, lost, done, started = self.keep(lease)
        self.assertTrue(done.wait(30))
        self.assertIn('no check of the scheduler lock succeeded', lost[0][0])
        # The hanging check began at 0.2 s after the first success (at
        # 0.1 s); deposed when 2/3 of the lease had passed since then, not
        # after the hanging check came back.
        self.assertFalse(lease.hang.is_set())

    def test_a_keeper_stopped_during_a_check_calls_nothing(self):
        # The service stopped (SIGTERM) while the check failed: nothing
        # more to fence.
        lease = Lease([False])
        keeper, lost, done, _ = self.keep(lease)
        check = lease.check

        def stop_then_check():
            keeper.stop()
            return check()
        lease.check = stop_then_check
        deadline = time.monotonic() + 30
        while lease.checks < 1 and time.monotonic() < deadline:
            time.sleep(0.02)
        keeper._thread.join(30)
        self.assertFalse(keeper._thread.is_alive())
        self.assertEqual(1, lease.checks)
        self.assertEqual([], lost)
