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

from preemptible_sched.termination import billing_period
from tests import base


class TestBillingPeriodCost(base.TestCase):

    def setUp(self):
        super().setUp()
        self.state = base.make_host_state()

    def _cost(self, plugin, started_at, now):
        instance = base.make_instance('p1', preemptible=True,
                                      started_at=started_at)
        return plugin.cost(instance, self.state, now)

    def test_default_period_is_an_hour(self):
        plugin = billing_period.BillingPeriodCost()
        # 96 min into the second hour: 36 min = 2160 s forfeited.
        self.assertEqual(2160, self._cost(plugin, 0, 96 * 60))
        self.assertEqual(2160, self._cost(plugin, 1000, 1000 + 96 * 60))

    def test_configured_period(self):
        self.flags(group='preemptible', billing_period_seconds=600)
        plugin = billing_period.BillingPeriodCost()
        self.assertEqual(360, self._cost(plugin, 0, 96 * 60))

    def test_whole_periods_cost_nothing(self):
        plugin = billing_period.BillingPeriodCost()
        self.assertEqual(0, self._cost(plugin, 0, 7200))

    def test_fractional_runtime(self):
        plugin = billing_period.BillingPeriodCost()
        self.assertAlmostEqual(0.5, self._cost(plugin, 0, 3600.5))

    def test_not_started_costs_nothing(self):
        plugin = billing_period.BillingPeriodCost()
        self.assertEqual(0, self._cost(plugin, 500, 100))

    def test_period_read_once_at_load(self):
        plugin = billing_period.BillingPeriodCost()
        self.flags(group='preemptible', billing_period_seconds=600)
        self.assertEqual(2160, self._cost(plugin, 0, 96 * 60))
