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

"""The loop under latency and faults: one state machine per instance, all
or nothing for multi-instance requests, deadlines, unreachable hosts.

Each test is a failure reproduced against an earlier version, kept as a
regression test and named after the behaviour it guards.
"""

import dataclasses

from preemptible_sched import objects
from tests.functional.loop import fixtures as loop_fixtures

MEDIUM = loop_fixtures.MEDIUM
LARGE = loop_fixtures.LARGE
BLADE = objects.Flavor('blade', 8, 16000, 160)


class Dropper:
    """Wraps the loop's events: drops or duplicates chosen reports."""

    def __init__(self, target, clock):
        self.target = target
        self.clock = clock
        self.drop = set()
        self.duplicate_after = {}

    def __getattr__(self, name):
        event = getattr(self.target, name)
        if name in self.drop:
            self.drop.discard(name)
            return lambda *args, **kw: None
        delay = self.duplicate_after.pop(name, None)
        if delay is None:
            return event

        def twice(*args, **kw):
            event(*args, **kw)
            self.clock.call_later(delay, lambda: event(*args, **kw))
        return twice


class ReliabilityTestCase(loop_fixtures.LoopTestCase):

    hosts = 2

    def setUp(self):
        super().setUp()
        self.flags(group='scheduler', compute_deadline=60.0,
                   on_no_valid_host='wait')

    def new_driver(self):
        """A driver (and loop) that reads the options set since setUp."""
        self.loop.stop()
        self.driver = loop_fixtures.CountingDriver(self.clock, seed=1)
        self.loop = self.new_loop()

    def multi(self, name, count, flavor=MEDIUM):
        return self.loop.submit(objects.RequestSpec(
            name, flavor.resources, False, flavor=flavor.name,
            num_instances=count), image='cirros')

    def running_on(self, host):
        return sorted(report.id for report in
                      self.driver.list_instances(host))

    def db_on(self, host):
        return sorted(row.id for row in self.loop.store.list_instances(
            host=host, states=('building', 'running', 'terminating')))

    def two_borrowing_one_room(self, failed_terminations=0):
        """Both blades full ('spot', preemptible, and 'busy'); request 'r'
        of two half blades is placed where 'spot' runs, its second
        decision borrowing the first's victim (terminations take 20 s,
        the first ``failed_terminations`` fail). Returns that host.
        """
        self.flags(group='fake_driver', termination_seconds=20.0)
        self.new_driver()
        half = objects.Flavor('half', 4, 8000, 80)
        self.submit('spot', BLADE, preemptible=True)
        self.submit('busy', BLADE)
        self.run_for(10)
        spot_host = self.loop.store.get_instance('spot').host
        self.driver.fail_next_terminations(failed_terminations)
        self.multi('r', 2, half)
        self.run_for(5)
        self.assertEqual({spot_host}, {
            self.loop.store.get_instance(i).host for i in ('r-0', 'r-1')})
        return spot_host

    def displacing_spot(self, request='normal', flavor=BLADE):
        """'spot' (preemptible) fills the blade; ``request`` displaces it,
        whose termination takes 20 s. Returns as it is terminating.
        """
        self.flags(group='fake_driver', termination_seconds=20.0)
        self.new_driver()
        self.submit('spot', BLADE, preemptible=True)
        self.run_for(10)
        self.submit(request, flavor)
        self.run_for(5)
        self.assertEqual('terminating', self.state('spot'))

    def unanswered(self, times=1):
        """The next ``times`` questions of what a host runs go unanswered
        (the host cannot be reached for them); returns the list of hosts
        that were asked in vain.
        """
        asked = []
        answer = self.driver.list_instances

        def list_instances(host):
            if len(asked) < times:
                asked.append(host)
                raise TimeoutError('no answer from %s' % host)
            return answer(host)
        self.driver.list_instances = list_instances
        return asked

    def assert_spot_gave_way(self):
        """'spot' was terminated once and 'normal' runs; the books agree
        with the hosts.
        """
        self.assertEqual('terminated', self.state('spot'))
        self.assertEqual('running', self.state('normal'))
        self.assertEqual(['spot'], self.driver.terminated)
        self.assert_db_is_compute()

    def assert_db_is_compute(self):
        for host in ('host-A', 'host-B')[:self.hosts]:
            self.assertEqual(self.running_on(host), self.db_on(host), host)
        self.assert_settled()

    def assert_settled(self):
        """No deadline is left armed for what is settled: none for a
        decision or a deletion, a spawn's only while it builds (the look
        whether a given-up victim went after all may still be due).
        """
        building = {row.id for row in self.loop.store.list_instances(
            states=('building',))}
        self.assertEqual([], sorted(
            (kind, key) for kind, key in self.loop.executor.deadlines
            if kind != 'released' and not (
                kind == 'spawn' and key in building)))


class TestOneStateMachine(ReliabilityTestCase):

    def test_victim_displaced_while_building_never_boots_again(self):
        # A preemptible instance still booting is chosen as a victim; the
        # scheduler restarts (cleanly) after its termination: it is not
        # spawned again, neither live nor by the recovery.
        self.flags(group='fake_driver', boot_times_hot=[30.0],
                   boot_times_cold=[30.0])
        self.new_driver()
        self.submit('spot-a', BLADE, preemptible=True)
        self.submit('spot-b', BLADE, preemptible=True)
        self.run_for(5)
        self.assertEqual('building', self.state('spot-a'))
        self.submit('normal', BLADE)
        self.run_for(5)
        self.assertEqual('terminated', self.state('spot-a'))
        # Its spawn will never be answered: nothing waits for it.
        self.assertNotIn(('spawn', 'spot-a'), self.loop.executor.deadlines)
        self.loop.stop()
        self.loop = self.new_loop()
        self.run_for(120)
        self.assertEqual('terminated', self.state('spot-a'))
        spawns = [entry for entry in self.driver.spawned
                  if entry == 'spot-a']
        self.assertEqual(1, len(spawns))
        self.assertEqual('running', self.state('normal'))
        self.assert_db_is_compute()

    def test_instance_running_where_it_is_not_expected_is_terminated(self):
        self.submit('vm', MEDIUM)
        self.run_for(10)
        host = self.loop.store.get_instance('vm').host
        other = 'host-B' if host == 'host-A' else 'host-A'
        calls = []
        terminate = self.driver.terminate
        self.driver.terminate = lambda h, i: (calls.append((h, i)),
                                              terminate(h, i))
        # A late start on another host (a spawn given up by its deadline,
        # say): that copy goes, the placed one stays.
        self.loop.lifecycle.instance_started(other, 'vm', self.clock.now())
        self.run_for(5)
        self.assertEqual([(other, 'vm')], calls)
        self.assertEqual(('running', host),
                         (self.state('vm'),
                          self.loop.store.get_instance('vm').host))
        [stray] = self.loop.store.list_events(kind='instance.stray')
        self.assertEqual(
            {'instance_id': 'vm', 'host': other, 'state': 'running',
             'placed_on': host, 'request_id': 'vm'}, stray.payload)

    def test_instance_unknown_to_the_store_is_terminated(self):
        # A host reports an instance the journal never heard of (started
        # by hand, or left from a database restored from an older dump):
        # it is a stray, terminated, and nothing else changes.
        self.submit('vm', MEDIUM)
        self.run_for(10)
        calls = []
        terminate = self.driver.terminate
        self.driver.terminate = lambda h, i: (calls.append((h, i)),
                                              terminate(h, i))
        self.loop.lifecycle.instance_started('host-A', 'ghost',
                                             self.clock.now())
        self.run_for(5)
        self.assertEqual([('host-A', 'ghost')], calls)
        [stray] = self.loop.store.list_events(kind='instance.stray')
        self.assertEqual(
            {'instance_id': 'ghost', 'host': 'host-A', 'state': None,
             'placed_on': None, 'request_id': None}, stray.payload)
        self.assertEqual('running', self.state('vm'))


class TestOneBlade(ReliabilityTestCase):
    """Reports and deadlines on one blade."""

    hosts = 1

    def test_late_failure_of_an_earlier_boot_is_ignored(self):
        # The first boot of 'vm' fails and its failure report comes a
        # second time, late, after 'vm' was booted again on the same
        # host: the copy is about the old boot and changes nothing.
        events = Dropper(self.loop.lifecycle, self.clock)
        self.driver.events = events
        events.duplicate_after['instance_failed'] = 5.0
        self.driver.fail_next_spawns(1)
        self.submit('vm', BLADE)
        self.run_for(30)
        self.assertEqual('running', self.state('vm'))
        self.assertEqual(['vm'], self.running_on('host-A'))
        self.assert_db_is_compute()
        ignored = self.loop.store.list_events(kind='instance.report_ignored')
        self.assertEqual(['instance_failed'],
                         [event.payload['event'] for event in ignored])
        self.assertEqual('vm', ignored[0].payload['instance_id'])
        self.assertRegex(ignored[0].payload['why'],
                         r'^it is about boot \d+, the instance is now boot '
                         r'\d+$')
        # The host is full in the books too: nothing else lands there.
        self.submit('other', MEDIUM)
        self.run_for(30)
        self.assertEqual([], self.driver.refused[1:])

    def test_duplicate_start_report_is_ignored(self):
        events = Dropper(self.loop.lifecycle, self.clock)
        self.driver.events = events
        events.duplicate_after['instance_started'] = 5.0
        self.submit('vm', BLADE)
        self.run_for(30)
        row = self.loop.store.get_instance('vm')
        self.assertEqual('running', row.state)
        self.assertLess(row.started_at, 5.0)
        [ignored] = self.loop.store.list_events(
            kind='instance.report_ignored')
        self.assertEqual(
            ('instance_started', 'vm', 'host-A', 'running', 'host-A', None),
            tuple(ignored.payload[key] for key in (
                'event', 'instance_id', 'host', 'state', 'placed_on',
                'why')))
        self.assertEqual(1, len(self.loop.store.list_events(
            kind='instance.started')))

    def test_duplicate_end_report_is_ignored(self):
        # The end of 'vm' is reported twice: the copy finds it ended and
        # is recorded as ignored, for no reason but its state.
        events = Dropper(self.loop.lifecycle, self.clock)
        self.driver.events = events
        events.duplicate_after['instance_ended'] = 5.0
        self.submit('vm', BLADE, duration=10)
        self.run_for(30)
        row = self.loop.store.get_instance('vm')
        self.assertEqual(('ended', 12.0), (row.state, row.ended_at))
        [ignored] = self.loop.store.list_events(
            kind='instance.report_ignored')
        self.assertEqual(
            ('instance_ended', 'vm', 'host-A', 'ended', 'host-A', 'vm',
             None),
            tuple(ignored.payload[key] for key in (
                'event', 'instance_id', 'host', 'state', 'placed_on',
                'request_id', 'why')))
        self.assertEqual(1, len(self.loop.store.list_events(
            kind='instance.ended')))

    def test_spawn_failed_for_good_leaves_nothing_awaited(self):
        # Its spawn fails and the request gives up (one attempt): the
        # spawn's deadline goes with the answer.
        self.flags(group='scheduler', max_attempts=1)
        self.driver.fail_next_spawns(1)
        self.submit('vm', BLADE)
        self.run_for(5)
        self.assertEqual('error', self.state('vm'))
        self.assert_db_is_compute()

    def test_duplicate_start_report_of_a_victim_is_ignored(self):
        # 'spot' started; its start report comes again while it is being
        # terminated: its run still counts from its start.
        self.displacing_spot()
        row = self.loop.store.get_instance('spot')
        self.loop.lifecycle.instance_started('host-A', 'spot',
                                             self.clock.now(),
                                             boot=row.decision_id)
        [ignored] = self.loop.store.list_events(
            kind='instance.report_ignored')
        self.assertEqual(('instance_started', 'spot', 'terminating'),
                         tuple(ignored.payload[key] for key in (
                             'event', 'instance_id', 'state')))
        self.assertEqual(row.started_at, self.loop.store.get_instance(
            'spot').started_at)
        self.run_for(30)
        row = self.loop.store.get_instance('spot')
        self.assertEqual('terminated', row.state)
        self.assertAlmostEqual(row.ended_at - row.started_at, row.running_s)
        self.assert_db_is_compute()

    def test_a_decision_given_up_is_never_spawned(self):
        self.displacing_spot()
        decision_id = self.loop.store.get_instance('normal').decision_id
        self.loop.delete('normal')
        self.assertEqual('rolled_back', self.loop.store.get_decision(
            decision_id).state)
        # The room freed late, say: asked to spawn it, the executor does
        # not.
        self.loop.executor.spawn(decision_id)
        self.run_for(60)
        self.assertNotIn('normal', self.driver.spawned)
        self.assertEqual('deleted', self.state('normal'))
        self.assert_db_is_compute()

    def test_report_made_before_the_placement_is_ignored(self):
        # A failure report with no boot, made before 'vm' was placed on
        # this host (about an earlier placement): it changes nothing.
        self.run_for(10)
        self.submit('vm', BLADE)
        self.run_for(30)
        row = self.loop.store.get_instance('vm')
        self.loop.lifecycle.instance_failed('host-A', 'vm', 4.5, 'old news')
        [ignored] = self.loop.store.list_events(
            kind='instance.report_ignored')
        self.assertEqual(
            'it was made at 4.500, before the instance was placed at '
            '%.3f' % row.scheduled_at, ignored.payload['why'])
        self.assertEqual('running', self.state('vm'))
        self.assert_db_is_compute()

    def booted_unreported(self, termination_seconds):
        """'spot' (preemptible) booted, its report lost: the scheduler
        takes it for building. Returns the :class:`Dropper` of reports.
        """
        self.flags(group='fake_driver',
                   termination_seconds=termination_seconds)
        self.new_driver()
        events = Dropper(self.loop.lifecycle, self.clock)
        self.driver.events = events
        events.drop.add('instance_started')
        self.submit('spot', BLADE, preemptible=True)
        self.run_for(10)
        self.assertEqual('building', self.state('spot'))
        return events

    def test_victim_whose_start_is_reported_late_counts_its_run(self):
        # 'spot' booted but its report is late: it is taken for building
        # when 'vip' displaces it. The report then arrives during its
        # termination: the run it stands for counts, and 'spot' is not
        # taken for running (no start event, its termination goes on).
        self.booted_unreported(termination_seconds=20.0)
        [report] = self.driver.list_instances('host-A')
        self.submit('vip', BLADE)
        self.run_for(1)
        self.assertEqual('terminating', self.state('spot'))
        self.loop.lifecycle.instance_started('host-A', 'spot',
                                             report.started_at,
                                             boot=report.boot)
        row = self.loop.store.get_instance('spot')
        self.assertEqual(('terminating', report.started_at,
                          report.started_at),
                         (row.state, row.started_at, row.updated_at))
        # Its boot counts as overhead, as for any instance that started.
        self.assertAlmostEqual(report.started_at - row.scheduled_at,
                               row.overhead_s)
        self.assertGreater(row.overhead_s, 1.0)
        # The books the strategies read say so too.
        self.assertEqual(row.overhead_s, self.loop.host_manager.host_states[
            'host-A'].instances['spot'].overhead_s)
        self.run_for(30)
        row = self.loop.store.get_instance('spot')
        self.assertEqual('terminated', row.state)
        self.assertAlmostEqual(row.ended_at - report.started_at,
                               row.running_s)
        self.assertGreater(row.running_s, 20.0)
        self.assertEqual('running', self.state('vip'))
        self.assertEqual(['vip'], [
            event.payload['instance_id'] for event in
            self.loop.store.list_events(kind='instance.started')])
        self.assertEqual(['spot'], self.driver.terminated)

    def test_duplicate_termination_report_leaves_a_requeued_victim_alone(
            self):
        # With on_victim = requeue a confirmed victim waits in the queue
        # again; a second instance_terminated about it (the fake driver
        # answers every terminate call) must not end it.
        self.flags(group='scheduler', on_victim='requeue')
        self.submit('spot', BLADE, preemptible=True)
        self.run_for(10)
        self.submit('normal', BLADE)
        self.run_for(10)
        self.assertEqual('pending', self.state('spot'))
        self.loop.lifecycle.instance_terminated('host-A', 'spot',
                                                self.clock.now())
        self.assertEqual('pending', self.state('spot'))
        self.assertEqual(1, len(self.loop.queue))

    def test_lost_termination_is_asked_again_after_its_deadline(self):
        self.submit('spot', BLADE, preemptible=True)
        self.run_for(10)
        terminate = self.driver.terminate
        lost = []
        self.driver.terminate = lambda host, instance_id: lost.append(
            instance_id) if not lost else terminate(host, instance_id)
        self.submit('normal', BLADE)
        self.run_for(50)
        self.assertEqual('terminating', self.state('spot'))
        self.run_for(60)
        self.assertEqual(['spot'], lost)
        self.assert_spot_gave_way()

    def test_termination_failure_of_another_boot_is_ignored(self):
        # 'spot' is terminating for 'normal' when a termination failure
        # about another boot of it arrives (a late report of an earlier
        # placement): it changes nothing, the termination goes on.
        self.displacing_spot()
        row = self.loop.store.get_instance('spot')
        other_boot = row.decision_id + 100
        self.loop.lifecycle.termination_failed(
            'host-A', 'spot', self.clock.now(), 'lost', boot=other_boot)
        [ignored] = self.loop.store.list_events(
            kind='instance.report_ignored')
        self.assertEqual(
            ('termination_failed', 'spot', 'terminating',
             'it is about boot %d, the instance is now boot %d' % (
                 other_boot, row.decision_id)),
            tuple(ignored.payload[key] for key in (
                'event', 'instance_id', 'state', 'why')))
        decision = self.loop.store.get_instance('normal').decision_id
        self.assertEqual('terminating',
                         self.loop.store.get_decision(decision).state)
        self.run_for(30)
        self.assert_spot_gave_way()

    def test_decision_on_a_host_gone_unreachable_is_given_up(self):
        # 'normal' waits for 'spot' to go when the blade stops answering:
        # its decision is given up and it waits again; the termination
        # goes through unseen. The blade back, 'spot' is found gone and
        # 'normal' is placed there again.
        self.displacing_spot()
        decision = self.loop.store.get_instance('normal').decision_id
        self.driver.events = Dropper(self.loop.lifecycle, self.clock)
        self.driver.events.drop.add('instance_terminated')
        self.loop.lifecycle.host_unreachable('host-A', self.clock.now())
        row = self.loop.store.get_decision(decision)
        self.assertEqual(('rolled_back', 'host host-A is unreachable'),
                         (row.state, row.reason))
        self.assertEqual(('pending', None), (
            self.state('normal'),
            self.loop.store.get_instance('normal').host))
        self.run_for(60)
        self.assertEqual([], self.running_on('host-A'))
        self.assertEqual('pending', self.state('normal'))
        self.loop.lifecycle.host_up('host-A', self.clock.now())
        self.run_for(30)
        self.assert_spot_gave_way()

    def test_lost_confirmation_is_settled_by_its_deadline(self):
        self.submit('spot', BLADE, preemptible=True)
        self.run_for(10)
        events = Dropper(self.loop.lifecycle, self.clock)
        self.driver.events = events
        events.drop.add('instance_terminated')
        self.submit('normal', BLADE)
        self.run_for(120)
        self.assertEqual('terminated', self.state('spot'))
        self.assertEqual('running', self.state('normal'))
        # Terminated once: the deadline found it gone and confirmed it,
        # as of when the host says it went.
        self.assertEqual(['spot'], self.driver.terminated)
        record = self.driver.finished_instances('host-A')[0]
        self.assertEqual(('spot', 'terminated'), (record.id, record.state))
        self.assertLess(record.ended_at, 20.0)
        self.assertEqual(record.ended_at,
                         self.loop.store.get_instance('spot').ended_at)
        self.assert_db_is_compute()

    def test_lost_confirmation_is_asked_again_when_unanswered(self):
        # The host does not answer when the deadline asks: it is asked
        # again at the next one, and the victim is confirmed then, as of
        # when the host says it went.
        self.submit('spot', BLADE, preemptible=True)
        self.run_for(10)
        events = Dropper(self.loop.lifecycle, self.clock)
        self.driver.events = events
        events.drop.add('instance_terminated')
        asked = self.unanswered()
        self.submit('normal', BLADE)
        self.run_for(100)
        self.assertEqual(['host-A'], asked)
        self.assertEqual('terminating', self.state('spot'))
        self.run_for(60)
        self.assertEqual('terminated', self.state('spot'))
        self.assertEqual('running', self.state('normal'))
        self.assertEqual(['spot'], self.driver.terminated)
        record = self.driver.finished_instances('host-A')[0]
        self.assertEqual(record.ended_at,
                         self.loop.store.get_instance('spot').ended_at)
        self.assert_db_is_compute()

    def test_slow_termination_confirmed_after_an_unanswered_deadline(self):
        # The termination takes 80 s, past the 60 s deadline, when the
        # host does not answer: asked again later, but the confirmation
        # comes first, and nothing is left awaited once it has.
        self.flags(group='fake_driver', termination_seconds=80.0)
        self.new_driver()
        self.submit('spot', BLADE, preemptible=True)
        self.run_for(10)
        asked = self.unanswered()
        self.submit('normal', BLADE)
        self.run_for(75)
        self.assertEqual(['host-A'], asked)
        self.assertEqual('terminating', self.state('spot'))
        self.run_for(20)
        self.assert_spot_gave_way()

    def test_victim_settled_from_the_host_memory_counts_its_run(self):
        # 'spot' booted, its report lost, and was displaced (taken for
        # building); the report of its termination is lost too. The
        # deadline finds it gone and replays what its host remembers: it
        # started, then it was terminated; its run counts from one to the
        # other.
        events = self.booted_unreported(termination_seconds=5.0)
        events.drop.add('instance_terminated')
        self.submit('normal', BLADE)
        self.run_for(120)
        [record] = self.driver.finished_instances('host-A')
        self.assertEqual(('spot', 'terminated'), (record.id, record.state))
        row = self.loop.store.get_instance('spot')
        self.assertEqual(('terminated', record.started_at, record.ended_at),
                         (row.state, row.started_at, row.ended_at))
        self.assertAlmostEqual(record.ended_at - record.started_at,
                               row.running_s)
        self.assertGreater(row.running_s, 5.0)
        self.assertEqual('running', self.state('normal'))
        self.assertEqual(['spot'], self.driver.terminated)

    def test_victim_gone_without_a_trace_is_confirmed_by_its_deadline(
            self):
        # The victim's termination report is lost and its host forgets
        # it: the deadline, finding it gone, confirms it then.
        events = Dropper(self.loop.lifecycle, self.clock)
        self.driver.events = events
        self.submit('spot', BLADE, preemptible=True)
        self.run_for(10)
        events.drop.add('instance_terminated')
        asked = self.clock.now()
        self.submit('normal', BLADE)
        self.run_for(5)
        self.driver._hosts['host-A'].finished.clear()
        self.run_for(120)
        row = self.loop.store.get_instance('spot')
        self.assertEqual('terminated', row.state)
        self.assertAlmostEqual(asked + 60.0, row.ended_at, places=3)
        self.assertEqual('running', self.state('normal'))
        self.assertEqual(['spot'], self.driver.terminated)
        self.assert_db_is_compute()

    def test_late_start_report_of_an_earlier_boot_is_ignored(self):
        # 'vm' starts, its report held back; it crashes, taken for
        # building, and is placed again on the blade. The first boot's
        # start report then arrives: it is about the old boot and changes
        # nothing.
        self.flags(group='fake_driver', boot_times_hot=[20.0],
                   boot_times_cold=[20.0])
        self.new_driver()
        events = Dropper(self.loop.lifecycle, self.clock)
        self.driver.events = events
        events.drop.add('instance_started')
        self.submit('vm', BLADE)
        self.run_for(25)
        self.assertEqual('building', self.state('vm'))
        [booted] = self.driver.list_instances('host-A')
        self.driver.crash_instance('host-A', 'vm')
        self.run_for(5)
        again = self.loop.store.get_instance('vm')
        self.assertEqual('building', again.state)
        self.assertNotEqual(booted.boot, again.decision_id)
        self.loop.lifecycle.instance_started('host-A', 'vm',
                                             booted.started_at,
                                             boot=booted.boot)
        [ignored] = self.loop.store.list_events(
            kind='instance.report_ignored')
        self.assertEqual(('instance_started', 'vm', 'building'),
                         tuple(ignored.payload[key] for key in (
                             'event', 'instance_id', 'state')))
        self.assertEqual('it is about boot %d, the instance is now boot %d'
                         % (booted.boot, again.decision_id),
                         ignored.payload['why'])
        self.assertEqual('building', self.state('vm'))
        self.run_for(30)
        self.assertEqual('running', self.state('vm'))
        self.assertEqual(2, self.driver.spawned.count('vm'))
        self.assert_db_is_compute()

    def lose_deletion_report(self):
        """'vm' runs; its deletion goes through, the report is lost.
        Returns when it was asked.
        """
        self.submit('vm', BLADE)
        self.run_for(10)
        self.driver.events = Dropper(self.loop.lifecycle, self.clock)
        self.driver.events.drop.add('instance_terminated')
        asked = self.clock.now()
        self.loop.delete('vm')
        self.run_for(5)
        self.assertEqual([], self.running_on('host-A'))
        self.assertEqual('running', self.state('vm'))
        return asked

    def test_lost_deletion_report_is_settled_as_the_host_remembers(self):
        asked = self.lose_deletion_report()
        self.run_for(120)
        row = self.loop.store.get_instance('vm')
        self.assertEqual('deleted', row.state)
        self.assertAlmostEqual(asked + 0.5, row.ended_at)
        self.assertEqual({}, self.loop.lifecycle.deleting)
        self.assertEqual(['vm'], self.driver.terminated)
        self.assert_db_is_compute()

    def test_deletion_gone_without_a_trace_is_settled_by_its_deadline(self):
        asked = self.lose_deletion_report()
        self.driver._hosts['host-A'].finished.clear()
        self.run_for(120)
        row = self.loop.store.get_instance('vm')
        self.assertEqual('deleted', row.state)
        self.assertAlmostEqual(asked + 60.0, row.ended_at)
        self.assertEqual({}, self.loop.lifecycle.deleting)
        self.assert_db_is_compute()

    def test_deleted_instance_that_had_ended_unreported_is_settled(self):
        # 'vm' ends on its own, the report is lost; its deletion asked
        # afterwards is answered with how it finished: it ended then,
        # and its deletion is settled at once (no deadline left to fire).
        self.submit('vm', BLADE, duration=20.0)
        self.run_for(10)
        started = self.loop.store.get_instance('vm').started_at
        self.driver.events = Dropper(self.loop.lifecycle, self.clock)
        self.driver.events.drop.add('instance_ended')
        self.run_for(30)
        self.assertEqual('running', self.state('vm'))
        self.loop.delete('vm')
        self.run_for(1)
        row = self.loop.store.get_instance('vm')
        self.assertEqual('ended', row.state)
        self.assertAlmostEqual(started + 20.0, row.ended_at)
        self.assertEqual({}, self.loop.lifecycle.deleting)
        self.assertEqual([], self.driver.terminated)
        self.assert_db_is_compute()


class TestAllOrNothing(ReliabilityTestCase):

    def test_refused_spawns_of_a_multi_instance_request_do_not_crash(self):
        # Both spawns are refused: both instances are placed again in one
        # pass (the request is 'placed' after the first); formerly the
        # second journal raised "request ... is placed, not pending".
        self.driver.fail_next_spawns(2)
        self.multi('pair', 2)
        self.run_for(60)
        self.assertEqual('placed', self.request_status('pair'))
        self.assertEqual(['running', 'running'],
                         [self.state('pair-0'), self.state('pair-1')])
        self.assert_db_is_compute()

    def test_request_whose_instance_gives_up_fails_as_a_whole(self):
        # One instance keeps failing to boot: past max_attempts the whole
        # request fails and its running sibling is terminated.
        self.flags(group='scheduler', max_attempts=2)
        self.driver.fail_next_spawns(10, host='host-B')
        self.multi('pair', 2, BLADE)
        self.run_for(300)
        self.assertEqual('failed', self.request_status('pair'))
        self.assertEqual(['error', 'error'],
                         [self.state('pair-0'), self.state('pair-1')])
        self.assertEqual([], self.running_on('host-A'))
        self.assert_db_is_compute()

    def test_placed_request_with_a_waiting_instance_resumes_after_restart(
            self):
        # The spawn on host-B fails and the scheduler dies right after
        # recording it (before the instance is queued again).
        self.driver.fail_next_spawns(1, host='host-B')

        def crash(*args, **kw):
            raise loop_fixtures.Crash('after the failure')
        self.loop.lifecycle.requeue = crash
        self.multi('pair', 2, BLADE)
        self.assertRaises(loop_fixtures.Crash, self.run_for, 10)
        waiting = [row.id for row in self.loop.store.list_instances(
            request_id='pair', states=('pending',))]
        self.assertEqual(1, len(waiting))
        self.loop.stop()
        self.loop = self.new_loop()
        self.run_for(60)
        self.assertEqual('running', self.state(waiting[0]))
        self.assertEqual('placed', self.request_status('pair'))


class TestDeadlines(ReliabilityTestCase):

    def test_lost_spawn_is_placed_again_after_its_deadline(self):
        spawn = self.driver.spawn
        lost = []
        self.driver.spawn = lambda host, instance, **kw: lost.append(
            instance.id) if not lost else spawn(host, instance, **kw)
        self.submit('vm', MEDIUM)
        self.run_for(59)
        self.assertEqual('building', self.state('vm'))
        self.run_for(30)
        self.assertEqual(['vm'], lost)
        self.assertEqual('running', self.state('vm'))
        self.assert_db_is_compute()

    def test_spawn_still_building_at_its_deadline_is_awaited(self):
        # A boot slower than the deadline: the host, asked, says it
        # builds; the next deadline is armed and the start report ends it.
        self.flags(group='fake_driver', boot_times_hot=[100.0],
                   boot_times_cold=[100.0])
        self.new_driver()
        self.submit('vm', MEDIUM)
        self.run_for(61)
        self.assertEqual('building', self.state('vm'))
        self.assertEqual([('spawn', 'vm')],
                         list(self.loop.executor.deadlines))
        self.run_for(60)
        row = self.loop.store.get_instance('vm')
        self.assertEqual('running', row.state)
        self.assertAlmostEqual(100.0, row.started_at - row.scheduled_at,
                               places=3)
        self.assertEqual(1, self.driver.spawned.count('vm'))
        self.assert_db_is_compute()


class TestUnreachableHosts(ReliabilityTestCase):

    def test_unreachable_host_keeps_its_instances_and_is_reconciled(self):
        self.submit('a', BLADE)
        self.submit('b', BLADE)
        self.run_for(10)
        host = self.loop.store.get_instance('a').host
        self.loop.lifecycle.host_unreachable(host, self.clock.now())
        self.assertEqual('running', self.state('a'))
        [event] = self.loop.store.list_events(kind='host.unreachable')
        self.assertEqual({'host': host}, event.payload)
        # While it is away 'a' dies there unseen.
        events = self.driver.events
        self.driver.events = Dropper(events, self.clock)
        self.driver.events.drop.add('instance_failed')
        self.driver.crash_instance(host, 'a')
        self.run_for(1)
        self.driver.events = events
        self.loop.lifecycle.host_up(host, self.clock.now())
        self.assertEqual('error', self.state('a'))
        # How it died, as the host remembers it.
        self.assertEqual('crashed', self.loop.store.get_instance(
            'a').reason)
        self.assert_db_is_compute()

    def test_unreachable_host_whose_instance_ended_records_it_ended(self):
        self.submit('a', BLADE, duration=30)
        self.run_for(10)
        host = self.loop.store.get_instance('a').host
        self.loop.lifecycle.host_unreachable(host, self.clock.now())
        self.driver.events = Dropper(self.driver.events, self.clock)
        self.driver.events.drop.add('instance_ended')
        self.run_for(60)
        self.driver.events = self.driver.events.target
        self.loop.lifecycle.host_up(host, self.clock.now())
        row = self.loop.store.get_instance('a')
        self.assertEqual(('ended', None), (row.state, row.reason))
        self.assert_db_is_compute()

    def test_host_back_from_down_with_its_instance_terminates_it(self):
        # The blade was taken for down (cut off, not dead): its instance
        # was lost with it in the books, and runs on there. Back, the
        # blade is reconciled: that instance is a stray, terminated.
        self.submit('a', BLADE)
        self.run_for(10)
        host = self.loop.store.get_instance('a').host
        self.loop.lifecycle.host_down(host, self.clock.now())
        self.assertEqual('error', self.state('a'))
        self.assertEqual(['a'], self.running_on(host))
        self.loop.lifecycle.host_up(host, self.clock.now())
        self.run_for(5)
        self.assertEqual(['a'], self.driver.terminated)
        [stray] = self.loop.store.list_events(kind='instance.stray')
        self.assertEqual(
            {'instance_id': 'a', 'host': host, 'state': 'error',
             'placed_on': host, 'request_id': 'a'}, stray.payload)
        self.assertEqual('error', self.state('a'))
        self.assert_db_is_compute()

    def gone_without_a_trace(self, dropped, action):
        """``a`` runs; its host becomes unreachable; ``action(host)`` makes
        it go there with report ``dropped`` lost, and the blade forgets how
        it finished (rebuilt, or its memory overflowed); the host is back:
        reconciliation has only the store. Returns the host.
        """
        self.submit('a', BLADE)
        self.run_for(10)
        host = self.loop.store.get_instance('a').host
        self.loop.lifecycle.host_unreachable(host, self.clock.now())
        self.driver.events = Dropper(self.driver.events, self.clock)
        self.driver.events.drop.add(dropped)
        action(host)
        self.run_for(1)
        self.driver.events = self.driver.events.target
        self.driver._hosts[host].finished.clear()
        self.assertEqual([], self.running_on(host))
        self.loop.lifecycle.host_up(host, self.clock.now())
        return host

    def test_instance_gone_without_a_trace_is_lost_with_the_reason(self):
        host = self.gone_without_a_trace(
            'instance_failed',
            lambda host: self.driver.crash_instance(host, 'a'))
        row = self.loop.store.get_instance('a')
        self.assertEqual(('error', 'gone from host %s while it was '
                          'unreachable' % host), (row.state, row.reason))
        self.assertEqual(self.clock.now(), row.ended_at)
        self.assert_db_is_compute()

    def test_deleted_instance_gone_without_a_trace_is_deleted(self):
        self.gone_without_a_trace('instance_terminated',
                                  lambda host: self.loop.delete('a'))
        row = self.loop.store.get_instance('a')
        self.assertEqual('deleted', row.state)
        self.assertEqual(self.clock.now(), row.ended_at)
        self.assert_db_is_compute()

    def away_while_building(self, dropped):
        """'a' builds (30 s) when its host becomes unreachable; report
        ``dropped`` of 'a' is then lost. Returns the host.
        """
        self.flags(group='fake_driver', boot_times_hot=[30.0],
                   boot_times_cold=[30.0])
        self.new_driver()
        self.submit('a', BLADE)
        self.run_for(5)
        host = self.loop.store.get_instance('a').host
        self.loop.lifecycle.host_unreachable(host, self.clock.now())
        self.driver.events = Dropper(self.driver.events, self.clock)
        self.driver.events.drop.add(dropped)
        return host

    def test_building_instance_found_running_started_when_it_booted(self):
        # 'a' boots while its host is away and the report is lost: when
        # the host is back, 'a' runs since its boot, not since then.
        host = self.away_while_building('instance_started')
        self.run_for(40)
        self.driver.events = self.driver.events.target
        self.assertEqual('building', self.state('a'))
        [report] = self.driver.list_instances(host)
        self.assertLess(report.started_at, self.clock.now() - 5.0)
        self.loop.lifecycle.host_up(host, self.clock.now())
        row = self.loop.store.get_instance('a')
        self.assertEqual(('running', report.started_at),
                         (row.state, row.started_at))
        self.assertEqual(1, self.driver.spawned.count('a'))
        self.assert_db_is_compute()

    def test_building_instance_found_running_with_its_host_clock_early(self):
        # The same, the host's times read 1,000 s early (an offset measured
        # over a slow call): its answer names the current boot, so the
        # start is taken as no earlier than the placement, not as stale.
        host = self.away_while_building('instance_started')
        self.run_for(40)
        self.driver.events = self.driver.events.target
        answer = self.driver.list_instances
        self.driver.list_instances = lambda name: [
            dataclasses.replace(report, started_at=report.started_at - 1000.0)
            for report in answer(name)]
        self.loop.lifecycle.host_up(host, self.clock.now())
        row = self.loop.store.get_instance('a')
        self.assertEqual(('running', row.scheduled_at),
                         (row.state, row.started_at))
        self.assertEqual([], self.loop.store.list_events(
            kind='instance.report_ignored'))
        self.assertEqual(1, self.driver.spawned.count('a'))

    def test_building_instance_gone_without_a_trace_is_placed_again(self):
        host = self.away_while_building('instance_failed')
        self.driver.crash_instance(host, 'a')
        self.run_for(1)
        self.driver.events = self.driver.events.target
        self.driver._hosts[host].finished.clear()
        back = self.clock.now()
        self.loop.lifecycle.host_up(host, back)
        [failed] = self.loop.store.list_events(kind='instance.failed')
        self.assertEqual(('a', 'not on host %s when it was asked' % host),
                         (failed.payload['instance_id'],
                          failed.payload['reason']))
        self.run_for(60)
        row = self.loop.store.get_instance('a')
        self.assertEqual('running', row.state)
        self.assertEqual(2, self.driver.spawned.count('a'))
        self.assertEqual(1, self.loop.store.get_request('a').attempts)
        self.assert_db_is_compute()

    def test_host_not_registered_at_start_is_reconciled_not_lost(self):
        self.submit('vm', MEDIUM)
        self.run_for(10)
        host = self.loop.store.get_instance('vm').host
        self.loop.stop()
        specs = self.driver.host_specs
        self.driver.host_specs = lambda: [
            dataclasses.replace(spec, up=spec.name != host)
            for spec in specs()]
        self.loop = self.new_loop()
        self.run_for(1)
        self.assertEqual('running', self.state('vm'))
        self.loop.lifecycle.host_up(host, self.clock.now())
        self.run_for(1)
        self.assertEqual('running', self.state('vm'))
        self.assert_db_is_compute()


class TestFinishedInstancesAreRemembered(ReliabilityTestCase):
    """An instance whose reports were lost or are late is settled from
    what its host remembers of it: it never boots a second time.
    """

    hosts = 1

    def setUp(self):
        super().setUp()
        self.new_driver()

    def drop(self, *events):
        self.driver.events = Dropper(self.loop.lifecycle, self.clock)
        self.driver.events.drop.update(events)

    def spawns(self, instance_id):
        return self.driver.spawned.count(instance_id)

    def test_spawn_that_ran_and_ended_unreported_is_not_booted_again(self):
        self.drop('instance_started')
        self.submit('vm', MEDIUM, duration=20)
        self.run_for(5)
        self.drop('instance_ended')
        self.run_for(30)
        self.assertEqual('building', self.state('vm'))
        self.run_for(60)                # past the spawn's deadline
        row = self.loop.store.get_instance('vm')
        self.assertEqual('ended', row.state)
        self.assertEqual(1, self.spawns('vm'))
        self.assertEqual('done', self.loop.store.get_decision(
            row.decision_id).state)
        self.assertEqual('placed', self.request_status('vm'))

    def test_spawn_that_failed_unreported_is_placed_again(self):
        self.driver.fail_next_spawns(1)
        self.drop('instance_failed')
        self.submit('vm', MEDIUM)
        self.run_for(120)
        self.assertEqual('running', self.state('vm'))
        self.assertEqual(2, self.spawns('vm'))
        failed = self.loop.store.list_events(kind='instance.failed')
        self.assertEqual(['injected boot failure'],
                         [event.payload['reason'] for event in failed])

    def test_instance_that_ended_while_the_scheduler_was_down_ended(self):
        self.submit('vm', MEDIUM, duration=20)
        self.run_for(10)
        self.assertEqual('running', self.state('vm'))
        self.loop.stop()
        self.drop('instance_ended')
        self.run_for(30)                # it ends; nobody hears it
        self.loop = self.new_loop()
        self.run_for(5)
        row = self.loop.store.get_instance('vm')
        self.assertEqual(('ended', None), (row.state, row.reason))
        self.assertEqual(1, self.spawns('vm'))

    def test_requeued_victim_that_ended_by_itself_is_not_run_again(self):
        # The victim ended on its own just before it was chosen, and the
        # report of its end is lost: the termination's answer says it
        # ended, so it is recorded ended, not preempted and run again.
        self.flags(group='scheduler', on_victim='requeue')
        self.flags(group='fake_driver', termination_seconds=5.0)
        self.submit('spot', BLADE, preemptible=True, duration=32)
        self.run_for(10)
        started = self.loop.store.get_instance('spot').started_at
        self.drop('instance_ended')
        self.clock.run(until=started + 32.5)
        self.submit('normal', BLADE)
        self.run_for(60)
        self.assertEqual('ended', self.state('spot'))
        self.assertEqual(1, self.spawns('spot'))
        self.assertEqual('running', self.state('normal'))
        self.assertEqual(0, len(self.loop.queue))
        self.assert_db_is_compute()

    def skew(self, seconds):
        """The host's answers place its times ``seconds`` too early (an
        offset measured over a slow call, between sped-up clocks).
        """
        def shifted(method):
            def call(host):
                return [dataclasses.replace(
                    report, started_at=None if report.started_at is None
                    else report.started_at - seconds,
                    ended_at=None if report.ended_at is None
                    else report.ended_at - seconds)
                    for report in method(host)]
            return call
        self.driver.list_instances = shifted(self.driver.list_instances)
        self.driver.finished_instances = shifted(
            self.driver.finished_instances)

    def test_skewed_times_of_the_current_boot_are_not_taken_as_stale(self):
        self.skew(1000.0)
        # Its start report lost: the spawn's deadline finds it running.
        self.drop('instance_started')
        self.submit('long', MEDIUM)
        self.run_for(90)
        self.assertEqual('running', self.state('long'))
        # Its start and end reports lost: settled from the host's record.
        self.drop('instance_started')
        self.submit('vm', MEDIUM, duration=20)
        self.run_for(5)
        self.drop('instance_ended')
        self.run_for(90)
        self.assertEqual('ended', self.state('vm'))
        self.assertEqual(1, self.spawns('vm'))
        self.assertEqual(1, self.spawns('long'))
        self.assertEqual([], self.loop.store.list_events(
            kind='instance.report_ignored'))

    def test_record_of_an_earlier_boot_does_not_settle_a_later_one(self):
        # The first boot fails (reported); the second spawn is lost: the
        # host's record of the first boot is not taken for the second,
        # which is placed again by its deadline.
        self.driver.fail_next_spawns(1)
        spawn = self.driver.spawn
        calls = []

        def lose_second(host, instance, **kw):
            calls.append(instance.id)
            if len(calls) != 2:
                spawn(host, instance, **kw)
        self.driver.spawn = lose_second
        self.submit('vm', MEDIUM)
        self.run_for(150)
        self.assertEqual(['vm'] * 3, calls)
        self.assertEqual('running', self.state('vm'))
        reasons = [event.payload['reason'] for event in
                   self.loop.store.list_events(kind='instance.failed')]
        self.assertEqual(2, len(reasons))
        self.assertEqual('injected boot failure', reasons[0])
        self.assertIn('no answer to its spawn', reasons[1])


class TestInstanceMovedOnBehindItsDecision(ReliabilityTestCase):
    """The journal shows a decision's instance no longer pending for it
    (ended by another scheduler process, or by an operator's repair of the
    database): the decision never spawns it.
    """

    hosts = 1

    def moved_on(self):
        """'normal' waits for 'spot' to go (20 s); meanwhile its row is
        ended in the journal, behind the decision's back.
        """
        self.displacing_spot()
        decision_id = self.loop.store.get_instance('normal').decision_id
        self.loop.store.update_instance('normal', at=self.clock.now(),
                                        state='error', reason='repaired')
        return decision_id

    def test_its_spawn_is_refused(self):
        decision_id = self.moved_on()
        self.run_for(60)
        decision = self.loop.store.get_decision(decision_id)
        self.assertEqual(
            ('failed', "instance normal is error, no longer this "
                       "decision's to spawn"),
            (decision.state, decision.reason))
        self.assertEqual(['spot'], self.driver.spawned)
        self.assertEqual('terminated', self.state('spot'))
        self.assertEqual([], self.loop.store.unfinished_decisions())

    def test_recovery_gives_it_up_and_recovers_the_others(self):
        # Two blades, two spot instances displaced by two normal ones; the
        # first decision's instance is found ended at a restart: given up,
        # its victim (asked to go already) goes all the same, nothing is
        # spawned for it and it stays as it ended, and the second decision
        # is carried out.
        self.flags(group='fake_driver', host_count=2,
                   termination_seconds=20.0)
        self.new_driver()
        for name in ('spot-0', 'spot-1'):
            self.submit(name, BLADE, preemptible=True)
        self.run_for(10)
        for name in ('normal-0', 'normal-1'):
            self.submit(name, BLADE)
        self.run_for(5)
        first, second = sorted(
            (self.loop.store.get_instance(name).decision_id, name)
            for name in ('normal-0', 'normal-1'))
        self.loop.store.update_instance(first[1], at=self.clock.now(),
                                        state='error', reason='repaired')
        self.loop.stop()
        self.loop = self.new_loop()
        decision = self.loop.store.get_decision(first[0])
        self.assertEqual(('rolled_back', 'instance %s is error' % first[1]),
                         (decision.state, decision.reason))
        self.run_for(60)
        self.assertEqual('running', self.state(second[1]))
        self.assertEqual(['spot-0', 'spot-1', second[1]],
                         self.driver.spawned)
        self.assertEqual(['terminated', 'terminated'],
                         [self.state('spot-%d' % i) for i in range(2)])
        row = self.loop.store.get_instance(first[1])
        self.assertEqual(('error', 'repaired', first[0]),
                         (row.state, row.reason, row.decision_id))
        self.assertEqual([], self.loop.store.unfinished_decisions())

    def test_decision_given_up_live_leaves_it_as_it_ended(self):
        # Its host goes down and comes back while the decision waits for
        # its victim: the decision is rolled back and its instance, which
        # ended behind its back, is neither queued nor spawned again.
        decision_id = self.moved_on()
        self.loop.lifecycle.host_down('host-A', self.clock.now())
        decision = self.loop.store.get_decision(decision_id)
        self.assertEqual(('rolled_back', 'host host-A went down'),
                         (decision.state, decision.reason))
        self.loop.lifecycle.host_up('host-A', self.clock.now())
        self.run_for(120)
        self.assertEqual(['spot'], self.driver.spawned)
        row = self.loop.store.get_instance('normal')
        self.assertEqual(('error', 'repaired', decision_id),
                         (row.state, row.reason, row.decision_id))
        self.assertEqual(0, len(self.loop.queue))
        self.assertEqual([], self.loop.store.unfinished_decisions())

    def test_request_failed_behind_its_back_ends_the_instance(self):
        # Not the instance but its request was ended behind the decision's
        # back (failed by an operator's repair): when the decision is given
        # up (its host goes down), the instance it had claimed ends with
        # its request, in error, instead of waiting in the queue again.
        self.displacing_spot()
        self.loop.store.set_request_status('normal', 'failed',
                                           self.clock.now(),
                                           reason='repaired')
        self.loop.lifecycle.host_down('host-A', self.clock.now())
        self.loop.lifecycle.host_up('host-A', self.clock.now())
        self.run_for(120)
        row = self.loop.store.get_instance('normal')
        self.assertEqual(('error', 'repaired', None),
                         (row.state, row.reason, row.host))
        self.assertEqual('failed',
                         self.loop.store.get_request('normal').status)
        self.assertEqual(['spot'], self.driver.spawned)
        self.assertEqual(0, len(self.loop.queue))
        self.assertEqual([], self.loop.store.unfinished_decisions())


class TestNothingLeftBehind(ReliabilityTestCase):
    """Decisions given up, deletions and crashes leave no row behind."""

    hosts = 1

    def test_deletion_is_retried_after_the_instance_started(self):
        # The termination of a building instance whose request was deleted
        # fails; the instance then starts: the deletion's deadline still
        # asks its host, and it is terminated.
        self.flags(group='fake_driver', boot_times_hot=[30.0],
                   boot_times_cold=[30.0])
        self.new_driver()
        self.submit('vm', MEDIUM)
        self.run_for(5)
        self.assertEqual('building', self.state('vm'))
        self.driver.fail_next_terminations(1)
        self.loop.delete('vm')
        self.run_for(40)
        self.assertEqual(['vm'], self.running_on('host-A'))
        self.run_for(60)
        self.assertEqual('deleted', self.state('vm'))
        self.assertEqual([], self.running_on('host-A'))
        self.assert_db_is_compute()

    def test_deleted_while_building_its_confirmation_lost(self):
        # Deleted while it boots, terminated at once, the report of it
        # lost and its host remembering nothing of it (its agent
        # restarted): the spawn no longer awaited, the deletion's deadline
        # settles it as deleted (not as a spawn that went unanswered).
        self.flags(group='fake_driver', boot_times_hot=[30.0],
                   boot_times_cold=[30.0])
        self.new_driver()
        self.driver.finished_instances = lambda host: []
        self.submit('vm', MEDIUM)
        self.run_for(5)
        events = Dropper(self.loop.lifecycle, self.clock)
        self.driver.events = events
        events.drop.add('instance_terminated')
        self.loop.delete('vm')
        self.run_for(120)
        row = self.loop.store.get_instance('vm')
        self.assertEqual(('deleted', None), (row.state, row.reason))
        self.assertEqual(['vm'], self.driver.terminated)
        self.assertEqual([], self.loop.store.list_events(
            kind='instance.failed'))
        self.assert_db_is_compute()

    def test_victim_of_a_given_up_decision_is_not_left_running(self):
        # A normal request terminates a preemptible instance and is
        # deleted before the termination is confirmed; the confirmation
        # is lost: the victim's host is asked, and the row follows it.
        self.displacing_spot()
        self.driver.events = Dropper(self.loop.lifecycle, self.clock)
        self.driver.events.drop.add('instance_terminated')
        self.loop.delete('normal')
        self.run_for(30)
        self.assertEqual([], self.running_on('host-A'))
        self.run_for(60)
        self.assertEqual('terminated', self.state('spot'))
        self.assert_db_is_compute()
        # The look at it was taken: nothing is left to fire.
        self.assertEqual({}, self.loop.executor.deadlines)

    def test_given_up_victim_gone_without_a_trace_is_terminated(self):
        # As above, and the host forgot how it went: it is terminated as
        # of the look that found it gone.
        self.displacing_spot()
        self.driver.events = Dropper(self.loop.lifecycle, self.clock)
        self.driver.events.drop.add('instance_terminated')
        given_up = self.clock.now()
        self.loop.delete('normal')
        self.run_for(30)
        self.assertEqual([], self.running_on('host-A'))
        self.driver._hosts['host-A'].finished.clear()
        self.run_for(60)
        row = self.loop.store.get_instance('spot')
        self.assertEqual(('terminated', given_up + 60.0),
                         (row.state, row.ended_at))
        self.assert_db_is_compute()

    def test_given_up_victim_is_asked_about_again_when_unanswered(self):
        # As above, and its host does not answer the first look: it is
        # looked at again, and the row follows the host then.
        self.displacing_spot()
        self.driver.events = Dropper(self.loop.lifecycle, self.clock)
        self.driver.events.drop.add('instance_terminated')
        asked = self.unanswered()
        self.loop.delete('normal')
        self.run_for(90)
        self.assertEqual(['host-A'], asked)
        self.assertEqual([], self.running_on('host-A'))
        self.assertEqual('running', self.state('spot'))
        self.run_for(60)
        self.assertEqual('terminated', self.state('spot'))
        self.assert_db_is_compute()

    def test_request_journaled_before_a_crash_is_placed_on_recovery(self):
        self.loop.stop()
        self.loop = self.new_loop(crash_at='after_journal')
        self.submit('vm', MEDIUM)
        self.assertRaises(loop_fixtures.Crash, self.run_for, 5)
        self.assertEqual('pending', self.request_status('vm'))
        self.loop.stop()
        self.loop = self.new_loop()
        # Placed by the recovery, not by a start report that may be lost.
        self.assertEqual('placed', self.request_status('vm'))
        self.run_for(30)
        self.assertEqual('running', self.state('vm'))

    def test_requeued_victim_of_a_given_up_decision_is_queued_again(self):
        # Two victims; one refuses its termination until the decision is
        # rolled back, the other's termination goes through afterwards:
        # with on_victim = requeue that one waits in the queue again like
        # any victim, it is not terminated for good.
        self.flags(group='scheduler', on_victim='requeue')
        self.flags(group='fake_driver', termination_seconds=20.0)
        self.new_driver()
        half = objects.Flavor('half', 4, 8000, 80)
        self.submit('spot-a', half, preemptible=True)
        self.submit('spot-b', half, preemptible=True)
        self.run_for(10)
        terminate = self.driver.terminate

        def refuse_a(host, instance_id):
            if instance_id == 'spot-a':
                self.driver._report('termination_failed', host,
                                    instance_id, 'refused')
            else:
                terminate(host, instance_id)
        self.driver.terminate = refuse_a
        self.submit('normal', BLADE)
        self.run_for(5)
        rolled_back = self.loop.store.list_events(
            kind='decision.rolled_back', request_id='normal')
        self.assertTrue(rolled_back)
        self.run_for(30)
        row = self.loop.store.get_instance('spot-b')
        self.assertEqual(1, row.preemptions)
        self.assertEqual(1, len(self.loop.store.list_events(
            kind='instance.preempted', instance_id='spot-b')))
        self.assertIn(row.state, ('pending', 'building', 'running'))
        self.assert_db_is_compute()


class TestBorrowedRoom(ReliabilityTestCase):

    def assert_both_boot_once_the_victim_is_gone(self):
        self.run_for(30)
        self.assertEqual('terminated', self.state('spot'))
        self.assertEqual({}, self.loop.executor.borrowed)
        self.assertEqual(['running', 'running'],
                         [self.state(i) for i in ('r-0', 'r-1')])
        self.assertEqual([1, 1], [self.driver.spawned.count(i)
                                  for i in ('r-0', 'r-1')])

    def test_both_instances_spawn_once_the_one_victim_is_gone(self):
        # Two instances of one request are placed on host-A in the room
        # one victim frees: the second decision borrows the first's
        # victim. Neither boots before the victim is gone; both boot then,
        # once each.
        self.two_borrowing_one_room()
        self.assertEqual([], [i for i in ('r-0', 'r-1')
                              if i in self.driver.spawned])
        self.assertEqual(1, len(self.loop.executor.borrowed))
        self.assert_both_boot_once_the_victim_is_gone()
        self.assert_db_is_compute()

    def test_borrowed_room_is_waited_for_after_a_restart(self):
        # The same, the scheduler restarted while the victim goes: the
        # recovered borrower waits for the room again, nothing boots
        # early (a spawn refused for want of room would show it).
        self.two_borrowing_one_room()
        self.loop.stop()
        self.loop = self.new_loop()
        self.assertEqual(1, len(self.loop.executor.borrowed))
        self.assert_both_boot_once_the_victim_is_gone()
        self.assertEqual([], self.driver.refused)
        self.assert_db_is_compute()

    def test_giving_up_another_decision_leaves_the_borrower_alone(self):
        # 'r' borrows on the blade of 'spot0'; 'q' displaces 'spot1' on
        # the other blade and is deleted before that victim goes: giving
        # 'q' up concerns none of the room 'r' waits for.
        self.flags(group='fake_driver', termination_seconds=20.0)
        self.new_driver()
        half = objects.Flavor('half', 4, 8000, 80)
        self.submit('spot0', BLADE, preemptible=True)
        self.submit('spot1', BLADE, preemptible=True)
        self.run_for(10)
        self.multi('r', 2, half)
        self.run_for(1)
        self.assertEqual(1, len(self.loop.executor.borrowed))
        self.submit('q', BLADE)
        self.run_for(1)
        q_decision = self.loop.store.get_instance('q').decision_id
        self.assertIsNotNone(q_decision)
        self.loop.delete('q')
        self.assertEqual([q_decision], [
            event.payload['decision_id'] for event in
            self.loop.store.list_events(kind='decision.rolled_back')])
        self.run_for(60)
        hosts = {self.loop.store.get_instance(i).host for i in ('r-0', 'r-1')}
        self.assertEqual(1, len(hosts))
        self.assertEqual(['running', 'running'],
                         [self.state(i) for i in ('r-0', 'r-1')])
        self.assertEqual([1, 1], [self.driver.spawned.count(i)
                                  for i in ('r-0', 'r-1')])
        self.assertEqual(['done', 'done'], [
            self.loop.store.get_decision(self.loop.store.get_instance(
                i).decision_id).state for i in ('r-0', 'r-1')])
        self.assert_db_is_compute()

    def test_borrower_gives_up_with_the_decision_it_borrows_from(self):
        # The one victim cannot be terminated: the decision it belongs to
        # is rolled back, and so is the one borrowing its room, saying
        # why; both instances wait again, the victim runs on.
        host = self.two_borrowing_one_room(failed_terminations=10)
        first, second = (self.loop.store.get_instance(i).decision_id
                         for i in ('r-0', 'r-1'))
        self.run_for(120)
        lender = self.loop.store.get_decision(first)
        borrower = self.loop.store.get_decision(second)
        self.assertEqual(('rolled_back', 'rolled_back'),
                         (lender.state, borrower.state))
        self.assertEqual('the room it waited for on %s stays taken (%s)'
                         % (host, lender.reason), borrower.reason)
        self.assertEqual('running', self.state('spot'))
        self.assertEqual([], [i for i in ('r-0', 'r-1')
                              if i in self.driver.spawned])


class TestCrashesWhileTerminating(ReliabilityTestCase):
    """An instance that crashes while it is being terminated ends as
    what its termination was for, with the crash's reason where it has
    none of its own.
    """

    def setUp(self):
        super().setUp()
        self.flags(group='fake_driver', termination_seconds=20.0)
        self.new_driver()

    def test_victim_that_crashes_is_gone_with_its_reason(self):
        self.submit('spot', BLADE, preemptible=True)
        self.submit('busy', BLADE)
        self.run_for(10)
        host = self.loop.store.get_instance('spot').host
        self.submit('normal', BLADE)
        self.run_for(5)
        self.assertEqual('terminating', self.state('spot'))
        self.driver.crash_instance(host, 'spot', 'kernel panic')
        self.run_for(30)
        row = self.loop.store.get_instance('spot')
        self.assertEqual(('error', 'kernel panic'), (row.state, row.reason))
        [gone] = self.loop.store.list_events(kind='instance.terminated')
        self.assertEqual(('spot', host), (gone.payload['instance_id'],
                                          gone.payload['host']))
        self.assertEqual(('running', host),
                         (self.state('normal'),
                          self.loop.store.get_instance('normal').host))
        self.assert_db_is_compute()

    def test_deleted_instance_that_crashes_is_deleted(self):
        self.submit('vm', BLADE)
        self.run_for(10)
        host = self.loop.store.get_instance('vm').host
        self.loop.delete('vm')
        self.run_for(5)
        self.driver.crash_instance(host, 'vm', 'kernel panic')
        self.run_for(30)
        self.assertEqual('deleted', self.state('vm'))
        self.assertEqual({}, self.loop.lifecycle.deleting)
        self.assert_db_is_compute()


class TestHostLostUnderOpenDecisions(ReliabilityTestCase):

    def test_each_instance_is_queued_once_when_its_host_goes_down(self):
        # Two instances of one request wait on host-A for the room one
        # victim frees (the second borrows it). host-A goes down: both
        # decisions are given up once, and each instance waits once; it
        # used to be queued twice and placed twice (the scheduler crashed
        # with "already on host").
        spot_host = self.two_borrowing_one_room()
        self.driver.host_down(spot_host)
        self.run_for(1)
        waiting = sorted(i for entry in self.loop.queue.values()
                         for i in entry.spec.instance_ids)
        self.assertEqual(['r-0', 'r-1'], waiting)
        self.driver.host_up(spot_host)
        self.run_for(30)
        self.assertEqual(['running', 'running'],
                         [self.state(i) for i in ('r-0', 'r-1')])
        self.assertEqual(1, self.driver.spawned.count('r-1'))
        self.assert_db_is_compute()

    def restart_after_the_spawn_of(self, name):
        """The scheduler crashes right after it sent the spawn of
        ``name`` (a medium) and starts again.
        """
        self.loop.stop()
        self.loop = self.new_loop(crash_at='after_spawn')
        self.submit(name, MEDIUM)
        self.assertRaises(loop_fixtures.Crash, self.run_for, 5)
        self.loop.stop()
        self.loop = self.new_loop()

    def test_spawn_still_on_its_way_after_a_restart_is_not_sent_twice(self):
        # The crashed scheduler's spawn reaches the host only after the
        # restarted one recovered the decision: it waits for it (its
        # deadline) instead of placing the instance again, which booted
        # it twice (the late copy then terminated as a stray).
        spawn = self.driver.spawn
        self.driver.spawn = lambda host, instance, **kw: \
            self.clock.call_later(20, lambda: spawn(host, instance, **kw))
        self.restart_after_the_spawn_of('vm')
        self.run_for(60)
        self.assertEqual('running', self.state('vm'))
        self.assertEqual(1, self.driver.spawned.count('vm'))
        self.assertEqual([], self.loop.store.list_events(
            kind='instance.stray'))
        self.assertEqual([], self.driver.refused)

    def test_spawn_lost_before_a_restart_is_placed_again_by_its_deadline(
            self):
        # The crashed scheduler's spawn never reached the host: the
        # restarted one waits for it until its deadline, then places the
        # instance again, and it runs.
        spawn = self.driver.spawn
        lost = []

        def lose_first(host, instance, **kw):
            if not lost:
                lost.append(instance.id)
                return
            spawn(host, instance, **kw)
        self.driver.spawn = lose_first
        self.restart_after_the_spawn_of('vm')
        self.run_for(30)
        self.assertEqual('building', self.state('vm'))
        self.run_for(60)
        self.assertEqual(['vm'], lost)
        self.assertEqual('running', self.state('vm'))
        self.assertEqual([], self.loop.store.unfinished_decisions())
        self.assert_db_is_compute()

    def test_a_decision_is_spawned_once(self):
        # Asked twice (the room it waited for freed twice over, say), the
        # executor sends the spawn once.
        self.submit('vm', MEDIUM)
        self.run_for(0.5)               # placed, still booting
        decision_id = self.loop.store.get_instance('vm').decision_id
        self.assertEqual('spawning', self.loop.store.get_decision(
            decision_id).state)
        self.loop.executor.spawn(decision_id)
        self.run_for(30)
        self.assertEqual(['vm'], self.driver.spawned)
        self.assertEqual('running', self.state('vm'))
        self.assertEqual([], self.driver.refused)
        # Nor once it is done (the instance runs).
        self.assertEqual('done', self.loop.store.get_decision(
            decision_id).state)
        self.loop.executor.spawn(decision_id)
        self.run_for(30)
        self.assertEqual(['vm'], self.driver.spawned)
        self.assertEqual([], self.driver.refused)
        self.assert_db_is_compute()

    def test_a_failed_decision_is_not_spawned(self):
        # Its spawn failed (the instance went back to the queue and was
        # placed again): asked again, the executor leaves it as it was.
        self.driver.fail_next_spawns(1)
        self.submit('vm', MEDIUM)
        self.run_for(30)
        self.assertEqual('running', self.state('vm'))
        [failed, done] = [self.loop.store.get_decision(event.payload[
            'decision_id']) for event in self.loop.store.list_events(
                kind='decision.journaled')]
        self.assertEqual(('failed', 'injected boot failure', 'done'),
                         (failed.state, failed.reason, done.state))
        self.loop.executor.spawn(failed.id)
        self.run_for(30)
        self.assertEqual(['vm', 'vm'], self.driver.spawned)
        again = self.loop.store.get_decision(failed.id)
        self.assertEqual(('failed', 'injected boot failure'),
                         (again.state, again.reason))
        self.assert_db_is_compute()
