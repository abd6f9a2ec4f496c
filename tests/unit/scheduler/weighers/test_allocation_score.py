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

from preemptible_sched.scheduler import weighers
from preemptible_sched.scheduler.weighers import allocation_score
from tests import base


class TestAllocationScoreWeigher(base.TestCase):
    """8 vCPU blades with 16000 MB, so the fractions come out round."""

    def setUp(self):
        super().setUp()
        # The real-valued formulas (the integer ones: TestIntegerScores).
        self.flags(group='filter_scheduler', kubernetes_integer_scores=False)
        self.weigher = allocation_score.AllocationScoreWeigher()

    def _score(self, used, request, preemptible=False):
        instances = [base.make_instance('i', used, preemptible=preemptible)]
        state = base.make_host_state(memory_mb=16000, instances=instances)
        return self.weigher._weigh_object(state.full,
                                          base.make_spec(request))

    def test_hand_computed(self):
        # requested = (2, 4000) + (2, 2000) = (4, 6000):
        # least_requested: cpu 10 * 4 / 8 = 5, memory 10 * 10000 / 16000
        # = 6.25, mean 5.625; balanced: 10 - 10 * |0.5 - 0.375| = 8.75;
        # allocation score (5.625 + 8.75) / 2 = 7.1875.
        self.assertAlmostEqual(7.1875,
                               self._score((2, 4000, 0), (2, 2000, 0)))

    def test_preemptible_usage_counts(self):
        self.assertAlmostEqual(
            7.1875, self._score((2, 4000, 0), (2, 2000, 0), True))

    def test_empty_host_balanced_request(self):
        # requested (2, 4000): least 10 * 0.75 = 7.5 each; balanced 10;
        # (7.5 + 10) / 2 = 8.75.
        self.assertAlmostEqual(8.75, self._score((0, 0, 0), (2, 4000, 0)))

    def test_full_cpu(self):
        # requested (8, 4000): least (0 + 7.5) / 2 = 3.75; balanced 0
        # (cpu fraction 1); (3.75 + 0) / 2 = 1.875.
        self.assertAlmostEqual(1.875, self._score((6, 2000, 0),
                                                  (2, 2000, 0)))

    def test_fixed_bounds(self):
        self.assertEqual((0.0, 10.0),
                         (self.weigher.minval, self.weigher.maxval))
        views = [base.make_host_state(
                     name, memory_mb=16000,
                     instances=[base.make_instance(name, used)]).full
                 for name, used in (('busy', (6, 2000, 0)),
                                    ('idle', (2, 4000, 0)))]
        handler = weighers.WeightHandler([self.weigher])
        ranked = handler.get_weighed_objects(views,
                                             base.make_spec((2, 2000, 0)))
        # idle 7.1875 / 10, busy 1.875 / 10 (as above).
        self.assertEqual(['idle', 'busy'], [i.view.name for i in ranked])
        self.assertAlmostEqual(0.71875, ranked[0].weight)
        self.assertAlmostEqual(0.1875, ranked[1].weight)

    def test_loaded_by_name(self):
        handler = weighers.WeightHandler.from_names(['allocation_score'])
        self.assertEqual(['allocation_score'],
                         [w.name for w in handler.weighers])
