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

from preemptible_sched.scheduler.filters import num_instances_filter
from tests import base


class TestNumInstancesFilter(base.TestCase):

    def setUp(self):
        super().setUp()
        self.filter = num_instances_filter.NumInstancesFilter()
        self.flags(group='filter_scheduler', max_instances_per_host=2)
        self.spec = base.make_spec((0.5, 100, 0))

    def _state(self, normal=0, preemptible=0):
        small = (0.5, 100, 0)
        instances = [base.make_instance(f'n{i}', small)
                     for i in range(normal)]
        instances += [base.make_instance(f'p{i}', small, preemptible=True)
                      for i in range(preemptible)]
        return base.make_host_state(instances=instances)

    def test_below_limit_passes(self):
        self.assertTrue(self.filter.host_passes(self._state(1).full,
                                                self.spec))

    def test_at_limit_fails(self):
        self.assertFalse(self.filter.host_passes(self._state(2).full,
                                                 self.spec))

    def test_full_view_counts_preemptible_instances(self):
        state = self._state(normal=1, preemptible=1)
        self.assertFalse(self.filter.host_passes(state.full, self.spec))

    def test_normal_view_still_counts_preemptible_instances(self):
        # Terminations free resources, not slots: a normal request judged
        # on the normal view must not push the host over the limit.
        state = self._state(normal=1, preemptible=1)
        self.assertFalse(self.filter.host_passes(state.normal, self.spec))

    def test_limit_read_from_config(self):
        state = self._state(normal=2)
        self.flags(group='filter_scheduler', max_instances_per_host=3)
        self.assertTrue(self.filter.host_passes(state.full, self.spec))
