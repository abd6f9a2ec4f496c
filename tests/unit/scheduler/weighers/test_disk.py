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
from preemptible_sched.scheduler.weighers import disk
from tests import base


class TestDiskWeigher(base.TestCase):

    def setUp(self):
        super().setUp()
        self.weigher = disk.DiskWeigher()
        self.spec = base.make_spec()

    def test_raw_is_free_disk_on_full_view(self):
        state = base.make_host_state(disk_gb=200, instances=[
            base.make_instance('n1'),
            base.make_instance('p1', (1, 100, 25), preemptible=True)])
        # 200 - 40 - 25.
        self.assertEqual([135.0],
                         self.weigher.weigh_objects([state.full], self.spec))

    def test_spreads_by_default_and_stacks_when_negative(self):
        views = [base.make_host_state('big', disk_gb=1000).full,
                 base.make_host_state('small', disk_gb=100).full]
        handler = weighers.WeightHandler([self.weigher])
        best = handler.get_weighed_objects(views, self.spec)[0]
        self.assertEqual('big', best.view.name)
        self.flags(group='filter_scheduler', disk_weight_multiplier=-1.0)
        best = handler.get_weighed_objects(views, self.spec)[0]
        self.assertEqual('small', best.view.name)
