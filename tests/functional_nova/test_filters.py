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

"""The core filters as Nova filters: one batch per call of Nova's handler,
the same verdicts as one host at a time (no Nova services needed).
"""

from nova import objects as nova_objects
from nova.scheduler import filters as nova_filters
from nova.scheduler import host_manager
from nova import test

from preemptible_sched.nova import filters


def nova_host(name, free_ram_mb, vcpus_used=0):
    """A host of 8 vCPUs and 8192 MB as Nova's usage figures show it."""
    host = host_manager.HostState(name, 'node-' + name, 'cell')
    host.vcpus_total = 8
    host.vcpus_used = vcpus_used
    host.total_usable_ram_mb = 8192
    host.free_ram_mb = free_ram_mb
    host.total_usable_disk_gb = 100
    host.disk_mb_used = 0
    host.num_instances = 1
    return host


def spec(vcpus, memory_mb):
    flavor = nova_objects.Flavor(name='m', vcpus=vcpus, memory_mb=memory_mb,
                                 root_gb=10, ephemeral_gb=0, swap=0,
                                 extra_specs={})
    return nova_objects.RequestSpec(flavor=flavor, num_instances=1,
                                    is_bfv=False)


class TestPreemptibleResourcesFilter(test.NoDBTestCase):

    def setUp(self):
        super().setUp()
        self.filter = filters.PreemptibleResourcesFilter()
        self.hosts = [nova_host('roomy', 8192),
                      nova_host('tight', 1024),
                      nova_host('busy', 8192, vcpus_used=7),
                      nova_host('exact', 2048, vcpus_used=6)]

    def test_batch_keeps_the_hosts_with_room_in_order(self):
        passed = self.filter.filter_all(iter(self.hosts), spec(2, 2048))
        self.assertEqual(['roomy', 'exact'], [host.host for host in passed])

    def test_batch_agrees_with_one_host_at_a_time(self):
        for vcpus, memory in ((1, 512), (2, 2048), (2, 4096), (8, 8192)):
            request = spec(vcpus, memory)
            one_by_one = [host.host for host in self.hosts
                          if self.filter.host_passes(host, request)]
            batch = [host.host for host in
                     self.filter.filter_all(self.hosts, request)]
            self.assertEqual(one_by_one, batch, (vcpus, memory))

    def test_nova_handler_runs_it(self):
        handler = nova_filters.HostFilterHandler()
        passed = handler.get_filtered_objects(
            [self.filter], self.hosts, spec(4, 4096))
        self.assertEqual(['roomy'], [host.host for host in passed])

    def test_no_hosts(self):
        self.assertEqual([], self.filter.filter_all([], spec(1, 512)))
