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

from preemptible_sched.simulation import load_comparison
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
