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


"""``decide`` with the load-aware plugins, through the command line."""

import json
import os
import subprocess
import sys

import fixtures

from tests import base
from tests.functional import test_shipped_scenarios as shipped

FLAVORS = {'small': {'vcpus': 1, 'memory_mb': 2048, 'disk_gb': 20},
           'medium': {'vcpus': 2, 'memory_mb': 4096, 'disk_gb': 20}}


def _host(name, metrics, instances=0, vcpus=16):
    host = {'name': name, 'vcpus': vcpus, 'memory_mb': 65536,
            'disk_gb': 1000, 'cpu_allocation_ratio': 1.0,
            'instances': [{'id': '%s-%d' % (name, i), 'flavor': 'small',
                           'runtime_s': 7200, 'placed_s': 7200}
                          for i in range(instances)]}
    if metrics is not None:
        host['metrics'] = metrics
    return host


def _cpu(avg, window_end=-30, std=1.0):
    return {'cpu': {'avg': avg, 'std': std},
            'memory': {'avg': 20.0, 'std': 1.0}, 'window_end': window_end}


class DecideTestCase(base.TestCase):

    def decide(self, hosts, request, config, *extra):
        scenario = {'now': 10000, 'flavors': FLAVORS, 'hosts': hosts,
                    'request': request, 'config': config}
        path = self.useFixture(fixtures.TempDir()).join('scenario.json')
        with open(path, 'w') as stream:
            json.dump(scenario, stream)
        result = subprocess.run(
            [sys.executable, '-m', 'preemptible_sched.cmd.sched', 'decide',
             '--scenario', path] + list(extra), capture_output=True,
            text=True, cwd=shipped.ROOT, timeout=120)
        self.assertNotIn('Traceback', result.stderr)
        return result

    def decide_json(self, hosts, request, config):
        result = self.decide(hosts, request, config)
        self.assertEqual(0, result.returncode, result.stderr)
        return json.loads(result.stdout)


def _raw(output, weigher):
    return {host['name']: host['weights'][weigher]['raw']
            for host in output['hosts'] if host['passed']}


class TestTargetLoadPackingExample(base.TestCase):

    def test_design_example(self):
        rc, out, err = shipped.decide(os.path.join(
            shipped.SCENARIOS, 'target-load-packing.json'))
        self.assertEqual(0, rc, err)
        output = json.loads(out)
        self.assertEqual('host-2', output['selected'][0]['host'])
        self.assertEqual({'host-1': 75.0, 'host-2': 100.0, 'host-3': 25.0},
                         _raw(output, 'target_load_packing'))
        self.assertIsNone(output['load']['fallback'])

    def test_table_shows_the_load(self):
        rc, out, _ = shipped.decide(os.path.join(
            shipped.SCENARIOS, 'target-load-packing.json'),
            '--format', 'table')
        self.assertEqual(0, rc)
        self.assertIn('host-3: ok; cpu avg 75 std 10', out)


class TestBurst(DecideTestCase):

    CONFIG = {'filter_scheduler': {'enabled_filters': ['compute',
                                                       'resources'],
                                   'weighers': ['target_load_packing']},
              'target_load_packing': {'target_utilization': 40}}

    def test_ten_in_one_pass_spread(self):
        # 16-core hosts; each instance predicted at 2 cores = 12.5 %.
        # busy-a is best before the burst (27.5 + 12.5 = 40 = X: 100);
        # once it holds one, 52.5 % scores 31.7 and the idle hosts
        # (10 + 12.5: 73.75) take the next ones.
        hosts = [_host('busy-a', _cpu(27.5), instances=2)] + [
            _host('idle-%s' % name, _cpu(10.0), instances=1)
            for name in 'bcd']
        output = self.decide_json(
            hosts, {'id': 'burst', 'flavor': 'medium', 'num_instances': 10,
                    'expected_vcpus': 2}, self.CONFIG)
        chosen = [s['host'] for s in output['selected']]
        self.assertEqual(10, len(chosen))
        self.assertEqual('busy-a', chosen[0])
        self.assertEqual({'busy-a', 'idle-b', 'idle-c', 'idle-d'},
                         set(chosen))
        self.assertLess(chosen.count('busy-a'), 10)
        self.assertNotIn('busy-a', chosen[1:4])
        # What the hosts showed before the burst: nothing placed since
        # their windows (the instances ran for two hours).
        self.assertEqual({0.0}, {host['recent_vcpus'] for host
                                 in output['load']['hosts'].values()})

    def test_recent_placements_shown(self):
        hosts = [_host('fresh', _cpu(10.0), instances=1)]
        hosts[0]['instances'].append({'id': 'new-vm', 'flavor': 'medium',
                                      'expected_vcpus': 0.5,
                                      'placed_s': 20})
        output = self.decide_json(hosts, {'id': 'r', 'flavor': 'small'},
                                  self.CONFIG)
        # 0.5 x 1.5 = 0.75 core placed 20 s ago, after the window's end
        self.assertEqual(0.75,
                         output['load']['hosts']['fresh']['recent_vcpus'])
        # 10 % + 0.75 / 16 + 1 / 16 = 20.9375 % -> 60 * U / 40 + 40
        self.assertAlmostEqual(40 + 60 * 20.9375 / 40,
                               _raw(output, 'target_load_packing')['fresh'])


class TestBadMetrics(DecideTestCase):

    CONFIG = {'filter_scheduler': {'enabled_filters': ['compute',
                                                       'resources'],
                                   'weighers': ['target_load_packing']},
              'target_load_packing': {'target_utilization': 50}}
    REQUEST = {'id': 'r', 'flavor': 'medium', 'expected_vcpus': 0}

    def test_each_case_scores_as_documented(self):
        hosts = [
            _host('ok', _cpu(25.0), instances=1),
            _host('missing', None, instances=1),
            _host('new', None),
            _host('stale', _cpu(25.0, window_end=-301), instances=1),
            _host('negative', _cpu(-3.0), instances=1),
            _host('absurd', _cpu(1e12), instances=1),
            _host('text', {'cpu': {'avg': 'high', 'std': 1},
                           'window_end': -30}, instances=1),
            _host('clipped', _cpu(102.0), instances=1),
            _host('energy', dict(_cpu(50.0), energy={'avg': -1e9}),
                  instances=1),
        ]
        output = self.decide_json(hosts, self.REQUEST, self.CONFIG)
        self.assertEqual('placed', output['result'])
        self.assertEqual({'ok': 75.0, 'missing': 0.0, 'new': 50.0,
                          'stale': 0.0, 'negative': 0.0, 'absurd': 0.0,
                          'text': 0.0, 'clipped': 0.0, 'energy': 100.0},
                         _raw(output, 'target_load_packing'))
        self.assertEqual('energy', output['selected'][0]['host'])
        load = output['load']
        self.assertIsNone(load['fallback'])
        problems = {name: ' '.join(host['problems'])
                    for name, host in load['hosts'].items()}
        self.assertIn('no metrics for this host', problems['missing'])
        self.assertEqual('', problems['new'])
        self.assertEqual('new', load['hosts']['new']['status'])
        self.assertIn('window ended 301 s ago', problems['stale'])
        self.assertIn('cpu avg = -3.0, ignored', problems['negative'])
        self.assertIn('absurd', problems['absurd'])
        self.assertIn('not a number', problems['text'])
        self.assertIn('clipped to 100', problems['clipped'])
        self.assertEqual(100.0, load['hosts']['clipped']['cpu']['avg'])
        self.assertEqual('', problems['energy'])

    def test_stale_source_falls_back_to_best_fit(self):
        hosts = [_host('roomy', _cpu(5.0, window_end=-900), instances=2),
                 _host('full', _cpu(90.0, window_end=-900), instances=13)]
        output = self.decide_json(hosts, self.REQUEST, self.CONFIG)
        self.assertTrue(output['load']['fallback'].startswith(
            'no fresh metrics'))
        # best fit: (13 + 2) / 16 beats (2 + 2) / 16.
        self.assertEqual({'roomy': 25.0, 'full': 93.75},
                         _raw(output, 'target_load_packing'))
        self.assertEqual('full', output['selected'][0]['host'])

    def test_no_metrics_at_all_but_empty_hosts_is_not_a_fallback(self):
        hosts = [_host('a', None), _host('b', None)]
        output = self.decide_json(hosts, self.REQUEST, self.CONFIG)
        self.assertIsNone(output['load']['fallback'])
        self.assertEqual({'a': 50.0, 'b': 50.0},
                         _raw(output, 'target_load_packing'))
