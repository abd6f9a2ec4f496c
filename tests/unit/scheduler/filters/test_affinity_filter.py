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

from preemptible_sched.scheduler.filters import affinity_filter
from tests import base


class TestAffinityFilter(base.TestCase):

    def setUp(self):
        super().setUp()
        self.filter = affinity_filter.AffinityFilter()
        self.state = base.make_host_state(name='host1')

    def _passes(self, **spec_kw):
        spec = base.make_spec(group='g', **spec_kw)
        return self.filter.host_passes(self.state.full, spec)

    def test_group_host_passes(self):
        self.assertTrue(self._passes(group_policy='affinity',
                                     group_hosts=frozenset(['host1'])))

    def test_other_host_fails(self):
        self.assertFalse(self._passes(group_policy='affinity',
                                      group_hosts=frozenset(['host2'])))

    def test_first_member_goes_anywhere(self):
        self.assertTrue(self._passes(group_policy='affinity'))

    def test_other_policies_not_affected(self):
        hosts = frozenset(['host2'])
        self.assertTrue(self._passes(group_policy='anti-affinity',
                                     group_hosts=hosts))
        self.assertTrue(self._passes(group_hosts=hosts))

    def test_judged_by_name_on_normal_view(self):
        spec = base.make_spec(group='g', group_policy='affinity',
                              group_hosts=frozenset(['host2']))
        self.assertFalse(self.filter.host_passes(self.state.normal, spec))
