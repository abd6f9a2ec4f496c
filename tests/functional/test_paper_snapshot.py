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

"""The first evaluation snapshot of the preemptible-instance paper.

Four full 8-CPU / 16384 MB blades, every instance ``medium``, billing period
60 minutes. A normal ``medium`` request must go to host-B and terminate
exactly BP1: its partial period (71 min mod 60 = 11 min) is the cheapest
on the testbed, where OPIE's sum over all preemptible instances per host
would not be the criterion.
"""

import json
import os
import subprocess
import sys

from preemptible_sched import objects
from preemptible_sched.scheduler import filter_scheduler as scheduler
from tests import base

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
SCENARIO = os.path.join(ROOT, 'etc', 'preemptible-sched', 'scenarios',
                        'paper-snapshot-1.json')
MEDIUM = objects.Flavor('medium', 2, 4000, 40)
SNAPSHOT = {
    'host-A': [('A1', 272, False), ('A2', 172, False), ('AP1', 96, True),
               ('AP2', 207, True)],
    'host-B': [('B1', 136, False), ('B2', 200, False), ('BP1', 71, True),
               ('BP2', 91, True)],
    'host-C': [('C1', 97, False), ('C2', 275, False), ('CP1', 210, True),
               ('CP2', 215, True)],
    'host-D': [('D1', 16, False), ('DP1', 85, True), ('DP2', 199, True),
               ('DP3', 152, True)],
}


class TestPaperSnapshot(base.TestCase):

    def setUp(self):
        super().setUp()
        self.flags(group='filter_scheduler',
                   enabled_filters=['compute', 'resources'],
                   weighers=['termination_cost'])
        self.flags(group='preemptible', termination_costs=['billing_period'],
                   billing_period_seconds=3600)

    def scheduler(self, mode='dual_state'):
        sched = scheduler.FilterScheduler(strategy=mode)
        now = 1000.0 * 60
        for host, instances in SNAPSHOT.items():
            sched.host_manager.add_host(objects.Host(host, 8, 16384, 500))
            for instance_id, minutes, preemptible in instances:
                sched.host_manager.add_instance(host, objects.Instance(
                    instance_id, MEDIUM.resources, preemptible,
                    started_at=now - minutes * 60, flavor='medium'))
        return sched, now

    def request(self, num=1):
        return objects.RequestSpec('new', MEDIUM.resources, False, num,
                                   flavor='medium')

    def test_goes_to_host_b_and_terminates_bp1(self):
        for mode in ('dual_state', 'retry'):
            sched, now = self.scheduler(mode)
            decision = sched.select_destinations(self.request(), now=now)
            self.assertEqual([('host-B', ['BP1'])],
                             [(s.host, s.terminate)
                              for s in decision.selections], mode)
            self.assertEqual(11 * 60, decision.selections[0].plan.cost)
            host_b = sched.host_manager.host_states['host-B']
            self.assertEqual({'B1', 'B2', 'BP2', 'new'},
                             set(host_b.instances))
            self.assertEqual((8, 16000, 160), tuple(host_b.full.used))
            self.assertEqual((6, 12000, 120), tuple(host_b.normal.used))

    def test_plain_scheduler_finds_no_room(self):
        sched, now = self.scheduler('plain')
        self.assertFalse(sched.select_destinations(self.request(),
                                                   now=now).placed)

    def test_four_requests_take_the_four_cheapest_partial_periods(self):
        # Partial periods (min): AP1 36, AP2 27, BP1 11, BP2 31, CP1 30,
        # CP2 35, DP1 25, DP2 19, DP3 32. Each new instance needs exactly one
        # victim, so the cheapest four die, in order: BP1, DP2, DP1, AP2.
        sched, now = self.scheduler()
        decision = sched.select_destinations(self.request(4), now=now)
        self.assertEqual(['BP1', 'DP2', 'DP1', 'AP2'],
                         [v for s in decision.selections
                          for v in s.terminate])

    def test_decide_cli_gives_the_same_answer(self):
        result = subprocess.run(
            [sys.executable, '-m', 'preemptible_sched.cmd.sched', 'decide',
             '--scenario', SCENARIO], capture_output=True, text=True,
            cwd=ROOT, timeout=120)
        self.assertEqual(0, result.returncode, result.stderr)
        output = json.loads(result.stdout)
        self.assertEqual('placed', output['result'])
        self.assertEqual([('host-B', ['BP1'])],
                         [(s['host'], s['terminate'])
                          for s in output['selected']])
