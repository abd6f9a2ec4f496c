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


"""The load comparison's measures, by hand."""

import types

from preemptible_sched.conf import plugins
from preemptible_sched import objects
from preemptible_sched.simulation import load_comparison
from preemptible_sched.simulation.traces import records
from tests import base


def _simulation(hosts):
    """A stand-in with ``hosts``: name -> (instances, real CPU %)."""
    states = {name: types.SimpleNamespace(instances=dict.fromkeys(
        range(count))) for name, (count, _) in hosts.items()}
    return types.SimpleNamespace(
        loop=types.SimpleNamespace(host_manager=types.SimpleNamespace(
            host_states=states)),
        driver=types.SimpleNamespace(
            host_utilization=lambda name: (hosts[name][1], 10.0)))


class TestRecorder(base.TestCase):

    def test_used_hosts_and_overload_shares(self):
        recorder = load_comparison._Recorder(target=40.0)
        recorder(_simulation({'a': (2, 50.0), 'b': (0, 99.0),
                              'c': (1, 120.0)}), 0.0)
        recorder(_simulation({'a': (1, 40.0), 'b': (1, 10.0),
                              'c': (0, 0.0)}), 60.0)
        self.assertEqual([0.0, 60.0], recorder.times)
        # empty hosts are not used and their load does not count
        self.assertEqual([2, 2], recorder.hosts_used)
        self.assertEqual(4, recorder.used_samples)
        # > 40: 50 and 120 (40 is not above); > 100: 120
        self.assertEqual((2, 1), (recorder.over_target, recorder.over_100))


class TestTable(base.TestCase):

    def test_rows(self):
        outcome = load_comparison.Outcome(
            name='target_load_packing', times=[0.0], hosts_used=[3],
            mean_hosts_used=3.25, peak_hosts_used=5,
            host_minutes_over_target=0.125, host_minutes_over_100=0.0025,
            requests=10, requests_waited=0.1, never_placed=0)
        text = load_comparison.table([outcome], 40.0, tablefmt='simple')
        self.assertIn('host-minutes > 40 % CPU', text)
        row = text.splitlines()[-1].split()
        self.assertEqual(['target_load_packing', '3.2', '5', '12.5', '%',
                          '0.25', '%', '10.0', '%', '0'], row)
        self.assertNotIn('times', outcome.summary())


class TestConfigurations(base.TestCase):

    def test_every_load_aware_weigher_alone_against_least_requested(self):
        self.assertEqual(
            {'least_requested': ['least_requested'],
             'target_load_packing': ['target_load_packing'],
             'load_variation_risk_balancing':
                 ['load_variation_risk_balancing'],
             'low_risk_over_commitment': ['low_risk_over_commitment']},
            load_comparison.CONFIGURATIONS)
        weighers = plugins.names(plugins.WEIGHERS)
        for name, listed in load_comparison.CONFIGURATIONS.items():
            self.assertLessEqual(set(listed), set(weighers), name)

    def test_compare_runs_each_in_order(self):
        ran = []
        self.patch(load_comparison, 'run_one',
                   lambda name, weighers, *args: ran.append(
                       (name, weighers, args)) or name)
        self.assertEqual(list(load_comparison.CONFIGURATIONS),
                         load_comparison.compare(['item'], ['host'], 60.0))
        self.assertEqual(
            [(name, weighers, (['item'], ['host'], 60.0, 0, 60.0))
             for name, weighers in load_comparison.CONFIGURATIONS.items()],
            ran)

    def test_low_risk_over_commitment_runs_in_the_comparison(self):
        # Every instance uses a quarter of its vCPU; four hosts of 8
        # cores, vCPUs overcommitted twice.
        self.flags(group='fake_driver', utilization_model='constant',
                   utilization_share=0.25)
        self.flags(group='filter_scheduler',
                   enabled_filters=['compute', 'resources'])
        items = [records.WorkloadItem(
            id='vm-%d' % index, submit_s=index * 120.0, duration_s=None,
            resources=objects.Resources(2, 1024, 10)) for index in range(6)]
        hosts = [objects.Host('host-%d' % index, vcpus=8, memory_mb=32768,
                              disk_gb=500, cpu_allocation_ratio=2.0)
                 for index in range(4)]
        outcome = load_comparison.run_one(
            'low_risk_over_commitment', ['low_risk_over_commitment'],
            items, hosts, until=1800.0, seed=0, sample_s=60.0)
        self.assertEqual('low_risk_over_commitment', outcome.name)
        self.assertEqual((6, 0), (outcome.requests, outcome.never_placed))
        self.assertEqual(0.0, outcome.host_minutes_over_100)
        self.assertEqual(31, len(outcome.hosts_used))
