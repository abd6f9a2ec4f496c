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

from preemptible_sched.scheduler.filters import compute_filter
from tests import base


class TestComputeFilter(base.TestCase):

    def setUp(self):
        super().setUp()
        self.filter = compute_filter.ComputeFilter()
        self.spec = base.make_spec()

    def _passes(self, **host_kw):
        state = base.make_host_state(**host_kw)
        return self.filter.host_passes(state.full, self.spec)

    def test_enabled_and_up_passes(self):
        self.assertTrue(self._passes())

    def test_disabled_fails(self):
        self.assertFalse(self._passes(enabled=False))

    def test_down_fails(self):
        self.assertFalse(self._passes(up=False))

    def test_disabled_and_down_fails(self):
        self.assertFalse(self._passes(enabled=False, up=False))

    def test_judges_normal_view_too(self):
        state = base.make_host_state(up=False)
        self.assertFalse(self.filter.host_passes(state.normal, self.spec))
