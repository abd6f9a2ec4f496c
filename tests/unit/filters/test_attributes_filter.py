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

from preemptible_sched.filters import attributes_filter
from preemptible_sched import objects
from tests import base


class TestAttributesFilter(base.TestCase):

    def setUp(self):
        super().setUp()
        self.filter = attributes_filter.AttributesFilter()
        self.state = base.make_host_state(
            attributes={'cpu_arch': 'x86_64', 'gpus': 2},
            aggregates=[
                objects.Aggregate('fast', {'storage': 'ssd',
                                           'network': '10g'}),
                objects.Aggregate('big', {'storage': 'nvme'})])

    def _passes(self, **constraints):
        spec = base.make_spec(constraints=constraints)
        return self.filter.host_passes(self.state.full, spec)

    def test_no_constraints_pass(self):
        self.assertTrue(self._passes())

    def test_attribute_matches(self):
        self.assertTrue(self._passes(cpu_arch='x86_64'))
        self.assertFalse(self._passes(cpu_arch='aarch64'))

    def test_compared_as_strings(self):
        self.assertTrue(self._passes(gpus='2'))
        self.assertFalse(self._passes(gpus='2.0'))

    def test_any_aggregate_value_matches(self):
        self.assertTrue(self._passes(storage='ssd'))
        self.assertTrue(self._passes(storage='nvme'))
        self.assertFalse(self._passes(storage='hdd'))

    def test_every_constraint_must_match(self):
        self.assertTrue(self._passes(cpu_arch='x86_64', network='10g'))
        self.assertFalse(self._passes(cpu_arch='x86_64', network='1g'))

    def test_attribute_mismatch_falls_back_to_aggregates(self):
        state = base.make_host_state(
            attributes={'storage': 'hdd'},
            aggregates=[objects.Aggregate('fast', {'storage': 'ssd'})])
        spec = base.make_spec(constraints={'storage': 'ssd'})
        self.assertTrue(self.filter.host_passes(state.full, spec))

    def test_missing_key_fails_without_adding_it(self):
        self.assertFalse(self._passes(rack='r1'))
        self.assertNotIn('rack', self.state.aggregate_metadata)

    def test_host_without_attributes_fails(self):
        state = base.make_host_state()
        spec = base.make_spec(constraints={'cpu_arch': 'x86_64'})
        self.assertFalse(self.filter.host_passes(state.full, spec))
        self.assertEqual({}, dict(state.aggregate_metadata))
