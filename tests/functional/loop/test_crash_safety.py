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

"""Crash the scheduler at every step between journal and spawn; restart.

After the restart from the database alone (new store handle, new memory,
same compute side), every request must be placed, no instance terminated
twice, no normal instance terminated, no host over capacity, and the
database must agree with what the compute side runs.
"""

from preemptible_sched.loop import executor
from tests.functional.loop import fixtures as loop_fixtures
from tests.functional.loop import test_reliability as reliability

Crash = loop_fixtures.Crash
MEDIUM = loop_fixtures.MEDIUM
LARGE = loop_fixtures.LARGE


class CrashSafetyTestCase(loop_fixtures.LoopTestCase):

    hosts = 2

    def fill(self):
        """Both blades full: 2 normal + 6 preemptible mediums."""
        names = ['n0', 'n1'] + ['p%d' % i for i in range(6)]
        for delay, name in enumerate(names):
            self.clock.call_at(delay * 60.0, self.submit, name, MEDIUM,
                               name.startswith('p'))
        self.run_for(len(names) * 60.0)
        for name in names:
            self.assertEqual('running', self.state(name), name)

    def crash_at(self, point, occurrence=1):
        seen = []

        def hook(where, **context):
            if where == point:
                seen.append(where)
                if len(seen) == occurrence:
                    raise Crash(point)
        self.loop.executor.crash_hook = hook

    def submit_and_crash(self, point, flavor=MEDIUM, occurrence=1):
        self.fill()
        self.crash_at(point, occurrence)
        self.submit('vip', flavor)
        self.assertRaises(Crash, self.run_for, 60)
        # The process is gone; another one starts from the database.
        self.loop.stop()
        self.loop = self.new_loop()
        self.run_for(60)

    def check_invariants(self, expected_victims):
        store = self.loop.store
        self.assertEqual('running', self.state('vip'))
        self.assertEqual('placed', store.get_request('vip').status)
        # Each victim terminated once, and only preemptible ones.
        self.assertEqual(sorted(set(self.driver.terminated)),
                         sorted(self.driver.terminated))
        self.assertEqual(expected_victims, len(self.driver.terminated))
        for victim in self.driver.terminated:
            self.assertTrue(store.get_instance(victim).preemptible)
            self.assertEqual('terminated', self.state(victim))
        self.assertEqual([], self.driver.refused)
        for host in ('host-A', 'host-B'):
            reported = {r.id for r in self.driver.list_instances(host)}
            in_db = {row.id for row in store.list_instances(
                host=host, states=('building', 'running'))}
            self.assertEqual(reported, in_db, host)
            used = self.driver.used(host)
            self.assertLessEqual(used.vcpus, 8)
            self.assertLessEqual(used.memory_mb, 16384)
            books = self.loop.host_manager.host_states[host]
            self.assertEqual(reported, set(books.instances), host)
        self.assertEqual([], store.unfinished_decisions())
        confirmations = store.list_events(
            kind='decision.termination_confirmed')
        self.assertEqual(expected_victims, len(confirmations))


class TestCrashBetweenJournalAndSpawn(CrashSafetyTestCase):

    def test_every_crash_point_is_known(self):
        self.assertEqual(('after_journal', 'after_notice',
                          'after_termination', 'before_spawn',
                          'after_spawn'), executor.CRASH_POINTS)

    def test_after_journal(self):
        self.submit_and_crash('after_journal')
        self.check_invariants(1)

    def test_after_notice(self):
        self.submit_and_crash('after_notice')
        self.check_invariants(1)

    def test_after_termination(self):
        self.submit_and_crash('after_termination')
        self.check_invariants(1)

    def test_before_spawn(self):
        self.submit_and_crash('before_spawn')
        self.check_invariants(1)

    def test_after_spawn(self):
        self.submit_and_crash('after_spawn')
        self.check_invariants(1)


class TestCrashWithSeveralVictims(CrashSafetyTestCase):
    """A large request needs two medium victims on one blade."""

    def test_after_journal(self):
        self.submit_and_crash('after_journal', LARGE)
        self.check_invariants(2)

    def test_after_first_termination(self):
        self.submit_and_crash('after_termination', LARGE, occurrence=1)
        self.check_invariants(2)

    def test_after_second_termination(self):
        self.submit_and_crash('after_termination', LARGE, occurrence=2)
        self.check_invariants(2)

    def test_before_spawn(self):
        self.submit_and_crash('before_spawn', LARGE)
        self.check_invariants(2)

    def test_crash_again_during_recovery(self):
        self.fill()
        self.crash_at('after_termination')
        self.submit('vip', LARGE)
        self.assertRaises(Crash, self.run_for, 60)
        self.loop.stop()
        # The second process dies too, while completing the decision.
        self.loop = self.new_loop(crash_at='before_spawn')
        self.assertRaises(Crash, self.run_for, 60)
        self.loop.stop()
        self.loop = self.new_loop()
        self.run_for(60)
        self.check_invariants(2)


class TestVictimGoneWhileDown(CrashSafetyTestCase):

    def test_victim_that_crashed_on_its_own_is_recorded_so(self):
        # The scheduler dies right after journaling a decision; meanwhile
        # its victim crashes by itself and the report is lost. The next
        # process finds it gone, reads how from its host, records it
        # failed (not ended, not terminated) and places the request.
        self.fill()
        self.crash_at('after_journal')
        self.submit('vip', MEDIUM)
        self.assertRaises(Crash, self.run_for, 60)
        self.loop.stop()
        [decision] = self.loop.store.unfinished_decisions()
        [victim] = decision.victims
        self.driver.events = reliability.Dropper(self.driver.events,
                                                 self.clock)
        self.driver.events.drop.add('instance_failed')
        self.driver.crash_instance(decision.host, victim, 'kernel panic')
        self.driver.events = self.driver.events.target
        self.loop = self.new_loop()
        self.run_for(60)
        row = self.loop.store.get_instance(victim)
        self.assertEqual(('error', 'kernel panic'), (row.state, row.reason))
        self.assertNotIn(victim, self.driver.terminated)
        self.assertEqual(('running', decision.host),
                         (self.state('vip'),
                          self.loop.store.get_instance('vip').host))
        self.assertEqual([], self.loop.store.unfinished_decisions())
