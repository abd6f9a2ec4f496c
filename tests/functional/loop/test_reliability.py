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

    def assert_db_is_compute(self):
        for host in ('host-A', 'host-B')[:self.hosts]:
            self.assertEqual(self.running_on(host), self.db_on(host), host)


class TestOneStateMachine(ReliabilityTestCase):

    def test_victim_displaced_while_building_never_boots_again(self):
        # A preemptible instance still booting is chosen as a victim; the
        # scheduler restarts (cleanly) after its termination: it is not
        # spawned again, neither live nor by the recovery.
        self.flags(group='fake_driver', boot_times_hot=[30.0],
                   boot_times_cold=[30.0])
        self.loop.stop()
        self.driver = loop_fixtures.CountingDriver(self.clock, seed=1)
        self.loop = self.new_loop()
        self.submit('spot-a', BLADE, preemptible=True)
        self.submit('spot-b', BLADE, preemptible=True)
        self.run_for(5)
        self.assertEqual('building', self.state('spot-a'))
        self.submit('normal', BLADE)
        self.run_for(5)
        self.assertEqual('terminated', self.state('spot-a'))
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
        strays = self.loop.store.list_events(kind='instance.stray')
        self.assertEqual([other], [event.host for event in strays])


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
        # The host is full in the books too: nothing else lands there.
        self.submit('other', MEDIUM)
        self.run_for(30)
        self.assertEqual([], self.driver.refused[1:])

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
        self.assertEqual('terminated', self.state('spot'))
        self.assertEqual('running', self.state('normal'))
        self.assertEqual(['spot'], self.driver.terminated)

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
        # Terminated once: the deadline found it gone and confirmed it.
        self.assertEqual(['spot'], self.driver.terminated)


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


class TestUnreachableHosts(ReliabilityTestCase):

    def test_unreachable_host_keeps_its_instances_and_is_reconciled(self):
        self.submit('a', BLADE)
        self.submit('b', BLADE)
        self.run_for(10)
        host = self.loop.store.get_instance('a').host
        self.loop.lifecycle.host_unreachable(host, self.clock.now())
        self.assertEqual('running', self.state('a'))
        # While it is away 'a' dies there unseen.
        events = self.driver.events
        self.driver.events = Dropper(events, self.clock)
        self.driver.events.drop.add('instance_failed')
        self.driver.crash_instance(host, 'a')
        self.run_for(1)
        self.driver.events = events
        self.loop.lifecycle.host_up(host, self.clock.now())
        self.assertEqual('error', self.state('a'))
        self.assertIn('gone from host', self.loop.store.get_instance(
            'a').reason)
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
