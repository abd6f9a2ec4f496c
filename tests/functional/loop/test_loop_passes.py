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

"""The loop's requests and passes: submission, admission, what a pass
does with a request it cannot place, multi-instance requests, and the
restart from the journal.

One 8-vCPU blade unless told otherwise; boots take 2 s, terminations
0.5 s (tests.functional.loop.fixtures).
"""

from preemptible_sched import exception
from preemptible_sched import objects
from tests.functional.loop import fixtures as loop_fixtures

MEDIUM = loop_fixtures.MEDIUM
WHOLE = objects.Flavor('whole', 8, 16000, 160)


class PassTestCase(loop_fixtures.LoopTestCase):

    def row(self, instance_id):
        return self.loop.store.get_instance(instance_id)

    def restart(self):
        self.loop.stop()
        self.loop = self.new_loop()

    def use_priority_strategy(self, **scheduler_flags):
        self.flags(group='scheduler', preemption_strategy='priority',
                   **scheduler_flags)
        self.flags(group='fake_driver', termination_seconds=0.0)
        self.loop.stop()
        self.driver = loop_fixtures.CountingDriver(self.clock, seed=1)
        self.loop = self.new_loop()


class TestSubmit(PassTestCase):

    def test_unknown_class_is_refused_and_nothing_is_kept(self):
        error = self.assertRaises(
            exception.InvalidInput, self.loop.submit,
            objects.RequestSpec('r', MEDIUM.resources,
                                service_class='platinum'))
        self.assertEqual(('request r', 'service_class'),
                         (error.source, error.field))
        self.assertEqual([], self.loop.store.list_requests())
        self.assertEqual(0, len(self.loop.queue))

    def test_class_priority_unless_the_request_has_one(self):
        self.loop.submit(objects.RequestSpec('g', MEDIUM.resources,
                                             service_class='gold'))
        self.loop.submit(objects.RequestSpec('own', MEDIUM.resources,
                                             service_class='gold',
                                             priority=2.5))
        self.loop.submit(objects.RequestSpec('none', MEDIUM.resources))
        gold = self.loop.classes.get('gold').priority
        self.assertNotEqual(0.0, gold)
        self.assertEqual({'g': gold, 'own': 2.5, 'none': 0.0},
                         {e.id: e.spec.priority
                          for e in self.loop.queue.values()})
        self.assertEqual(gold, self.row('g').priority)

    def test_instance_ids_of_a_multi_instance_request(self):
        self.assertEqual('r', self.loop.submit(objects.RequestSpec(
            'r', MEDIUM.resources, num_instances=3)))
        (entry,) = self.loop.queue.values()
        self.assertEqual(('r-0', 'r-1', 'r-2'), entry.spec.instance_ids)
        self.assertEqual(['r-0', 'r-1', 'r-2'], sorted(
            row.id for row in self.loop.store.list_instances(
                request_id='r')))
        self.run_for(5)
        self.assertEqual(['running'] * 3,
                         [self.state('r-%d' % i) for i in range(3)])
        self.assertEqual('placed', self.request_status('r'))

    def test_submitted_while_stopped_waits_for_the_start(self):
        self.loop.stop()
        self.loop.submit(objects.RequestSpec('r', MEDIUM.resources))
        self.run_for(5)
        self.assertEqual('pending', self.state('r'))
        self.assertEqual(0, self.loop.passes)


class TestNoRoom(PassTestCase):

    def test_requeued_victim_is_never_failed_for_want_of_room(self):
        # With on_no_valid_host = fail a new request fails at once, but a
        # victim waiting to come back keeps waiting.
        self.use_priority_strategy(on_no_valid_host='fail')
        self.submit('low', WHOLE, priority=1)
        self.run_for(5)
        self.submit('high', WHOLE, priority=5)
        self.run_for(5)
        self.assertEqual('running', self.state('high'))
        self.assertEqual('pending', self.state('low'))
        self.assertEqual('pending', self.request_status('low'))
        self.submit('new', WHOLE, priority=0)
        self.run_for(5)
        self.assertEqual('failed', self.request_status('new'))
        self.run_for(100)
        self.assertEqual('pending', self.state('low'))

    def test_multi_instance_request_fails_as_a_whole(self):
        # Room for one of the two: neither is placed, both fail.
        self.flags(group='scheduler', on_no_valid_host='fail')
        self.submit('big', objects.Flavor('six', 6, 12000, 120))
        self.run_for(1)
        self.loop.submit(objects.RequestSpec('r', MEDIUM.resources,
                                             num_instances=2))
        self.run_for(1)
        rows = [self.row('r-%d' % i) for i in range(2)]
        self.assertEqual([('error', 1.0)] * 2,
                         [(row.state, row.ended_at) for row in rows])
        for row in rows:
            self.assertIn('instance 2 of 2 of request r', row.reason)
        request = self.loop.store.get_request('r')
        self.assertEqual(('failed', rows[0].reason),
                         (request.status, request.reason))

    def test_give_up_once_attempts_are_used_up(self):
        self.flags(group='scheduler', max_attempts=2)
        self.driver.fail_next_spawns(2)
        self.submit('vm')
        self.run_for(3)
        # One failed boot: tried again.
        self.assertEqual('building', self.state('vm'))
        self.run_for(3)
        row = self.row('vm')
        self.assertEqual('error', row.state)
        self.assertEqual(
            'gave up after 2 attempts: injected boot failure', row.reason)
        self.assertEqual(4.0, row.ended_at)
        self.assertEqual(0, len(self.loop.queue))


class TestPasses(PassTestCase):

    def run_bronze_under_qos(self, flavor):
        """Under qos (waiting, watchdog every 10 s), submit 'big', a
        bronze request of ``flavor`` that runs for 1000 s.
        """
        self.flags(group='scheduler', preemption_strategy='qos',
                   on_no_valid_host='wait', watchdog_interval=10)
        self.restart()
        self.loop.submit(objects.RequestSpec('big', flavor.resources,
                                             service_class='bronze'),
                         duration=1000)

    def test_events_in_a_row_make_one_pass(self):
        before = self.loop.passes
        for name in ('a', 'b', 'c'):
            self.submit(name)
        self.run_for(0)
        self.assertEqual(before + 1, self.loop.passes)
        self.assertEqual(['building'] * 3,
                         [self.state(n) for n in ('a', 'b', 'c')])
        self.assertEqual(['host-A'] * 3,
                         [self.row(n).host for n in ('a', 'b', 'c')])

    def test_loop_sleeps_until_time_alone_lets_a_request_preempt(self):
        # Under qos the gold request (at risk at once) may displace the
        # bronze instance only once its exempt time (120 s of running,
        # from t = 2) is over: the loop sleeps until t = 122, then places
        # it.
        self.run_bronze_under_qos(WHOLE)
        self.run_for(5)
        self.loop.submit(objects.RequestSpec('g', WHOLE.resources,
                                             service_class='gold'))
        self.run_for(1)
        before = self.loop.passes
        self.run_for(110)           # t = 116
        self.assertLessEqual(self.loop.passes - before, 1)
        self.assertEqual('pending', self.state('g'))
        self.run_for(10)            # t = 126
        self.assertEqual('pending', self.state('big'))
        self.assertEqual(1, self.row('big').preemptions)
        self.assertEqual(122.0, self.row('g').scheduled_at)

    def test_loop_does_not_wake_for_a_request_larger_than_every_host(self):
        # Time alone cannot place a request no host can hold: under qos
        # the loop sleeps while it waits (before, it woke each time a
        # running instance crossed a threshold), and the rest of the queue
        # is served.
        self.run_bronze_under_qos(MEDIUM)
        self.loop.submit(objects.RequestSpec(
            'huge', objects.Resources(16, 1000, 10), service_class='gold'))
        self.run_for(5)
        before = self.loop.passes
        self.run_for(500)
        self.assertEqual(before, self.loop.passes)
        self.assertEqual('running', self.state('big'))
        self.assertEqual('pending', self.state('huge'))
        self.submit('small')
        self.run_for(5)
        self.assertEqual('running', self.state('small'))
        self.assertEqual('pending', self.state('huge'))

    def test_delete_while_building(self):
        self.submit('vm')
        self.run_for(1)
        self.assertEqual('building', self.state('vm'))
        self.loop.delete('vm')
        self.run_for(5)
        self.assertEqual('deleted', self.state('vm'))
        self.assertEqual([], self.driver.list_instances('host-A'))
        self.assertEqual({}, self.loop.host_manager.instance_hosts)

    def test_stopped_loop_does_nothing(self):
        self.submit('a')
        self.loop.stop()
        self.run_for(10)
        self.assertEqual('pending', self.state('a'))
        self.assertIsNone(self.row('a').host)
        self.assertEqual(0, self.clock.pending())


class TestRestart(PassTestCase):

    hosts = 2

    def crash_while_down(self):
        """'vm' disappears while no scheduler runs; returns its host."""
        self.submit('vm')
        self.run_for(5)
        host = self.row('vm').host
        self.loop.stop()
        self.driver.crash_instance(host, 'vm')
        self.driver.events = Deaf()
        self.run_for(1)
        return host

    def test_lost_instance_is_an_error(self):
        host = self.crash_while_down()
        self.loop = self.new_loop()
        self.run_for(0)     # the reports held while it was down come first
        row = self.row('vm')
        # How it ended, as its host remembers it.
        self.assertEqual(('error', 'crashed'), (row.state, row.reason))
        self.assertEqual([], sorted(
            self.loop.host_manager.host_states[host].instances))

    def test_lost_instance_its_host_forgot_is_an_error(self):
        host = self.crash_while_down()
        self.driver._hosts[host].finished.clear()
        self.loop = self.new_loop()
        self.run_for(0)
        row = self.row('vm')
        self.assertEqual(('error', 'lost while the scheduler was down'),
                         (row.state, row.reason))

    def test_instances_on_a_host_no_longer_known_are_errors(self):
        self.submit('vm')
        self.run_for(5)
        self.loop.stop()
        self.loop.store.update_instance('vm', at=6.0, host='host-Q')
        self.loop = self.new_loop()
        row = self.row('vm')
        self.assertEqual(('error', 'host host-Q is unknown'),
                         (row.state, row.reason))

    def test_running_instances_come_back_into_the_books(self):
        self.submit('a', priority=3.0)
        self.submit('b', preemptible=True)
        self.run_for(5)
        self.restart()
        books = {i: h for i, h in
                 self.loop.host_manager.instance_hosts.items()}
        self.assertEqual({'a': self.row('a').host, 'b': self.row('b').host},
                         books)
        b = self.loop.host_manager.host_states[books['b']].instances['b']
        self.assertEqual((True, 2.0, 0.0), (b.preemptible, b.running_since,
                                            b.admitted_at))
        a = self.loop.host_manager.host_states[books['a']].instances['a']
        self.assertEqual((3.0, 2.0, 0.0), (a.priority, a.overhead_s,
                                           a.running_s))

    def test_preempted_instance_waits_alone_after_a_restart(self):
        self.use_priority_strategy(on_no_valid_host='wait')
        self.submit('low', WHOLE, priority=1)
        self.submit('low2', WHOLE, priority=1)
        self.run_for(5)
        self.submit('h1', WHOLE, priority=5)
        self.submit('h2', WHOLE, priority=5)
        self.run_for(5)
        self.restart()
        entries = {e.id: e for e in self.loop.queue.values()}
        self.assertEqual(['low', 'low2'], sorted(entries))
        for name in ('low', 'low2'):
            entry = entries[name]
            self.assertEqual(((name,), True, 1), (
                entry.spec.instance_ids, entry.preempted,
                entry.spec.num_instances))
            self.assertAlmostEqual(3.0, entry.running_s)

    def test_fresh_instances_of_a_request_wait_together(self):
        self.flags(group='scheduler', on_no_valid_host='wait')
        self.submit('big', WHOLE)
        self.submit('big2', WHOLE)
        self.loop.submit(objects.RequestSpec('r', MEDIUM.resources,
                                             num_instances=2))
        self.run_for(5)
        self.restart()
        entries = [e for e in self.loop.queue.values() if e.id == 'r']
        self.assertEqual([(('r-0', 'r-1'), 2, False)],
                         [(e.spec.instance_ids, e.spec.num_instances,
                           e.preempted) for e in entries])

    def test_termination_done_while_down_is_confirmed_not_repeated(self):
        # A large request displaces two medium instances on one blade. The
        # scheduler dies once the first is confirmed gone; the second goes
        # while nobody listens. The next scheduler confirms it from what
        # the blade reports and spawns the new instance.
        for i in range(4):
            self.submit('p%d' % i, preemptible=True)
        self.submit('q0', preemptible=True)
        self.submit('q1', preemptible=True)
        self.submit('q2', preemptible=True)
        self.submit('q3', preemptible=True)
        self.run_for(5)

        def crash(where):
            if where == 'after_termination':
                raise loop_fixtures.Crash(where)
        self.loop.executor.crash_hook = crash
        self.submit('vip', loop_fixtures.LARGE)
        self.assertRaises(loop_fixtures.Crash, self.run_for, 10)
        self.loop.stop()
        self.driver.events = Deaf()
        self.run_for(5)
        self.loop = self.new_loop()
        self.run_for(10)
        store = self.loop.store
        self.assertEqual('running', self.state('vip'))
        decision = store.get_decision(store.get_instance('vip').decision_id)
        self.assertEqual('done', decision.state)
        self.assertEqual(sorted(decision.victims), sorted(decision.confirmed))
        self.assertEqual(2, len(decision.victims))
        self.assertEqual(sorted(decision.victims),
                         sorted(self.driver.terminated))
        for victim in decision.victims:
            self.assertEqual('terminated', self.state(victim))

    def test_decision_on_a_host_gone_during_the_restart_is_rolled_back(self):
        self.flags(group='preemptible', termination_grace_seconds=30)
        for name in ('s0', 's1'):
            self.submit(name, WHOLE, preemptible=True)
        self.run_for(5)
        self.submit('normal', WHOLE)
        self.run_for(1)
        host = self.row('normal').host
        decision_id = self.row('normal').decision_id
        self.loop.stop()
        self.driver.events = Deaf()
        self.driver.host_down(host)
        self.run_for(1)
        self.loop = self.new_loop()
        decision = self.loop.store.get_decision(decision_id)
        self.assertEqual(('rolled_back', 'host %s is gone' % host),
                         (decision.state, decision.reason))


class Deaf:
    """A compute-event receiver of a scheduler that is not running."""

    def __getattr__(self, name):
        return lambda *args, **kw: None


class TestReviewFindings(PassTestCase):

    hosts = 2

    def test_deleted_while_building_and_host_lost_ends_deleted(self):
        self.submit('vm')
        self.run_for(1)
        host = self.loop.store.get_instance('vm').host
        self.loop.delete('vm')
        self.run_for(0.2)
        self.driver.host_down(host)
        self.run_for(10)
        self.assertEqual('deleted', self.state('vm'))
        self.assertEqual(0, len(self.loop.queue))


class TestRequeuedAccount(PassTestCase):

    hosts = 1

    def test_a_requeued_instance_keeps_its_running_time_in_memory(self):
        # 'low' runs 8 s, is displaced by 'high' (20 s), and its next
        # spawn fails once: it comes back with its 8 s, in the store and
        # in the scheduler's memory alike.
        self.use_priority_strategy(on_no_valid_host='wait')
        whole = objects.Resources(8, 16000, 160)
        self.loop.submit(objects.RequestSpec('low', whole, priority=1.0))
        self.run_for(10)
        self.assertEqual('running', self.state('low'))
        self.loop.submit(objects.RequestSpec('high', whole, priority=5.0),
                         duration=20)
        self.run_for(1)
        self.driver.fail_next_spawns(1)
        self.run_for(60)
        row = self.row('low')
        self.assertEqual(1, row.preemptions)
        self.assertAlmostEqual(8.0, row.running_s, places=6)
        self.assertEqual('running', row.state)
        instance = self.loop.host_manager.host_states[row.host].instances[
            'low']
        self.assertAlmostEqual(8.0, instance.running_s, places=6)
