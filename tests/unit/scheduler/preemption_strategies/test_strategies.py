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

"""The contract every preemption strategy answers: phases, candidates,
victims, scores and what a victim becomes; the base class, the
class-based add-back, and the three preemptible-flag strategies.

8 vCPU / 16384 MB / 500 GB blades (tests.base.make_host_state).
"""

import math

from preemptible_sched import exception
from preemptible_sched import objects
from preemptible_sched.scheduler import preemption_strategies as preemption
from preemptible_sched.scheduler.preemption_strategies import dual_state
from preemptible_sched.scheduler.preemption_strategies import plain
from preemptible_sched.scheduler.preemption_strategies import priority
from preemptible_sched.scheduler.preemption_strategies import qos
from preemptible_sched.scheduler.preemption_strategies import retry
from tests import base

MEDIUM = (2, 4000, 40)


def pending(resources=MEDIUM, preemptible=False, **kw):
    return objects.PendingRequest(
        base.make_spec(resources, preemptible, **kw), 0.0, 0)


class TestBaseStrategy(base.TestCase):

    def setUp(self):
        super().setUp()
        self.strategy = preemption.BasePreemptionStrategy()
        self.state = base.make_host_state(instances=[
            base.make_instance('n', MEDIUM),
            base.make_instance('p', MEDIUM, preemptible=True)])

    def test_abstract_parts(self):
        request = pending()
        self.assertRaises(NotImplementedError, self.strategy.phases,
                          request.spec)
        self.assertRaises(NotImplementedError, self.strategy.displaceable,
                          self.state, request, 0.0)
        self.assertRaises(NotImplementedError, self.strategy.plan,
                          self.state, request, (), 0.0)
        self.assertRaises(NotImplementedError,
                          self.strategy.victim_standing,
                          self.state.instances['p'], request, 0.0)

    def test_defaults(self):
        request = pending()
        self.assertTrue(self.strategy.may_preempt(request, 0.0))
        self.assertEqual(math.inf, self.strategy.next_change(
            [self.state], [request], 0.0))

    def test_displacement_view_is_the_host_without_them(self):
        victim = self.state.instances['p']
        view = self.strategy.displacement_view(self.state, [victim])
        self.assertEqual((2, 4000, 40), tuple(view.used))
        self.assertEqual((4, 8000, 80), tuple(self.state.full.used))

    def test_on_victim_follows_the_option_else_the_default(self):
        self.assertEqual('terminate', self.strategy.on_victim)
        self.assertEqual('requeue', priority.PriorityStrategy().on_victim)
        self.flags(group='scheduler', on_victim='requeue')
        self.assertEqual('requeue', self.strategy.on_victim)
        self.flags(group='scheduler', on_victim='terminate')
        self.assertEqual('terminate', priority.PriorityStrategy().on_victim)


class TestLoad(base.TestCase):

    def test_every_strategy_by_name(self):
        for name, cls in (('dual_state', dual_state.DualStateStrategy),
                          ('retry', retry.RetryStrategy),
                          ('plain', plain.PlainStrategy),
                          ('qos', qos.QoSStrategy),
                          ('priority', priority.PriorityStrategy)):
            strategy = preemption.load(name)
            self.assertIsInstance(strategy, cls)
            self.assertEqual(name, strategy.name)

    def test_no_name_is_bad_input(self):
        for name in (None, '', '  '):
            error = self.assertRaises(exception.InvalidInput,
                                      preemption.load, name)
            self.assertEqual('[scheduler] preemption_strategy: must name '
                             'a preemption strategy', str(error))
            # Empty, not an unknown name.
            self.assertNotIsInstance(error, exception.UnknownPlugin)

    def test_unknown_name_names_the_option(self):
        error = self.assertRaises(exception.UnknownPlugin, preemption.load,
                                  'eager')
        self.assertEqual(('scheduler', 'preemption_strategy', ['eager']),
                         (error.group, error.option, error.names))
        self.assertIn('dual_state', error.valid)

    def test_from_another_configuration_errors_name_its_group(self):
        # Nova's path: the strategy configured from Nova's options, an
        # error naming the option where Nova's operator sets it.
        strategy = preemption.load('qos', conf=base.CONF,
                                   group='preemptible_scheduler')
        self.assertIsInstance(strategy, qos.QoSStrategy)
        self.assertEqual('qos', strategy.name)
        error = self.assertRaises(exception.UnknownPlugin, preemption.load,
                                  'eager', conf=base.CONF,
                                  group='preemptible_scheduler')
        self.assertEqual(
            ('preemptible_scheduler', 'preemption_strategy', ['eager']),
            (error.group, error.option, error.names))
        error = self.assertRaises(exception.InvalidInput, preemption.load,
                                  '', conf=base.CONF,
                                  group='preemptible_scheduler')
        self.assertEqual('[preemptible_scheduler] preemption_strategy',
                         error.source)


class _Ordered(preemption.ClassBasedStrategy):
    """Keeps the candidates in the order given (most worth keeping
    first).
    """

    name = 'ordered'

    def displaceable(self, state, request, now):
        return list(state.instances.values())

    def keep_order(self, candidates, request, now):
        return list(candidates)


class TestClassBasedPlan(base.TestCase):

    def setUp(self):
        super().setUp()
        self.strategy = _Ordered()

    def plan(self, state, resources, displaceable=None):
        if displaceable is None:
            displaceable = list(state.instances.values())
        return self.strategy.plan(state, pending(resources), displaceable,
                                  0.0)

    def test_phases_fit_then_displace(self):
        self.assertEqual((preemption.FIT, preemption.DISPLACE),
                         self.strategy.phases(pending().spec))

    def test_fits_as_it_is_no_victims(self):
        state = base.make_host_state(instances=[
            base.make_instance('a', MEDIUM)])
        plan = self.plan(state, (6, 12000, 100))
        self.assertEqual(('host', ()), (plan.host, plan.victims))

    def test_nothing_displaceable_no_plan(self):
        state = base.make_host_state(instances=[
            base.make_instance('a', (4, 8000, 80)),
            base.make_instance('b', (4, 8000, 80))])
        self.assertIsNone(self.plan(state, MEDIUM, displaceable=[]))

    def test_not_enough_even_with_all_gone(self):
        state = base.make_host_state(instances=[
            base.make_instance('keep', (4, 8000, 80)),
            base.make_instance('a', (2, 4000, 40)),
            base.make_instance('b', (2, 4000, 40))])
        a, b = state.instances['a'], state.instances['b']
        # 6 vCPUs with a and b gone: 4 + 6 > 8.
        self.assertIsNone(self.plan(state, (6, 1000, 10), [a, b]))
        # 4 vCPUs fit exactly once both go.
        plan = self.plan(state, (4, 1000, 10), [a, b])
        self.assertEqual(['a', 'b'], [v.id for v in plan.victims])

    def test_add_back_in_keep_order_leaves_a_minimal_set(self):
        # Full blade: a (4 vCPUs), b (2), c (1), d (1). Request 2 vCPUs.
        # All gone, then add back in order: a (4 + 2 fits), b (6 + 2
        # fits), c (7 + 2 no), d (7 + 2 no): victims c and d.
        state = base.make_host_state(instances=[
            base.make_instance('a', (4, 4000, 40)),
            base.make_instance('b', (2, 2000, 20)),
            base.make_instance('c', (1, 1000, 10)),
            base.make_instance('d', (1, 1000, 10))])
        plan = self.plan(state, (2, 1000, 10))
        self.assertEqual(['c', 'd'], [v.id for v in plan.victims])
        self.assertEqual((0.0, 0.0), plan.costs)
        self.assertEqual('host', plan.host)
        self.assertTrue(plan.reason)

    def test_every_dimension_counts_in_the_add_back(self):
        # Memory decides: b frees the memory the request needs.
        state = base.make_host_state(instances=[
            base.make_instance('a', (4, 2000, 0)),
            base.make_instance('b', (1, 12000, 0)),
            base.make_instance('c', (3, 2384, 0))])
        plan = self.plan(state, (1, 10000, 0))
        self.assertEqual(['b'], [v.id for v in plan.victims])


class TestPreemptibleFlagStrategies(base.TestCase):

    def setUp(self):
        super().setUp()
        self.state = base.make_host_state(instances=[
            base.make_instance('n', MEDIUM),
            base.make_instance('p1', MEDIUM, preemptible=True),
            base.make_instance('p2', MEDIUM, preemptible=True)])

    def test_phases(self):
        normal, spot = pending().spec, pending(preemptible=True).spec
        fit, displace = preemption.FIT, preemption.DISPLACE
        self.assertEqual(((displace,), (fit,)),
                         (dual_state.DualStateStrategy().phases(normal),
                          dual_state.DualStateStrategy().phases(spot)))
        self.assertEqual(((fit, displace), (fit,)),
                         (retry.RetryStrategy().phases(normal),
                          retry.RetryStrategy().phases(spot)))
        self.assertEqual(((fit,), (fit,)),
                         (plain.PlainStrategy().phases(normal),
                          plain.PlainStrategy().phases(spot)))

    def test_only_a_normal_request_may_displace_preemptible_instances(self):
        strategy = dual_state.DualStateStrategy()
        self.assertEqual(['p1', 'p2'], sorted(
            i.id for i in strategy.displaceable(self.state, pending(), 0.0)))
        self.assertEqual((), tuple(strategy.displaceable(
            self.state, pending(preemptible=True), 0.0)))
        self.assertEqual((), tuple(plain.PlainStrategy().displaceable(
            self.state, pending(), 0.0)))

    def test_displacement_view_is_the_normal_view(self):
        strategy = dual_state.DualStateStrategy()
        self.assertIs(self.state.normal, strategy.displacement_view(
            self.state, ()))

    def test_plain_never_has_a_plan(self):
        self.assertIsNone(plain.PlainStrategy().plan(
            self.state, pending(), (), 0.0))

    def test_dual_state_plan_is_the_planner_s_with_a_reason(self):
        victim = self.state.instances['p2']
        planned = objects.TerminationPlan('host', (victim,), (12.5,))
        state = base.make_host_state(
            instances=self.state.instances.values(),
            planner=base.FakePlanner({'host': planned}))
        plan = dual_state.DualStateStrategy().plan(
            state, pending((4, 4000, 40)), (), 0.0)
        self.assertEqual(('host', (victim,), (12.5,)),
                         (plan.host, plan.victims, plan.costs))
        self.assertIn('12.5', plan.reason)

    def test_empty_plan_where_it_fits_is_the_plan_there(self):
        """The strategies that let the driver make the empty plan of a
        host the request fits answer exactly that plan there; the others
        do not claim it.
        """
        claims = {strategy.name: strategy.empty_plan_where_it_fits
                  for strategy in (dual_state.DualStateStrategy(),
                                   retry.RetryStrategy(),
                                   plain.PlainStrategy())}
        self.assertEqual({'dual_state': True, 'retry': True,
                          'plain': False}, claims)
        for strategy in (dual_state.DualStateStrategy(),
                         retry.RetryStrategy()):
            displaceable = strategy.displaceable(self.state, pending(), 0.0)
            self.assertEqual(
                objects.TerminationPlan(self.state.name),
                strategy.plan(self.state, pending(), displaceable, 0.0))

    def test_dual_state_plan_without_victims_or_room(self):
        strategy = dual_state.DualStateStrategy()
        # Fits as it is: the empty plan, no reason.
        empty = strategy.plan(self.state, pending(), (), 0.0)
        self.assertEqual(((), None), (empty.victims, empty.reason))
        # Cannot fit at all (the planner finds no set).
        state = base.make_host_state(
            instances=self.state.instances.values(),
            planner=base.FakePlanner({}))
        self.assertIsNone(strategy.plan(state, pending((8, 100, 1)), (),
                                        0.0))
