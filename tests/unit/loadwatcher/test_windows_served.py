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


"""Serve what is computed (issue 29 item 3): the 5 and 10 minute windows,
the 15 -> 10 -> 5 m fallback, and a source of latest values only.
"""

import json
import math

import webob

from preemptible_sched.hosts import load
from preemptible_sched.hosts import load_metrics
from preemptible_sched import loadwatcher
from preemptible_sched.loadwatcher import api
from preemptible_sched.loadwatcher import payload as payload_mod
from preemptible_sched.loadwatcher import store as store_mod
from preemptible_sched.loadwatcher import watcher as watcher_mod
from tests import base
from tests.unit.loadwatcher import test_watcher


def _one_per_minute(now):
    """CPU t / 60 % (0, 1, ..., 15 over 15 minutes), memory 50 %."""
    return {'host-a': (now / 60.0, 50.0)}


class TestWindowsServed(base.TestCase):

    def setUp(self):
        super().setUp()
        self.watcher = watcher_mod.LoadWatcher(
            test_watcher.ScriptedSource(_one_per_minute), None, 60, 60)
        for minute in range(16):
            self.watcher.tick(60.0 * minute)

    def get(self, query):
        request = webob.Request.blank('/watcher?' + query)
        response = request.get_response(api.WatcherApp(self.watcher))
        return response.status_code, response.body

    def _cpu(self, query):
        status, body = self.get(query)
        self.assertEqual(200, status, body)
        body = json.loads(body)
        metrics = body['data']['NodeMetricsMap']['host-a']['metrics']
        values = {metric['operator']: metric['value'] for metric in metrics
                  if metric['type'] == 'CPU'}
        rollups = {metric['rollup'] for metric in metrics}
        return body['window'], rollups, values

    def test_each_window_on_its_own_query(self):
        # At 900 s the samples are 0, 1, ..., 15 % at 0, 60, ..., 900 s.
        # 5m [600, 900]: 10..15, mean 12.5, variance 17.5 / 6.
        window, rollups, cpu = self._cpu('window=5m')
        self.assertEqual({'duration': '5m', 'start': 600, 'end': 900},
                         window)
        self.assertEqual({'5m'}, rollups)
        self.assertEqual(12.5, cpu['AVG'])
        self.assertAlmostEqual(math.sqrt(17.5 / 6), cpu['STD'])
        self.assertEqual(15.0, cpu['Latest'])
        # 10m [300, 900]: 5..15, mean 10, variance (11^2 - 1) / 12 = 10.
        window, rollups, cpu = self._cpu('window=10m')
        self.assertEqual({'duration': '10m', 'start': 300, 'end': 900},
                         window)
        self.assertEqual((10.0, {'10m'}), (cpu['AVG'], rollups))
        self.assertAlmostEqual(math.sqrt(10.0), cpu['STD'])
        # 15m, the default: 0..15, mean 7.5, variance (16^2 - 1) / 12.
        for query in ('', 'window=15m', 'host=host-a'):
            window, rollups, cpu = self._cpu(query)
            self.assertEqual('15m', window['duration'])
            self.assertEqual((7.5, {'15m'}), (cpu['AVG'], rollups))
            self.assertAlmostEqual(math.sqrt(21.25), cpu['STD'])

    def test_a_bad_window_is_a_one_line_400(self):
        self.assertEqual(
            (400, b"bad request: window must be one of 5m, 10m, 15m, got "
             b"'2m'\n"), self.get('window=2m'))

    def test_latest_of_each_window(self):
        self.assertEqual({'avg': 12.5, 'std': math.sqrt(17.5 / 6)},
                         self.watcher.latest('5m')['host-a']['cpu'])
        self.assertEqual(7.5, self.watcher.latest()['host-a']['cpu']['avg'])


class TestFallback(base.TestCase):
    """A host whose 15-minute window is empty is read on its 10-minute
    one, else on its 5-minute one.
    """

    WINDOWS = {
        'full': {'15m': {'cpu': (30.0, 3.0, 31.0)},
                 '10m': {'cpu': (20.0, 2.0, 31.0)},
                 '5m': {'cpu': (10.0, 1.0, 31.0)}},
        'ten': {'10m': {'cpu': (20.0, 2.0, 21.0)},
                '5m': {'cpu': (10.0, 1.0, 21.0)}},
        'five': {'5m': {'cpu': (10.0, 1.0, 11.0)}},
    }

    def test_fallback_order(self):
        self.assertEqual(['15m', '10m', '5m'], loadwatcher.fallbacks('15m'))
        self.assertEqual(['10m', '5m'], loadwatcher.fallbacks('10m'))
        self.assertEqual(['5m'], loadwatcher.fallbacks('5m'))

    def test_payload_says_which_window_each_host_has(self):
        body = payload_mod.build(900, '15m', '15m', 0, 900, 'x',
                                 self.WINDOWS)
        nodes = body['data']['NodeMetricsMap']
        served = {host: {(m['rollup'], m['operator']): m['value']
                         for m in node['metrics']}
                  for host, node in nodes.items()}
        self.assertEqual(30.0, served['full'][('15m', 'AVG')])
        self.assertEqual(20.0, served['ten'][('10m', 'AVG')])
        self.assertEqual(10.0, served['five'][('5m', 'AVG')])
        # Asked for 10 m, the 15-minute window is not read.
        body = payload_mod.build(900, '10m', '10m', 300, 900, 'x',
                                 self.WINDOWS)
        self.assertEqual(20.0, body['data']['NodeMetricsMap']['full'][
            'metrics'][1]['value'])

    def test_a_restored_watcher_reads_the_shorter_windows(self):
        store = store_mod.WatcherStore(':memory:')
        self.addCleanup(store.close)
        store.save_windows(900.0, self.WINDOWS,
                           {'full': 900.0, 'ten': 900.0, 'five': 900.0})
        watcher = watcher_mod.LoadWatcher(
            test_watcher.ScriptedSource(dict), store)
        latest = watcher.latest()
        self.assertEqual({'full': 30.0, 'ten': 20.0, 'five': 10.0},
                         {host: metrics['cpu']['avg']
                          for host, metrics in latest.items()})
        self.assertIsNotNone(watcher.payload(host='five'))


class TestLatestOnlySource(base.TestCase):
    """What the released load watcher serves from metrics-server: one
    ``Latest`` per resource, no name, no rollup, no ``STD``.
    """

    PAYLOAD = {
        'timestamp': 1700000900,
        'window': {'duration': '15m', 'start': 1700000000,
                   'end': 1700000900},
        'source': 'KubernetesMetricsServer',
        'data': {'NodeMetricsMap': {
            node: {'metrics': [
                {'name': '', 'type': 'CPU', 'operator': 'Latest',
                 'rollup': '', 'value': cpu},
                {'name': '', 'type': 'Memory', 'operator': 'Latest',
                 'rollup': '', 'value': memory}],
                'tags': {}, 'metadata': {'dataCenter': ''}}
            for node, cpu, memory in (('node-1', 37.5, 61.25),
                                      ('node-2', 80.0, 20.0))}}}

    def test_a_legitimate_source_not_bad_metrics(self):
        health = load.MetricsHealth()
        windows = payload_mod.parse(self.PAYLOAD)
        with self.assertNoLogs('preemptible_sched.hosts.load', 'WARNING'):
            snapshot = load.build(
                1700000930.0, [('node-1', 4, 8192), ('node-2', 4, 8192)],
                windows, {'node-1', 'node-2'}, health=health)
        node = snapshot.hosts['node-1']
        self.assertEqual((37.5, 0.0, 61.25, 0.0),
                         (node.cpu_avg, node.cpu_std, node.memory_avg,
                          node.memory_std))
        self.assertEqual([], node.problems)
        self.assertEqual(80.0, snapshot.hosts['node-2'].cpu_avg)
        # Before: "cpu std missing" and "memory std missing" on every
        # host of every pass.
        self.assertEqual({}, dict(health.counts))

    def test_a_corrupt_deviation_is_still_one(self):
        health = load.MetricsHealth()
        windows = {'h': {'window_end': 0.0,
                         'cpu': {'avg': 40.0, 'std': float('nan')},
                         'memory': {'avg': 10.0}}}
        snapshot = load.build(0.0, [('h', 4, 8192)], windows, {'h'},
                              health=health)
        self.assertEqual(0.0, snapshot.hosts['h'].cpu_std)
        self.assertEqual({load_metrics.CORRUPT: 1}, dict(health.counts))
