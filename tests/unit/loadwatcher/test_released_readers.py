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


"""Our watcher's payload as each released Trimaran plugin reads it.

The readers below restate, one small function each, the rule by which the
released plugins of kubernetes-sigs/scheduler-plugins (v0.27 to v0.34,
with paypal/load-watcher v0.2.4 as their client) pick a node's figures
out of the ``metrics`` list of ``GET /watcher``; the released service
client asks for that path without a window, i.e. the 15-minute one.
"""

import json
import math

import webob

from preemptible_sched.loadwatcher import api
from preemptible_sched.loadwatcher import payload
from preemptible_sched.loadwatcher import watcher as watcher_mod
from tests import base
from tests import load_helpers as helpers
from tests.unit.loadwatcher import test_watcher

AVG, STD, LATEST = 'AVG', 'STD', 'Latest'


def target_load_packing(metrics):
    """CPU % as TargetLoadPacking's ``Score`` reads it
    (``pkg/trimaran/targetloadpacking/targetloadpacking.go``).

    Every metric of type CPU whose operator is AVG or Latest replaces the
    figure read so far: the last such metric wins. A metric without an
    operator, and every Memory or STD metric, is not read. None when no
    metric matched (the plugin then scores the node at the minimum).
    """
    found = None
    for metric in metrics:
        if metric['type'] == 'CPU' and \
                metric.get('operator') in (AVG, LATEST):
            found = metric['value']
    return found


def resource_data(metrics, resource_type):
    """``(avg, std, valid)`` of ``resource_type`` (``CPU`` or ``Memory``)
    as ``GetResourceData`` in ``pkg/trimaran/resourcestats.go`` reads them
    (LoadVariationRiskBalancing and LowRiskOverCommitment, through
    ``CreateResourceStats``).

    In list order, over the metrics of that type: an AVG sets the average
    (the last AVG wins) and marks it found; an STD sets the deviation (the
    last one wins); a Latest or a metric without an operator sets the
    average only while no AVG has been seen. Any metric of the type makes
    the data valid; the average and deviation default to 0.
    """
    avg = std = 0.0
    avg_found = valid = False
    for metric in metrics:
        if metric['type'] != resource_type:
            continue
        operator = metric.get('operator', '')
        if operator == AVG:
            avg, avg_found = metric['value'], True
        elif operator == STD:
            std = metric['value']
        elif operator in ('', LATEST) and not avg_found:
            avg = metric['value']
        valid = True
    return avg, std, valid


def load_variation_risk_balancing(metrics):
    """``{resource: (avg, std)}`` as LoadVariationRiskBalancing reads them
    (``pkg/trimaran/loadvariationriskbalancing/
    loadvariationriskbalancing.go``: CPU then Memory, each through
    ``GetResourceData``).
    """
    return {kind: resource_data(metrics, kind)[:2]
            for kind in ('CPU', 'Memory')}


def low_risk_over_commitment(metrics):
    """``{resource: (avg, std)}`` as LowRiskOverCommitment's load risk
    reads them (``pkg/trimaran/lowriskovercommitment/
    lowriskovercommitment.go``, ``computeRisk`` for CPU and Memory through
    ``CreateResourceStats``, i.e. ``GetResourceData``).
    """
    return {kind: resource_data(metrics, kind)[:2]
            for kind in ('CPU', 'Memory')}


# Three samples a minute apart: CPU 20, 40, 60 and memory 30, 30, 60, so
# that both windows average 40 % while the latest sample is 60 %.
CPU = (20.0, 40.0, 60.0)
MEMORY = (30.0, 30.0, 60.0)
CPU_STD = math.sqrt(800.0 / 3)
MEMORY_STD = math.sqrt(200.0)


def _served():
    """The host's metrics as ``GET /watcher`` answers them."""
    samples = iter(zip(CPU, MEMORY))
    watcher = watcher_mod.LoadWatcher(test_watcher.ScriptedSource(
        lambda now: {'host-a': next(samples)}))
    for now in (0.0, 60.0, 120.0):
        watcher.tick(helpers.T0 + now)
    response = webob.Request.blank('/watcher').get_response(
        api.WatcherApp(watcher))
    document = json.loads(response.body)
    payload.validator().validate(document)
    return document['data']['NodeMetricsMap']['host-a']['metrics']


class TestReleasedReaders(base.TestCase):

    def setUp(self):
        super().setUp()
        self.metrics = _served()

    def test_the_host_is_what_the_test_says(self):
        figures = {(m['type'], m['operator']): m['value']
                   for m in self.metrics}
        self.assertEqual(40.0, figures['CPU', AVG])
        self.assertEqual(60.0, figures['CPU', LATEST])
        self.assertAlmostEqual(CPU_STD, figures['CPU', STD])
        self.assertEqual(40.0, figures['Memory', AVG])
        self.assertEqual(60.0, figures['Memory', LATEST])
        self.assertAlmostEqual(MEMORY_STD, figures['Memory', STD])
        self.assertEqual({'15m'}, {m['rollup'] for m in self.metrics})

    def test_target_load_packing_reads_the_average(self):
        self.assertEqual(40.0, target_load_packing(self.metrics))

    def _assert_average_and_std(self, read):
        cpu, memory = read['CPU'], read['Memory']
        self.assertEqual(40.0, cpu[0])
        self.assertAlmostEqual(CPU_STD, cpu[1])
        self.assertEqual(40.0, memory[0])
        self.assertAlmostEqual(MEMORY_STD, memory[1])

    def test_load_variation_risk_balancing_reads_average_and_std(self):
        self._assert_average_and_std(
            load_variation_risk_balancing(self.metrics))

    def test_low_risk_over_commitment_reads_average_and_std(self):
        self._assert_average_and_std(low_risk_over_commitment(self.metrics))

    def test_our_reader_reads_the_same(self):
        parsed = payload.parse({'timestamp': 1200, 'window': {
            'duration': '15m', 'start': 300, 'end': 1200}, 'source': 's',
            'data': {'NodeMetricsMap': {'host-a': {
                'metrics': self.metrics}}}})['host-a']
        self.assertEqual(40.0, parsed['cpu']['avg'])
        self.assertAlmostEqual(CPU_STD, parsed['cpu']['std'])
        self.assertEqual(40.0, parsed['memory']['avg'])

    def test_the_readers_as_stated(self):
        # The rules themselves, on orders our watcher does not emit: the
        # old order (AVG, STD, Latest) made TargetLoadPacking read the
        # latest sample, while GetResourceData keeps the AVG either way.
        def cpu(*operators):
            return [{'type': 'CPU', 'operator': operator, 'value': value}
                    for operator, value in operators]
        old = cpu((AVG, 40.0), (STD, 5.0), (LATEST, 60.0))
        self.assertEqual(60.0, target_load_packing(old))
        self.assertEqual((40.0, 5.0, True), resource_data(old, 'CPU'))
        self.assertEqual((0.0, 0.0, False), resource_data(old, 'Memory'))
        no_operator = [{'type': 'CPU', 'value': 12.0}]
        self.assertIsNone(target_load_packing(no_operator))
        self.assertEqual((12.0, 0.0, True),
                         resource_data(no_operator, 'CPU'))
        # A Latest after an AVG is not read; one before it is replaced.
        self.assertEqual((40.0, 0.0, True), resource_data(
            cpu((LATEST, 60.0), (AVG, 40.0), (LATEST, 70.0)), 'CPU'))
