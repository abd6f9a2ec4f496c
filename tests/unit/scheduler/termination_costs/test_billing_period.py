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

import math

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
import numpy

from preemptible_sched.scheduler.termination_costs import billing_period
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


class TestFlooredMod(base.TestCase):
    """The vectorised remainder is Python's ``%``, bit for bit."""

    @settings(max_examples=300, deadline=None)
    @given(st.lists(st.one_of(
        st.floats(0, 1e12, allow_nan=False),
        st.integers(0, 10 ** 6).map(lambda n: n * 3600.0),
        st.integers(0, 10 ** 6).map(lambda n: n * 3600.0 - 1e-9),
        st.sampled_from([0.0, 3599.9999999999995, 3600.0, 7200.0])),
        min_size=1, max_size=50),
        st.sampled_from([3600, 60, 1, 86400, 7, 0.5]), st.booleans())
    def test_same_as_python(self, values, period, in_place):
        array = numpy.array(values)
        got = billing_period.floored_mod(array, period, in_place=in_place)
        if not in_place:
            self.assertEqual(values, array.tolist())    # left alone
        for value, remainder in zip(values, got.tolist()):
            expected = value % period
            self.assertEqual(expected, remainder)
            self.assertEqual(math.copysign(1, expected),
                             math.copysign(1, remainder))
