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

from preemptible_sched.scheduler.termination_costs import count
from tests import base


class TestCountCost(base.TestCase):

    def test_every_instance_costs_one(self):
        plugin = count.CountCost()
        state = base.make_host_state()
        young = base.make_instance('young', preemptible=True,
                                   started_at=90, priority=0)
        old = base.make_instance('old', (8, 16000, 100), preemptible=True,
                                 started_at=0, priority=11)
        self.assertEqual([1.0, 1.0],
                         [plugin.cost(instance, state, 100)
                          for instance in (young, old)])
