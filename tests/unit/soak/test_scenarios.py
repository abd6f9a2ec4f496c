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

"""The soak's scenarios: drawn from their seed alone."""

from tests import base
from tests.soak import scenarios


class TestScenarios(base.TestCase):

    def test_same_seed_same_scenario(self):
        self.assertEqual(scenarios.generate(7).describe(),
                         scenarios.generate(7).describe())
        self.assertNotEqual(scenarios.generate(7).describe(),
                            scenarios.generate(8).describe())

    def test_strategies_rotate_with_the_seed(self):
        self.assertEqual(list(scenarios.STRATEGIES),
                         [scenarios.generate(seed, 'small').strategy
                          for seed in range(4)])

    def test_late_held_reports_change_nothing_else(self):
        plain = scenarios.generate(5, 'small')
        late = scenarios.generate(5, 'small', late_held=True)
        self.assertEqual(0.0, plain.faults.held_late_p)
        if late.faults.intensity != 'none':
            self.assertGreater(late.faults.held_late_p, 0.0)
        late.faults.held_late_p = 0.0
        self.assertEqual(plain.describe(), late.describe())

    def test_small_is_small(self):
        for seed in range(20):
            scenario = scenarios.generate(seed, 'small')
            self.assertLessEqual(len(scenario.hosts), 4)
            self.assertLessEqual(len(scenario.items), 10)
