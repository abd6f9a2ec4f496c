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

from preemptible_sched import objects
from preemptible_sched.scheduler.filters import availability_zone_filter
from tests import base


class TestAvailabilityZoneFilter(base.TestCase):

    def setUp(self):
        super().setUp()
        self.filter = availability_zone_filter.AvailabilityZoneFilter()

    def _passes(self, state, zone):
        spec = base.make_spec(availability_zone=zone)
        return self.filter.host_passes(state.full, spec)

    def test_no_zone_requested_passes(self):
        state = base.make_host_state(availability_zone='az1')
        self.assertTrue(self._passes(state, None))

    def test_host_zone(self):
        state = base.make_host_state(availability_zone='az1')
        self.assertTrue(self._passes(state, 'az1'))
        self.assertFalse(self._passes(state, 'az2'))

    def test_zone_from_aggregate(self):
        state = base.make_host_state(aggregates=[
            objects.Aggregate('agg', {'availability_zone': 'az2'})])
        self.assertTrue(self._passes(state, 'az2'))
        self.assertFalse(self._passes(state, 'nova'))

    def test_default_zone(self):
        self.flags(group='compute', default_availability_zone='home')
        state = base.make_host_state()
        self.assertTrue(self._passes(state, 'home'))
        self.assertFalse(self._passes(state, 'nova'))
