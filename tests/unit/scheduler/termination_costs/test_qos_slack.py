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

"""The qos_slack termination cost.

Default classes (3 of them: weights gold 3, silver 2, bronze 1; margin
10 s). Safe: margin / Q; at risk: weight * (1 + margin - Q).
"""

import math

from preemptible_sched.scheduler import termination_costs as termination
from preemptible_sched.scheduler.termination_costs import qos_slack
from preemptible_sched.service_classes import qos
from tests import base

NOW = 1000.0


class TestQoSSlackCost(base.TestCase):

    def setUp(self):
        super().setUp()
        self.plugin = qos_slack.QoSSlackCost(qos.Classes())
        self.state = base.make_host_state()

    def _cost(self, cls, admitted_at, running_s):
        instance = base.make_instance('i', preemptible=True,
                                      service_class=cls,
                                      admitted_at=admitted_at,
                                      running_s=running_s)
        return self.plugin.cost(instance, self.state, NOW)

    def test_safe_hand_computed(self):
        # bronze Q = 2 * 600 - 1000 = 200: 10 / 200
        self.assertAlmostEqual(0.05, self._cost('bronze', 0, 600))
        # bronze Q = 2 * 505 - 1000 = 10 (at the margin): 10 / 10
        self.assertAlmostEqual(1.0, self._cost('bronze', 0, 505))

    def test_at_risk_hand_computed(self):
        # bronze Q = 2 * 500 - 1000 = 0: 1 * (1 + 10 - 0)
        self.assertAlmostEqual(11.0, self._cost('bronze', 0, 500))
        # silver Q = 450 / 0.9 - 1000 = -500: 2 * (1 + 10 + 500)
        self.assertAlmostEqual(1022.0, self._cost('silver', 0, 450))
        # gold Q = 0 - 10 = -10: 3 * (1 + 10 + 10)
        self.assertAlmostEqual(63.0, self._cost('gold', 990, 0))

    def test_every_at_risk_costs_more_than_every_safe(self):
        # Safe costs are at most 1 (at the margin); at-risk at least
        # 1 * (1 + 10 - Q) > 1 as Q < 10.
        safe = [self._cost('bronze', 0, r) for r in (505, 550, 600, 900)]
        safe += [self._cost('silver', 500, 495)]   # Q = 50
        at_risk = [self._cost('bronze', 0, r) for r in (504.9, 504, 0)]
        at_risk += [self._cost('silver', 0, 900),   # Q = 0
                    self._cost('gold', 1000, 0)]    # Q = 0
        self.assertLess(max(safe), min(at_risk))

    def test_safe_cost_falls_as_slack_grows(self):
        # bronze Q = 10, 100, 200, 800
        costs = [self._cost('bronze', 0, r) for r in (505, 550, 600, 900)]
        self.assertEqual(sorted(costs, reverse=True), costs)
        self.assertEqual(len(set(costs)), len(costs))

    def test_at_risk_cost_grows_with_the_shortfall(self):
        # bronze Q = 8, 0, -1000
        costs = [self._cost('bronze', 0, r) for r in (504, 500, 0)]
        self.assertEqual(sorted(costs), costs)
        self.assertEqual(len(set(costs)), len(costs))

    def test_more_important_class_costs_more_for_the_same_shortfall(self):
        # Q = 0 in each class: gold 3 * 11, silver 2 * 11, bronze 1 * 11.
        gold = self._cost('gold', 1000, 0)
        silver = self._cost('silver', 0, 900)
        bronze = self._cost('bronze', 0, 500)
        self.assertAlmostEqual(33.0, gold)
        self.assertAlmostEqual(22.0, silver)
        self.assertAlmostEqual(11.0, bronze)

    def test_instance_without_class_costs_nothing(self):
        self.assertEqual(0.0, self._cost(None, 0, 0))

    def test_costs_are_never_negative(self):
        for cls, admitted_at, running_s in (
                ('bronze', 0, 1000), ('silver', 0, 0), ('gold', 0, 0),
                (None, 0, 0)):
            cost = self._cost(cls, admitted_at, running_s)
            self.assertGreaterEqual(cost, 0)
            self.assertFalse(math.isnan(cost))

    def test_loaded_by_name_with_its_multiplier(self):
        self.flags(group='preemptible', qos_slack_cost_multiplier=2.0)
        handler = termination.TerminationCostHandler.from_names(
            ['qos_slack'])
        instance = base.make_instance('i', service_class='bronze',
                                      admitted_at=0, running_s=600)
        # 2 * 10 / 200 (bronze Q = 1200 - 1000 = 200)
        self.assertAlmostEqual(0.1, handler.cost(instance, self.state, NOW))
