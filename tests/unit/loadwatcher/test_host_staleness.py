# Copyright 2026 The preemptible_sched developers
#
#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS,
#    WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
#    See the License for the specific language governing permissions and
#    limitations under the License.


"""A host whose agent goes silent goes stale on its own (issue 29 item 2).

Before: the in-process watcher stamped every host's window with the time
of the refresh, so a host silent since t = 0 kept its 80 % in the
15-minute window, fresh, until t = 900 s, without a word.
"""

import fixtures

from preemptible_sched.hosts import load
from preemptible_sched.hosts import load_metrics
from preemptible_sched.loadwatcher import store as store_mod
from preemptible_sched.loadwatcher import watcher as watcher_mod
from tests import base
from tests.unit.loadwatcher import test_watcher

HOSTS = [('host-a', 4, 8192), ('host-b', 4, 8192)]
BUSY = {'host-a', 'host-b'}


def _silent_after_zero(now):
    """host-a reports every time; host-b only at t = 0 (then its node
    agent stops).
    """
    values = {'host-a': (30.0, 20.0)}
    if now == 0.0:
        values['host-b'] = (80.0, 50.0)
    return values


class TestSilentHost(base.TestCase):

    def setUp(self):
        super().setUp()
        self.source = test_watcher.ScriptedSource(_silent_after_zero)
        self.watcher = watcher_mod.LoadWatcher(self.source, None, 60, 60)
        self.health = load.MetricsHealth()

    def _pass(self, now):
        return load.build(now, HOSTS, self.watcher.latest(), BUSY,
                          health=self.health)

    def test_each_host_carries_its_newest_sample(self):
        for minute in range(15):
            self.watcher.tick(60.0 * minute)
        latest = self.watcher.latest()
        # Refreshed at 840: host-a sampled at 840, host-b last at 0 (its
        # sample still lies in the 15-minute window [-60, 840]).
        self.assertEqual(840.0, latest['host-a']['window_end'])
        self.assertEqual(0.0, latest['host-b']['window_end'])
        self.assertEqual({'avg': 80.0, 'std': 0.0}, latest['host-b']['cpu'])
        self.assertEqual({'host-a': 840.0, 'host-b': 0.0},
                         self.watcher.sampled_at)

    def test_flagged_within_one_staleness_period(self):
        with self.assertLogs('preemptible_sched.hosts.load',
                             'WARNING') as logs:
            for minute in range(15):
                now = 60.0 * minute
                self.watcher.tick(now)
                snapshot = self._pass(now)
                a, b = snapshot.hosts['host-a'], snapshot.hosts['host-b']
                # host-a keeps its score on 30 % whatever host-b does.
                self.assertEqual((30.0, 20.0), (a.cpu_avg, a.memory_avg))
                self.assertEqual([], a.problems)
                # host-b: 80 % until its sample is 300 s old (300 - 0 is
                # not more than 300), stale from the pass at 360.
                self.assertEqual(now <= 300.0, b.usable(), now)
            # The pass at 840 (the issue's): stale, not 80 %.
            self.assertEqual(
                [(load_metrics.STALE, 'window ended 840 s ago (more than '
                  '300 s)')], b.problems)
            self.assertIsNone(snapshot.fallback)
        # One line when host-b went stale, not one per pass; every pass
        # from 360 to 840 (9 of them) counted.
        self.assertEqual(
            ['Load metrics of host host-b: window ended 360 s ago (more '
             'than 300 s)'],
            [record.getMessage() for record in logs.records])
        self.assertEqual(9, self.health.counts[load_metrics.STALE])

    def test_stale_from_the_first_moment_past_the_period(self):
        for minute in range(6):
            self.watcher.tick(60.0 * minute)
        # No refresh between 300 and 300.5: host-b ages all the same.
        self.assertTrue(self._pass(300.0).hosts['host-b'].usable())
        self.assertFalse(self._pass(300.5).hosts['host-b'].usable())

    def test_back_when_it_reports_again(self):
        for minute in range(8):
            self.watcher.tick(60.0 * minute)
        self.assertFalse(self._pass(420.0).hosts['host-b'].usable())
        self.source.values = lambda now: {'host-a': (30.0, 20.0),
                                          'host-b': (60.0, 50.0)}
        self.watcher.tick(480.0)
        b = self._pass(480.0).hosts['host-b']
        # Its 15-minute window [-420, 480] holds 80 (t = 0) and 60.
        self.assertEqual((70.0, 10.0), (b.cpu_avg, b.cpu_std))
        self.assertEqual(480.0, b.window_end)

    def test_the_payload_leaves_a_stale_host_out(self):
        # Readers of the released format cannot see a host's own time:
        # the host is left out, which they read as missing.
        for minute in range(6):
            self.watcher.tick(60.0 * minute)
        self.assertEqual({'host-a', 'host-b'}, set(
            self.watcher.payload()['data']['NodeMetricsMap']))
        self.watcher.tick(360.0)
        self.assertEqual({'host-a'}, set(
            self.watcher.payload()['data']['NodeMetricsMap']))
        self.assertIsNone(self.watcher.payload(host='host-b'))
        self.assertIsNotNone(self.watcher.payload(host='host-a'))

    def test_a_restarted_watcher_keeps_each_hosts_time(self):
        path = self.useFixture(fixtures.TempDir()).join('w.sqlite')
        store = store_mod.WatcherStore(path)
        watcher = watcher_mod.LoadWatcher(self.source, store, 60, 60)
        for minute in range(5):
            watcher.tick(60.0 * minute)
        store.close()
        store = store_mod.WatcherStore(path)
        self.addCleanup(store.close)
        restarted = watcher_mod.LoadWatcher(self.source, store, 60, 60)
        self.assertEqual({'host-a': 240.0, 'host-b': 0.0},
                         restarted.sampled_at)
        self.assertEqual(0.0, restarted.latest()['host-b']['window_end'])
