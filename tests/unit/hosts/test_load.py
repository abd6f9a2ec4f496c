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

from preemptible_sched.hosts import load
from preemptible_sched.hosts import load_metrics
from tests import base
from tests import load_helpers as helpers


class TestPredictedCores(base.TestCase):

    def test_capped_by_vcpus(self):
        self.assertEqual(2.0, load.predicted_cores(2, 5, 1.5))
        self.assertEqual(1.5, load.predicted_cores(2, 1, 1.5))
        self.assertEqual(2.0, load.predicted_cores(2, None, 1.5))
        self.assertEqual(0.0, load.predicted_cores(2, 0, 1.5))


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
        self.assertEqual(4, health.counts[load_metrics.CORRUPT])

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
        snapshot = manager.snapshot
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
        cores, _ = manager.snapshot.recent(manager.batch())
        self.assertEqual([3.0], cores.tolist())

    def test_margin_before_window_end(self):
        # window ended at 70 (now 100): placed after 10 is not visible.
        manager = helpers.loaded_manager([
            ('h', 4, 8192, helpers.cpu(0.0), [
                helpers.old_instance('seen', at=10.0),
                helpers.old_instance('unseen', at=10.5)]),
        ], now=100.0)
        cores, _ = manager.snapshot.recent(manager.batch())
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
        self.assertEqual(3, health.counts[load_metrics.CORRUPT])
