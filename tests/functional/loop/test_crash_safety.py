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

import dataclasses

from preemptible_sched import compute
from preemptible_sched.loop import executor
from preemptible_sched import objects
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

        def hook(where):
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

    def crash_after_journal(self):
        """Both blades full; the scheduler dies right after journaling the
        decision placing 'vip' (a medium) over one victim. Returns the
        decision and its victim.
        """
        self.fill()
        self.crash_at('after_journal')
        self.submit('vip', MEDIUM)
        self.assertRaises(Crash, self.run_for, 60)
        self.loop.stop()
        [decision] = self.loop.store.unfinished_decisions()
        [victim] = decision.victims
        return decision, victim

    def check_invariants(self, expected_victims):
        store = self.loop.store
        self.assertEqual('running', self.state('vip'))
        self.assertEqual('placed', store.get_request('vip').status)
        # Each victim terminated once, and only preemptible ones.
        self.assertEqual(sorted(set(self.driver.terminated)),
                         sorted(self.driver.terminated))
        self.assertEqual(expected_victims, len(self.driver.terminated))
        went = {record.id: record.ended_at
                for host in ('host-A', 'host-B')
                for record in self.driver.finished_instances(host)}
        for victim in self.driver.terminated:
            row = store.get_instance(victim)
            self.assertTrue(row.preemptible)
            self.assertEqual('terminated', row.state)
            # Its run ends when its host says it went, however late the
            # scheduler learnt it.
            self.assertEqual(went[victim], row.ended_at)
            self.assertEqual(row.ended_at, row.updated_at)
            self.assertAlmostEqual(row.ended_at - row.started_at,
                                   row.running_s)
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
        # Nothing is awaited any more.
        self.assertEqual([], list(self.loop.executor.deadlines))


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

    def test_interrupted_victim_is_held_for_its_request_on_restart(self):
        # Rebuilt from the journal, the victim whose termination the crash
        # interrupted keeps its room for 'vip' and is no candidate victim
        # for anyone else.
        decision, victim = self.crash_after_journal()
        self.loop = self.new_loop()
        books = self.loop.host_manager.host_states[decision.host]
        self.assertEqual({victim: 'vip'}, books.terminating)
        self.assertNotIn(victim, books.preemptible_instances)
        self.run_for(60)
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
        decision, victim = self.crash_after_journal()
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

    def test_victim_that_ended_on_its_own_is_recorded_so(self):
        # The same, its victim reaching its end by itself: recorded ended.
        decision, victim = self.crash_after_journal()
        self.driver.events = reliability.Dropper(self.driver.events,
                                                 self.clock)
        self.driver.events.drop.add('instance_ended')
        fake_host = self.driver._hosts[decision.host]
        self.driver._ended(fake_host, fake_host.instances[victim])
        self.driver.events = self.driver.events.target
        self.loop = self.new_loop()
        self.run_for(60)
        row = self.loop.store.get_instance(victim)
        self.assertEqual(('ended', None), (row.state, row.reason))
        self.assertNotIn(victim, self.driver.terminated)
        self.assertEqual(('running', decision.host),
                         (self.state('vip'),
                          self.loop.store.get_instance('vip').host))
        self.assertEqual([], self.loop.store.unfinished_decisions())


class TestHostUnreachableAtRestart(CrashSafetyTestCase):

    def test_spawn_on_it_waits_for_its_reports(self):
        # The scheduler dies right after spawning 'vip'; the next process
        # cannot ask that host at start-up. The spawn is watched, not
        # rolled back, and its deadline, passed while the host is away,
        # waits on: it runs where it was sent, and only once.
        self.flags(group='scheduler', compute_deadline=60.0)
        self.fill()
        self.crash_at('after_spawn')
        self.submit('vip', MEDIUM)
        self.assertRaises(Crash, self.run_for, 60)
        self.loop.stop()
        [decision] = self.loop.store.unfinished_decisions()
        specs = self.driver.host_specs
        self.driver.host_specs = lambda: [
            dataclasses.replace(spec, up=spec.name != decision.host)
            for spec in specs()]
        self.loop = self.new_loop()
        # Its boot's report is lost too: only asking the host can tell.
        self.driver.events = reliability.Dropper(self.loop.lifecycle,
                                                 self.clock)
        self.driver.events.drop.add('instance_started')
        self.run_for(150)
        self.assertEqual([], self.loop.store.list_events(
            kind='decision.rolled_back'))
        self.assertEqual('building', self.state('vip'))
        [booted] = [report for report in self.driver.list_instances(
            decision.host) if report.id == 'vip']
        self.loop.lifecycle.host_up(decision.host, self.clock.now())
        self.run_for(60)
        row = self.loop.store.get_instance('vip')
        self.assertEqual(('running', decision.host, booted.started_at),
                         (row.state, row.host, row.started_at))
        self.assertEqual(1, self.driver.spawned.count('vip'))
        self.assertEqual('done',
                         self.loop.store.get_decision(decision.id).state)
        self.assertEqual([], list(self.loop.executor.deadlines))

    def test_the_decisions_after_it_are_recovered_all_the_same(self):
        # Two decisions in flight at a restart: 'big' building on one
        # blade, and after it 'normal' waiting for 'spot' to go on the
        # other; the first blade cannot be asked at start-up. Its spawn is
        # watched, and the recovery goes on to the next decision, whose
        # victim's end was reported to no one: it is asked about again,
        # and 'normal' runs.
        blade = reliability.BLADE
        self.flags(group='fake_driver', boot_times_hot=[30.0],
                   boot_times_cold=[30.0], termination_seconds=20.0)
        self.loop.stop()
        self.driver = loop_fixtures.CountingDriver(self.clock, seed=1)
        self.loop = self.new_loop()
        self.submit('spot', blade, preemptible=True)
        self.run_for(40)
        self.submit('big', blade)
        self.run_for(1)
        self.submit('normal', blade)
        self.run_for(5)
        self.assertEqual(('building', 'terminating'),
                         (self.state('big'), self.state('spot')))
        away = self.loop.store.get_instance('big').host
        self.assertEqual(['big', 'normal'], [
            self.loop.store.get_instance(d.instance_id).id
            for d in self.loop.store.unfinished_decisions()])
        # The process is gone: its reports go nowhere until another starts.
        self.loop.stop()
        self.driver.events = compute.ComputeEvents()
        answer = self.driver.list_instances
        unanswered = []

        def list_instances(host):
            if host == away and not unanswered:
                unanswered.append(host)
                raise TimeoutError('no answer from %s' % host)
            return answer(host)
        self.driver.list_instances = list_instances
        self.loop = self.new_loop()
        self.assertEqual([away], unanswered)
        self.run_for(120)
        self.assertEqual(('running', 'running', 'terminated'),
                         tuple(self.state(name)
                               for name in ('big', 'normal', 'spot')))
        self.assertEqual(['spot', 'big', 'normal'], self.driver.spawned)
        self.assertEqual([], self.loop.store.unfinished_decisions())


class TestTerminationsResumedAtRestart(loop_fixtures.LoopTestCase):
    """The scheduler dies between journaling that a request ends and
    terminating what it runs: the next process terminates it.
    """

    def setUp(self):
        super().setUp()
        self.flags(group='fake_driver', boot_times_hot=[30.0],
                   boot_times_cold=[30.0])
        self.loop.stop()
        self.driver = loop_fixtures.CountingDriver(self.clock, seed=1)
        self.loop = self.new_loop()

    def crash_in_terminate(self, end):
        def crash(host, instance_id):
            raise Crash('terminate')
        self.driver.terminate = crash
        self.assertRaises(Crash, end)
        del self.driver.terminate
        self.loop.stop()
        self.loop = self.new_loop()
        self.run_for(30)

    def assert_gone(self, instance_id, state, reason=None):
        row = self.loop.store.get_instance(instance_id)
        self.assertEqual((state, reason), (row.state, row.reason))
        self.assertEqual([instance_id], self.driver.terminated)
        self.assertEqual([], self.driver.list_instances('host-A'))
        self.assertEqual({}, self.loop.host_manager.host_states[
            'host-A'].instances)

    def test_deleted_running_instance(self):
        self.submit('a')
        self.run_for(40)
        self.assertEqual('running', self.state('a'))
        self.crash_in_terminate(lambda: self.loop.delete('a'))
        self.assert_gone('a', 'deleted')

    def test_deleted_building_instance(self):
        self.submit('a')
        self.run_for(5)
        self.assertEqual('building', self.state('a'))
        self.crash_in_terminate(lambda: self.loop.delete('a'))
        self.assert_gone('a', 'deleted')

    def test_instance_of_a_failed_request(self):
        self.submit('a')
        self.run_for(40)
        self.crash_in_terminate(
            lambda: self.loop.fail_request('a', 'its dependency failed'))
        self.assert_gone('a', 'error', 'request a failed')


class TestQueueRebuiltAtRestart(CrashSafetyTestCase):
    """What waits in the queue is rebuilt from the database at a restart,
    each request with what it was submitted with (its image: the fake
    driver boots anything else from its default image).
    """

    def test_waiting_and_displaced_instances_keep_their_image(self):
        self.flags(group='scheduler', on_victim='requeue',
                   on_no_valid_host='wait')
        self.fill()
        # 'late' (preemptible) finds no room; 'vip' displaces a
        # preemptible medium, which waits again, displaced.
        self.submit('late', MEDIUM, True)
        self.submit('vip', MEDIUM)
        self.run_for(60)
        self.assertEqual('running', self.state('vip'))
        [displaced] = [row for row in self.loop.store.list_instances(
            states=('pending',)) if row.preemptions]
        self.assertEqual('pending', self.state('late'))
        self.loop.stop()
        self.loop = self.new_loop()
        self.run_for(60)
        self.assertEqual(
            {'late', displaced.id},
            {entry.id for entry in self.loop.queue.entries.values()})
        # Room for both: the two normal instances go.
        self.loop.delete('n0')
        self.loop.delete('n1')
        self.run_for(120)
        self.assertEqual('running', self.state('late'))
        self.assertEqual('running', self.state(displaced.id))
        self.assertEqual(1, self.loop.store.get_instance(
            displaced.id).preemptions)
        self.assertEqual({'cirros'}, self.driver.images('host-A') |
                         self.driver.images('host-B'))

    def test_displaced_instance_of_a_pair_waits_alone(self):
        self.flags(group='scheduler', on_victim='requeue',
                   on_no_valid_host='wait')
        self.loop.stop()
        self.loop = self.new_loop()
        blade = objects.Flavor('blade', 8, 16000, 160)
        self.loop.submit(objects.RequestSpec(
            'pair', blade.resources, True, flavor=blade.name,
            num_instances=2), image='cirros')
        self.run_for(30)
        self.submit('vip', blade)
        self.run_for(60)
        [displaced] = self.loop.store.list_instances(states=('pending',))
        self.loop.stop()
        self.loop = self.new_loop()
        self.run_for(1)
        [entry] = self.loop.queue.entries.values()
        self.assertEqual((1, (displaced.id,)), (
            entry.spec.num_instances, tuple(entry.spec.instance_ids)))
        self.loop.delete('vip')
        self.run_for(60)
        rows = self.loop.store.list_instances(request_id='pair')
        self.assertEqual(['running', 'running'],
                         [row.state for row in rows])
        self.assertEqual(2, self.driver.spawned.count(displaced.id))
        self.assertEqual([], self.driver.refused)


class TestBooksRebuiltAtRestart(CrashSafetyTestCase):
    """The books a restarted loop rebuilds from the database are the ones
    the loop kept: what the strategies, weighers and filters read of each
    instance (its size, kind, class, group, flavor and account).
    """

    FIELDS = ('resources', 'preemptible', 'started_at', 'flavor',
              'service_class', 'priority', 'group', 'running_s',
              'overhead_s', 'running_since', 'expected_vcpus')

    def books(self):
        return {
            (host, instance_id): tuple(getattr(instance, field)
                                       for field in self.FIELDS)
            for host, state in self.loop.host_manager.host_states.items()
            for instance_id, instance in state.instances.items()}

    def test_restart_rebuilds_the_same_books(self):
        self.flags(group='scheduler', on_victim='requeue')
        self.fill()
        # A server group's member, and a displaced instance placed again
        # with the run it had.
        self.loop.submit(objects.RequestSpec(
            'grouped', MEDIUM.resources, False, flavor=MEDIUM.name,
            group='g1', service_class='gold', priority=3.0),
            image='cirros')
        self.run_for(60)
        self.loop.delete('n0')
        self.run_for(60)
        kept = self.books()
        self.assertTrue(any(row[6] == 'g1' for row in kept.values()))
        self.assertTrue(any(row[7] > 0 for row in kept.values()))
        self.loop.stop()
        self.loop = self.new_loop()
        self.assertEqual(kept, self.books())


class TestUnaccountedAtRestart(CrashSafetyTestCase):

    def test_instance_missing_from_a_first_answer_is_not_lost(self):
        # At start-up the host's answer leaves 'n0' out (a glitch of its
        # agent); asked again before it is settled, the host runs it: it
        # runs on, nothing is lost.
        self.fill()
        answer = self.driver.list_instances
        glitches = []

        def list_instances(host):
            reports = answer(host)
            if not glitches and any(r.id == 'n0' for r in reports):
                glitches.append(host)
                return [r for r in reports if r.id != 'n0']
            return reports
        self.loop.stop()
        self.driver.list_instances = list_instances
        self.loop = self.new_loop()
        self.run_for(60)
        self.assertEqual(1, len(glitches))
        row = self.loop.store.get_instance('n0')
        self.assertEqual(('running', None), (row.state, row.reason))
        self.assertEqual([], self.driver.terminated)
        self.assertEqual([], self.loop.store.list_events(
            kind='instance.stray'))


class TestSpawnFoundRunningAtRestart(CrashSafetyTestCase):
    """The scheduler died right after a spawn, and the instance started
    while it was down: recovery finds it running and records its start as
    its host tells it.
    """

    def crash_after_spawn_and_wait(self, skew=0.0):
        self.crash_at('after_spawn')
        self.submit('vm', MEDIUM)
        self.assertRaises(Crash, self.run_for, 60)
        # The process is gone: its reports go nowhere until another starts.
        self.loop.stop()
        self.driver.events = compute.ComputeEvents()
        scheduled = self.loop.store.get_instance('vm').scheduled_at
        self.run_for(30)            # it boots in 2 s, unseen
        self.assertEqual('building', self.loop.store.get_instance('vm').state)
        self.assertEqual(['spawning'], [
            d.state for d in self.loop.store.unfinished_decisions()])
        answer = self.driver.list_instances

        def skewed(host):
            return [dataclasses.replace(
                report, started_at=report.started_at - skew)
                if report.started_at is not None else report
                for report in answer(host)]
        self.driver.list_instances = skewed
        self.loop = self.new_loop()
        row = self.loop.store.get_instance('vm')
        self.assertEqual('running', row.state)
        self.assertEqual(1, len(self.driver.spawned))
        self.assertEqual([], self.loop.store.unfinished_decisions())
        self.assertEqual([], self.loop.store.list_events(
            kind='instance.report_ignored'))
        return scheduled, row

    def test_its_start_is_when_its_host_says(self):
        scheduled, row = self.crash_after_spawn_and_wait()
        self.assertEqual(scheduled + 2.0, row.started_at)

    def test_a_start_skewed_before_its_placement_is_taken_at_it(self):
        # The host's clock, moved to ours, puts the start 1000 s before
        # the placement: the report names the current boot, so the start
        # is taken as the placement's time, not as a stale report.
        scheduled, row = self.crash_after_spawn_and_wait(skew=1000.0)
        self.assertEqual(scheduled, row.started_at)
