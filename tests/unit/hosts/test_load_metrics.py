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

"""One host's metrics under the bad-metrics rules (hosts/load_metrics.py)."""

import math

from preemptible_sched.hosts import load_metrics
from tests import base


class TestHostLoad(base.TestCase):

    def _load(self, metrics, occupied=True, now=1000.0):
        return load_metrics.host_load('h', 4, 8192, metrics, now, occupied)

    def test_clean_window(self):
        host = self._load({'cpu': {'avg': 25, 'std': 5},
                           'memory': {'avg': 40, 'std': 2},
                           'window_end': 970})
        self.assertEqual((25.0, 5.0, 40.0, 2.0, 970.0), (
            host.cpu_avg, host.cpu_std, host.memory_avg, host.memory_std,
            host.window_end))
        self.assertEqual([], host.problems)

    def test_slightly_above_100_clipped(self):
        host = self._load({'cpu': {'avg': 103.0, 'std': 1},
                           'memory': {'avg': 50, 'std': 0},
                           'window_end': 1000})
        self.assertEqual(100.0, host.cpu_avg)
        self.assertEqual([load_metrics.CLIPPED], [r for r, _ in host.problems])

    def test_clip_slack_boundary(self):
        clipped = self._load({'cpu': {'avg': 105.0, 'std': 0},
                              'window_end': 1000})
        self.assertEqual(100.0, clipped.cpu_avg)
        rejected = self._load({'cpu': {'avg': 105.01, 'std': 0},
                               'window_end': 1000})
        self.assertTrue(math.isnan(rejected.cpu_avg))

    def test_corrupt_values_ignored(self):
        for value in (-1.0, math.nan, math.inf, 1e6, 'x', True):
            host = self._load({'cpu': {'avg': value, 'std': 1},
                               'memory': {'avg': 50, 'std': 1},
                               'window_end': 1000})
            self.assertTrue(math.isnan(host.cpu_avg), value)
            self.assertEqual(50.0, host.memory_avg)
            self.assertIn(load_metrics.CORRUPT, [r for r, _ in host.problems])
            self.assertTrue(host.usable())

    def test_negative_std_ignored_avg_kept(self):
        host = self._load({'cpu': {'avg': 20, 'std': -3},
                           'memory': {'avg': 50, 'std': 1},
                           'window_end': 1000})
        self.assertEqual((20.0, 0.0), (host.cpu_avg, host.cpu_std))

    def test_stale_window_is_missing(self):
        fresh = self._load({'cpu': {'avg': 20, 'std': 0}, 'window_end': 700})
        self.assertTrue(fresh.has('cpu'))
        stale = self._load({'cpu': {'avg': 20, 'std': 0},
                            'window_end': 699})
        self.assertFalse(stale.usable())
        self.assertEqual(load_metrics.STALE, stale.problems[0][0])

    def test_missing_host_with_instances_unusable_without_is_new(self):
        self.assertFalse(self._load(None).usable())
        self.assertFalse(self._load(None).new)
        new = self._load(None, occupied=False)
        self.assertTrue(new.new)
        self.assertTrue(new.usable())
        self.assertEqual([], new.problems)

    def test_other_types_passed_through(self):
        host = self._load({'cpu': {'avg': 20, 'std': 0},
                           'memory': {'avg': 50, 'std': 1},
                           'energy': {'avg': -7}, 'window_end': 1000})
        self.assertEqual({'energy': {'avg': -7}}, host.extra)
        self.assertEqual([], host.problems)

    def test_corrupt_payload_never_raises(self):
        for metrics in ('text', 5, [], {'cpu': 'x'}, {'cpu': None},
                        {'window_end': 'soon'}, {'window_end': math.nan}):
            host = self._load(metrics)
            self.assertFalse(host.usable(), metrics)
