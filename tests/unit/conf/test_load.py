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


"""The load-aware plugins' options: bounds, every bad field at once."""

from preemptible_sched.conf import checks
from preemptible_sched.conf import CONF
from preemptible_sched.conf import parsing
from preemptible_sched import exception
from tests.unit.conf import test_checks


class TestLoadOptions(test_checks.ConfigFileTestCase):

    def test_defaults_are_the_released_plugins(self):
        CONF([], project='preemptible-sched')
        self.addCleanup(CONF.reset)
        self.assertEqual(40.0, CONF.target_load_packing.target_utilization)
        self.assertEqual(1.5, CONF.target_load_packing.default_multiplier)
        group = CONF.load_variation_risk_balancing
        self.assertEqual((1.0, 1.0, 'kep'), (
            group.safe_variance_margin, group.safe_variance_sensitivity,
            group.formula))
        self.assertNotIn('load', ' '.join(checks.problems(CONF)))

    def test_open_bounds_reported_together(self):
        path = self.load('[target_load_packing]\ntarget_utilization = 100\n'
                         'default_multiplier = 0\n'
                         '[load_threshold]\nmax_cpu_utilization = 0\n')
        found = checks.problems(CONF)
        self.assertEqual(3, len(found), found)
        self.assertIn('%s: [target_load_packing] target_utilization = 100: '
                      'must be strictly between 0 and 100' % path, found)
        self.assertTrue(any('default_multiplier = 0: must be greater than 0'
                            in line for line in found))
        self.assertTrue(any('max_cpu_utilization = 0' in line
                            for line in found))
        self.assertRaises(exception.ConfigProblems, checks.require_valid,
                          CONF)

    def test_urls_other_than_http_are_refused_together(self):
        # The watcher client and the Prometheus source open http(s) only:
        # a file: URL would read local files.
        path = self.load('[load_watcher]\nurl = file:///etc/passwd\n'
                         'prometheus_url = http://\n')
        found = checks.problems(CONF)
        self.assertIn('%s: [load_watcher] url = file:///etc/passwd: must be '
                      'an http:// or https:// URL' % path, found)
        self.assertTrue(any('prometheus_url = http://: must be an http'
                            in line for line in found), found)

    def test_target_zero_refused(self):
        self.load('[target_load_packing]\ntarget_utilization = 0\n')
        self.assertEqual(1, len(checks.problems(CONF)))

    def test_out_of_range_values_named(self):
        path = self.write('[load_variation_risk_balancing]\n'
                          'safe_variance_margin = -1\n'
                          'safe_variance_sensitivity = -0.5\n'
                          'formula = nope\n'
                          '[target_load_packing]\n'
                          'target_utilization = 120\n')
        error = self.assertRaises(parsing.BadValues, self.parse, path)
        text = str(error)
        for option in ('safe_variance_margin', 'safe_variance_sensitivity',
                       'formula', 'target_utilization'):
            self.assertIn('%s: [' % path, text)
            self.assertIn(option, text)

    def test_watcher_bind_and_host_pattern_checked(self):
        path = self.load('[load_watcher]\nbind = localhost\n'
                         'prometheus_host_pattern = ^[a-z]+$\n')
        found = checks.problems(CONF)
        self.assertEqual([
            "%s: [load_watcher] bind: expected HOST:PORT with a port "
            "0-65535, got 'localhost'" % path,
            '%s: [load_watcher] prometheus_host_pattern: needs a group that '
            'captures the host name' % path], found)
