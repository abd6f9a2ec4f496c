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

"""The fallback decision lock, within one process (between processes and
on tooz's backends: tests/functional/nova/test_coordination.py).
"""

import logging

import fixtures

from preemptible_sched.nova import coordination
from tests import base


class TestHostLock(base.TestCase):

    def setUp(self):
        super().setUp()
        self.lock_path = self.useFixture(fixtures.TempDir()).path
        self.log = self.useFixture(fixtures.FakeLogger(
            name=coordination.__name__, level=logging.INFO))

    def test_without_url_says_once_that_the_lock_is_local(self):
        lock = coordination.DecisionLock(None, 1.0, self.lock_path)
        for _ in range(3):
            with lock():
                pass
        self.assertEqual(1, self.log.output.count(
            'decisions are serialised among the workers of this host'))

    def test_held_lock_times_out_instead_of_waiting(self):
        """Two locks of one process share oslo.concurrency's semaphore: a
        second holder with timeout 0 is refused at once, and gets in once
        the first has left.
        """
        first = coordination.DecisionLock(None, 0.0, self.lock_path)
        second = coordination.DecisionLock(None, 0.0, self.lock_path)
        entered = []

        def enter():
            with second():
                entered.append('second')

        with first():
            error = self.assertRaises(coordination.LockTimeout, enter)
        self.assertEqual('the decision lock (this process) was not '
                         'acquired in 0.0 s', str(error))
        enter()
        self.assertEqual(['second'], entered)
