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

"""The pass as stages, and the decisions the stages must keep making.

Each test here guards a behaviour a plausible regression of the decision
core would break: the queue order, the rollback of a decision whose
victims cannot be terminated, the remaining duration of a requeued
instance, and the stage records.
"""

import time

from preemptible_sched import objects
from tests.functional.loop import fixtures as loop_fixtures

MEDIUM = loop_fixtures.MEDIUM
WHOLE = objects.Flavor('whole', 8, 16000, 160)


class TestQueueOrder(loop_fixtures.LoopTestCase):

    def test_fifo_places_the_oldest_waiting_request_first(self):
        # One blade, taken whole until t = 102; two whole-blade requests
        # wait, submitted at t = 1 and t = 2. FIFO: 'first' gets the room.
        self.flags(group='scheduler', on_no_valid_host='wait',
                   queue_policy='fifo')
        self.submit('blocker', WHOLE, duration=100)
        self.run_for(1)
        self.submit('first', WHOLE, duration=1000)
        self.run_for(1)
        self.submit('second', WHOLE, duration=1000)
        self.run_for(150)
        self.assertEqual('ended', self.state('blocker'))
        self.assertEqual('running', self.state('first'))
        self.assertEqual('pending', self.state('second'))


class TestRollback(loop_fixtures.LoopTestCase):

    def fill_with_preemptible(self):
        self.submit('spot', WHOLE, preemptible=True)
        self.run_for(10)
        self.assertEqual('running', self.state('spot'))

    def test_victim_that_cannot_be_terminated_keeps_running(self):
        # Every termination attempt fails: the decision is rolled back,
        # the victim keeps its host, and with one attempt allowed the
        # request ends in error instead of waiting forever.
        self.flags(group='scheduler', max_attempts=1)
        self.fill_with_preemptible()
        self.driver.fail_next_terminations(10)
        self.submit('normal', WHOLE)
        self.run_for(30)
        self.assertEqual('running', self.state('spot'))
        self.assertEqual('error', self.state('normal'))
        self.assertIn('gave up after 1 attempts',
                      self.loop.store.get_instance('normal').reason)
        # Decision 1 placed 'spot'; decision 2 was 'normal''s.
        decision = self.loop.store.get_decision(2)
        self.assertEqual('rolled_back', decision.state)
        self.assertEqual([], self.driver.terminated)
        self.assertEqual(
            ['spot'],
            [i.id for i in self.loop.host_manager.host_states[
                'host-A'].instances.values()])

    def test_rolled_back_request_is_tried_again(self):
        # The three injected failures use up the first decision; the
        # request comes back and its second decision terminates the victim.
        self.fill_with_preemptible()
        self.driver.fail_next_terminations(3)
        self.submit('normal', WHOLE)
        self.run_for(30)
        self.assertEqual('rolled_back',
                         self.loop.store.get_decision(2).state)
        self.assertEqual('terminated', self.state('spot'))
        self.assertEqual('running', self.state('normal'))
        self.assertEqual(['spot'], self.driver.terminated)


class TestRequeueResumes(loop_fixtures.LoopTestCase):

    def test_requeued_instance_runs_only_what_is_left(self):
        # Boot takes 2 s, terminations are immediate. 'bronze' (duration
        # 1000 s) starts at t = 2; at t = 102 (100 s run) 'gold' (50 s)
        # displaces it and runs from 104 to 154; 'bronze' is placed again
        # at 154, runs from 156 and ends after the 900 s it had left, at
        # t = 1056 (not 1156).
        self.flags(group='scheduler', preemption_strategy='priority',
                   on_no_valid_host='wait')
        self.flags(group='fake_driver', termination_seconds=0.0)
        self.loop.stop()
        self.driver = loop_fixtures.CountingDriver(self.clock, seed=1)
        self.loop = self.new_loop()
        self.assertEqual('priority', self.loop.scheduler.strategy.name)
        self.assertEqual('requeue', self.loop.scheduler.strategy.on_victim)
        self.loop.submit(objects.RequestSpec(
            'bronze', WHOLE.resources, service_class='bronze'),
            duration=1000)
        self.run_for(102)
        self.assertEqual('running', self.state('bronze'))
        self.loop.submit(objects.RequestSpec(
            'gold', WHOLE.resources, service_class='gold'), duration=50)
        self.run_for(100)
        self.assertEqual('ended', self.state('gold'))
        self.assertEqual('running', self.state('bronze'))
        row = self.loop.store.get_instance('bronze')
        self.assertEqual(1, row.preemptions)
        self.assertAlmostEqual(156.0, row.started_at)
        self.run_for(1000)
        row = self.loop.store.get_instance('bronze')
        self.assertEqual('ended', row.state)
        self.assertAlmostEqual(1056.0, row.ended_at)
        self.assertAlmostEqual(1000.0, row.running_s)
        gold = self.loop.store.get_decision(
            self.loop.store.get_instance('gold').decision_id)
        self.assertEqual(gold.id, row.displaced_by)
        self.assertEqual('priority', gold.strategy)
        self.assertEqual(['bronze'], [victim['id'] for victim in
                                      gold.explanation['victims']])


class TestStages(loop_fixtures.LoopTestCase):

    def test_every_pass_records_its_stages(self):
        self.submit('a')
        self.submit('b')
        self.run_for(5)
        rows = self.loop.stats.rows()
        stages = {row[2] for row in rows}
        for stage in ('J2', 'T2', 'T1', 'R1', 'R4', 'R5', 'T4'):
            self.assertIn(stage, stages)
        # The first pass admitted both requests and placed both.
        first = [row for row in rows if row[0] == rows[0][0]]
        by_stage = {row[2]: row for row in first}
        self.assertEqual((1, 2), by_stage['J2'][3:5])
        self.assertEqual(2, by_stage['T4'][3])
        self.assertEqual(2, by_stage['R1'][3])
        for row in rows:
            self.assertGreaterEqual(row[5], 0.0)
            self.assertGreaterEqual(row[6], 0.0)
        summary = self.loop.stats.summary_ms()
        self.assertEqual('queue order (J3/T2)', summary['T2']['name'])
        self.assertEqual(list(summary)[:3], ['J2', 'T2', 'T1'])

    def test_events_of_one_instant_make_one_pass(self):
        # 'a' arrives, and in the same instant, after it, 'b': the pass
        # 'a' asked for runs after every event of the instant, once.
        def arrive():
            self.submit('a')
            self.clock.call_later(0, self.submit, 'b')
        self.run_for(1)
        passes = self.loop.passes
        self.clock.call_later(0, arrive)
        self.run_for(0.1)
        self.assertEqual(1, self.loop.passes - passes)
        self.assertEqual(['building', 'building'],
                         [self.state('a'), self.state('b')])

    def test_input_sizes_of_a_pass(self):
        # 'c' waits for 'a' to end: the first pass admits three requests,
        # holds one back in T1, orders and places the other two.
        self.submit('a', duration=30.0)
        self.submit('b')
        self.loop.submit(objects.RequestSpec('c', MEDIUM.resources),
                         depends_on=('a',))
        self.run_for(5)
        rows = self.loop.stats.rows()
        first = {row[2]: row[3:5] for row in rows if row[0] == rows[0][0]}
        self.assertEqual((1, 3), first['J2'])
        self.assertEqual((1, 1), first['T1'])
        self.assertEqual((1, 2), first['T2'])
        self.assertEqual((2, 2), first['T4'])
        self.assertEqual('pending', self.state('c'))
        self.run_for(60)
        self.assertEqual('running', self.state('c'))

    def test_t1_after_a_failure_takes_what_is_left_of_the_order(self):
        # The blade is taken whole; 'x' (whole), 'y' (medium) and 'z'
        # (whole) arrive together and wait, in that order (FIFO). 'x'
        # fails: T1 sees the two after it and drops 'z' (not smaller than
        # 'x'); 'y' fails: T1 sees nothing after it. T1 of that pass: the
        # release (nothing blocked) and those two laps, 0 + 2 + 0.
        self.flags(group='scheduler', on_no_valid_host='wait',
                   queue_policy='fifo')
        self.submit('blocker', WHOLE, duration=100)
        self.run_for(5)
        self.assertEqual('running', self.state('blocker'))
        rows_before = len(self.loop.stats.rows())
        self.submit('x', WHOLE)
        self.submit('y')
        self.submit('z', WHOLE)
        self.run_for(1)
        rows = self.loop.stats.rows()[rows_before:]
        first = {row[2]: row[3:5] for row in rows if row[0] == rows[0][0]}
        self.assertEqual((1, 3), first['T2'])
        self.assertEqual((3, 2), first['T1'])
        self.assertEqual(['pending'] * 3,
                         [self.state(name) for name in 'xyz'])

    def test_decision_latencies_are_each_decisions_own(self):
        # One latency per decision (the simulator's scheduling latency
        # percentiles), each within the time the test took.
        begun = time.perf_counter()
        self.submit('a')
        self.submit('b')
        self.run_for(5)
        took = time.perf_counter() - begun
        latencies = self.loop.stats.decisions
        self.assertEqual(2, len(latencies))
        for seconds in latencies:
            self.assertGreater(seconds, 0.0)
            self.assertLess(seconds, took)


class TestRequeueAcrossSpeeds(loop_fixtures.LoopTestCase):
    """The remaining run time of a requeued instance, in reference
    seconds, whatever the speeds of the hosts it ran on.
    """

    def test_requeued_instance_runs_the_work_left_at_the_new_speed(self):
        self.check_work_left()

    def test_work_left_is_kept_across_a_restart(self):
        """A scheduler restarted while the victim waits queues it again
        with the work it did (recovery reads it from the store).
        """
        self.check_work_left(restart=True)

    def check_work_left(self, restart=False):
        # Reference 2000 MHz; host-A runs at 4000 MHz, host-B at 1000.
        # Boot takes 2 s, terminations are immediate. 'bronze' (1000
        # reference s) runs on host-A from t = 2 (it would take 500 s);
        # 'blocker' (200 reference s, gold, not a victim) on host-B from
        # t = 2 to 402. At t = 252 (250 s run: half the work) 'gold'
        # displaces 'bronze' from host-A. 'bronze' waits for host-B, is
        # placed there at 402 and runs from 404 the 500 reference s left:
        # 1000 s at 1000 MHz, ending at t = 1404 (not 1904: 1000 - 250 =
        # 750 s taken as reference seconds, 1500 s there).
        self.flags(group='scheduler', preemption_strategy='priority',
                   on_no_valid_host='wait')
        self.flags(group='fake_driver', termination_seconds=0.0,
                   reference_cpu_mhz=2000.0)
        self.loop.stop()
        self.driver = loop_fixtures.CountingDriver(self.clock, seed=1, hosts=[
            objects.Host('host-A', 8, 16000, 160, cpu_mhz=4000.0),
            objects.Host('host-B', 8, 16000, 160, cpu_mhz=1000.0)])
        self.loop = self.new_loop()
        self.assertEqual('requeue', self.loop.scheduler.strategy.on_victim)
        self.loop.submit(objects.RequestSpec(
            'bronze', WHOLE.resources, service_class='bronze'),
            duration=1000)
        self.loop.submit(objects.RequestSpec(
            'blocker', WHOLE.resources, service_class='gold'), duration=200)
        self.run_for(252)
        row = self.loop.store.get_instance('bronze')
        self.assertEqual(('running', 'host-A', 2.0),
                         (row.state, row.host, row.started_at))
        self.assertEqual('host-B',
                         self.loop.store.get_instance('blocker').host)
        self.loop.submit(objects.RequestSpec(
            'gold', WHOLE.resources, service_class='gold'), duration=5000)
        self.run_for(10)
        row = self.loop.store.get_instance('bronze')
        self.assertEqual(('pending', 1), (row.state, row.preemptions))
        self.assertAlmostEqual(250.0, row.running_s)
        self.assertAlmostEqual(500.0, row.work_s)
        if restart:
            self.loop.stop()
            self.loop = self.new_loop()
        # Queued again with the work it did, as SRTF ranks it.
        queued = list(self.loop.queue.entries.values())
        queued += self.loop.queue.arrivals
        [entry] = [entry for entry in queued if entry.id == 'bronze']
        self.assertEqual((250.0, 500.0, 500.0),
                         (entry.running_s, entry.work_s, entry.remaining_s))
        self.run_for(200)
        self.assertEqual('ended', self.state('blocker'))
        row = self.loop.store.get_instance('bronze')
        self.assertEqual(('running', 'host-B'), (row.state, row.host))
        self.assertAlmostEqual(404.0, row.started_at)
        # Waited from 252 (displaced) to 402 (placed again): 402 s since
        # it was created, less 250 s run and its first 2 s boot (the
        # second boot, 402 to 404, counts once it is done).
        self.assertAlmostEqual(4.0, row.overhead_s)
        self.assertAlmostEqual(150.0, row.pending_s)
        self.run_for(1100)
        row = self.loop.store.get_instance('bronze')
        self.assertEqual('ended', row.state)
        self.assertAlmostEqual(1404.0, row.ended_at)
        self.assertAlmostEqual(1250.0, row.running_s)
        self.assertAlmostEqual(1000.0, row.work_s)

    def test_without_speeds_work_is_running_time(self):
        # No reference speed: the hosts' speeds are not used, the work
        # done is the running time and the remaining run is as before.
        self.flags(group='scheduler', preemption_strategy='priority',
                   on_no_valid_host='wait')
        self.flags(group='fake_driver', termination_seconds=0.0)
        self.loop.stop()
        self.driver = loop_fixtures.CountingDriver(self.clock, seed=1, hosts=[
            objects.Host('host-A', 8, 16000, 160, cpu_mhz=4000.0)])
        self.loop = self.new_loop()
        self.loop.submit(objects.RequestSpec(
            'bronze', WHOLE.resources, service_class='bronze'),
            duration=1000)
        self.run_for(102)
        self.loop.submit(objects.RequestSpec(
            'gold', WHOLE.resources, service_class='gold'), duration=50)
        self.run_for(1100)
        row = self.loop.store.get_instance('bronze')
        self.assertEqual('ended', row.state)
        self.assertAlmostEqual(1056.0, row.ended_at)
        self.assertAlmostEqual(1000.0, row.running_s)
        self.assertAlmostEqual(1000.0, row.work_s)
