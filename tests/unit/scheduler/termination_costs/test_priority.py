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

from preemptible_sched.scheduler.termination_costs import priority
from tests import base


class TestPriorityCost(base.TestCase):

    def setUp(self):
        super().setUp()
        self.plugin = priority.PriorityCost()
        self.state = base.make_host_state()

    def _cost(self, value):
        instance = base.make_instance('p1', preemptible=True, priority=value)
        return self.plugin.cost(instance, self.state, 100)

    def test_cost_is_priority(self):
        self.assertEqual(0.0, self._cost(0))
        self.assertEqual(9.0, self._cost(9))
        self.assertEqual(2.5, self._cost(2.5))

    def test_negative_priority_clamped_to_zero(self):
        self.assertEqual(0.0, self._cost(-3))
