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

from preemptible_sched.scheduler.filters import resources_filter
from tests import base


class TestResourcesFilter(base.TestCase):
    """An 8 vCPU / 16384 MB / 500 GB blade."""

    def setUp(self):
        super().setUp()
        self.filter = resources_filter.ResourcesFilter()

    def _state(self, normal=0, preemptible=0):
        instances = [base.make_instance(f'n{i}') for i in range(normal)]
        instances += [base.make_instance(f'p{i}', preemptible=True)
                      for i in range(preemptible)]
        return base.make_host_state(instances=instances)

    def _passes(self, view, resources):
        return self.filter.host_passes(view, base.make_spec(resources))

    def test_empty_host_passes(self):
        self.assertTrue(self._passes(self._state().full, (8, 16384, 500)))

    def test_exactly_full_passes(self):
        # 3 mediums use 6 vCPUs / 12000 MB / 120 GB; 2 / 4384 / 380 left.
        state = self._state(normal=3)
        self.assertTrue(self._passes(state.full, (2, 4384, 380)))

    def test_each_dimension_can_reject(self):
        state = self._state(normal=3)
        self.assertFalse(self._passes(state.full, (2.5, 100, 1)))
        self.assertFalse(self._passes(state.full, (1, 4385, 1)))
        self.assertFalse(self._passes(state.full, (1, 100, 381)))

    def test_fractional_vcpus(self):
        state = self._state(normal=3)
        self.assertTrue(self._passes(state.full, (1.5, 100, 0)))
        self.assertFalse(self._passes(state.full, (2.25, 100, 0)))

    def test_normal_view_ignores_preemptible_instances(self):
        # 3 preemptible mediums: full view has 2 vCPUs free, normal has 8.
        state = self._state(normal=1, preemptible=3)
        self.assertFalse(self._passes(state.full, (4, 4000, 40)))
        self.assertTrue(self._passes(state.normal, (4, 4000, 40)))
        self.assertTrue(self._passes(state.normal, (6, 12384, 460)))
        self.assertFalse(self._passes(state.normal, (6.5, 4000, 40)))

    def test_capacity_follows_allocation_ratio(self):
        self.flags(group='compute', cpu_allocation_ratio=2.0)
        state = self._state(normal=4)
        self.assertTrue(self._passes(state.full, (8, 384, 0)))
        self.assertFalse(self._passes(state.full, (8, 385, 0)))
