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


"""LowRiskOverCommitment, checked against hand-computed figures.

The beta distribution functions are checked against closed forms, which
do not use the continued fraction: for integer shapes, I_x(a, b) =
sum_{j=a}^{a+b-1} C(a+b-1, j) x^j (1-x)^(a+b-1-j), so I_x(2, 2) = 3x^2 -
2x^3 and I_x(1, 3) = 1 - (1-x)^3; and I_x(1/2, 1/2) = (2/pi) asin(sqrt x).
"""

import math

import numpy

from preemptible_sched.conf import CONF
from preemptible_sched.conf import parsing
from preemptible_sched.scheduler.weighers import (
    low_risk_over_commitment as lroc)
from tests import base
from tests import load_helpers as helpers
from tests.unit.conf import test_checks

GB = 1024.0
#: A CPU deviation (in %) that the default window of 5 turns into a
#: variance of 0.0375: with a mean of 25 %, beta(1, 3).
STD_B13 = 100.0 * math.sqrt(0.0075)


def _instances(prefix, count, vcpus, expected=None):
    return [helpers.old_instance('%s-%d' % (prefix, number), vcpus=vcpus,
                                 expected=expected)
            for number in range(count)]


class TestBeta(base.TestCase):

    def test_closed_forms(self):
        x = numpy.array([0.1, 0.25, 0.5, 0.8])
        got = lroc.regularized_incomplete_beta(x, 2.0, 2.0)
        numpy.testing.assert_allclose(3 * x ** 2 - 2 * x ** 3, got,
                                      rtol=1e-12)
        got = lroc.regularized_incomplete_beta(x, 1.0, 3.0)
        numpy.testing.assert_allclose(1 - (1 - x) ** 3, got, rtol=1e-12)
        # (2 / pi) * asin(0.5) = 1/3
        self.assertAlmostEqual(1.0 / 3.0, float(
            lroc.regularized_incomplete_beta(0.25, 0.5, 0.5)), places=12)

    def test_domain(self):
        got = lroc.regularized_incomplete_beta(
            [0.0, 1.0, 0.5, 0.5, -0.1], [2.0, 2.0, 0.0, 2.0, 2.0],
            [2.0, 2.0, 2.0, -1.0, 2.0])
        self.assertEqual([0.0, 1.0], got[:2].tolist())
        self.assertTrue(numpy.isnan(got[2:]).all())

    def test_very_narrow_law_is_the_normal_one(self):
        # Shapes of 2.5e9: the normal law of the same moments, half below
        # the mean, 84.13 % one deviation above.
        mu, sigma = 0.5, 1e-5
        shape = mu * (1 - mu) / sigma ** 2 - 1
        got = lroc.beta_cdf([0.5, 0.5 + sigma], mu * shape,
                            (1 - mu) * shape, mu, sigma)
        self.assertAlmostEqual(0.5, got[0])
        self.assertAlmostEqual(0.8413447, got[1], places=6)


class TestParts(base.TestCase):

    def test_fit_sigma(self):
        # 0.1 * sqrt(5); then held below sqrt(0.99 * 0.25) = 0.4975
        self.assertAlmostEqual(math.sqrt(0.05),
                               float(lroc.fit_sigma(0.5, 0.1, 5)))
        self.assertAlmostEqual(math.sqrt(0.2475),
                               float(lroc.fit_sigma(0.5, 0.4, 5)))
        self.assertEqual(0.0, float(lroc.fit_sigma(1.0, 0.4, 5)))

    def test_below_steps_and_no_law(self):
        probability, _, _, fitted = lroc.below(
            [0.0, 0.3, 0.3, 0.5], [0.2, 0.0, 0.0, 0.5], [0.1, 0.3, 0.2, 0.9])
        # mean 0; no deviation, within; no deviation, beyond; variance
        # 0.25 = mu (1 - mu), which no beta law has.
        self.assertEqual([1.0, 1.0, 0.0, 0.0], probability.tolist())
        self.assertFalse(fitted.any())

    def test_below_fits_beta_by_moments(self):
        # mean 0.5, variance 0.05: shape 0.25 / 0.05 - 1 = 4, beta(2, 2)
        probability, alpha, beta, fitted = lroc.below(
            0.5, math.sqrt(0.05), 0.25)
        self.assertTrue(fitted)
        self.assertAlmostEqual(2.0, float(alpha))
        self.assertAlmostEqual(2.0, float(beta))
        # 3/16 - 2/64
        self.assertAlmostEqual(0.15625, float(probability))

    def test_limit_risks(self):
        got = lroc.limit_risks(numpy.array([2.5, 2.0, 6.0]),
                               numpy.array([5.0, 4.0, 8.0]), 4.0)
        # (5 - 4) / (5 - 2.5); within capacity; requests capped at 4
        numpy.testing.assert_allclose([0.4, 0.0, 1.0], got)


def _worked_example():
    """4-core, 8 GB hosts, CPU metrics only; the request: 1 vCPU
    expecting 0.5, 1 GB. The docs' worked example.
    """
    return helpers.loaded_manager([
        # 2 x (2 vCPUs expecting 1): requests 2, limits 4
        ('A', 4, 8 * GB, helpers.cpu(50.0, 10.0),
         _instances('a', 2, 2.0, expected=1.0)),
        # 1 x (2 vCPUs expecting 1): requests 1, limits 2
        ('B', 4, 8 * GB, helpers.cpu(25.0, STD_B13),
         _instances('b', 1, 2.0, expected=1.0)),
        # 3 x 1 vCPU, no expected usage: requests = limits = 3
        ('C', 4, 8 * GB, helpers.cpu(50.0, 10.0), _instances('c', 3, 1.0)),
        # 3 x 2 vCPUs, no expected usage: 6 vCPUs on 4 cores
        ('D', 4, 8 * GB, helpers.cpu(50.0, 10.0), _instances('d', 3, 2.0)),
    ])


class TestWeigher(base.TestCase):

    def setUp(self):
        super().setUp()
        self.weigher = lroc.LowRiskOverCommitmentWeigher()
        self.spec = base.make_spec((1, GB, 0), expected_vcpus=0.5)

    def _both(self, manager, spec=None):
        return helpers.weigh_both(self, self.weigher, manager,
                                  spec or self.spec)

    def test_defaults_are_the_released_plugins(self):
        group = CONF.low_risk_over_commitment
        self.assertEqual((5, 0.5, 0.5), (
            group.smoothing_window_size, group.cpu_risk_limit_weight,
            group.memory_risk_limit_weight))

    def test_worked_example(self):
        a, b, c, d = self._both(_worked_example())
        # A: limit risk (5 - 4) / (5 - 2.5) = 0.4; load: beta(2, 2) (mean
        # 0.5, variance 0.01 * 5), F(2/4) = 0.5, limits not below the
        # capacity: 0.5. 0.5 * 0.4 + 0.5 * 0.5 = 0.45 -> 55
        self.assertAlmostEqual(55.0, a, places=9)
        # B: limits 3 <= 4, no limit risk; beta(1, 3), F(1/4) = 0.578125
        # conditioned on F(2/4) = 0.875: 0.660714..., load risk
        # 0.339286; 0.5 * 0.339286 -> 83.0357
        self.assertAlmostEqual(100 * (1 - 0.5 * (1 - 0.578125 / 0.875)), b,
                               places=9)
        self.assertAlmostEqual(83.0357, b, places=4)
        # C: requests = limits, so F(3/4) / F(3/4) = 1: no risk at all
        self.assertAlmostEqual(100.0, c, places=9)
        # D: limits 7 > 4 cores, requests capped at 4: limit risk 1;
        # F(1) = 1, no load risk: 0.5 -> 50
        self.assertAlmostEqual(50.0, d, places=9)

    def test_degenerate_without_expected_usage(self):
        # No expected usage: requests = limits. Within the cores the load
        # risk is conditioned away: 100, whatever the load (E: 90 % +-
        # 5 %, beta fitted, F(0.5) / F(0.5) = 1). Over the cores, limit
        # risk 1: 50. A window with no deviation is a step at its mean:
        # 60 % above the instances' 2 of 4 vCPUs, load risk 1: 50.
        manager = helpers.loaded_manager([
            ('E', 4, 8 * GB, helpers.cpu(90.0, 5.0), _instances('e', 2, 1.0)),
            ('F', 4, 8 * GB, helpers.cpu(10.0, 5.0), _instances('f', 4, 1.0)),
            ('G', 4, 8 * GB, helpers.cpu(60.0, 0.0), _instances('g', 2, 1.0)),
        ])
        spec = base.make_spec((1, GB, 0))
        numpy.testing.assert_allclose([100.0, 50.0, 50.0],
                                      self._both(manager, spec))

    def test_risk_limit_weights(self):
        manager = _worked_example()
        self.flags(group='low_risk_over_commitment',
                   cpu_risk_limit_weight=1.0)
        # limit risks only: A 0.4, B 0, C 0, D 1
        numpy.testing.assert_allclose([60.0, 100.0, 100.0, 0.0],
                                      self._both(manager))
        self.flags(group='low_risk_over_commitment',
                   cpu_risk_limit_weight=0.0)
        # load risks only: A 0.5, B 0.339286, C 0, D 0
        numpy.testing.assert_allclose(
            [50.0, 100 * 0.578125 / 0.875, 100.0, 100.0],
            self._both(manager))

    def test_smoothing_window(self):
        # window 1 on A: variance 0.01, shape 24, beta(12, 12); at the
        # mean F(0.5) = 0.5 still: the same 55. On B: beta(1, 3) needs
        # the variance 0.0375 = 0.0075 * 5: window 1 gives shape 24,
        # beta(6, 18), F(1/4) and F(1/2) by the binomial sums.
        self.flags(group='low_risk_over_commitment', smoothing_window_size=1)
        a, b, _, _ = self._both(_worked_example())
        self.assertAlmostEqual(55.0, a, places=9)

        def binomial(x, a, b):
            n = a + b - 1
            return sum(math.comb(n, j) * x ** j * (1 - x) ** (n - j)
                       for j in range(a, n + 1))
        allowed = binomial(0.25, 6, 18) / binomial(0.5, 6, 18)
        self.assertAlmostEqual(100 * (1 - 0.5 * (1 - allowed)), b, places=9)

    def test_memory_risk_counts(self):
        # 10 GB of instances on 8 GB, memory metrics 50 % +- 10 %:
        # memory limit risk (11 - 8) / (11 - 8) = 1, load F(1) = 1: 0.5;
        # CPU: 1 vCPU on 4 cores, risk 0 -> 50
        manager = helpers.loaded_manager([
            ('m', 4, 8 * GB, helpers.cpu(0.0, 0.0, memory=(50.0, 10.0)),
             [helpers.old_instance('big', vcpus=1.0,
                                   memory_mb=10 * GB)]),
        ])
        self.assertAlmostEqual(50.0, self._both(manager)[0], places=9)

    def test_recent_placements_count_in_the_mean(self):
        # Measured 0 % +- 10 %, but 2 vCPUs expecting 1 placed 10 s ago
        # with a multiplier of 2: 2 cores of 4 the window cannot show,
        # mean 0.5, beta(2, 2). Requests 1, limits 2: F(1/4) = 0.15625
        # conditioned on F(2/4) = 0.5 -> 0.3125, load risk 0.6875;
        # limits 3 <= 4. 0.5 * 0.6875 -> 65.625. Placed an hour ago, the
        # window shows it (mean 0): 100.
        def manager(at):
            return helpers.loaded_manager([
                ('h', 4, 8 * GB, helpers.cpu(0.0, 10.0),
                 [helpers.old_instance('r', vcpus=2.0, expected=1.0,
                                       at=at)]),
            ], multiplier=2.0)
        spec = base.make_spec((1, GB, 0))
        self.assertAlmostEqual(65.625, self._both(manager(-10.0), spec)[0],
                               places=9)
        self.assertAlmostEqual(100.0, self._both(manager(-3600.0), spec)[0],
                               places=9)

    def test_nothing_asked_unknown_host_and_no_capacity(self):
        manager = helpers.loaded_manager([
            ('missing', 4, 8 * GB, None, [helpers.old_instance('a')]),
            ('new', 4, 8 * GB, None, []),
            ('empty', 0, 0, helpers.cpu(10.0), [helpers.old_instance('b')]),
        ])
        # new: nothing placed, no load, limits 1 <= 4: 100; no cores: 0
        self.assertEqual([0.0, 100.0, 0.0], self._both(manager))
        self.assertEqual([0.0, 0.0, 0.0],
                         self._both(manager, base.make_spec((0, 0, 0))))


class TestOptions(test_checks.ConfigFileTestCase):

    def test_out_of_range_values_named(self):
        path = self.write('[low_risk_over_commitment]\n'
                          'smoothing_window_size = 0\n'
                          'cpu_risk_limit_weight = 1.5\n'
                          'memory_risk_limit_weight = -0.1\n')
        error = self.assertRaises(parsing.BadValues, self.parse, path)
        text = str(error)
        for option in ('smoothing_window_size', 'cpu_risk_limit_weight',
                       'memory_risk_limit_weight'):
            self.assertIn('[low_risk_over_commitment] %s' % option, text)
