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
from preemptible_sched.scheduler.weighers import num_instances
from tests import base


class TestNumInstancesWeigher(base.TestCase):

    def setUp(self):
        super().setUp()
        self.weigher = num_instances.NumInstancesWeigher()
        self.spec = base.make_spec()
        small = (0.5, 100, 0)
        self.views = [
            base.make_host_state('three', instances=[
                base.make_instance('t1', small),
                base.make_instance('t2', small, preemptible=True),
                base.make_instance('t3', small, preemptible=True)]).full,
            base.make_host_state('one', instances=[
                base.make_instance('o1', (6, 12000, 0))]).full]

    def test_raw_counts_every_instance(self):
        self.assertEqual([3, 1],
                         self.weigher.weigh_objects(self.views, self.spec))

    def test_default_prefers_fewer_instances(self):
        handler = weighers.WeightHandler([self.weigher])
        ranked = handler.get_weighed_objects(self.views, self.spec)
        self.assertEqual([('one', 0.0), ('three', -1.0)],
                         [(i.view.name, i.weight) for i in ranked])

    def test_positive_multiplier_packs(self):
        self.flags(group='filter_scheduler',
                   num_instances_weight_multiplier=1.0)
        handler = weighers.WeightHandler([self.weigher])
        best = handler.get_weighed_objects(self.views, self.spec)[0]
        self.assertEqual('three', best.view.name)
