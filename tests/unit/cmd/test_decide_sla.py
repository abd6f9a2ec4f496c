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

"""``decide`` explains SLA requests: the queue, the sizing, the copies."""

import json
import os

from tests.unit.cmd import test_decide

SIZING = os.path.join(os.path.dirname(test_decide.SCENARIO),
                      'sla-sizing.json')

CONFIG = {'filter_scheduler': {
    'enabled_filters': ['compute', 'resources', 'reputation',
                        'anti_affinity'],
    'weighers': ['cpu'], 'cpu_weight_multiplier': -1.0}}


def levels(satisfaction, reputation, resources, replicas):
    return {'satisfaction_time': satisfaction, 'reputation': reputation,
            'resources': resources, 'replicas': replicas}


def high(name, vcpus=32):
    return {'name': name, 'vcpus': vcpus, 'memory_mb': 65536,
            'attributes': {'reputation': 'high'}}


class TestDecideSLA(test_decide.DecideTestCase):

    def explain(self, data, expect=0):
        code, out, err = self.decide(data)
        self.assertEqual(expect, code, err)
        return json.loads(out)

    def test_published_sizing_example(self):
        with open(SIZING) as stream:
            result = self.explain(json.load(stream))
        self.assertEqual(['c1', 'c2', 'c3'],
                         [entry['id'] for entry in result['sla']['queue']])
        self.assertEqual({'category': 'high', 'N': 9, 'band': [7, 9],
                          'wc': 21, 'sum_p': 6, 'p': 3, 'raw_r': 10,
                          'r': 9}, result['sla']['sizing'])
        self.assertEqual([{'copy': 0, 'candidates': ['high-1']}],
                         result['sla']['copies'])
        self.assertEqual([('c1', 'high-1')], [
            (s['instance'], s['host']) for s in result['selected']])

    def test_promethee_flows_of_the_published_example(self):
        data = {'hosts': [high('h1'), high('h2'), high('h3')],
                'request': {'id': 'a', 'vcpus': 2, 'memory_mb': 512,
                            'sla': levels('premium', 'best_effort',
                                          'advanced', 'best_effort')},
                'queue': [
                    {'id': 'b', 'vcpus': 2, 'memory_mb': 512,
                     'sla': levels('advanced', 'advanced', 'advanced',
                                   'advanced')},
                    {'id': 'c', 'vcpus': 2, 'memory_mb': 512,
                     'sla': levels('best_effort', 'premium', 'best_effort',
                                   'premium')}],
                'config': CONFIG}
        queue = self.explain(data, expect=1)['sla']['queue']
        self.assertEqual([('b', 0.125), ('c', 0.0), ('a', -0.125)],
                         [(e['id'], round(e['phi'], 12)) for e in queue])
        self.assertEqual((0.375, 0.5), (queue[2]['phi_plus'],
                                        queue[2]['phi_minus']))

    def test_copies_and_why_a_request_waits(self):
        # Three copies of 22+ cores, two high hosts: copy 3 has no host.
        data = {'hosts': [high('h1'), high('h2'),
                          dict(high('l1'), attributes={'reputation': 'low'})],
                'request': {'id': 'p', 'memory_mb': 512, 'sequential_s': 300,
                            'sla': levels('premium', 'premium', 'premium',
                                          'premium')},
                'config': CONFIG}
        result = self.explain(data, expect=1)
        self.assertEqual('no_valid_host', result['result'])
        explained = result['sla']
        self.assertEqual(32, explained['sizing']['r'])
        first, second, third = [entry['candidates']
                                for entry in explained['copies']]
        # The second copy may go only where the first did not.
        self.assertEqual((['h1', 'h2'], 1, []), (first, len(second), third))
        self.assertIn('copy 3 of 3: no host of category high can take 32 '
                      'cores', explained['skipped'])

    def test_table(self):
        code, out, err = self.run_cli('decide', '--scenario', SIZING,
                                      '--format', 'table')
        self.assertEqual(0, code, err)
        self.assertIn('Request c1: normal, 9 vCPU', out)
        self.assertIn('Sizing: N 9, band [7, 9], wc 21, sum p 6, p 3: raw '
                      'r 10, r 9', out)
        self.assertIn('c1                   phi+ 0.2500  phi- 0.0000  phi '
                      '+0.2500', out)

    def test_bad_level(self):
        with open(SIZING) as stream:
            data = json.load(stream)
        data['queue'][0]['sla']['resources'] = 'gold'
        self.assertBadInput(self.decide(data), 'queue[0].sla.resources',
                            "'gold' is not one of")

    def test_request_without_sla_has_no_explanation(self):
        self.assertNotIn('sla', json.loads(
            self.run_cli('decide', '--scenario', test_decide.SCENARIO)[1]))
