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

"""A Nova host state known only by its usage figures, as a core view."""

from nova.scheduler import host_manager
from nova import test

from preemptible_sched.nova import host_views


class TestFromNovaUsage(test.NoDBTestCase):

    def test_usage_figures_make_one_normal_instance(self):
        nova_host = host_manager.HostState('host1', 'node1', 'cell')
        nova_host.vcpus_total = 8
        nova_host.vcpus_used = 3
        nova_host.total_usable_ram_mb = 8192
        nova_host.free_ram_mb = 2048
        nova_host.total_usable_disk_gb = 100
        nova_host.disk_mb_used = 10 * 1024
        nova_host.num_instances = 2
        nova_host.cpu_allocation_ratio = 4.0
        state = host_views.view_of(nova_host).host
        self.assertEqual((32.0, 8192.0, 100.0), tuple(state.capacity))
        self.assertEqual((3.0, 6144.0, 10.0), tuple(state.full.used))
        self.assertEqual(tuple(state.full.used), tuple(state.normal.used))
        self.assertEqual({}, state.preemptible_instances)
        self.assertEqual(2, state.full.num_instances)
