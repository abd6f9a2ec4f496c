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


"""The wire format: our payload, and the released watcher's."""

import json
import os

from preemptible_sched.loadwatcher import payload
from tests import base

HERE = os.path.dirname(__file__)


def _golden():
    with open(os.path.join(HERE, 'released_payload.json')) as stream:
        return json.load(stream)


def _ours():
    windows = {'node-a': {'15m': {'cpu': (31.5, 4.25, 30.0),
                                  'memory': (60.0, 1.0, 61.0)}},
               'node-b': {'15m': {'cpu': (5.0, 0.5, 5.5)}}}
    return payload.build(1700000900, '15m', '15m', 1700000000, 1700000900,
                         'fake', windows)


class TestPayload(base.TestCase):

    def test_ours_is_schema_valid(self):
        payload.validator().validate(_ours())

    def test_ours_carries_every_field_the_client_reads(self):
        # What the Trimaran plugins read: timestamp, window (duration,
        # start, end), source, data.NodeMetricsMap.<host>.metrics[] with
        # type (CPU | Memory), operator (AVG | STD | Latest), value; tags
        # and metadata per host.
        ours = _ours()
        self.assertEqual({'timestamp', 'window', 'source', 'data'},
                         set(ours))
        self.assertIsInstance(ours['timestamp'], int)
        self.assertEqual({'duration': '15m', 'start': 1700000000,
                          'end': 1700000900}, ours['window'])
        node = ours['data']['NodeMetricsMap']['node-a']
        self.assertEqual({'metrics', 'tags', 'metadata'}, set(node))
        self.assertEqual({'dataCenter': ''}, node['metadata'])
        for metric in node['metrics']:
            self.assertEqual({'name', 'type', 'operator', 'rollup',
                              'value'}, set(metric))
            self.assertIsInstance(metric['value'], float)
        self.assertEqual(
            {('CPU', 'AVG'): 31.5, ('CPU', 'STD'): 4.25,
             ('CPU', 'Latest'): 30.0, ('Memory', 'AVG'): 60.0,
             ('Memory', 'STD'): 1.0, ('Memory', 'Latest'): 61.0},
            {(m['type'], m['operator']): m['value']
             for m in node['metrics']})

    def test_roundtrip(self):
        parsed = payload.parse(_ours())
        self.assertEqual({'window_end': 1700000900.0,
                          'cpu': {'avg': 31.5, 'std': 4.25},
                          'memory': {'avg': 60.0, 'std': 1.0}},
                         parsed['node-a'])
        self.assertEqual({'window_end': 1700000900.0,
                          'cpu': {'avg': 5.0, 'std': 0.5}},
                         parsed['node-b'])

    def test_golden_released_payload_parses(self):
        golden = _golden()
        payload.validator().validate(golden)
        parsed = payload.parse(golden)
        # The host key is an address, not digits; values are floats.
        self.assertEqual({'10.0.0.12', 'worker-3.example.org'}, set(parsed))
        self.assertEqual({'avg': 42.7, 'std': 3.1},
                         parsed['10.0.0.12']['cpu'])
        # Only a latest value: taken as the average, as the plugins do.
        self.assertEqual({'avg': 55.25},
                         parsed['worker-3.example.org']['memory'])
        # No operator: an average (the old watcher's metrics).
        self.assertEqual({'avg': 12.0},
                         parsed['worker-3.example.org']['cpu'])
        self.assertEqual(1700001500.0, parsed['10.0.0.12']['window_end'])

    def test_average_wins_over_latest_in_any_order(self):
        document = _ours()
        node = document['data']['NodeMetricsMap']['node-a']
        node['metrics'].reverse()   # Latest before AVG
        self.assertEqual({'avg': 31.5, 'std': 4.25},
                         payload.parse(document)['node-a']['cpu'])
        # other metric types are passed through, not taken for CPU
        node['metrics'].append({'type': 'Energy', 'operator': 'AVG',
                                'value': 7.0})
        parsed = payload.parse(document)['node-a']
        self.assertEqual(31.5, parsed['cpu']['avg'])
        self.assertEqual([{'type': 'Energy', 'operator': 'AVG',
                           'value': 7.0}], parsed['other'])

    def test_bad_payloads_name_the_field(self):
        for bad, field in (
                ({}, '(top level)'),
                (dict(_ours(), timestamp='now'), 'timestamp'),
                (dict(_ours(), data={'node-a': {}}), 'data'),
        ):
            error = self.assertRaises(payload.BadPayload, payload.parse,
                                      bad)
            self.assertTrue(str(error).startswith(field), str(error))
        broken = _ours()
        broken['data']['NodeMetricsMap']['node-a']['metrics'][0][
            'value'] = 'high'
        error = self.assertRaises(payload.BadPayload, payload.parse, broken)
        self.assertIn('data.NodeMetricsMap.node-a.metrics.0.value',
                      str(error))
