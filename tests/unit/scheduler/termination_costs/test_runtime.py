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

from preemptible_sched.scheduler.termination_costs import runtime
from tests import base


class TestRuntimeCost(base.TestCase):

    def setUp(self):
        super().setUp()
        self.plugin = runtime.RuntimeCost()
        self.state = base.make_host_state()

    def _cost(self, started_at, now):
        instance = base.make_instance('p1', preemptible=True,
                                      started_at=started_at)
        return self.plugin.cost(instance, self.state, now)

    def test_seconds_run_so_far(self):
        self.assertEqual(5760, self._cost(0, 5760))
        self.assertEqual(250.5, self._cost(1000, 1250.5))

    def test_not_started_costs_nothing(self):
        self.assertEqual(0, self._cost(1000, 900))
