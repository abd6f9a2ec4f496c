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

"""The benchmarks of the real cloud (``benchmarks/nova_boots.py``,
``benchmarks/nova_real_latency.py``), one tiny round each on the test
cloud: the shape of their JSON and what must hold whatever the times (no
victim named twice, one victim per preemption, no host over capacity).
Nothing here asserts on a time.
"""

import json

from benchmarks import nova_boots
from benchmarks import nova_real_latency
from tests.nova_real import base


class TestBenchmarks(base.NovaRealTestCase):

    #: The benchmarks start their own (timed) schedulers.
    SCHEDULER = None

    def test_too_small_a_cloud_is_refused(self):
        for module in (nova_boots, nova_real_latency):
            error = self.assertRaises(SystemExit, module.main,
                                      ['--cloud', self.cloud.dir])
            self.assertEqual(2, error.code, module.__name__)

    def test_boots(self):
        result = nova_boots.run(self.cloud, modes=('stock', 'one_pass'),
                                schedulers=(1,), rounds=1, boots=2,
                                min_computes=len(self.cloud.hosts))
        json.dumps(result)
        self.assertEqual({'machine', 'config', 'rounds', 'results',
                          'targets', 'fill_faults', 'aborted'},
                         set(result))
        self.assertIsNone(result['aborted'])
        results = result['results']
        self.assertEqual({'stock/1/room_free', 'one_pass/1/room_free',
                          'one_pass/1/saturated'}, set(results))
        for key, entry in results.items():
            self.assertEqual(1, entry['rounds'], key)
            self.assertGreater(entry['boots_per_s']['median'], 0, key)
            self.assertEqual(0, entry['errors'], key)
            self.assertEqual(0, entry['over_capacity'], key)
        self.assertEqual(1.0, results['stock/1/room_free']['ratio_to_stock'])
        self.assertIsNotNone(
            results['one_pass/1/room_free']['ratio_to_stock'])
        victims = results['one_pass/1/saturated']['victims']
        self.assertEqual(0, victims['victims_named_twice'])
        self.assertEqual(2, victims['decisions'])
        self.assertEqual({'1': 2}, victims['victims_per_decision'])
        self.assertEqual(2, victims['gone_per_nova'])
        self.assertEqual(0, victims['gone_not_named'])
        self.assertEqual(0, victims['deleted_more_than_once'])
        targets = result['targets']
        self.assertIs(True, targets['saturated_no_victim_named_twice'])
        self.assertIs(True, targets['no_host_over_capacity'])
        self.assertIn('one_pass/1/room_free',
                      targets['room_free_within_10pct_of_stock'])
        for row in result['rounds']:
            calls = row['select_destinations']
            self.assertEqual(2, calls['calls'], row['case'])
            self.assertEqual(0, calls['failed'], row['case'])
            self.assertIn('machine_busy_cpu_s', row['cpu'])

    def test_latency(self):
        result = nova_real_latency.run(self.cloud, modes=('one_pass',),
                                       rounds=1, requests=1,
                                       min_computes=len(self.cloud.hosts))
        json.dumps(result)
        self.assertEqual({'machine', 'config', 'samples', 'results',
                          'ratios', 'checks', 'fill_faults', 'aborted'},
                         set(result))
        self.assertIsNone(result['aborted'])
        results = result['results']
        self.assertEqual({'one_pass/room_free', 'one_pass/one_preemption'},
                         set(results))
        for key, entry in results.items():
            self.assertEqual(1, entry['requests'], key)
            self.assertEqual(1, entry['active'], key)
            self.assertEqual([1], entry['select_calls_per_request'], key)
            for metric in nova_real_latency.METRICS:
                self.assertEqual(1, entry[metric]['n'], (key, metric))
            self.assertLessEqual(entry['to_host_ms']['median'],
                                 entry['to_active_ms']['median'], key)
        checks = result['checks']
        self.assertIs(True, checks['every_request_active'])
        self.assertIs(True, checks['one_victim_per_preemption'])
        self.assertEqual(0, checks['victims_named_twice'])
        self.assertEqual([], checks['hosts_over_capacity'])
        self.assertEqual(1, results['one_pass/one_preemption'][
            'one_victim_on_its_host'])
        self.assertEqual({'kind': 'one_pass', 'count': 1, 'timed': True},
                         self.cloud.state['schedulers'])
