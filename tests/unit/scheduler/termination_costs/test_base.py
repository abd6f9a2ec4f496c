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

from preemptible_sched import exception
from preemptible_sched.scheduler import termination_costs as termination
from preemptible_sched.scheduler.termination_costs import billing_period
from preemptible_sched.scheduler.termination_costs import count
from tests import base


class FixedCost(termination.BaseTerminationCost):
    """Returns ``value`` for every instance; records that it was asked."""

    def __init__(self, name, value):
        self.name = name
        self.value = value
        self.calls = 0

    def cost(self, instance, host_state, now):
        self.calls += 1
        return self.value


class TestTerminationCostHandler(base.TestCase):

    def setUp(self):
        super().setUp()
        self.state = base.make_host_state()
        # 96 minutes into an hourly billing period.
        self.instance = base.make_instance('p1', preemptible=True,
                                           started_at=0)
        self.now = 96 * 60

    def test_from_names_keeps_order_and_names(self):
        handler = termination.TerminationCostHandler.from_names(
            ['count', 'billing_period'])
        self.assertEqual(
            [(count.CountCost, 'count', 1.0),
             (billing_period.BillingPeriodCost, 'billing_period', 1.0)],
            [(type(plugin), plugin.name, multiplier)
             for plugin, multiplier in handler.costs])

    def test_sum_with_default_multipliers(self):
        handler = termination.TerminationCostHandler.from_names(
            ['billing_period', 'count'])
        self.assertEqual(2161.0,
                         handler.cost(self.instance, self.state, self.now))

    def test_configured_multipliers(self):
        self.flags(group='preemptible', billing_period_cost_multiplier=2.0,
                   count_cost_multiplier=100.0)
        handler = termination.TerminationCostHandler.from_names(
            ['billing_period', 'count'])
        self.assertEqual(2 * 2160 + 100,
                         handler.cost(self.instance, self.state, self.now))

    def test_zero_multiplier_skips_plugin(self):
        self.flags(group='preemptible', count_cost_multiplier=0.0)
        negative = FixedCost('count', -1.0)
        handler = termination.TerminationCostHandler(
            [negative, FixedCost('runtime', 7.0)])
        self.assertEqual(7.0, handler.cost(self.instance, self.state, 0))
        self.assertEqual(0, negative.calls)

    def test_undeclared_multiplier_defaults_to_one(self):
        handler = termination.TerminationCostHandler(
            [FixedCost('third_party', 4.0)])
        self.assertEqual(4.0, handler.cost(self.instance, self.state, 0))

    def test_negative_cost_raises(self):
        handler = termination.TerminationCostHandler(
            [FixedCost('count', 1.0), FixedCost('third_party', -0.5)])
        error = self.assertRaises(ValueError, handler.cost, self.instance,
                                  self.state, 0)
        self.assertIn("'third_party'", str(error))
        self.assertIn('p1', str(error))

    def test_no_costs_is_free(self):
        handler = termination.TerminationCostHandler.from_names([])
        self.assertEqual(0.0, handler.cost(self.instance, self.state, 0))

    def test_unknown_name(self):
        error = self.assertRaises(
            exception.UnknownPlugin,
            termination.TerminationCostHandler.from_names, ['billing'])
        self.assertEqual(['billing_period', 'cost_hint', 'count', 'priority',
                          'qos_slack', 'runtime'],
                         error.valid)
