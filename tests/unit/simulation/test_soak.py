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

"""The soak's harness: its checkers catch deliberately broken behaviour.

The checkers are fed hand-made histories and rows; then whole scenarios
run against deliberately broken compute sides (one that overcommits, one
that boots again what it terminated, one that reports terminations it did
not do) must end in the violations they cause, while the same scenarios
against the honest fake end in none.
"""

import collections
import dataclasses
import shutil
import tempfile
import types

from preemptible_sched import clock as clock_mod
from preemptible_sched import compute
from preemptible_sched import objects
from preemptible_sched.simulation import soak
from tests import base


def row(instance_id, state, host=None, request_id=None, preemptible=True,
        reason=None, size=(2, 4096, 40), preemptions=0):
    return types.SimpleNamespace(
        id=instance_id, state=state, host=host,
        request_id=request_id or instance_id, preemptible=preemptible,
        reason=reason, vcpus=size[0], memory_mb=size[1], disk_gb=size[2],
        preemptions=preemptions)


def request(request_id, status, reason=None):
    return types.SimpleNamespace(id=request_id, status=status,
                                 reason=reason)


def decision(decision_id, victims=(), confirmed=(), state='done'):
    return types.SimpleNamespace(id=decision_id, victims=list(victims),
                                 confirmed=list(confirmed), state=state)


def invariants(violations):
    return sorted({violation.invariant for violation in violations})


class TestComputeHistory(base.TestCase):

    def test_clean_history(self):
        history = {'a': [(0.0, 'spawned', 'h1', None),
                         (2.0, 'started', 'h1', None),
                         (9.0, 'terminated', 'h1', None)],
                   'b': [(0.0, 'spawned', 'h1', None),
                         (2.0, 'started', 'h1', None),
                         (5.0, 'ended', 'h1', None)]}
        self.assertEqual([], soak.check_compute_history(history))

    def test_terminated_twice(self):
        history = {'a': [(0.0, 'spawned', 'h1', None),
                         (3.0, 'terminated', 'h1', None),
                         (9.0, 'terminated', 'h2', None)]}
        self.assertEqual(['terminated_twice'], invariants(
            soak.check_compute_history(history)))

    def test_booted_after_its_termination(self):
        history = {'a': [(0.0, 'spawned', 'h1', None),
                         (3.0, 'terminated', 'h1', None),
                         (9.0, 'spawned', 'h2', None)]}
        found = soak.check_compute_history(history)
        self.assertEqual(['resurrected'], invariants(found))
        self.assertIn('after it was terminated at 3.0 on h1',
                      found[0].detail)

    def test_booted_after_it_ended(self):
        history = {'a': [(0.0, 'spawned', 'h1', None),
                         (5.0, 'ended', 'h1', None),
                         (9.0, 'spawned', 'h1', None)]}
        self.assertEqual(['resurrected'], invariants(
            soak.check_compute_history(history)))

    def test_requeued_victim_may_boot_once_per_displacement(self):
        history = {'a': [(0.0, 'spawned', 'h1', None),
                         (3.0, 'terminated', 'h1', None),
                         (9.0, 'spawned', 'h2', None),
                         (12.0, 'terminated', 'h2', None),
                         (20.0, 'spawned', 'h1', None)]}
        self.assertEqual([], soak.check_compute_history(history, {'a': 2}))
        self.assertEqual(['resurrected'], invariants(
            soak.check_compute_history(history, {'a': 1})))

    def test_boot_after_a_crash_is_no_resurrection(self):
        history = {'a': [(0.0, 'spawned', 'h1', None),
                         (3.0, 'crashed', 'h1', 'running'),
                         (9.0, 'spawned', 'h2', None)]}
        self.assertEqual([], soak.check_compute_history(history))


class TestChecks(base.TestCase):

    def test_overcommits(self):
        found = soak.check_overcommits([(4.0, 'h1', 'a', 'cannot hold')])
        self.assertEqual(['overcommitted'], invariants(found))
        self.assertEqual([], soak.check_overcommits([]))

    def test_db_equals_compute(self):
        rows = [row('a', 'running', 'h1'), row('b', 'building', 'h2'),
                row('c', 'terminated', 'h1'), row('d', 'pending')]
        truth = {'h1': {'a': 'running'}, 'h2': {'b': 'building'}}
        self.assertEqual([], soak.check_db_equals_compute(rows, truth))

    def test_db_says_gone_compute_runs_it(self):
        rows = [row('a', 'terminated', 'h1')]
        found = soak.check_db_equals_compute(rows, {'h1': {'a': 'running'}})
        self.assertEqual(['db_equals_compute'], invariants(found))
        self.assertIn('the database says terminated on h1', found[0].detail)

    def test_db_has_what_compute_does_not_run(self):
        rows = [row('a', 'running', 'h1'), row('b', 'running', 'h2')]
        found = soak.check_db_equals_compute(
            rows, {'h1': {'a': 'running'}, 'h2': {}})
        self.assertEqual(['db_equals_compute'], invariants(found))
        self.assertIn('b running on h2', found[0].detail)

    def test_db_puts_it_on_the_wrong_host(self):
        rows = [row('a', 'running', 'h1')]
        found = soak.check_db_equals_compute(
            rows, {'h1': {}, 'h2': {'a': 'running'}})
        self.assertEqual(2, len(found))

    def test_books_equal_compute(self):
        truth = {'h1': {'a': 'running'}, 'h2': {}}
        self.assertEqual([], soak.check_books_equal_compute({'a': 'h1'},
                                                            truth))
        self.assertEqual(['books_equal_compute'], invariants(
            soak.check_books_equal_compute({'a': 'h2'}, truth)))
        self.assertEqual(['books_equal_compute'], invariants(
            soak.check_books_equal_compute({'a': 'h1', 'z': 'h2'},
                                           truth)))

    def test_spot_decision_naming_a_normal_victim(self):
        rows = [row('n', 'running', 'h1', preemptible=False)]
        found = soak.check_normal_terminated(
            rows, [decision(1, victims=['n'])], {}, set(), spot=True,
            requeue=False)
        self.assertEqual(['normal_terminated'], invariants(found))
        # Under a class-based strategy naming it is the design.
        self.assertEqual([], soak.check_normal_terminated(
            rows, [decision(1, victims=['n'])], {}, set(), spot=False,
            requeue=True))

    def test_normal_instance_terminated_by_the_compute_side(self):
        rows = [row('n', 'running', 'h1', preemptible=False)]
        history = {'n': [(0.0, 'spawned', 'h1', None),
                         (5.0, 'terminated', 'h1', None)]}
        found = soak.check_normal_terminated(rows, [], history, set(),
                                             spot=True, requeue=False)
        self.assertEqual(['normal_terminated'], invariants(found))
        # Allowed when its request was deleted, or failed as a whole.
        self.assertEqual([], soak.check_normal_terminated(
            rows, [], history, {'n'}, spot=True, requeue=False))
        self.assertEqual([], soak.check_normal_terminated(
            rows, [], history, set(), spot=True, requeue=False,
            failed={'n'}))

    def test_normal_instance_ending_terminated(self):
        rows = [row('n', 'terminated', 'h1', preemptible=False)]
        self.assertEqual(['normal_terminated'], invariants(
            soak.check_normal_terminated(rows, [], {}, set(), spot=False,
                                         requeue=True)))

    def test_requeued_normal_victim(self):
        rows = [row('n', 'pending', preemptible=False)]
        history = {'n': [(0.0, 'spawned', 'h1', None),
                         (5.0, 'terminated', 'h1', None)]}
        decisions = [decision(1, victims=['n'], confirmed=['n'])]
        self.assertEqual([], soak.check_normal_terminated(
            rows, decisions, history, set(), spot=False, requeue=True))
        self.assertEqual(['normal_terminated'], invariants(
            soak.check_normal_terminated(rows, [], history, set(),
                                         spot=False, requeue=True)))


class TestOutcomes(base.TestCase):

    @staticmethod
    def rooms(free):
        return lambda normal_only: [free]

    def check(self, requests, rows, free=(0, 0, 0), deleted=(), ran=(),
              spot=True):
        return soak.check_outcomes(requests, rows, self.rooms(free),
                                   set(deleted), set(ran), spot)

    def test_placed_and_failed_requests(self):
        self.assertEqual([], self.check(
            [request('a', 'placed'), request('b', 'failed', 'no host')],
            [row('a', 'running', 'h1'), row('b', 'error', reason='x')]))

    def test_stuck_building(self):
        found = self.check([request('a', 'placed')],
                           [row('a', 'building', 'h1')])
        self.assertEqual(['request_outcome'], invariants(found))
        self.assertIn('stuck building on h1', found[0].detail)

    def test_failed_without_a_reason(self):
        self.assertEqual(['request_outcome'], invariants(self.check(
            [request('a', 'failed')], [row('a', 'error', reason='x')])))

    def test_deleted_by_nobody(self):
        self.assertEqual(['request_outcome'], invariants(self.check(
            [request('a', 'deleted')], [row('a', 'deleted')])))
        self.assertEqual([], self.check(
            [request('a', 'deleted')], [row('a', 'deleted')],
            deleted={'a'}))

    def test_waiting_legitimately(self):
        self.assertEqual([], self.check([request('a', 'pending')],
                                        [row('a', 'pending')],
                                        free=(1, 1024, 10)))

    def test_waiting_although_there_is_room(self):
        found = self.check([request('a', 'pending')],
                           [row('a', 'pending')], free=(4, 8192, 80))
        self.assertEqual(['request_outcome'], invariants(found))
        self.assertIn('although the cloud has room', found[0].detail)

    def test_one_instance_ran_its_sibling_gave_up(self):
        found = self.check(
            [request('r', 'placed')],
            [row('r-0', 'running', 'h1', request_id='r'),
             row('r-1', 'error', request_id='r', reason='refused')],
            ran={'r-0'})
        self.assertEqual(['all_or_nothing'], invariants(found))

    def test_sibling_displaced_before_it_ran_did_not_give_up(self):
        self.assertEqual([], self.check(
            [request('r', 'placed')],
            [row('r-0', 'running', 'h1', request_id='r'),
             row('r-1', 'terminated', 'h1', request_id='r')],
            ran={'r-0'}))
        # Its failed boot reported while it was being terminated.
        displaced = row('r-1', 'error', 'h1', request_id='r',
                        reason='boot failed')
        displaced.terminated_by = 7
        self.assertEqual([], self.check(
            [request('r', 'placed')],
            [row('r-0', 'running', 'h1', request_id='r'), displaced],
            ran={'r-0'}))

    def test_failed_request_still_running(self):
        found = self.check(
            [request('r', 'failed', 'gave up')],
            [row('r-0', 'running', 'h1', request_id='r'),
             row('r-1', 'error', request_id='r', reason='refused')],
            ran={'r-0'})
        self.assertEqual(['all_or_nothing'], invariants(found))
        self.assertEqual([], self.check(
            [request('r', 'failed', 'gave up')],
            [row('r-0', 'error', 'h1', request_id='r', reason='rolled'),
             row('r-1', 'error', request_id='r', reason='refused')],
            ran={'r-0'}))

    def test_pack(self):
        self.assertTrue(soak._pack([(2, 1, 1), (2, 1, 1)], [(4, 2, 2)]))
        self.assertFalse(soak._pack([(3, 1, 1), (3, 1, 1)],
                                    [(4, 2, 2), (2, 2, 2)]))


class Recorder(compute.ComputeEvents):
    def __init__(self):
        self.calls = []

    def __getattribute__(self, name):
        if name in ('instance_started', 'instance_ended', 'instance_failed',
                    'instance_terminated', 'termination_failed',
                    'host_down', 'host_up'):
            calls = object.__getattribute__(self, 'calls')
            return lambda *args, **kw: calls.append((name, args, kw))
        return object.__getattribute__(self, name)


class TestEventProxy(base.TestCase):

    def proxy(self, stamp='event', **plan):
        clock = clock_mod.VirtualClock()
        proxy = soak.EventProxy(clock, plan=soak.FaultPlan(**plan),
                                stamp=stamp)
        target = Recorder()
        proxy.attach(target)
        return clock, proxy, target

    def test_boot_goes_on_by_keyword(self):
        clock, proxy, target = self.proxy()
        proxy.instance_started('h1', 'a', 1.0, boot=7)
        proxy.instance_failed('h1', 'b', 1.0, 'no', boot=8)
        proxy.instance_terminated('h1', 'c', 1.0, boot=9)
        proxy.termination_failed('h1', 'd', 1.0, 'no', boot=10)
        proxy.instance_ended('h1', 'e', 1.0, boot=11)
        clock.run()
        self.assertEqual([
            ('instance_started', ('h1', 'a', 1.0), {'boot': 7}),
            ('instance_failed', ('h1', 'b', 1.0, 'no'), {'boot': 8}),
            ('instance_terminated', ('h1', 'c', 1.0), {'boot': 9}),
            ('termination_failed', ('h1', 'd', 1.0, 'no'), {'boot': 10}),
            ('instance_ended', ('h1', 'e', 1.0), {'boot': 11})],
            target.calls)

    def test_no_boot_no_keyword(self):
        clock, proxy, target = self.proxy()
        proxy.instance_started('h1', 'a', 1.0)
        proxy.host_down('h1', 2.0)
        clock.run()
        self.assertEqual([('host_down', ('h1', 2.0), {}),
                          ('instance_started', ('h1', 'a', 1.0), {})],
                         sorted(target.calls))

    def test_delivery_stamp(self):
        clock, proxy, target = self.proxy(stamp='delivery',
                                          report_delay_p=1.0,
                                          report_max_delay=30.0)
        proxy.instance_started('h1', 'a', 0.0, boot=3)
        clock.run()
        (name, args, kw), = target.calls
        self.assertGreater(args[2], 0.0)
        self.assertEqual({'boot': 3}, kw)

    def test_reports_wait_for_the_next_scheduler(self):
        clock, proxy, target = self.proxy()
        proxy.detach()
        proxy.instance_started('h1', 'a', 1.0, boot=4)
        proxy.host_down('h2', 1.0)
        clock.run()
        self.assertEqual([], target.calls)
        proxy.attach(target)
        clock.run()
        # What a new scheduler learns from the hosts themselves is not
        # replayed.
        self.assertEqual(
            [('instance_started', ('h1', 'a', 1.0), {'boot': 4})],
            target.calls)

    def test_held_reports_arrive_late_on_request(self):
        clock, proxy, target = self.proxy(held_late_p=1.0,
                                          report_max_delay=30.0)
        proxy.detach()
        for index in range(5):
            proxy.instance_ended('h1', 'i%d' % index, 1.0, boot=index)
        clock.run()
        started = clock.now()
        proxy.attach(target)
        clock.run(until=started)
        self.assertEqual([], target.calls)
        clock.run()
        self.assertEqual(5, len(target.calls))
        self.assertEqual(5, proxy.faults['report_held_late'])
        self.assertLessEqual(clock.now(), started + 30.0)

    def test_duplicates_and_losses_are_counted(self):
        clock, proxy, target = self.proxy(report_duplicate_p=1.0)
        proxy.instance_started('h1', 'a', 1.0, boot=4)
        clock.run()
        self.assertEqual(2, len(target.calls))
        self.assertEqual(1, proxy.faults['report_duplicated'])
        clock, proxy, target = self.proxy(report_lost_p=1.0)
        proxy.instance_started('h1', 'a', 1.0)
        proxy.host_up('h1', 1.0)
        clock.run()
        self.assertEqual([('host_up', ('h1', 1.0), {})], target.calls)
        self.assertEqual(1, proxy.faults['report_lost'])


HOST = objects.Host('host-A', 4, 8192, 80)


class TestSoakDriver(base.TestCase):

    def driver(self, **plan):
        clock = clock_mod.VirtualClock()
        driver = soak.SoakDriver(clock, [HOST], seed=1,
                                 plan=soak.FaultPlan(**plan))
        driver.events = Recorder()
        return clock, driver

    def instance(self, instance_id, vcpus, boot=None):
        return objects.Instance(
            id=instance_id,
            resources=objects.Resources(vcpus, vcpus * 2048, vcpus * 20),
            preemptible=True, boot=boot)

    def test_refusal_for_want_of_room_is_an_overcommit(self):
        clock, driver = self.driver()
        driver.spawn('host-A', self.instance('a', 4, boot=1))
        driver.spawn('host-A', self.instance('b', 2, boot=2))
        clock.run()
        (at, host, instance_id, reason), = driver.overcommits
        self.assertEqual(('host-A', 'b'), (host, instance_id))
        self.assertIn('cannot hold', reason)
        self.assertEqual('refused', driver.last_phase('b')[1])
        failed = [call for call in driver.events.calls
                  if call[0] == 'instance_failed']
        self.assertEqual({'boot': 2}, failed[0][2])

    def test_injected_refusal_carries_the_boot(self):
        clock, driver = self.driver(spawn_refused_p=1.0)
        driver.spawn('host-A', self.instance('a', 1, boot=5))
        clock.run()
        self.assertEqual([('instance_failed', ('host-A', 'a', 0.0,
                                               'injected refusal: the host '
                                               'declined the spawn'),
                           {'boot': 5})], driver.events.calls)
        self.assertEqual(1, driver.faults['spawn_refused'])
        self.assertEqual([], driver.overcommits)

    def test_history_and_truth(self):
        clock, driver = self.driver()
        driver.spawn('host-A', self.instance('a', 2, boot=1), duration=50)
        clock.run(until=10)
        self.assertEqual({'host-A': {'a': 'running'}}, driver.truth())
        driver.terminate('host-A', 'a')
        clock.run()
        self.assertEqual(['spawned', 'started', 'terminated'],
                         [event[1] for event in driver.history['a']])
        self.assertEqual({'host-A': {}}, driver.truth())

    def test_injected_failures_stop_with_the_faults(self):
        clock, driver = self.driver()
        driver.fail_next_terminations(2)
        driver.spawn('host-A', self.instance('a', 2, boot=1))
        clock.run(until=30)
        driver.faulty = False
        driver.terminate('host-A', 'a')
        clock.run()
        self.assertEqual('terminated', driver.last_phase('a')[1])
        self.assertEqual(0, driver.faults['termination_failed'])


# -- whole scenarios against broken compute sides ---------------------------

class Overcommitting(soak.SoakDriver):
    """Tells the scheduler its hosts are twice their size and takes every
    spawn (a compute side that overcommits).
    """

    def host_specs(self):
        return [dataclasses.replace(spec, vcpus=spec.vcpus * 2,
                                    memory_mb=spec.memory_mb * 2,
                                    disk_gb=spec.disk_gb * 2)
                for spec in super().host_specs()]

    def _spawn_refusal(self, host, instance):
        reason = super()._spawn_refusal(host, instance)
        if reason is not None and 'cannot hold' in reason:
            self.overcommits.pop()
            self.history[instance.id].pop()
            return None
        return reason


class Resurrecting(soak.SoakDriver):
    """Boots again, at once, the first instance it terminated."""

    done = False

    def _terminated(self, fake_host, fake_instance):
        super()._terminated(fake_host, fake_instance)
        if not self.done:
            self.done = True
            # Forgets it finished (else the spawn is a duplicate).
            fake_host.finished.pop(fake_instance.instance.id, None)
            self.spawn(fake_host.spec.name, fake_instance.instance)


class Lying(soak.SoakDriver):
    """Reports terminations it never does (the instance keeps running)."""

    def terminate(self, host, instance_id):
        self._report('instance_terminated', host, instance_id,
                     boot=self._hosts[host].instances[instance_id]
                     .instance.boot
                     if instance_id in self._hosts[host].instances
                     else None)


LARGE = objects.Flavor('large', 4, 8192, 80)


def preemption_scenario(seed=1):
    """One 4-core host: a preemptible instance, then a normal one that
    needs its room (so the first is terminated), then another
    preemptible one that ends on its own.
    """
    return soak.Scenario(
        seed=seed, strategy='dual_state',
        options={('scheduler', 'preemption_strategy'): 'dual_state',
                 ('scheduler', 'on_no_valid_host'): 'wait',
                 ('scheduler', 'watchdog_interval'): 10.0,
                 ('fake_driver', 'termination_seconds'): 1.0,
                 ('fake_driver', 'boot_times_hot'): ['1.0'],
                 ('fake_driver', 'boot_times_cold'): ['2.0']},
        hosts=[objects.Host('host-A', 4, 8192, 80)],
        items=[soak.Item('p', 10.0, LARGE, True),
               soak.Item('n', 100.0, LARGE, False, duration=300.0),
               soak.Item('q', 500.0, LARGE, True, duration=100.0)],
        faults=soak.FaultPlan(), size='unit')


class TestBrokenComputeSides(base.TestCase):

    def setUp(self):
        super().setUp()
        directory = tempfile.mkdtemp(prefix='psched-soak-test-')
        self.addCleanup(shutil.rmtree, directory, ignore_errors=True)
        self.template = soak.Template(directory)
        self.addCleanup(self.template.close)

    def run_with(self, driver_class, scenario=None):
        run = soak.Run(scenario or preemption_scenario(), self.template,
                       settle=600.0, driver_class=driver_class)
        with soak.quiet(), soak.cached_entry_points():
            outcome = run.execute()
        return outcome, run

    def test_honest_fake_breaks_nothing(self):
        outcome, run = self.run_with(soak.SoakDriver)
        self.assertEqual([], outcome.violations)
        self.assertEqual(['spawned', 'started', 'terminated'],
                         [event[1] for event in run.driver.history['p']])

    def test_overcommitting_fake(self):
        scenario = preemption_scenario()
        scenario.items = [soak.Item('a', 10.0, LARGE, False),
                          soak.Item('b', 20.0, LARGE, False)]
        outcome, run = self.run_with(Overcommitting, scenario)
        self.assertIn('overcommitted', invariants(outcome.violations))
        self.assertIn('holds more than its capacity',
                      str(outcome.violations))

    def test_instance_booted_after_its_termination(self):
        outcome, run = self.run_with(Resurrecting)
        self.assertIn('resurrected', invariants(outcome.violations))

    def test_termination_reported_but_not_done(self):
        outcome, run = self.run_with(Lying)
        found = invariants(outcome.violations)
        self.assertIn('db_equals_compute', found)
        self.assertIn('overcommitted', found)

    def test_faults_are_counted_where_they_strike(self):
        scenario = preemption_scenario()
        scenario.faults = soak.FaultPlan(intensity='heavy',
                                         report_duplicate_p=1.0,
                                         report_delay_p=1.0,
                                         report_max_delay=5.0)
        outcome, run = self.run_with(soak.SoakDriver, scenario)
        self.assertEqual([], outcome.violations)
        self.assertGreater(outcome.faults['report_duplicated'], 0)
        self.assertGreater(outcome.faults['report_delayed'], 0)
        self.assertGreater(outcome.observed['instance.report_ignored'], 0)


class TestScenarios(base.TestCase):

    def test_same_seed_same_scenario(self):
        self.assertEqual(soak.generate(7).describe(),
                         soak.generate(7).describe())
        self.assertNotEqual(soak.generate(7).describe(),
                            soak.generate(8).describe())

    def test_strategies_rotate_with_the_seed(self):
        self.assertEqual(list(soak.STRATEGIES),
                         [soak.generate(seed, 'small').strategy
                          for seed in range(4)])

    def test_late_held_reports_change_nothing_else(self):
        plain = soak.generate(5, 'small')
        late = soak.generate(5, 'small', late_held=True)
        self.assertEqual(0.0, plain.faults.held_late_p)
        if late.faults.intensity != 'none':
            self.assertGreater(late.faults.held_late_p, 0.0)
        late.faults.held_late_p = 0.0
        self.assertEqual(plain.describe(), late.describe())

    def test_small_is_small(self):
        for seed in range(20):
            scenario = soak.generate(seed, 'small')
            self.assertLessEqual(len(scenario.hosts), 4)
            self.assertLessEqual(len(scenario.items), 10)

    def test_figures_add_up(self):
        figures = soak.Figures(first=1)
        result = {'seed': 3, 'size': 'small', 'strategy': 'qos',
                  'intensity': 'light', 'requests': 4, 'instances': 5,
                  'faults': collections.Counter(host_down=2),
                  'restarts': 1, 'given_up': False,
                  'observed': {'instance.stray': 1},
                  'violations': [('resurrected', 'x')], 'wall_s': 0.5}
        figures.add(result)
        figures.add(dict(result, seed=4, violations=[]))
        out = figures.as_dict()
        self.assertEqual(2, out['scenarios'])
        self.assertEqual(4, out['faults']['host_down'])
        self.assertEqual(2, out['observed']['instance.stray'])
        self.assertEqual(1, out['violations']['resurrected'])
        self.assertEqual(1, out['violating_scenarios'])
        self.assertEqual([3], [entry['seed']
                               for entry in out['first_violations']])
