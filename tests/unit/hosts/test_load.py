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


"""The load snapshot: bad metrics, recent placements, fallback."""

import math

from preemptible_sched.hosts import load
from tests import base
from tests import load_helpers as helpers


class TestPredictedCores(base.TestCase):

    def test_capped_by_vcpus(self):
        self.assertEqual(2.0, load.predicted_cores(2, 5, 1.5))
        self.assertEqual(1.5, load.predicted_cores(2, 1, 1.5))
        self.assertEqual(2.0, load.predicted_cores(2, None, 1.5))
        self.assertEqual(0.0, load.predicted_cores(2, 0, 1.5))


class TestHostLoad(base.TestCase):

    def _load(self, metrics, occupied=True, now=1000.0):
        return load.host_load('h', 4, 8192, metrics, now, occupied)

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
        self.assertEqual([load.CLIPPED], [r for r, _ in host.problems])

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
            self.assertIn(load.CORRUPT, [r for r, _ in host.problems])
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
        self.assertEqual(load.STALE, stale.problems[0][0])

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


class TestBuild(base.TestCase):

    HOSTS = [('a', 4, 8192), ('b', 4, 8192)]

    def test_fallback_when_source_down(self):
        snapshot = load.build(0, self.HOSTS, {}, {'a'},
                              source_problem='timeout')
        self.assertEqual('source down: timeout', snapshot.fallback)

    def test_fallback_when_nothing_fresh(self):
        windows = {'a': {'cpu': {'avg': 1, 'std': 0}, 'window_end': -400}}
        snapshot = load.build(0, self.HOSTS, windows, {'a'})
        self.assertTrue(snapshot.fallback.startswith(load.SOURCE_STALE))

    def test_no_fallback_for_an_empty_cloud(self):
        snapshot = load.build(0, self.HOSTS, {}, set())
        self.assertIsNone(snapshot.fallback)
        self.assertTrue(all(h.new for h in snapshot.hosts.values()))

    def test_one_fresh_host_is_enough(self):
        windows = {'a': {'cpu': {'avg': 1, 'std': 0}, 'window_end': -10}}
        snapshot = load.build(0, self.HOSTS, windows, {'a', 'b'})
        self.assertIsNone(snapshot.fallback)
        explained = snapshot.explain()
        self.assertEqual('no usable metrics',
                         explained['hosts']['b']['status'])
        self.assertEqual(['no metrics for this host'],
                         explained['hosts']['b']['problems'])

    def test_logged_once_per_host_counted_every_time(self):
        health = load.MetricsHealth()
        windows = {'a': {'cpu': {'avg': -5, 'std': 0},
                         'memory': {'avg': 1, 'std': 0}, 'window_end': 0}}
        with self.assertLogs('preemptible_sched.hosts.load',
                             'WARNING') as logs:
            for _ in range(3):
                load.build(0, self.HOSTS[:1], windows, {'a'},
                           health=health)
            # healthy once, then corrupt again: logged again
            load.build(0, self.HOSTS[:1], {'a': {
                'cpu': {'avg': 5, 'std': 0}, 'memory': {'avg': 1, 'std': 0},
                'window_end': 0}}, {'a'}, health=health)
            load.build(0, self.HOSTS[:1], windows, {'a'}, health=health)
        self.assertEqual(2, len(logs.records))
        self.assertEqual(4, health.counts[load.CORRUPT])

    def test_fallback_logged_on_change_only(self):
        health = load.MetricsHealth()
        with self.assertLogs('preemptible_sched.hosts.load',
                             'WARNING') as logs:
            for _ in range(3):
                load.build(0, self.HOSTS, {}, set(), source_problem='x',
                           health=health)
        self.assertEqual(1, len(logs.records))
        self.assertEqual(3, health.counts['source down: x'])


class TestRecent(base.TestCase):

    def test_burst_in_one_pass_is_seen(self):
        manager = helpers.loaded_manager([
            ('h', 4, 8192, helpers.cpu(0.0), [helpers.old_instance('old')]),
        ], now=100.0)
        snapshot = manager.table.load
        self.assertEqual([0.0], snapshot.recent(manager.batch())[0].tolist())
        manager.add_instance('h', base.make_instance(
            'new', (2, 1000, 0), started_at=100.0, placed_at=100.0,
            expected_vcpus=1.0))
        cores, memory = snapshot.recent(manager.batch())
        self.assertEqual(([1.5], [1000.0]), (cores.tolist(),
                                             memory.tolist()))

    def test_placement_time_not_start_time(self):
        # Started long ago (a rebuilt instance, say) but placed here 10 s
        # ago: the window cannot show it yet.
        moved = base.make_instance('moved', (2, 1000, 0), started_at=-5000.0,
                                   placed_at=90.0)
        booting = base.make_instance('booting', (1, 1000, 0),
                                     started_at=95.0)
        manager = helpers.loaded_manager([
            ('h', 4, 8192, helpers.cpu(0.0), [moved, booting]),
        ], now=100.0)
        cores, _ = manager.table.load.recent(manager.batch())
        self.assertEqual([3.0], cores.tolist())

    def test_margin_before_window_end(self):
        # window ended at 70 (now 100): placed after 10 is not visible.
        manager = helpers.loaded_manager([
            ('h', 4, 8192, helpers.cpu(0.0), [
                helpers.old_instance('seen', at=10.0),
                helpers.old_instance('unseen', at=10.5)]),
        ], now=100.0)
        cores, _ = manager.table.load.recent(manager.batch())
        self.assertEqual([1.0], cores.tolist())


class TestMemo(base.TestCase):

    def test_reused_until_the_window_ages(self):
        memo = {}
        windows = {'a': {'cpu': {'avg': 10, 'std': 1}, 'window_end': 0}}
        hosts = [('a', 4, 8192)]
        first = load.build(10, hosts, windows, {'a'}, memo=memo)
        again = load.build(300, hosts, windows, {'a'}, memo=memo)
        self.assertIs(first.hosts['a'], again.hosts['a'])
        # 301 s after the window's end it is stale: recomputed
        stale = load.build(301, hosts, windows, {'a'}, memo=memo)
        self.assertFalse(stale.hosts['a'].usable())
        self.assertIsNotNone(stale.fallback)
        # new metrics (another object) or another occupancy: recomputed
        fresh = {'a': {'cpu': {'avg': 20, 'std': 1}, 'window_end': 300}}
        self.assertEqual(20.0, load.build(301, hosts, fresh, {'a'},
                                          memo=memo).hosts['a'].cpu_avg)
        empty = load.build(301, hosts, {}, set(), memo=memo)
        self.assertTrue(empty.hosts['a'].new)

    def test_counted_every_pass_logged_once(self):
        memo = {}
        health = load.MetricsHealth()
        windows = {'a': {'cpu': {'avg': -1, 'std': 1}, 'window_end': 0}}
        for now in (0, 10, 20):
            load.build(now, [('a', 4, 8192)], windows, {'a'}, memo=memo,
                       health=health)
        self.assertEqual(3, health.counts[load.CORRUPT])
