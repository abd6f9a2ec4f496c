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


import math

import numpy

from preemptible_sched.scheduler.weighers import target_load_packing as tlp
from tests import base
from tests import load_helpers as helpers


class TestScore(base.TestCase):
    """The formula at its breakpoints, by hand."""

    def test_breakpoints_at_default_target(self):
        # X = 40: 0 -> X; X -> 100; just above X falls; 100 -> 0; > 100 -> 0.
        self.assertEqual(40.0, tlp.score(0.0, 40.0))
        self.assertEqual(100.0, tlp.score(40.0, 40.0))
        # 40 * (100 - 40.001) / 60
        self.assertAlmostEqual(40 * 59.999 / 60, tlp.score(40.001, 40.0))
        self.assertLess(tlp.score(40.001, 40.0), 100.0)
        self.assertEqual(0.0, tlp.score(100.0, 40.0))
        self.assertEqual(0.0, tlp.score(100.5, 40.0))
        self.assertEqual(0.0, tlp.score(1e9, 40.0))

    def test_rising_side(self):
        # (100 - 40) * 20 / 40 + 40 = 70
        self.assertEqual(70.0, tlp.score(20.0, 40.0))

    def test_worked_examples(self):
        # X = 50, hosts at 25 / 50 / 75 %: 75, 100, 25.
        self.assertEqual([75.0, 100.0, 25.0],
                         [tlp.score(u, 50.0) for u in (25.0, 50.0, 75.0)])
        # X = 40, U = 50: 40 * 50 / 60 = 33.33 (not 41.67).
        self.assertAlmostEqual(100.0 / 3.0, tlp.score(50.0, 40.0))

    def test_vector_matches_scalar(self):
        values = numpy.array([0.0, 10.0, 39.999, 40.0, 40.001, 73.0, 99.9,
                              100.0, 100.1, 250.0, math.inf])
        expected = [tlp.score(float(u), 40.0) for u in values]
        self.assertEqual(expected, tlp.scores(values, 40.0).tolist())


class TestWeigher(base.TestCase):

    def setUp(self):
        super().setUp()
        self.weigher = tlp.TargetLoadPackingWeigher()

    def _both(self, manager, spec):
        return helpers.weigh_both(self, self.weigher, manager, spec)

    def _design_example(self, **kw):
        # Three 4-core hosts at 25 / 50 / 75 % CPU.
        return helpers.loaded_manager([
            ('n1', 4, 8192, helpers.cpu(25.0), [helpers.old_instance('a')]),
            ('n2', 4, 8192, helpers.cpu(50.0), [helpers.old_instance('b')]),
            ('n3', 4, 8192, helpers.cpu(75.0), [helpers.old_instance('c')]),
        ], **kw)

    def test_design_example(self):
        self.flags(group='target_load_packing', target_utilization=50.0)
        spec = base.make_spec((1, 512, 0), expected_vcpus=0.0)
        self.assertEqual([75.0, 100.0, 25.0],
                         self._both(self._design_example(), spec))

    def test_request_prediction_capped_by_vcpus(self):
        # expected 2 * 1.5 = 3 cores, capped at the 1 vCPU: +25 % on 4.
        self.flags(group='target_load_packing', target_utilization=50.0)
        spec = base.make_spec((1, 512, 0), expected_vcpus=2.0)
        # U = 50 / 75 / 100 -> 100, 50 * 25 / 50, 0
        self.assertEqual([100.0, 25.0, 0.0],
                         self._both(self._design_example(), spec))

    def test_request_prediction_uses_multiplier(self):
        # expected 0.4 * 1.5 = 0.6 core of 4 = 15 %.
        self.flags(group='target_load_packing', target_utilization=50.0)
        spec = base.make_spec((2, 512, 0), expected_vcpus=0.4)
        weights = self._both(self._design_example(), spec)
        self.assertAlmostEqual(tlp.score(40.0, 50.0), weights[0])
        self.assertAlmostEqual(tlp.score(65.0, 50.0), weights[1])

    def test_without_expected_usage_the_vcpus_count(self):
        self.flags(group='target_load_packing', target_utilization=50.0)
        spec = base.make_spec((2, 512, 0))
        # U = 75 / 100 / 125 -> 25, 0, 0
        self.assertEqual([25.0, 0.0, 0.0],
                         self._both(self._design_example(), spec))

    def test_recent_placements_count_on_every_host(self):
        # Placed 10 s before the window's end: not visible yet; one
        # placed 100 s before it is.
        self.flags(group='target_load_packing', target_utilization=50.0)
        recent = helpers.old_instance('r', vcpus=1.0, at=-40.0)
        seen = helpers.old_instance('s', vcpus=1.0, at=-130.0)
        manager = helpers.loaded_manager([
            ('n1', 4, 8192, helpers.cpu(25.0), [recent, seen]),
        ])
        spec = base.make_spec((1, 512, 0), expected_vcpus=0.0)
        # 25 + 25 (recent) -> 100.
        self.assertEqual([100.0], self._both(manager, spec))

    def test_unknown_load_scores_zero_new_host_is_empty(self):
        self.flags(group='target_load_packing', target_utilization=50.0)
        manager = helpers.loaded_manager([
            ('known', 4, 8192, helpers.cpu(25.0), [helpers.old_instance('a')]),
            ('missing', 4, 8192, None, [helpers.old_instance('b')]),
            ('new', 4, 8192, None, []),
        ])
        spec = base.make_spec((1, 512, 0), expected_vcpus=0.0)
        # new: U = 0 -> X = 50
        self.assertEqual([75.0, 0.0, 50.0], self._both(manager, spec))

    def test_fallback_is_best_fit_on_allocations(self):
        manager = helpers.loaded_manager([
            ('a', 8, 8192, helpers.cpu(10.0), [helpers.old_instance(
                'a1', vcpus=2)]),
            ('b', 8, 8192, helpers.cpu(90.0), [helpers.old_instance(
                'b1', vcpus=6)]),
            ('c', 8, 8192, helpers.cpu(90.0), [helpers.old_instance(
                'c1', vcpus=7.5)]),
        ], source_problem='connection refused')
        spec = base.make_spec((1, 512, 0))
        # after placement 3/8, 7/8, does not fit (1 > 0.5 free): 0.
        self.assertEqual([37.5, 87.5, 0.0], self._both(manager, spec))

    def test_bounds_fixed(self):
        self.assertEqual((0.0, 100.0), (self.weigher.minval,
                                        self.weigher.maxval))
