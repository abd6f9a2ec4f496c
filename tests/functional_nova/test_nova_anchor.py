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

"""The Nova anchor benchmark (``benchmarks/nova_anchor.py``).

Its project-side case builders on a few hosts, in this process; the whole
script with ``--quick`` against the installed Nova, in a subprocess (it
parses Nova's global configuration, which Nova's fixtures in this process
own); and its one-line exit 2 when Nova cannot be imported.
"""

import importlib
import json
import os
import subprocess
import sys

import fixtures

from tests import base
from tests.functional_nova import base as nova_base

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
BENCHMARKS = os.path.join(ROOT, 'benchmarks')
SCRIPT = os.path.join(BENCHMARKS, 'nova_anchor.py')
HOSTS = 6


class TestCaseBuilders(base.TestCase):
    """Each case's cloud, and one project decision on it, undone."""

    def setUp(self):
        super().setUp()
        # The benchmarks import their siblings (report, scheduling_latency)
        # as top-level modules, as ``python benchmarks/<name>.py`` does.
        self.useFixture(fixtures.MonkeyPatch('sys.path',
                                             [BENCHMARKS] + sys.path))
        self.anchor = importlib.import_module('nova_anchor')

    def decide_twice(self, case):
        """Two decisions on ``case``'s cloud: ``(placed, victims)`` each.

        The second sees the cloud the first was undone to.
        """
        cloud = self.anchor.build_cloud(HOSTS, case, seed=3)
        sched = self.anchor.build_project(cloud)
        outcomes = []
        for repetition in (1, 2):
            _elapsed, placed, victims = self.anchor.time_project(
                sched, repetition, self.anchor.REQUEST[case])
            outcomes.append((placed, victims))
        return cloud, outcomes

    def test_empty_cloud(self):
        cloud, outcomes = self.decide_twice('empty_normal')
        self.assertEqual(HOSTS, len(cloud))
        self.assertEqual([], [i for _n, normal, spot in cloud
                              for i in normal + spot])
        self.assertEqual([(True, 0), (True, 0)], outcomes)

    def test_varied_cloud_leaves_room_for_a_medium_everywhere(self):
        cloud, outcomes = self.decide_twice('varied_normal')
        medium = self.anchor.MEDIUM
        loads = set()
        for _name, normal, spot in cloud:
            self.assertEqual([], spot)
            self.assertLessEqual(len(normal),
                                 self.anchor.VARIED_MAX_PER_HOST)
            self.assertFalse(any(i.preemptible for i in normal))
            used = [sum(i.resources[d] for i in normal) for d in range(3)]
            for total, taken, wanted in zip(self.anchor.BLADE, used, medium):
                self.assertLessEqual(taken + wanted, total)
            loads.add(tuple(used))
        # The resource weighers see different hosts.
        self.assertGreater(len(loads), 1)
        self.assertEqual([(True, 0), (True, 0)], outcomes)

    def test_varied_cloud_depends_on_the_seed_only(self):
        def usage(seed):
            return [[(i.id, i.resources) for i in normal]
                    for _n, normal, _s in self.anchor.build_cloud(
                        HOSTS, 'varied_normal', seed)]

        self.assertEqual(usage(5), usage(5))
        self.assertNotEqual(usage(5), usage(6))

    def test_saturated_cloud_makes_each_decision_terminate_one(self):
        cloud, outcomes = self.decide_twice('saturated_normal')
        for _name, normal, spot in cloud:
            self.assertEqual([], normal)
            self.assertEqual(self.anchor.PREEMPTIBLE_PER_HOST, len(spot))
            self.assertTrue(all(i.preemptible for i in spot))
        self.assertEqual([(True, 1), (True, 1)], outcomes)

    def test_mixed_hosts_are_full_of_every_size(self):
        cloud, outcomes = self.decide_twice('saturated_mixed')
        flavors = set()
        for _name, normal, spot in cloud:
            self.assertEqual([], normal)
            self.assertTrue(all(i.preemptible for i in spot))
            self.assertEqual(self.anchor.BLADE.vcpus,
                             sum(i.resources.vcpus for i in spot))
            flavors.update(i.flavor for i in spot)
        self.assertEqual({'small', 'medium', 'large'}, flavors)
        # A medium request on a full host: one medium or large victim,
        # or two smalls.
        for placed, victims in outcomes:
            self.assertTrue(placed)
            self.assertIn(victims, (1, 2))

    def test_larger_requests_need_two_and_three_victims(self):
        for case, victims in (('saturated_two', 2), ('saturated_three', 3)):
            cloud, outcomes = self.decide_twice(case)
            self.assertEqual([(True, victims), (True, victims)], outcomes,
                             case)

    def test_floor_terminates_as_cheaply_as_the_project(self):
        """On every saturated case, seeds 0 to 2, two decisions each: the
        numpy floor's cost is the project's.
        """
        for case in self.anchor.SATURATED_CASES:
            for seed in range(3):
                cloud = self.anchor.build_cloud(HOSTS, case, seed)
                floor = self.anchor.numpy_floor.Floor(
                    cloud, self.anchor.BLADE, self.anchor.REQUEST[case],
                    self.anchor.BILLING_PERIOD)
                sched = self.anchor.build_project(cloud)
                for repetition in (1, 2):
                    chosen = []
                    self.anchor.time_project(sched, repetition,
                                             self.anchor.REQUEST[case],
                                             chosen)
                    _elapsed, answer = self.anchor.time_floor(floor,
                                                              repetition)
                    self.assertEqual(1, len(chosen))
                    self.assertAlmostEqual(chosen[0][1], answer[1],
                                           msg=(case, seed, repetition))
                    self.assertTrue(self.anchor.same_cost(chosen, answer))

    def test_floor_by_hand(self):
        """Blades of 8 vCPU; a 2 vCPU / 4000 MB / 40 GB request at t =
        7200 (period 3600). h0: a large (4 vCPU) started at 0 (cost 0)
        and two smalls at 7100 and 6000 (100 + 1200 = 1300), full with
        two more smalls at 3700 (3500 each): its cheapest set is the
        large, 0. h1: two mediums (costs 200, 300) and two smalls at
        7190 and 7180 (10 + 20 = 30): the two smalls, 30. h0 wins: 0.
        Only the sets that can cover are kept: one large, one medium,
        two smalls.
        """
        small, medium = (1, 2000, 20), (2, 4000, 40)
        large = (4, 8000, 80)

        def spot(name, size, started):
            return self.anchor.objects.Instance(
                id=name, resources=self.anchor.objects.Resources(*size),
                preemptible=True, started_at=started)

        cloud = [
            ('h0', [], [spot('a', large, 0), spot('b', small, 7100),
                        spot('c', small, 6000), spot('d', small, 3700),
                        spot('e', small, 3700)]),
            ('h1', [], [spot('f', medium, 7000), spot('g', medium, 6900),
                        spot('h', small, 7190), spot('i', small, 7180),
                        spot('j', small, 7000), spot('k', small, 7000)]),
        ]
        floor = self.anchor.numpy_floor.Floor(cloud, (8, 16384, 500),
                                              medium, 3600)
        self.assertEqual([(0, 0, 1), (0, 1, 0), (2, 0, 0)], floor.vectors)
        self.assertEqual(('h0', 0.0), floor.answer(7200))
        # An hour later every run time mod the period is the same.
        self.assertEqual(('h0', 0.0), floor.answer(10800))
        # h0's large replaced by two mediums (costs 1800 and 1600): its
        # best is its two cheapest smalls (100 + 1200), and h1 wins (30).
        cloud[0][2].pop(0)
        cloud[0][2].append(spot('l', medium, 3600 + 1800))
        cloud[0][2].append(spot('m', medium, 3600 + 2000))
        floor = self.anchor.numpy_floor.Floor(cloud, (8, 16384, 500),
                                              medium, 3600)
        self.assertEqual(('h1', 30.0), floor.answer(7200))

    def test_nova_sees_normal_instances_only(self):
        self.assertEqual(
            {'empty_normal': 'empty', 'varied_normal': 'varied',
             'saturated_normal': 'empty', 'saturated_mixed': 'empty',
             'saturated_two': 'empty', 'saturated_three': 'empty'},
            self.anchor.NOVA_VIEW)


class TestScript(base.TestCase):
    """The script as a command."""

    def run_script(self, *args, env=None):
        return subprocess.run([sys.executable, SCRIPT] + list(args),
                              cwd=ROOT, capture_output=True, text=True,
                              timeout=240, env=env, check=False)

    def test_quick_run_gives_every_ratio_and_every_nova_host_passes(self):
        result = self.run_script('--quick')
        self.assertEqual(0, result.returncode, result.stderr)
        report = json.loads(result.stdout)
        cases = ['saturated_mixed', 'saturated_two', 'saturated_three',
                 'saturated_normal', 'empty_normal', 'varied_normal']
        victims = {'saturated_two': 2, 'saturated_three': 3,
                   'saturated_normal': 1}
        self.assertEqual(['100', '1000'], list(report['ratios']))
        for hosts, ratios in report['ratios'].items():
            self.assertEqual(cases, list(ratios))
            for case, ratio in ratios.items():
                self.assertGreater(ratio, 0, (hosts, case))
                row = report['results'][hosts][case]
                self.assertEqual(int(hosts), row['nova_hosts_passed'])
                self.assertTrue(row['nova_all_hosts_passed'])
                self.assertTrue(row['project_placed'])
                if case == 'saturated_mixed':
                    self.assertIn(row['project_victims'], (1, 2))
                else:
                    self.assertEqual(victims.get(case, 0),
                                     row['project_victims'])
                self.assertEqual(5, row['repetitions'])
                sides = ['project', 'nova']
                if case.startswith('saturated'):
                    sides.append('floor')
                    self.assertTrue(row['floor_same_cost_every_time'])
                    self.assertGreater(row['project/floor'], 0)
                else:
                    self.assertNotIn('floor', row)
                for side in sides:
                    self.assertGreater(row[side]['median_ms'], 0)
                    self.assertGreaterEqual(row[side]['p90_ms'],
                                            row[side]['median_ms'])
        nova = report['nova']
        self.assertEqual(
            ['ComputeFilter', 'ComputeCapabilitiesFilter',
             'ImagePropertiesFilter', 'ServerGroupAntiAffinityFilter',
             'ServerGroupAffinityFilter'], nova['filters'])
        self.assertEqual(13, nova['weigher_count'])
        self.assertEqual(13, nova['all_weighers'])
        self.assertIn('RAMWeigher', nova['weighers'])
        self.assertEqual(cases, list(report['scaling']))
        flat = [value for name, value in report['targets'].items()
                if name.startswith('cost per host flat')]
        self.assertEqual(1, len(flat))
        self.assertIn(flat[0], (True, False))

    def test_ram_and_cpu_only_for_a_like_for_like_weigher_count(self):
        result = self.run_script('--quick', '--weighers', 'ram,cpu',
                                 '--cases', 'saturated_two,empty_normal')
        self.assertEqual(0, result.returncode, result.stderr)
        report = json.loads(result.stdout)
        self.assertEqual(['RAMWeigher', 'CPUWeigher'],
                         report['nova']['weighers'])
        self.assertEqual(['saturated_two', 'empty_normal'],
                         list(report['ratios']['100']))

    def test_unknown_case_or_weigher_is_refused(self):
        for args in (('--cases', 'saturated_four'), ('--weighers', 'disk')):
            result = self.run_script('--quick', *args)
            self.assertEqual(2, result.returncode, args)
            self.assertIn('unknown', result.stderr)

    def test_without_nova_one_line_and_exit_2(self):
        result = self.run_script('--quick',
                                 env=nova_base.env_without_nova(self))
        self.assertEqual(2, result.returncode, result.stderr)
        self.assertEqual('', result.stdout)
        lines = result.stderr.strip().splitlines()
        self.assertEqual(1, len(lines), result.stderr)
        self.assertIn('Nova is not importable (no Nova here)', lines[0])
