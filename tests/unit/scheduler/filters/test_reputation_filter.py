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

import numpy

from preemptible_sched.hosts import batch as host_batch
from preemptible_sched import objects
from preemptible_sched.scheduler.filters import reputation_filter
from tests import base


def spec(reputation):
    return base.make_spec(sla=objects.SLALevels(reputation=reputation))


class TestReputationFilter(base.TestCase):

    def setUp(self):
        super().setUp()
        self.filter = reputation_filter.ReputationFilter()
        self.states = [
            base.make_host_state(name, attributes=attributes)
            for name, attributes in (
                ('h', {'reputation': 'high'}),
                ('a', {'reputation': 'average'}),
                ('l', {'reputation': 'low'}),
                ('none', {}),
                ('h2', {'reputation': 'high', 'rack': '1'}))]

    def passed(self, request):
        return [state.name for state in self.states
                if self.filter.host_passes(state.full, request)]

    def test_each_level_on_its_category(self):
        self.assertEqual(['h', 'h2'], self.passed(spec('premium')))
        self.assertEqual(['a'], self.passed(spec('advanced')))
        self.assertEqual(['l'], self.passed(spec('best_effort')))

    def test_request_without_sla_is_not_concerned(self):
        self.assertFalse(self.filter.applies_to(base.make_spec()))
        self.assertTrue(self.filter.applies_to(spec('premium')))

    def test_vector_form_agrees(self):
        batch = host_batch.HostBatch.of_views(
            [state.full for state in self.states])
        for level in ('premium', 'advanced', 'best_effort'):
            request = spec(level)
            expected = [self.filter.host_passes(state.full, request)
                        for state in self.states]
            numpy.testing.assert_array_equal(
                expected, self.filter.filter_all(batch, request))
