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


"""The watcher: when it collects and recomputes, failures, warm restart."""

import fixtures

from preemptible_sched import clock as clock_mod
from preemptible_sched.hosts import load_reading
from preemptible_sched.loadwatcher import load_sources as sources
from preemptible_sched.loadwatcher import store as store_mod
from preemptible_sched.loadwatcher import watcher as watcher_mod
from tests import base
from tests import load_helpers as helpers


class ScriptedSource(sources.MetricsSource):
    """Answers ``values(now)``; raises SourceError while ``down``."""

    name = 'scripted'

    def __init__(self, values):
        self.values = values
        self.down = False
        self.calls = []

    def collect(self, now):
        self.calls.append(now)
        if self.down:
            raise sources.SourceError('connection refused')
        return self.values(now)


def _ramp(now):
    return helpers.ramp(now + helpers.T0)


class TestLoadWatcher(base.TestCase):

    def _watcher(self, store=None, values=_ramp, scrape=60, refresh=60):
        source = ScriptedSource(values)
        return source, watcher_mod.LoadWatcher(source, store, scrape,
                                               refresh)

    def test_scrape_and_refresh_intervals_on_a_virtual_clock(self):
        clock = clock_mod.VirtualClock()
        source, watcher = self._watcher(scrape=30, refresh=120)
        watcher.start(clock)
        clock.run(until=600)
        self.assertEqual([30.0 * i for i in range(21)], source.calls)
        # refreshed at 0, 120, ..., 600: the last window is at 600.
        self.assertEqual(600.0, watcher.computed_at)
        # 15m window at 600 holds every sample 0..600: cpu 0..10 by 0.5.
        avg, _, latest = watcher.windows['host-a']['15m']['cpu']
        self.assertAlmostEqual(5.0, avg)
        self.assertEqual(10.0, latest)
        watcher.stop()
        clock.run(until=1200)
        self.assertEqual(21, len(source.calls))

    def test_windows_lag_until_the_next_refresh(self):
        source, watcher = self._watcher()
        watcher.tick(0.0)
        watcher.tick(60.0)
        self.assertEqual(60.0, watcher.computed_at)
        watcher.scrape(90.0)     # collected, not yet in a window
        self.assertEqual(0.5, watcher.windows['host-a']['15m']['cpu'][0])
        watcher.tick(120.0)     # refreshed; no scrape (30 s since 90)
        # samples at 0, 60, 90: cpu 0, 1, 1.5
        self.assertAlmostEqual(2.5 / 3,
                               watcher.windows['host-a']['15m']['cpu'][0])

    def test_source_failure_keeps_windows_and_is_unhealthy(self):
        source, watcher = self._watcher()
        watcher.tick(0.0)
        source.down = True
        with self.assertLogs('preemptible_sched.loadwatcher.watcher',
                             'WARNING') as logs:
            self.assertFalse(watcher.scrape(60.0))
            self.assertFalse(watcher.scrape(120.0))
        self.assertEqual(1, len(logs.records))
        self.assertFalse(watcher.healthy())
        self.assertEqual('connection refused', watcher.source_error)
        self.assertIn('host-a', watcher.latest())
        source.down = False
        self.assertTrue(watcher.scrape(180.0))
        self.assertTrue(watcher.healthy())

    def test_latest_is_a_reading_as_arrays(self):
        source, watcher = self._watcher()
        watcher.tick(0.0)
        latest = watcher.latest()
        self.assertIsInstance(latest, load_reading.Reading)
        self.assertEqual(sorted(watcher.windows), sorted(latest.names))
        self.assertEqual({}, latest.others)
        row = latest.names.index('host-a')
        avg, std, _ = watcher.windows['host-a']['15m']['cpu']
        self.assertEqual([avg, std], latest.values[row, :2].tolist())
        self.assertEqual({'avg': avg, 'std': std}, latest['host-a']['cpu'])
        self.assertEqual(0.0, latest['host-a']['window_end'])
        self.assertIs(latest, watcher.latest())
        # The next refresh: new values, the same names object.
        watcher.tick(60.0)
        again = watcher.latest()
        self.assertIsNot(latest, again)
        self.assertIs(latest.names, again.names)
        self.assertEqual(60.0, again['host-a']['window_end'])

    def test_hosts_without_both_resources_are_mappings(self):
        source, watcher = self._watcher(
            values=lambda now: {'a': (10.0, 20.0), 'b': (10.0, None)})
        watcher.tick(0.0)
        latest = watcher.latest()
        self.assertEqual(['a'], latest.names)
        self.assertEqual({'b': {'window_end': 0.0,
                                'cpu': {'avg': 10.0, 'std': 0.0}}},
                         latest.others)

    def test_health_says_failing_never_collected_or_stale(self):
        source, watcher = self._watcher(scrape=60)
        self.assertEqual((False, 'no collection yet'), watcher.health(0.0))
        watcher.tick(0.0)
        self.assertEqual((True, 'ok'), watcher.health(180.0))
        # Three scrape intervals without a collection: stale, though
        # nothing failed (a collection hung, or the clock stopped).
        self.assertEqual(
            (False, 'collection stale: the last one succeeded 181 s ago '
             '(more than 180 s)'), watcher.health(181.0))
        source.down = True
        watcher.scrape(200.0)
        self.assertEqual((False, 'source failing: connection refused'),
                         watcher.health(200.0))

    def test_health_on_the_clock_it_runs_on(self):
        clock = clock_mod.VirtualClock(1000.0)
        source, watcher = self._watcher(scrape=10, refresh=10)
        watcher.start(clock)
        self.assertEqual((True, 'ok'), watcher.health())
        watcher.stop()
        clock.run(until=1031.0)
        self.assertFalse(watcher.health()[0])

    def test_a_source_bug_is_a_failed_collection_not_a_crash(self):
        def broken(now):
            raise TypeError("unhashable type: 'list'")
        _, watcher = self._watcher(values=broken)
        with self.assertLogs('preemptible_sched.loadwatcher.watcher',
                             'WARNING') as logs:
            self.assertFalse(watcher.scrape(0.0))
        self.assertEqual(["Load source scripted failed: TypeError: "
                          "unhashable type: 'list'"],
                         [record.getMessage() for record in logs.records])
        self.assertFalse(watcher.health(0.0)[0])

    def test_a_collection_ending_after_stop_is_dropped(self):
        store = store_mod.WatcherStore(':memory:')
        _, watcher = self._watcher(store)
        watcher.tick(0.0)
        watcher.stop()
        store.close()       # what the command does once stopped
        self.assertFalse(watcher.scrape(60.0))
        watcher.refresh(60.0)
        self.assertEqual(0.0, watcher.computed_at)

    def test_unusable_values_dropped(self):
        values = {'ok': (10.0, 10.0), 'nan': (float('nan'), 5.0),
                  'negative': (-1.0, None), 'absurd': (5000.0, 'x'),
                  'none': (None, None)}
        _, watcher = self._watcher(values=lambda now: values)
        watcher.tick(0.0)
        self.assertEqual({'ok', 'nan'}, set(watcher.windows))
        self.assertEqual({'memory'}, set(watcher.windows['nan']['15m']))

    def test_payload_and_latest(self):
        _, watcher = self._watcher()
        self.assertIsNone(watcher.payload())
        watcher.tick(0.0)
        watcher.tick(60.0)
        body = watcher.payload()
        self.assertEqual({'duration': '15m', 'start': -840, 'end': 60},
                         body['window'])
        self.assertEqual(['host-a', 'host-b'],
                         sorted(body['data']['NodeMetricsMap']))
        one = watcher.payload(host='host-b')
        self.assertEqual(['host-b'], list(one['data']['NodeMetricsMap']))
        self.assertIsNone(watcher.payload(host='nope'))
        self.assertEqual({'window_end': 60.0,
                          'cpu': {'avg': 50.0, 'std': 0.0},
                          'memory': {'avg': 20.0, 'std': 0.0}},
                         watcher.latest()['host-b'])

    def test_warm_restart_answers_with_the_same_windows(self):
        path = self.useFixture(fixtures.TempDir()).join(
            'watcher.sqlite')
        store = store_mod.WatcherStore(path)
        _, watcher = self._watcher(store)
        for minute in range(5):
            watcher.tick(minute * 60.0)
        before = watcher.payload()
        store.close()
        store = store_mod.WatcherStore(path)
        source, restarted = self._watcher(store)
        self.assertEqual(before, restarted.payload())
        # It goes on from the kept samples: the next refresh sees them.
        restarted.tick(300.0)
        self.assertEqual(2.5, restarted.windows['host-a']['15m']['cpu'][0])
        store.close()


class TestStore(base.TestCase):

    def test_samples_pruned_and_windows_replaced(self):
        store = store_mod.WatcherStore(':memory:')
        store.add_samples(0.0, {'a': (1.0, 2.0)}, keep_after=-900)
        store.add_samples(1000.0, {'a': (3.0, None)}, keep_after=100)
        self.assertEqual([('a', 1000.0, 3.0, None)], store.samples())
        self.assertEqual((None, {}), store.windows())
        store.save_windows(60.0, {'a': {'15m': {'cpu': (1, 2, 3)}}})
        store.save_windows(120.0, {'b': {'5m': {'memory': (4, 5, 6)}}})
        self.assertEqual((120.0, {'b': {'5m': {'memory': (4, 5, 6)}}}),
                         store.windows())
