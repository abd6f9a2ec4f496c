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

from preemptible_sched.scheduler import weighers
from preemptible_sched.scheduler.weighers import ram
from tests import base


class TestRAMWeigher(base.TestCase):

    def setUp(self):
        super().setUp()
        self.weigher = ram.RAMWeigher()
        self.spec = base.make_spec()

    def test_raw_is_free_memory_on_full_view(self):
        state = base.make_host_state(instances=[
            base.make_instance('n1'),
            base.make_instance('p1', (1, 3000, 10), preemptible=True)])
        # 16384 - 4000 - 3000: the preemptible instance counts.
        self.assertEqual([9384.0],
                         self.weigher.weigh_objects([state.full], self.spec))

    def test_spreads_by_default_and_stacks_when_negative(self):
        views = [base.make_host_state('busy', instances=[
                     base.make_instance('i1')]).full,
                 base.make_host_state('empty').full]
        handler = weighers.WeightHandler([self.weigher])
        best = handler.get_weighed_objects(views, self.spec)[0]
        self.assertEqual('empty', best.view.name)
        self.flags(group='filter_scheduler', ram_weight_multiplier=-1.0)
        best = handler.get_weighed_objects(views, self.spec)[0]
        self.assertEqual('busy', best.view.name)
