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

from preemptible_sched.scheduler import filters
from preemptible_sched.scheduler.filters import compute_filter
from preemptible_sched.scheduler.filters import resources_filter
from tests import base


class RejectHosts(filters.BaseHostFilter):
    """Rejects the hosts named in ``rejected``; records what it saw."""

    def __init__(self, name, rejected=()):
        self.name = name
        self.rejected = set(rejected)
        self.seen = []

    def host_passes(self, host_view, spec):
        self.seen.append(host_view.name)
        return host_view.name not in self.rejected


class TestFilterHandler(base.TestCase):

    def setUp(self):
        super().setUp()
        self.views = [base.make_host_state(name).full
                      for name in ('a', 'b', 'c', 'd')]
        self.spec = base.make_spec()

    @staticmethod
    def _names(views):
        return [view.name for view in views]

    def test_no_filters_pass_everything(self):
        passed = filters.FilterHandler([]).filter(self.views, self.spec)
        self.assertEqual(['a', 'b', 'c', 'd'], self._names(passed))

    def test_passed_hosts_keep_input_order(self):
        handler = filters.FilterHandler([RejectHosts('x', ['b'])])
        passed = handler.filter(self.views[::-1], self.spec)
        self.assertEqual(['d', 'c', 'a'], self._names(passed))

    def test_filters_run_in_order_on_survivors(self):
        first = RejectHosts('first', ['a', 'c'])
        second = RejectHosts('second', ['d'])
        handler = filters.FilterHandler([first, second])
        passed = handler.filter(self.views, self.spec)
        self.assertEqual(['b'], self._names(passed))
        self.assertEqual(['a', 'b', 'c', 'd'], first.seen)
        self.assertEqual(['b', 'd'], second.seen)

    def test_verdicts_name_first_rejecting_filter(self):
        handler = filters.FilterHandler([
            RejectHosts('first', ['a']),
            RejectHosts('second', ['a', 'c'])])
        verdicts = {}
        passed = handler.filter(self.views, self.spec, verdicts)
        self.assertEqual(['b', 'd'], self._names(passed))
        self.assertEqual({'a': 'first', 'c': 'second'}, verdicts)

    def test_stops_when_no_host_is_left(self):
        last = RejectHosts('last')
        handler = filters.FilterHandler([
            RejectHosts('all', ['a', 'b', 'c', 'd']), last])
        verdicts = {}
        self.assertEqual([], handler.filter(self.views, self.spec, verdicts))
        self.assertEqual([], last.seen)
        self.assertEqual(dict.fromkeys('abcd', 'all'), verdicts)

    def test_from_names_keeps_configured_order(self):
        handler = filters.FilterHandler.from_names(['resources', 'compute'])
        self.assertEqual(
            [resources_filter.ResourcesFilter, compute_filter.ComputeFilter],
            [type(f) for f in handler.filters])
        self.assertEqual(['resources', 'compute'],
                         [f.name for f in handler.filters])

    def test_loaded_filters_judge_hosts(self):
        handler = filters.FilterHandler.from_names(['compute', 'resources'])
        views = [base.make_host_state('down', up=False).full,
                 base.make_host_state('small', vcpus=1).full,
                 base.make_host_state('ok').full]
        verdicts = {}
        passed = handler.filter(views, self.spec, verdicts)
        self.assertEqual(['ok'], self._names(passed))
        self.assertEqual({'down': 'compute', 'small': 'resources'}, verdicts)
