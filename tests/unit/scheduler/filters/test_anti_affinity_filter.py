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

from preemptible_sched.scheduler.filters import anti_affinity_filter
from tests import base


class TestAntiAffinityFilter(base.TestCase):

    def setUp(self):
        super().setUp()
        self.filter = anti_affinity_filter.AntiAffinityFilter()

    def _passes(self, state, **spec_kw):
        spec = base.make_spec(group='g', **spec_kw)
        return self.filter.host_passes(state.full, spec)

    def test_empty_host_passes(self):
        state = base.make_host_state(name='host1')
        self.assertTrue(self._passes(state, group_policy='anti-affinity'))

    def test_listed_group_host_fails(self):
        state = base.make_host_state(name='host1')
        hosts = frozenset(['host1', 'host3'])
        self.assertFalse(self._passes(state, group_policy='anti-affinity',
                                      group_hosts=hosts))

    def test_other_listed_hosts_do_not_matter(self):
        state = base.make_host_state(name='host2')
        hosts = frozenset(['host1', 'host3'])
        self.assertTrue(self._passes(state, group_policy='anti-affinity',
                                     group_hosts=hosts))

    def test_member_already_on_host_fails(self):
        # E.g. placed earlier in the same multi-instance request.
        state = base.make_host_state(
            instances=[base.make_instance('i1', group='g')])
        self.assertFalse(self._passes(state, group_policy='anti-affinity'))

    def test_member_of_another_group_does_not_matter(self):
        state = base.make_host_state(
            instances=[base.make_instance('i1', group='other')])
        self.assertTrue(self._passes(state, group_policy='anti-affinity'))

    def test_passes_again_once_member_released(self):
        state = base.make_host_state(
            instances=[base.make_instance('i1', group='g')])
        state.release('i1')
        self.assertTrue(self._passes(state, group_policy='anti-affinity'))

    def test_preemptible_member_counts_on_normal_view(self):
        state = base.make_host_state(
            instances=[base.make_instance('i1', preemptible=True,
                                          group='g')])
        spec = base.make_spec(group='g', group_policy='anti-affinity')
        self.assertFalse(self.filter.host_passes(state.normal, spec))

    def test_other_policies_not_affected(self):
        state = base.make_host_state(
            name='host1', instances=[base.make_instance('i1', group='g')])
        hosts = frozenset(['host1'])
        self.assertTrue(self._passes(state, group_policy='affinity',
                                     group_hosts=hosts))
        self.assertTrue(self._passes(state, group_hosts=hosts))
