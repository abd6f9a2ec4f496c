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

"""The pending queue: waiting, failing, ordering, lifecycle."""

from tests.functional.loop import fixtures as loop_fixtures

MEDIUM = loop_fixtures.MEDIUM


class TestNoValidHost(loop_fixtures.LoopTestCase):

    def fill_with_normal(self, duration=None):
        for i in range(4):
            self.submit('n%d' % i, duration=duration if i == 0 else None)
        self.run_for(10)
        self.assertEqual(['running'] * 4,
                         [self.state('n%d' % i) for i in range(4)])

    def test_wait_keeps_the_request_until_an_instance_ends(self):
        self.flags(group='scheduler', on_no_valid_host='wait')
        self.fill_with_normal(duration=100)
        self.submit('late')
        self.run_for(50)
        self.assertEqual('pending', self.request_status('late'))
        self.assertEqual('pending', self.state('late'))
        self.run_for(100)
        self.assertEqual('ended', self.state('n0'))
        self.assertEqual('running', self.state('late'))
        row = self.loop.store.get_instance('late')
        # It waited from t=10 until n0 ended (started at 2, ran 100 s).
        self.assertAlmostEqual(102.0 - 10.0, row.pending_s, places=6)
        self.assertAlmostEqual(2.0, row.overhead_s, places=6)

    def test_fail_fails_at_once_with_a_reason(self):
        self.flags(group='scheduler', on_no_valid_host='fail')
        self.fill_with_normal()
        self.submit('late')
        self.run_for(5)
        request = self.loop.store.get_request('late')
        self.assertEqual('failed', request.status)
        self.assertIn('No host can take instance 1 of 1 of request late',
                      request.reason)
        self.assertEqual('error', self.state('late'))

    def test_watchdog_sleeps_while_time_alone_cannot_help(self):
        # Under the billing policy a waiting request can only be placed
        # after an event (an instance ends, a host joins): once a pass
        # found nothing to do, the watchdog does not wake up for nothing.
        self.flags(group='scheduler', watchdog_interval=10,
                   on_no_valid_host='wait')
        self.fill_with_normal(duration=1000)
        self.submit('late')
        self.run_for(5)
        before = self.loop.passes
        self.run_for(900)
        self.assertLessEqual(self.loop.passes - before, 1)
        self.assertEqual('pending', self.state('late'))
        # The end of n0 is an event: the request is placed at once.
        self.run_for(200)
        self.assertEqual('running', self.state('late'))

    def test_watchdog_sleeps_while_nothing_waits(self):
        self.flags(group='scheduler', watchdog_interval=10)
        self.fill_with_normal()
        before = self.loop.passes
        self.run_for(1000)
        self.assertLessEqual(self.loop.passes - before, 1)
        self.assertEqual(0, self.clock.pending())


class TestLifecycle(loop_fixtures.LoopTestCase):

    def test_normal_request_terminates_the_cheapest_preemptible(self):
        # Run times at the decision: 300 s, 200 s, 100 s and 10 s (mod 3600).
        for name, delay in (('p0', 0), ('p1', 100), ('p2', 200),
                            ('p3', 290)):
            self.clock.call_at(delay, self.submit, name, MEDIUM, True)
        self.run_for(300)
        self.submit('normal')
        self.run_for(10)
        self.assertEqual('running', self.state('normal'))
        self.assertEqual(['p3'], self.driver.terminated)
        self.assertEqual('terminated', self.state('p3'))
        events = [e.kind for e in self.loop.store.list_events()]
        self.assertIn('instance.termination_notice', events)
        self.assertIn('instance.terminated', events)
        self.assertEqual([], self.driver.refused)

    def test_preemptible_request_never_terminates(self):
        for i in range(4):
            self.submit('p%d' % i, preemptible=True)
        self.run_for(10)
        self.submit('spot', preemptible=True)
        self.run_for(10)
        self.assertEqual('failed', self.request_status('spot'))
        self.assertEqual([], self.driver.terminated)

    def test_grace_period_delays_the_termination(self):
        self.flags(group='preemptible', termination_grace_seconds=30)
        for i in range(4):
            self.submit('p%d' % i, preemptible=True)
        self.run_for(10)
        self.submit('normal')
        self.run_for(20)
        self.assertEqual([], self.driver.terminated)
        self.assertEqual('pending', self.state('normal'))
        self.run_for(20)
        self.assertEqual(1, len(self.driver.terminated))
        self.assertEqual('running', self.state('normal'))

    def test_priority_queue_places_the_important_request_first(self):
        self.flags(group='scheduler', queue_policy='priority',
                   on_no_valid_host='wait')
        self.loop.stop()
        self.loop = self.new_loop()
        self.submit('n0', duration=100)
        for i in range(1, 4):
            self.submit('n%d' % i)
        self.run_for(10)
        self.submit('low', priority=1)
        self.submit('high', priority=5)
        self.run_for(200)
        self.assertEqual('running', self.state('high'))
        self.assertEqual('pending', self.state('low'))

    def test_failed_spawn_is_retried_elsewhere(self):
        self.driver.fail_next_spawns(1)
        self.submit('vm')
        self.run_for(20)
        self.assertEqual('running', self.state('vm'))
        # One failed attempt on record.
        self.assertEqual(1, self.loop.store.get_request('vm').attempts)

    def test_spawn_failing_every_time_ends_in_error(self):
        self.flags(group='scheduler', max_attempts=2)
        self.driver.fail_next_spawns(5)
        self.submit('vm')
        self.run_for(30)
        self.assertEqual('error', self.state('vm'))

    def test_delete_pending_and_running(self):
        self.flags(group='scheduler', on_no_valid_host='wait')
        for i in range(4):
            self.submit('n%d' % i)
        self.submit('queued')
        self.run_for(10)
        self.loop.delete('queued')
        self.loop.delete('n0')
        self.run_for(10)
        self.assertEqual('deleted', self.state('queued'))
        self.assertEqual('deleted', self.state('n0'))
        self.assertEqual(3, len(self.driver.list_instances('host-A')))
        self.assertEqual(6.0, self.loop.host_manager.host_states[
            'host-A'].full.vcpus_used)

    def test_host_down_loses_its_instances(self):
        self.submit('vm')
        self.run_for(10)
        self.driver.host_down('host-A')
        self.run_for(1)
        self.assertEqual('error', self.state('vm'))
        self.submit('next')
        self.run_for(5)
        self.assertEqual('failed', self.request_status('next'))
        self.driver.host_up('host-A')
        self.submit('after')
        self.run_for(5)
        self.assertEqual('running', self.state('after'))

    def test_stage_times_are_recorded(self):
        self.submit('vm')
        self.run_for(5)
        stages = self.loop.stats.summary_ms()
        for stage in ('J2', 'T2', 'T1', 'R1', 'R4', 'R5', 'T4'):
            self.assertGreaterEqual(stages[stage]['passes'], 1, stage)


class TestRestart(loop_fixtures.LoopTestCase):

    def test_pending_requests_survive_a_restart(self):
        self.flags(group='scheduler', on_no_valid_host='wait')
        self.submit('n0', duration=100)
        for i in range(1, 4):
            self.submit('n%d' % i)
        self.submit('waiting')
        self.run_for(10)
        self.loop.stop()
        self.loop = self.new_loop()
        self.run_for(100)
        self.assertEqual('running', self.state('waiting'))


class TestInFlight(loop_fixtures.LoopTestCase):

    def fill_with_preemptible(self):
        for i in range(4):
            self.submit('p%d' % i, preemptible=True)
        self.run_for(10)

    def test_delete_during_the_grace_period_spares_the_victims(self):
        self.flags(group='preemptible', termination_grace_seconds=30)
        self.fill_with_preemptible()
        self.submit('normal')
        self.run_for(5)
        self.loop.delete('normal')
        self.run_for(60)
        self.assertEqual('deleted', self.state('normal'))
        self.assertEqual([], self.driver.terminated)
        self.assertEqual(['running'] * 4,
                         [self.state('p%d' % i) for i in range(4)])
        self.assertEqual([], self.loop.store.unfinished_decisions())
        # The books are right: the next normal request terminates one.
        self.submit('next')
        self.run_for(60)
        self.assertEqual('running', self.state('next'))
        self.assertEqual(1, len(self.driver.terminated))
        self.assertEqual([], self.driver.refused)

    def test_delete_after_the_terminations_were_requested(self):
        self.fill_with_preemptible()
        self.submit('normal')
        self.run_for(0.1)      # journaled, termination under way
        self.loop.delete('normal')
        self.run_for(60)
        self.assertEqual('deleted', self.state('normal'))
        victims = self.driver.terminated
        self.assertEqual(1, len(victims))
        self.assertEqual('terminated', self.state(victims[0]))
        self.assertEqual(3, len(self.driver.list_instances('host-A')))
        self.assertEqual(6.0, self.loop.host_manager.host_states[
            'host-A'].full.vcpus_used)


class TestHostLostMidDecision(loop_fixtures.LoopTestCase):

    hosts = 2

    def test_request_is_requeued_when_its_host_is_lost(self):
        self.flags(group='preemptible', termination_grace_seconds=30)
        for i in range(4):
            self.submit('n%d' % i)
        self.run_for(10)
        for i in range(4):
            self.submit('p%d' % i, preemptible=True)
        self.run_for(10)
        self.submit('vip')
        self.run_for(5)
        store = self.loop.store
        lost_host = store.get_instance('vip').host
        (victim,) = store.get_decision(
            store.get_instance('vip').decision_id).victims
        on_lost_host = {row.id for row in store.list_instances(
            host=lost_host, states=('running',))}
        self.driver.host_down(lost_host)
        self.run_for(60)
        self.assertEqual([], store.unfinished_decisions())
        self.assertEqual({'error'}, {self.state(i) for i in on_lost_host})
        self.assertIn('went down', store.get_instance(victim).reason)
        # Placed again, on the blade that is left.
        row = store.get_instance('vip')
        self.assertEqual('running', row.state)
        self.assertNotEqual(lost_host, row.host)
        self.assertEqual([], self.driver.refused)
        self.assertEqual(1, store.get_request('vip').attempts)
