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

"""Passes on an aligned quantum (``[scheduler] pass_mode = quantum``) and
workflow dependencies in the loop (stage T1)."""

from preemptible_sched import objects
from tests.functional.loop import fixtures

SMALL = objects.Resources(1, 1000, 10)


class TestQuantum(fixtures.LoopTestCase):

    def setUp(self):
        super().setUp()
        self.flags(group='scheduler', pass_mode='quantum', pass_quantum=10.0,
                   pass_phase=1.0, on_no_valid_host='wait')
        self.flags(group='fake_driver', boot_times_hot=[0.0],
                   boot_times_cold=[0.0])
        # A loop started under these options, on a driver that boots at
        # once.
        self.loop.stop()
        self.driver = fixtures.CountingDriver(self.clock, seed=1)
        self.loop = self.new_loop()
        self.admitted = {}
        self.loop.decision_observers.append(
            lambda entry, decision, now: self.admitted.setdefault(
                entry.id, (entry.admitted_at, now)))
        self.pass_times = []
        original = self.loop._pass

        def counting():
            self.pass_times.append(self.clock.now())
            original()
        self.loop._pass = counting

    def submit_at(self, when, name, duration=30.0, depends_on=()):
        self.clock.call_at(when, self.loop.submit, objects.RequestSpec(
            name, SMALL), duration, None, depends_on)

    def test_first_pass_at_the_phase_then_every_quantum(self):
        self.submit_at(0.5, 'a')
        self.submit_at(3.0, 'b')
        self.submit_at(11.0, 'c')
        self.submit_at(12.5, 'd')
        self.run_for(25)
        # The loop started at 0: its first pass waits for t = 1.
        self.assertEqual([1.0, 11.0, 21.0], self.pass_times[:3])
        # Recorded submit (admission) = the pass that received it; an
        # arrival at a pass's own time is received by that pass.
        self.assertEqual({'a': (1.0, 1.0), 'b': (11.0, 11.0),
                          'c': (11.0, 11.0), 'd': (21.0, 21.0)},
                         self.admitted)
        self.assertEqual(1.0, self.loop.store.get_instance('a').started_at)

    def test_arrival_at_a_slot_booked_after_it_is_received_by_it(self):
        # 'b' (at 5) books the pass at 11; 'c', arranged at 6 to arrive
        # at 11, is received by that pass all the same: a pass runs after
        # every event of its instant, whenever they were booked.
        self.submit_at(5.0, 'b')
        self.clock.call_at(6.0, self.submit_at, 11.0, 'c')
        self.run_for(25)
        self.assertEqual({'b': (11.0, 11.0), 'c': (11.0, 11.0)},
                         self.admitted)

    def test_no_passes_while_nothing_waits_or_runs(self):
        self.submit_at(2.0, 'a', duration=5.0)
        self.run_for(100)
        # 1: the start; 11: a placed; 21: its end (at 16) seen; then
        # nothing is due.
        self.assertEqual([1.0, 11.0, 21.0], self.pass_times)
        self.submit_at(133.0, 'b', duration=5.0)
        self.run_for(100)
        self.assertEqual([1.0, 11.0, 21.0, 141.0, 151.0], self.pass_times)

    def test_event_after_a_pass_waits_for_the_next_slot(self):
        # A zero-length task ends at the very time of the pass that
        # started it; its dependent goes in the next pass, not the same.
        self.submit_at(2.0, 'zero', duration=0.0)
        self.submit_at(2.0, 'next', depends_on=('zero',))
        self.run_for(30)
        self.assertEqual({'zero': (11.0, 11.0), 'next': (11.0, 21.0)},
                         self.admitted)


class TestDependencies(fixtures.LoopTestCase):

    hosts = 2

    def setUp(self):
        super().setUp()
        self.flags(group='scheduler', on_no_valid_host='wait')

    def submit(self, name, duration=10.0, depends_on=()):
        return self.loop.submit(objects.RequestSpec(name, SMALL), duration,
                                depends_on=depends_on)

    def test_task_starts_once_its_dependencies_ended(self):
        self.submit('a', duration=10.0)
        self.submit('b', duration=20.0)
        self.submit('c', depends_on=('a', 'b'))
        self.run_for(21)
        # Boot 2 s: a runs 2..12, b 2..22; c waits for both.
        self.assertEqual('pending', self.state('c'))
        self.run_for(1)
        self.assertEqual('building', self.state('c'))
        self.assertEqual(22.0,
                         self.loop.store.get_instance('c').scheduled_at)

    def test_dependents_of_a_failed_task_fail(self):
        self.submit('a')
        self.submit('b', depends_on=('a',))
        self.submit('c', depends_on=('b',))
        self.run_for(3)
        # Crashed while running (a failed boot would be retried).
        self.driver.crash_instance(self.loop.store.get_instance('a').host,
                                   'a')
        self.run_for(1)
        self.assertEqual(['error', 'error', 'error'],
                         [self.state(name) for name in 'abc'])
        self.assertEqual('failed', self.request_status('c'))
        self.assertEqual('dependency b ended in state error',
                         self.loop.store.get_request('c').reason)
