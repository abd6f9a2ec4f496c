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

"""A request failing as a whole (``loop/request_ends.py``), whatever
state each of its instances is in: waiting, claimed, building.
"""

from tests.functional.loop import test_reliability as reliability

BLADE = reliability.BLADE
MEDIUM = reliability.MEDIUM


class TestFailedRequest(reliability.ReliabilityTestCase):

    hosts = 1

    def test_building_instance_is_terminated_and_ends_in_error(self):
        self.flags(group='fake_driver', boot_times_hot=[30.0],
                   boot_times_cold=[30.0])
        self.new_driver()
        self.submit('a', MEDIUM)
        self.run_for(5)
        self.assertEqual('building', self.state('a'))
        self.loop.fail_request('a', 'its workflow was cancelled')
        self.run_for(60)
        row = self.loop.store.get_instance('a')
        self.assertEqual(('error', 'request a failed: its workflow was '
                          'cancelled'), (row.state, row.reason))
        decision = self.loop.store.get_decision(row.decision_id)
        self.assertEqual(('failed', row.reason),
                         (decision.state, decision.reason))
        self.assertEqual('failed', self.request_status('a'))
        self.assertEqual(['a'], self.driver.terminated)
        self.assertEqual([], self.running_on('host-A'))
        self.assert_db_is_compute()

    def test_waiting_request_is_never_placed(self):
        self.submit('busy', BLADE, duration=100.0)
        self.submit('w', MEDIUM)
        self.run_for(10)
        self.assertEqual('pending', self.state('w'))
        self.loop.fail_request('w', 'no longer wanted')
        # The blade frees up; the failed request is not in the queue.
        self.run_for(200)
        self.assertEqual('ended', self.state('busy'))
        row = self.loop.store.get_instance('w')
        self.assertEqual(('error', 'no longer wanted'),
                         (row.state, row.reason))
        self.assertNotIn('w', self.driver.spawned)
        self.assertEqual([], self.loop.store.unfinished_decisions())

    def test_failed_or_deleted_once_is_ended_once(self):
        # Failing it again, or failing a deleted request, changes nothing:
        # the first end and its reason stand, told once.
        self.submit('busy', BLADE, duration=100.0)
        self.submit('w', MEDIUM)
        self.submit('d', MEDIUM)
        self.run_for(10)
        self.loop.fail_request('w', 'no longer wanted')
        self.loop.delete('d')
        self.loop.fail_request('w', 'again')
        self.loop.fail_request('d', 'after its deletion')
        self.assertEqual(
            [('failed', 'no longer wanted'), ('deleted', None)],
            [(row.status, row.reason) for row in (
                self.loop.store.get_request('w'),
                self.loop.store.get_request('d'))])
        self.assertEqual(['w'], [
            event.request_id for event in
            self.loop.store.list_events(kind='request.failed')])

    def test_claimed_instance_gives_its_decision_up(self):
        # 'vip' is placed where 'spot' runs and waits for it to go (20 s);
        # meanwhile the request fails: its decision is given up, the
        # victim already asked to go goes, and nothing is spawned.
        self.displacing_spot('vip')
        row = self.loop.store.get_instance('vip')
        self.assertEqual('pending', row.state)
        self.assertIsNotNone(row.decision_id)
        self.loop.fail_request('vip', 'its dependency failed')
        decision = self.loop.store.get_decision(row.decision_id)
        self.assertEqual('rolled_back', decision.state)
        self.assertEqual(('error', 'its dependency failed'),
                         (self.state('vip'),
                          self.loop.store.get_instance('vip').reason))
        self.run_for(60)
        self.assertNotIn('vip', self.driver.spawned)
        self.assertEqual([], self.loop.store.unfinished_decisions())
        self.assert_db_is_compute()

    def requeued_victim_of(self, end):
        """'spot' is displaced by 'normal' (``on_victim = requeue``); while
        its termination runs, its request ends by ``end('spot')``. Returns
        its row once the termination is confirmed.
        """
        self.flags(group='scheduler', on_victim='requeue')
        self.displacing_spot()
        end('spot')
        self.assertEqual('terminating', self.state('spot'))
        self.run_for(60)
        self.assertEqual('running', self.state('normal'))
        self.assertEqual(['spot'], self.driver.terminated)
        self.assertEqual(['spot', 'normal'], self.driver.spawned)
        self.assertEqual([], list(self.loop.queue.entries))
        self.assert_db_is_compute()
        return self.loop.store.get_instance('spot')

    def test_displaced_instance_of_a_failed_request_is_not_queued_again(
            self):
        # Its displacement is confirmed after its request failed: it ends
        # in error with its request's reason instead of waiting again.
        row = self.requeued_victim_of(
            lambda request: self.loop.fail_request(request, 'cancelled'))
        self.assertEqual(('error', 'cancelled'), (row.state, row.reason))
        self.assertEqual('failed', self.request_status('spot'))

    def test_displaced_instance_of_a_deleted_request_is_deleted(self):
        row = self.requeued_victim_of(self.loop.delete)
        self.assertEqual('deleted', row.state)
        self.assertEqual('deleted', self.request_status('spot'))
