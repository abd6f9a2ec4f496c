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


import numpy

from preemptible_sched.scheduler.weighers import (
    load_variation_risk_balancing as lvrb)
from tests import base
from tests import load_helpers as helpers

GB = 1024.0


def _design_hosts():
    """§6's example: 4 cores / 8 GB; used (cores, GB) and std."""
    rows = (('N1', (0.8, 1.6), (3.2, 4.8)),
            ('N2', (2.0, 6.4), (0.04, 0.004)),
            ('N3', (1.2, 3.2), (0.4, 0.4)))
    hosts = []
    for name, (cores, gb), (cores_std, gb_std) in rows:
        metrics = {'cpu': {'avg': 100 * cores / 4, 'std': 100 * cores_std / 4},
                   'memory': {'avg': 100 * gb / 8, 'std': 100 * gb_std / 8},
                   'window_end': -30}
        hosts.append((name, 4, 8 * GB, metrics,
                      [helpers.old_instance(name + '-vm')]))
    return hosts


class TestRiskScore(base.TestCase):

    def test_kep(self):
        self.assertEqual(100.0, lvrb.risk_score(0.0, 0.0, 'kep', 1, 1))
        self.assertAlmostEqual(40.0, lvrb.risk_score(0.5, 0.1, 'kep', 1, 1))
        # margin 2: 1 - (0.5 + 0.2)
        self.assertAlmostEqual(30.0, lvrb.risk_score(0.5, 0.1, 'kep', 2, 1))
        self.assertEqual(0.0, lvrb.risk_score(0.9, 0.2, 'kep', 1, 1))
        self.assertEqual(0.0, lvrb.risk_score(1.5, 0.0, 'kep', 1, 1))

    def test_upstream(self):
        # (0.5 + 0.1) / 2 = 0.3 -> 70
        self.assertAlmostEqual(70.0,
                               lvrb.risk_score(0.5, 0.1, 'upstream', 1, 1))
        # sensitivity 2: sqrt(0.09) = 0.3; (0.5 + 0.3) / 2 -> 60
        self.assertAlmostEqual(60.0,
                               lvrb.risk_score(0.5, 0.09, 'upstream', 1, 2))
        # mean and spread capped at 1 each: (1 + 1) / 2 -> 0
        self.assertEqual(0.0, lvrb.risk_score(3.0, 5.0, 'upstream', 1, 1))
        # sensitivity 0 ignores a deviation below 100 %.
        self.assertEqual(75.0, lvrb.risk_score(0.5, 0.9, 'upstream', 1, 0))
        self.assertEqual(25.0, lvrb.risk_score(0.5, 1.0, 'upstream', 1, 0))
        # margin 0 ignores the deviation.
        self.assertEqual(75.0, lvrb.risk_score(0.5, 0.9, 'upstream', 0, 1))

    def test_upstream_as_released(self):
        # Issue 29 item 7: sensitivity 0 raises sigma = 1 to +inf, 1, then
        # the margin scales it: 0.5; (0.5 + 0.5) / 2 -> 50 (was 25).
        self.assertEqual(50.0,
                         lvrb.risk_score(0.5, 1.0, 'upstream', 0.5, 0))
        # sensitivity 0.5 squares sigma: 0.4^2 = 0.16, margin 2 -> 0.32;
        # (0.3 + 0.32) / 2 = 0.31 -> 69
        self.assertAlmostEqual(69.0,
                               lvrb.risk_score(0.3, 0.4, 'upstream', 2, 0.5))
        # sigma is clipped to 1 before the power: sqrt(1) * 0.5 = 0.5;
        # (0.2 + 0.5) / 2 = 0.35 -> 65 (not sqrt(1.3) * 0.5 = 0.57)
        self.assertAlmostEqual(65.0,
                               lvrb.risk_score(0.2, 1.3, 'upstream', 0.5, 2))
        mu = numpy.array([0.5, 0.3, 0.2])
        sigma = numpy.array([1.0, 0.4, 1.3])
        for margin, sensitivity, position, expected in (
                (0.5, 0, 0, 50.0), (2, 0.5, 1, 69.0), (0.5, 2, 2, 65.0)):
            got = lvrb.risk_scores(mu, sigma, 'upstream', margin,
                                   sensitivity)
            self.assertAlmostEqual(expected, got[position])
            self.assertEqual(
                [lvrb.risk_score(float(m), float(s), 'upstream', margin,
                                 sensitivity) for m, s in zip(mu, sigma)],
                got.tolist())

    def test_vector_matches_scalar(self):
        mu = numpy.array([0.0, 0.2, 0.5, 0.99, 1.0, 1.7, numpy.inf])
        sigma = numpy.array([0.0, 0.5, 0.1, 0.3, 1.0, 0.0, 1.2])
        for formula in ('kep', 'upstream'):
            for margin, sensitivity in ((1, 1), (0, 1), (2.5, 0.5), (1, 0),
                                        (0.5, 0), (0, 0)):
                expected = [lvrb.risk_score(float(m), float(s), formula,
                                            margin, sensitivity)
                            for m, s in zip(mu, sigma)]
                got = lvrb.risk_scores(mu, sigma, formula, margin,
                                       sensitivity).tolist()
                self.assertEqual(expected, got, (formula, margin,
                                                 sensitivity))


class TestWeigher(base.TestCase):

    def setUp(self):
        super().setUp()
        self.weigher = lvrb.LoadVariationRiskBalancingWeigher()

    def _both(self, manager, spec):
        return helpers.weigh_both(self, self.weigher, manager, spec)

    def _design(self, formula):
        self.flags(group='load_variation_risk_balancing', formula=formula)
        spec = base.make_spec((0.5, GB, 0))
        return self._both(helpers.loaded_manager(_design_hosts()), spec)

    def test_design_example_kep(self):
        n1, n2, n3 = self._design('kep')
        self.assertEqual(0.0, n1)
        # memory: (6.4 + 1) / 8 + 0.004 / 8 = 0.9255 -> 7.45
        self.assertAlmostEqual(7.45, n2, places=9)
        # memory: 4.2 / 8 + 0.05 = 0.575 -> 42.5
        self.assertAlmostEqual(42.5, n3, places=9)

    def test_design_example_upstream(self):
        n1, n2, n3 = self._design('upstream')
        self.assertAlmostEqual(43.75, n1, places=9)
        self.assertAlmostEqual(53.725, n2, places=9)
        self.assertAlmostEqual(71.25, n3, places=9)
        self.assertEqual((44, 54, 71), (round(n1), round(n2), round(n3)))

    def test_upstream_sensitivity_zero_through_the_weigher(self):
        # CPU 40 % +- 100 % of 4 cores, request 0.4 core: mu = 0.5,
        # sigma 1 -> 1^inf * 0.5 = 0.5 -> 50, as the released plugin.
        self.flags(group='load_variation_risk_balancing', formula='upstream',
                   safe_variance_margin=0.5, safe_variance_sensitivity=0.0)
        manager = helpers.loaded_manager([
            ('h', 4, 8 * GB, helpers.cpu(40.0, 100.0),
             [helpers.old_instance('a')]),
        ])
        spec = base.make_spec((0.4, GB, 0))
        self.assertAlmostEqual(50.0, self._both(manager, spec)[0])

    def test_lowest_resource_wins_and_missing_resource_skipped(self):
        # CPU only: memory missing is not held against the host.
        manager = helpers.loaded_manager([
            ('cpu-only', 4, 8 * GB, helpers.cpu(50.0, 10.0),
             [helpers.old_instance('a')]),
        ])
        spec = base.make_spec((1, GB, 0))
        # mu = 0.5 + 0.25, sigma 0.1 -> (1 - 0.85) * 100
        self.assertAlmostEqual(15.0, self._both(manager, spec)[0])

    def test_request_cpu_is_its_prediction(self):
        manager = helpers.loaded_manager([
            ('h', 4, 8 * GB, helpers.cpu(0.0, 0.0, memory=(0.0, 0.0)),
             [helpers.old_instance('a')]),
        ])
        # 2 vCPUs expected at 0.5 core: 0.75 core predicted of 4 -> 81.25
        spec = base.make_spec((2, 0, 0), expected_vcpus=0.5)
        self.assertAlmostEqual(81.25, self._both(manager, spec)[0])
        # without an expected usage, the 2 vCPUs: 50
        self.assertAlmostEqual(50.0, self._both(
            manager, base.make_spec((2, 0, 0)))[0])

    def test_recent_placements_add_cpu_and_memory(self):
        recent = helpers.old_instance('r', vcpus=1.0, memory_mb=2 * GB,
                                      at=-10.0)
        manager = helpers.loaded_manager([
            ('h', 4, 8 * GB, helpers.cpu(0.0, 0.0, memory=(0.0, 0.0)),
             [recent]),
        ])
        spec = base.make_spec((0, 0, 0))
        # cpu 1/4 -> 75; memory 2/8 -> 75
        self.assertAlmostEqual(75.0, self._both(manager, spec)[0])
        spec = base.make_spec((0, 2 * GB, 0))
        self.assertAlmostEqual(50.0, self._both(manager, spec)[0])

    def test_unknown_zero_new_host_empty_and_fallback(self):
        manager = helpers.loaded_manager([
            ('missing', 4, 8 * GB, None, [helpers.old_instance('a')]),
            ('new', 4, 8 * GB, None, []),
            ('ok', 4, 8 * GB, helpers.cpu(50.0), [helpers.old_instance(
                'b')]),
        ])
        spec = base.make_spec((1, 2 * GB, 0))
        # new: cpu 0.25 -> 75, memory 0.25 -> 75
        self.assertEqual([0.0, 75.0, 25.0], self._both(manager, spec))
        down = helpers.loaded_manager([
            ('a', 4, 8 * GB, helpers.cpu(0.0), [helpers.old_instance(
                'a1', vcpus=3)]),
            ('b', 4, 8 * GB, helpers.cpu(0.0), [helpers.old_instance(
                'b1', vcpus=1)]),
        ], source_problem='HTTP 500')
        self.assertEqual([100.0, 50.0], self._both(down, spec))
