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

"""What the loop records as the compute side reports: the events (their
kinds, columns and payloads, which notifications consumers read), the
instance and decision rows, and the books of the host manager.

One 8-vCPU blade unless told otherwise; boots take 2 s, terminations
0.5 s (tests.functional.loop.fixtures).
"""

from preemptible_sched import objects
from tests.functional.loop import fixtures as loop_fixtures

MEDIUM = loop_fixtures.MEDIUM
LARGE = loop_fixtures.LARGE
WHOLE = objects.Flavor('whole', 8, 16000, 160)


class EventsTestCase(loop_fixtures.LoopTestCase):

    def events(self, kind=None, **kw):
        return [(e.at, e.kind, e.request_id, e.instance_id, e.host,
                 e.payload)
                for e in self.loop.store.list_events(kind=kind, **kw)]

    def kinds(self, **kw):
        return [e.kind for e in self.loop.store.list_events(**kw)]

    def row(self, instance_id):
        return self.loop.store.get_instance(instance_id)

    def books(self, host='host-A'):
        return sorted(self.loop.host_manager.host_states[host].instances)

    def decisions(self, request_id):
        """The decisions journaled for ``request_id``, in order."""
        return [self.loop.store.get_decision(e.payload['decision_id'])
                for e in self.loop.store.list_events(
                    kind='decision.journaled', request_id=request_id)]


class TestOrdinaryLife(EventsTestCase):

    def test_events_and_times_of_an_instance_that_runs_to_its_end(self):
        self.submit('vm', duration=10)
        self.run_for(20)
        self.assertEqual([
            (0.0, 'request.submitted', 'vm', None, None,
             {'request_id': 'vm'}),
            (0.0, 'decision.journaled', 'vm', 'vm', 'host-A',
             {'decision_id': 1, 'victims': []}),
            (0.0, 'instance.placement', 'vm', 'vm', 'host-A',
             {'request_id': 'vm', 'instance_id': 'vm', 'host': 'host-A',
              'terminate': [], 'decision_id': 1}),
            (2.0, 'instance.started', 'vm', 'vm', 'host-A',
             {'instance_id': 'vm', 'host': 'host-A', 'request_id': 'vm'}),
            (12.0, 'instance.ended', 'vm', 'vm', 'host-A',
             {'instance_id': 'vm', 'host': 'host-A', 'request_id': 'vm'}),
        ], self.events())
        row = self.row('vm')
        self.assertEqual(('ended', 'host-A', 0.0, 2.0, 12.0, 10.0, 2.0, 0.0,
                          12.0),
                         (row.state, row.host, row.scheduled_at,
                          row.started_at, row.ended_at, row.running_s,
                          row.overhead_s, row.pending_s, row.updated_at))
        self.assertEqual('done', self.loop.store.get_decision(1).state)
        self.assertEqual('placed', self.request_status('vm'))
        self.assertEqual([], self.books())

    def test_start_is_recorded_when_reported(self):
        self.submit('vm')
        self.run_for(5)
        row = self.row('vm')
        self.assertEqual(('running', 2.0, 2.0), (row.state, row.started_at,
                                                 row.updated_at))
        # A start reported for an instance that has ended changes nothing.
        self.loop.lifecycle.instance_ended('host-A', 'vm', 6.0)
        self.loop.lifecycle.instance_started('host-A', 'vm', 7.0)
        row = self.row('vm')
        self.assertEqual(('ended', 2.0, 6.0), (row.state, row.started_at,
                                               row.ended_at))
        self.assertEqual(1, len(self.events(kind='instance.started')))

    def test_run_shorter_than_a_second(self):
        self.submit('vm', duration=0.5)
        self.run_for(5)
        row = self.row('vm')
        self.assertEqual(('ended', 2.5, 0.5), (row.state, row.ended_at,
                                               row.running_s))

    def test_waiting_time_is_counted_until_the_journal(self):
        # The blade is full until t = 52 (whole-blade instance started at
        # 2, duration 50); 'late' waits from t = 5 and is journaled at 52.
        self.flags(group='scheduler', on_no_valid_host='wait')
        self.submit('big', WHOLE, duration=50)
        self.run_for(5)
        self.submit('late')
        self.run_for(60)
        row = self.row('late')
        self.assertEqual(('running', 52.0, 54.0), (row.state,
                                                   row.scheduled_at,
                                                   row.started_at))
        self.assertAlmostEqual(47.0, row.pending_s)


class TestTerminationEvents(EventsTestCase):

    def test_victim_notice_termination_and_books(self):
        self.flags(group='preemptible', termination_grace_seconds=3)
        self.submit('spot', WHOLE, preemptible=True)
        self.run_for(10)
        self.submit('normal')
        self.run_for(20)
        # Journaled at 10, notice at 10 for 13, terminated at 13.5, the
        # new instance spawned then and running at 15.5.
        notice = self.events(kind='instance.termination_notice')
        self.assertEqual([(10.0, 'instance.termination_notice', None,
                           'spot', 'host-A',
                           {'instance_id': 'spot', 'host': 'host-A',
                            'decision_id': 2, 'terminate_at': 13.0})],
                         notice)
        self.assertEqual([(13.5, 'instance.terminated', None, 'spot',
                           'host-A', {'instance_id': 'spot',
                                      'host': 'host-A', 'decision_id': 2})],
                         self.events(kind='instance.terminated'))
        placement = self.events(kind='instance.placement')[-1]
        self.assertEqual(['spot'], placement[5]['terminate'])
        spot = self.row('spot')
        self.assertEqual(('terminated', 13.5), (spot.state, spot.ended_at))
        self.assertAlmostEqual(11.5, spot.running_s)     # 2 to 13.5
        self.assertEqual(1, spot.preemptions)
        normal = self.row('normal')
        self.assertEqual(('running', 15.5), (normal.state,
                                             normal.started_at))
        self.assertEqual(['normal'], self.books())

    def test_victim_that_ends_during_the_grace_period(self):
        # 'spot' runs from 2 to 22 by itself; it is a victim from t = 10
        # with a 30 s grace: it ends first, with its 20 s of running, and
        # the new instance is spawned once the termination finds it gone.
        self.flags(group='preemptible', termination_grace_seconds=30)
        self.submit('spot', WHOLE, preemptible=True, duration=20)
        self.run_for(10)
        self.submit('normal')
        self.run_for(5)
        self.assertEqual('terminating', self.state('spot'))
        self.run_for(40)
        spot = self.row('spot')
        self.assertEqual(('ended', 22.0, 20.0),
                         (spot.state, spot.ended_at, spot.running_s))
        self.assertEqual('running', self.state('normal'))
        self.assertEqual([], self.driver.terminated)

    def test_requeued_victim_keeps_its_account(self):
        # Under 'priority' victims are requeued: 'low' ran 8 s (2 to 10)
        # and waits again, pending, with one preemption on record.
        self.flags(group='scheduler', preemption_strategy='priority',
                   on_no_valid_host='wait')
        self.flags(group='fake_driver', termination_seconds=0.0)
        self.loop.stop()
        self.driver = loop_fixtures.CountingDriver(self.clock, seed=1)
        self.loop = self.new_loop()
        self.submit('low', WHOLE, priority=1)
        self.run_for(10)
        self.submit('high', WHOLE, priority=5)
        self.run_for(1)
        low = self.row('low')
        self.assertEqual(('pending', None, None, None, 1),
                         (low.state, low.host, low.started_at,
                          low.decision_id, low.preemptions))
        self.assertAlmostEqual(8.0, low.running_s)
        self.assertEqual('pending', self.request_status('low'))
        self.assertEqual([(10.0, 'instance.preempted', 'low', 'low',
                           'host-A', {'instance_id': 'low',
                                      'request_id': 'low',
                                      'host': 'host-A'})],
                         self.events(kind='instance.preempted'))
        (entry,) = self.loop.queue.values()
        self.assertEqual(('low', 8.0, True), (entry.id, entry.running_s,
                                              entry.preempted))


class TestTerminationFailures(EventsTestCase):

    def fill_with_preemptible(self, flavor=WHOLE):
        count = int(8 // flavor.vcpus)
        for i in range(count):
            self.submit('spot%d' % i, flavor, preemptible=True)
        self.run_for(10)

    def test_two_failures_are_retried_not_given_up(self):
        # Three attempts per victim: two failures still end in a
        # termination and the decision is carried out.
        self.fill_with_preemptible()
        self.driver.fail_next_terminations(2)
        self.submit('normal', WHOLE)
        self.run_for(30)
        decision = self.loop.store.get_decision(2)
        self.assertEqual('done', decision.state)
        self.assertEqual(['spot0'], self.driver.terminated)
        self.assertEqual('running', self.state('normal'))
        self.assertEqual(0, self.loop.store.get_request('normal').attempts)

    def test_attempts_are_counted_per_victim(self):
        # A large request displaces two medium instances; three failures
        # spread over both victims leave each below three attempts.
        self.fill_with_preemptible(MEDIUM)
        self.driver.fail_next_terminations(3)
        self.submit('normal', LARGE)
        self.run_for(30)
        # The first decision is carried out: nothing rolled back, no
        # attempt used up.
        self.assertEqual(['done'],
                         [d.state for d in self.decisions('normal')])
        self.assertEqual([], self.events(kind='decision.rolled_back'))
        self.assertEqual(0, self.loop.store.get_request('normal').attempts)
        self.assertEqual(2, len(self.driver.terminated))
        self.assertEqual('running', self.state('normal'))

    def test_third_failure_rolls_back_with_the_reason(self):
        self.flags(group='scheduler', max_attempts=1)
        self.fill_with_preemptible()
        self.driver.fail_next_terminations(3)
        self.submit('normal', WHOLE)
        self.run_for(5)       # three failed attempts, 0.5 s each
        decision = self.loop.store.get_decision(2)
        self.assertEqual('rolled_back', decision.state)
        self.assertEqual('termination of spot0 on %s failed: injected '
                         'termination failure' % decision.host,
                         decision.reason)
        self.assertEqual(1, self.loop.store.get_request('normal').attempts)
        # The request comes back with that reason, and gives up on it.
        row = self.row('normal')
        self.assertEqual('error', row.state)
        self.assertIn(decision.reason, row.reason)
        # The victim runs on, in the books too.
        self.assertEqual('running', self.state('spot0'))
        self.assertEqual(['spot0'], self.books())

    def test_failed_deletion_is_asked_again_by_its_deadline(self):
        # The compute side refuses to delete 'vm': it keeps running until
        # the deletion's deadline, when the scheduler asks the host, finds
        # it still there and terminates it again.
        self.flags(group='scheduler', compute_deadline=60.0)
        self.submit('vm')
        self.run_for(5)
        self.driver.fail_next_terminations(1)
        self.loop.delete('vm')
        self.run_for(5)
        self.assertEqual('running', self.state('vm'))
        self.assertIn('vm', self.loop.lifecycle.deleting)
        self.run_for(60)
        self.assertEqual('deleted', self.state('vm'))
        self.assertNotIn('vm', self.loop.lifecycle.deleting)
        self.assertEqual([], self.driver.list_instances('host-A'))

    def test_lost_deletion_is_settled_by_its_deadline(self):
        # The terminate message is lost: the deadline finds the instance
        # still running and asks again; a late answer changes nothing.
        self.flags(group='scheduler', compute_deadline=60.0)
        self.submit('vm')
        self.run_for(5)
        terminate = self.driver.terminate
        self.driver.terminate = lambda host, instance_id: None
        self.loop.delete('vm')
        self.run_for(30)
        self.driver.terminate = terminate
        self.assertEqual('running', self.state('vm'))
        self.run_for(60)
        self.assertEqual('deleted', self.state('vm'))
        self.loop.lifecycle.instance_terminated('host-A', 'vm', 100.0)
        self.assertEqual('deleted', self.state('vm'))


class TestDelete(EventsTestCase):

    def test_delete_during_the_grace_period_rolls_back_as_deleted(self):
        self.flags(group='preemptible', termination_grace_seconds=30)
        self.submit('spot', WHOLE, preemptible=True)
        self.run_for(10)
        self.submit('normal')
        self.run_for(5)
        self.loop.delete('normal')
        decision = self.loop.store.get_decision(2)
        self.assertEqual(('rolled_back', 'request deleted'),
                         (decision.state, decision.reason))
        # Deleting is no failed attempt, and nothing comes back.
        request = self.loop.store.get_request('normal')
        self.assertEqual(('deleted', 0), (request.status, request.attempts))
        self.assertEqual(0, len(self.loop.queue))
        row = self.row('normal')
        self.assertEqual(('deleted', 15.0), (row.state, row.ended_at))
        self.assertEqual(['spot'], self.books())

    def test_deleted_events(self):
        self.submit('vm')
        self.run_for(5)
        self.loop.delete('vm')
        self.run_for(5)
        self.assertEqual([(5.5, 'instance.deleted', 'vm', 'vm', 'host-A',
                           {'instance_id': 'vm', 'host': 'host-A',
                            'request_id': 'vm'})],
                         self.events(kind='instance.deleted'))
        self.assertEqual([], self.books())


class TestFailedRequest(EventsTestCase):

    def test_no_valid_host_fails_the_instance_and_tells(self):
        self.flags(group='scheduler', on_no_valid_host='fail')
        self.submit('big', WHOLE)
        self.run_for(5)
        self.submit('late')
        self.run_for(5)
        row = self.row('late')
        self.assertEqual(('error', 5.0, 5.0), (row.state, row.ended_at,
                                               row.updated_at))
        self.assertIn('No host can take instance 1 of 1 of request late',
                      row.reason)
        request = self.loop.store.get_request('late')
        self.assertEqual(('failed', row.reason), (request.status,
                                                  request.reason))
        self.assertEqual([(5.0, 'request.failed', 'late', None, None,
                           {'request_id': 'late', 'reason': row.reason})],
                         self.events(kind='request.failed'))


class TestSpawnFailures(EventsTestCase):

    def test_crash_while_building_is_tried_again_with_its_overhead(self):
        # 'vm' is journaled at 0 and dies 0.5 s into its boot: the half
        # second is overhead, the instance waits again and boots 2 s.
        self.submit('vm')
        self.run_for(0.5)
        self.driver.crash_instance('host-A', 'vm', 'kernel panic')
        self.run_for(0)
        self.assertEqual([(0.5, 'instance.failed', 'vm', 'vm', 'host-A',
                           {'instance_id': 'vm', 'host': 'host-A',
                            'reason': 'kernel panic', 'request_id': 'vm'})],
                         self.events(kind='instance.failed'))
        decision = self.loop.store.get_decision(1)
        self.assertEqual(('failed', 'kernel panic'), (decision.state,
                                                      decision.reason))
        # Placed again at once, by a new decision.
        row = self.row('vm')
        self.assertEqual(('building', 'host-A', 2, 0.5),
                         (row.state, row.host, row.decision_id,
                          row.scheduled_at))
        self.assertAlmostEqual(0.5, row.overhead_s)
        # Waiting time excludes the overhead: none was spent waiting.
        self.assertEqual(0.0, row.pending_s)
        self.assertEqual(1, self.loop.store.get_request('vm').attempts)
        self.run_for(10)
        row = self.row('vm')
        self.assertEqual(('running', 2.5), (row.state, row.started_at))
        self.assertAlmostEqual(2.5, row.overhead_s)
        # The books the strategies read say so too.
        self.assertEqual(row.overhead_s, self.loop.host_manager.host_states[
            row.host].instances['vm'].overhead_s)

    def test_failed_boot_goes_back_to_the_queue_as_it_came(self):
        # Journaled at 10, the boot fails at 10.5: the instance is
        # unclaimed, has 0.5 s more overhead, and its request waits again
        # with its submission time and duration.
        self.run_for(10)
        self.submit('vm', duration=30.0)
        self.run_for(0.5)
        self.loop.lifecycle.instance_failed('host-A', 'vm', 10.5,
                                            'kernel panic')
        row = self.row('vm')
        self.assertEqual(('pending', None, None, 10.5),
                         (row.state, row.host, row.decision_id,
                          row.updated_at))
        self.assertAlmostEqual(0.5, row.overhead_s)
        (entry,) = self.loop.queue.values()
        self.assertEqual(
            ('vm', ('vm',), 1, 10.0, 30.0, 1, 0.0, 'kernel panic', False),
            (entry.id, tuple(entry.spec.instance_ids),
             entry.spec.num_instances, entry.submitted_at, entry.duration,
             entry.attempts, entry.running_s, entry.reason,
             entry.preempted))

    def test_one_instance_of_a_request_goes_back_alone(self):
        self.loop.submit(objects.RequestSpec('r', MEDIUM.resources,
                                             num_instances=2))
        self.run_for(0.5)
        self.loop.lifecycle.instance_failed('host-A', 'r-1', 0.5, 'boom')
        (entry,) = self.loop.queue.values()
        self.assertEqual(('r', 1, ('r-1',)),
                         (entry.id, entry.spec.num_instances,
                          tuple(entry.spec.instance_ids)))
        # Its sibling starting does not make the request placed while
        # 'r-1' waits.
        self.loop.lifecycle.instance_started('host-A', 'r-0', 0.5)
        self.assertEqual('running', self.row('r-0').state)
        self.assertEqual('pending', self.request_status('r'))

    def test_given_up_after_max_attempts_with_the_last_reason(self):
        self.flags(group='scheduler', max_attempts=1)
        self.submit('vm')
        self.run_for(0.5)
        self.driver.crash_instance('host-A', 'vm', 'kernel panic')
        self.run_for(5)
        row = self.row('vm')
        self.assertEqual('error', row.state)
        self.assertIn('gave up after 1 attempts: kernel panic', row.reason)

    def test_running_instance_that_fails_ends_in_error(self):
        self.submit('vm')
        self.run_for(10)
        self.driver.crash_instance('host-A', 'vm', 'disk lost')
        self.run_for(1)
        row = self.row('vm')
        self.assertEqual(('error', 10.0, 'disk lost'),
                         (row.state, row.ended_at, row.reason))
        self.assertAlmostEqual(8.0, row.running_s)
        self.assertEqual('done', self.loop.store.get_decision(1).state)
        self.assertEqual([], self.books())
        self.assertEqual(1, self.loop.store.get_request('vm').attempts)
        self.assertEqual(0, len(self.loop.queue))

    def test_failure_of_an_unknown_instance_is_ignored(self):
        self.loop.lifecycle.instance_failed('host-A', 'ghost', 1.0, 'boom')
        self.assertEqual([], self.events(kind='instance.failed'))


class TestHosts(EventsTestCase):

    hosts = 2

    def host_row(self, name):
        return {row.name: row for row in self.loop.store.hosts()}[name]

    def test_down_and_up_are_recorded_once(self):
        self.submit('vm')
        self.run_for(5)
        host = self.row('vm').host
        self.driver.host_down(host)
        self.loop.lifecycle.host_down(host, 6.0)      # told twice
        self.assertFalse(self.host_row(host).up)
        self.assertEqual([(5.0, 'host.down', None, None, host,
                           {'host': host})],
                         self.events(kind='host.down'))
        row = self.row('vm')
        self.assertEqual(('error', 'host %s went down' % host),
                         (row.state, row.reason))
        self.driver.host_up(host)
        self.loop.lifecycle.host_up(host, 7.0)
        self.assertTrue(self.host_row(host).up)
        self.assertEqual([(5.0, 'host.up', None, None, host,
                           {'host': host})],
                         self.events(kind='host.up'))

    def test_decision_on_a_host_that_goes_down_is_rolled_back(self):
        self.flags(group='preemptible', termination_grace_seconds=30)
        for name in ('s0', 's1'):
            self.submit(name, WHOLE, preemptible=True)
        self.run_for(10)
        self.submit('normal', WHOLE)
        self.run_for(5)
        host = self.row('normal').host
        decision_id = self.row('normal').decision_id
        self.driver.host_down(host)
        self.run_for(0)
        decision = self.loop.store.get_decision(decision_id)
        self.assertEqual(('rolled_back', 'host %s went down' % host),
                         (decision.state, decision.reason))
        (victim,) = decision.victims
        # The victim was still held on the host (its room reserved): it
        # goes down with the host.
        self.assertEqual(('error', 'host %s went down' % host),
                         (self.state(victim), self.row(victim).reason))

    def test_host_lost_while_an_instance_boots(self):
        # The decision is spawning (no victims): it is rolled back and the
        # instance placed again on the other blade.
        self.submit('vm')
        self.run_for(1)
        host = self.row('vm').host
        self.assertEqual('spawning', self.loop.store.get_decision(1).state)
        self.driver.host_down(host)
        self.run_for(0)
        self.assertEqual(('rolled_back', 'host %s went down' % host),
                         (self.loop.store.get_decision(1).state,
                          self.loop.store.get_decision(1).reason))
        self.run_for(5)
        row = self.row('vm')
        self.assertEqual('running', row.state)
        self.assertNotEqual(host, row.host)
        self.assertEqual(1, self.loop.store.get_request('vm').attempts)

    def test_deleted_request_is_not_placed_again_after_a_rollback(self):
        # Deleted while its instance boots; the host goes down before the
        # deletion is confirmed: the rolled-back instance must not come
        # back to the queue.
        self.submit('vm')
        self.run_for(1)
        host = self.row('vm').host
        self.loop.delete('vm')
        self.run_for(0.2)
        self.driver.host_down(host)
        self.run_for(10)
        self.assertEqual('rolled_back',
                         self.loop.store.get_decision(1).state)
        self.assertEqual(0, len(self.loop.queue))
        self.assertNotEqual('running', self.state('vm'))
        self.assertEqual([1], [d.id for d in self.decisions('vm')])
        self.assertEqual('deleted', self.request_status('vm'))

    def test_host_added_while_running_takes_requests(self):
        self.flags(group='scheduler', on_no_valid_host='wait')
        for name in ('a', 'b'):
            self.submit(name, WHOLE)
        self.submit('c', WHOLE)
        self.run_for(5)
        self.assertEqual('pending', self.state('c'))
        new = objects.Host('host-Z', 8, 16384, 500)
        self.loop.lifecycle.host_added(new, 6.0)
        self.loop.lifecycle.host_added(new, 7.0)     # known: no change
        self.assertIn('host-Z', self.loop.host_manager.host_states)
        row = self.host_row('host-Z')
        self.assertEqual((8, 16384, 500, 6.0),
                         (row.vcpus, row.memory_mb, row.disk_gb,
                          row.updated_at))
        # The next pass places 'c' there (the fake compute side knows no
        # such host and refuses the spawn: only the decision matters).
        self.run_for(0)
        self.assertEqual('host-Z', self.events(
            kind='instance.placement', request_id='c')[0][4])


class TestRecoveredSpawn(EventsTestCase):

    def test_instance_that_booted_while_the_scheduler_was_down(self):
        # The scheduler dies right after asking for the spawn (t = 0);
        # the instance boots at t = 2 with nobody listening; the next
        # scheduler (t = 5) finds it running and finishes the decision.
        self.loop.executor.crash_hook = self.crash_after_spawn
        self.submit('vm')
        self.assertRaises(loop_fixtures.Crash, self.run_for, 1)
        self.loop.stop()
        self.driver.events = Deaf()
        self.run_for(4)
        self.loop = self.new_loop()
        self.run_for(1)
        row = self.row('vm')
        self.assertEqual(('running', 2.0, 'host-A'),
                         (row.state, row.started_at, row.host))
        self.assertEqual('done', self.loop.store.get_decision(1).state)
        self.assertEqual(['vm'], self.books())
        (started,) = self.events(kind='instance.started')
        self.assertEqual(('vm', 'host-A', {'instance_id': 'vm',
                                           'host': 'host-A',
                                           'request_id': 'vm'}),
                         started[3:])

    @staticmethod
    def crash_after_spawn(where):
        if where == 'after_spawn':
            raise loop_fixtures.Crash(where)


class Deaf:
    """A compute-event receiver of a scheduler that is not running."""

    def __getattr__(self, name):
        return lambda *args, **kw: None
