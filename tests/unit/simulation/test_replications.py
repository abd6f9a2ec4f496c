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


"""Estimates over replications against hand-computed values."""

import math

from preemptible_sched.simulation import replications
from tests import base


class TestTQuantile(base.TestCase):

    def test_table_values(self):
        # Published two-sided 95 % quantiles.
        self.assertEqual(12.706, replications.t_975(1))
        self.assertEqual(3.182, replications.t_975(3))
        self.assertEqual(2.042, replications.t_975(30))

    def test_expansion_beyond_the_table(self):
        # t(0.975, df) from the exact distribution, 4 decimals.
        for df, exact in ((31, 2.0395), (40, 2.0211), (60, 2.0003),
                          (120, 1.9799), (1000, 1.9623)):
            self.assertAlmostEqual(exact, replications.t_975(df), places=3)

    def test_decreasing_towards_the_normal(self):
        values = [replications.t_975(df) for df in range(1, 200)]
        self.assertEqual(sorted(values, reverse=True), values)
        self.assertGreater(values[-1], replications.Z_975)

    def test_no_degree_of_freedom(self):
        self.assertRaises(ValueError, replications.t_975, 0)


class TestEstimate(base.TestCase):

    def test_one_to_four(self):
        # mean 2.5, sd sqrt(5/3) = 1.291, half-width 3.182 x 1.291 / 2.
        estimate = replications.estimate([1, 2, 3, 4])
        self.assertEqual(4, estimate.n)
        self.assertEqual(2.5, estimate.mean)
        self.assertAlmostEqual(1.2910, estimate.std, places=4)
        self.assertAlmostEqual(2.0540, estimate.ci95, places=3)
        self.assertAlmostEqual(2.5 - 2.0540, estimate.low, places=3)
        self.assertAlmostEqual(2.5 + 2.0540, estimate.high, places=3)

    def test_none_left_out(self):
        estimate = replications.estimate([None, 10.0, None, 14.0])
        self.assertEqual(2, estimate.n)
        self.assertEqual(12.0, estimate.mean)
        # sd = sqrt(8) = 2.828; 12.706 x 2.828 / sqrt(2) = 25.412
        self.assertAlmostEqual(25.412, estimate.ci95, places=3)

    def test_one_value_has_no_spread(self):
        estimate = replications.estimate([7])
        self.assertEqual((1, 7.0, None, None),
                         (estimate.n, estimate.mean, estimate.std,
                          estimate.ci95))
        self.assertIsNone(estimate.low)

    def test_no_value(self):
        self.assertEqual(replications.Estimate(0, None),
                         replications.estimate([None]))


class TestPaired(base.TestCase):

    def test_differences_on_the_same_replication(self):
        # Differences 2, 1, 4, 1: mean 2, sd sqrt(2) = 1.414,
        # half-width 3.182 x 1.414 / 2 = 2.250.
        values = {0: 12.0, 1: 21.0, 2: 34.0, 3: 41.0}
        baseline = {0: 10.0, 1: 20.0, 2: 30.0, 3: 40.0}
        estimate = replications.paired(values, baseline)
        self.assertEqual(4, estimate.n)
        self.assertEqual(2.0, estimate.mean)
        self.assertAlmostEqual(math.sqrt(2), estimate.std)
        self.assertAlmostEqual(2.250, estimate.ci95, places=3)

    def test_pairing_removes_what_replications_share(self):
        # Unpaired, the replications' spread hides the difference; paired,
        # the constant difference has no spread at all.
        baseline = {0: 10.0, 1: 50.0, 2: 90.0}
        values = {key: value + 1 for key, value in baseline.items()}
        self.assertGreater(replications.estimate(values.values()).ci95, 50)
        estimate = replications.paired(values, baseline)
        self.assertEqual((1.0, 0.0, 0.0),
                         (estimate.mean, estimate.std, estimate.ci95))

    def test_only_replications_both_ran(self):
        estimate = replications.paired({0: 5.0, 1: 7.0, 2: None},
                                       {0: 1.0, 2: 3.0, 3: 4.0})
        self.assertEqual((1, 4.0), (estimate.n, estimate.mean))


class TestSeparation(base.TestCase):

    def test_apart_touching_and_overlapping(self):
        # [9, 11] against [5, 7], [11, 13] and [10, 12].
        high = replications.Estimate(5, 10.0, 1.0, 1.0)
        self.assertEqual('higher', replications.separation(
            high, replications.Estimate(5, 6.0, 1.0, 1.0)))
        self.assertEqual('lower', replications.separation(
            replications.Estimate(5, 6.0, 1.0, 1.0), high))
        self.assertEqual('overlap', replications.separation(
            high, replications.Estimate(5, 12.0, 1.0, 1.0)))
        self.assertEqual('overlap', replications.separation(
            high, replications.Estimate(5, 11.0, 1.0, 1.0)))

    def test_no_interval_without_two_values(self):
        self.assertIsNone(replications.separation(
            replications.estimate([1.0]), replications.estimate([5, 6, 7])))
