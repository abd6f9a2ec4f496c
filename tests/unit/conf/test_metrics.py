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


"""``[metrics]``: its default and the checks of ``bind``."""

from preemptible_sched.conf import checks
from preemptible_sched.conf import CONF
from preemptible_sched.conf import metrics
from preemptible_sched.conf import opts
from tests import base


class TestMetricsOptions(base.TestCase):

    def test_loopback_by_default(self):
        self.assertEqual('127.0.0.1:9464', CONF.metrics.bind)
        self.assertEqual(('127.0.0.1', 9464),
                         metrics.parse_bind(CONF.metrics.bind))

    def test_bad_bind_is_one_problem_naming_the_option(self):
        self.flags(group='metrics', bind='9464')
        found = [line for line in checks.problems(CONF)
                 if 'metrics' in line]
        self.assertEqual(1, len(found))
        self.assertIn('[metrics] bind', found[0])
        self.assertIn("expected HOST:PORT with a port 0-65535, got '9464'",
                      found[0])

    def test_empty_or_good_bind_is_no_problem(self):
        for bind in ('', '127.0.0.1:0', '[::1]:9464'):
            self.flags(group='metrics', bind=bind)
            self.assertEqual([], metrics.problems(
                CONF, lambda group, option: '[%s] %s' % (group, option)))

    def test_in_the_sample_configuration(self):
        groups = {getattr(group, 'name', group): names
                  for group, names in opts.list_opts()}
        self.assertEqual(['bind'], [opt.name for opt in groups['metrics']])
