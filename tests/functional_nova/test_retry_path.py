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

"""The retry path's reads (no Nova services needed)."""

from nova import test

from preemptible_sched.nova import retry_path
from tests.functional_nova import test_host_states


class TestCanEverFit(test.NoDBTestCase):

    def test_needs_every_class_within_max_unit(self):
        self.assertTrue(retry_path._can_ever_fit(
            test_host_states.INVENTORIES, {'VCPU': 16, 'MEMORY_MB': 1}))
        self.assertFalse(retry_path._can_ever_fit(
            test_host_states.INVENTORIES, {'VCPU': 17, 'MEMORY_MB': 1}))
        self.assertFalse(retry_path._can_ever_fit(
            test_host_states.INVENTORIES, {'VCPU': 1, 'PCPU': 1}))
