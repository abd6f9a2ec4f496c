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

"""Which requests may displace servers (no Nova services needed)."""

from nova import objects as nova_objects
from nova import test
from oslo_utils.fixture import uuidsentinel as uuids

from preemptible_sched.nova import eligibility


class TestNamesAHost(test.NoDBTestCase):

    def test_only_a_named_host_or_node_counts(self):
        spec = nova_objects.RequestSpec()
        self.assertFalse(eligibility._names_a_host(spec))
        spec.requested_destination = None
        self.assertFalse(eligibility._names_a_host(spec))
        # What a resize or a migration sets: a cell, no host.
        spec.requested_destination = nova_objects.Destination(
            cell=nova_objects.CellMapping(uuid=uuids.cell))
        self.assertFalse(eligibility._names_a_host(spec))
        spec.requested_destination = nova_objects.Destination(host='h1')
        self.assertTrue(eligibility._names_a_host(spec))
        spec.requested_destination = nova_objects.Destination(node='n1')
        self.assertTrue(eligibility._names_a_host(spec))
