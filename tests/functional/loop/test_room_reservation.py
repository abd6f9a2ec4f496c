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

"""Room made is room reserved: until a victim is confirmed gone, nobody but
the request that displaced it may use its room, and nobody may choose it
as a victim again."""

from preemptible_sched import objects
from tests.functional.loop import fixtures as loop_fixtures

HALF = objects.Flavor('half', 4, 8000, 80)
QUARTER = objects.Flavor('quarter', 2, 4000, 40)


class TestRoomReservation(loop_fixtures.LoopTestCase):

    def setUp(self):
        super().setUp()
        # Grace 10 s, terminations take 20 s: a victim's room is not free
        # for 30 s after the decision.
        self.flags(group='preemptible', termination_grace_seconds=10.0)
        self.flags(group='fake_driver', termination_seconds=20.0)
        self.flags(group='scheduler', on_no_valid_host='wait')
        self.loop.stop()
        self.driver = loop_fixtures.CountingDriver(self.clock, seed=1)
        self.loop = self.new_loop()
        # One blade: a normal half, a preemptible half (P1).
        self.submit('normal', HALF)
        self.submit('p1', HALF, preemptible=True)
        self.run_for(10)

    def test_room_being_emptied_is_not_used_by_another_request(self):
        # R1 (normal, a quarter) terminates P1; a second later R2
        # (preemptible, a quarter) fits only in P1's room. It must wait
        # for P1 to be gone instead of being spawned onto a full host.
        self.submit('r1', QUARTER)
        self.run_for(1)
        self.submit('r2', QUARTER, preemptible=True)
        self.run_for(5)
        self.assertEqual('terminating', self.state('p1'))
        self.assertEqual('pending', self.state('r2'))
        self.assertIsNone(self.loop.store.get_instance('r2').host)
        self.run_for(60)
        self.assertEqual('terminated', self.state('p1'))
        self.assertEqual('running', self.state('r1'))
        self.assertEqual('running', self.state('r2'))
        self.assertEqual([], self.driver.refused)
        self.assertEqual(['p1'], self.driver.terminated)

    def test_a_victim_is_never_chosen_twice(self):
        # Two normal quarters in a row: the first takes P1; the second
        # must not choose P1 again (it waits for room instead).
        self.submit('r1', QUARTER)
        self.run_for(1)
        self.submit('r3', QUARTER)
        self.run_for(60)
        decisions = [self.loop.store.get_decision(self.loop.store.
                                                  get_instance(name).
                                                  decision_id)
                     for name in ('r1', 'r3')
                     if self.loop.store.get_instance(name).decision_id]
        victims = [victim for decision in decisions
                   for victim in decision.victims]
        self.assertEqual(len(victims), len(set(victims)))
        self.assertEqual(['p1'], self.driver.terminated)
        self.assertEqual('running', self.state('r1'))
        self.assertEqual('running', self.state('r3'))

    def test_a_restart_during_the_termination_keeps_the_room_reserved(self):
        self.submit('r1', QUARTER)
        self.run_for(1)
        self.loop.stop()
        self.loop = self.new_loop()
        self.submit('r2', QUARTER, preemptible=True)
        self.run_for(5)
        self.assertEqual('pending', self.state('r2'))
        self.assertIsNone(self.loop.store.get_instance('r2').host)
        self.run_for(60)
        self.assertEqual('running', self.state('r2'))
        self.assertEqual([], self.driver.refused)
