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
from preemptible_sched.scheduler.weighers import balanced_allocation
from tests import base


class TestBalancedAllocationWeigher(base.TestCase):
    """8 vCPU / 16384 MB blades unless told otherwise."""

    def setUp(self):
        super().setUp()
        # The real-valued formulas (the integer ones: TestIntegerScores).
        self.flags(group='filter_scheduler', kubernetes_integer_scores=False)
        self.weigher = balanced_allocation.BalancedAllocationWeigher()

    def _score(self, used, request, preemptible=False, **host_kw):
        instances = [base.make_instance('i', used, preemptible=preemptible)]
        state = base.make_host_state(instances=instances, **host_kw)
        return self.weigher._weigh_object(state.full,
                                          base.make_spec(request))

    def test_hand_computed(self):
        # cpu 4 / 8 = 0.5; memory 8000 / 16384 = 0.48828125.
        self.assertAlmostEqual(9.8828125,
                               self._score((2, 4000, 0), (2, 4000, 0)))

    def test_preemptible_usage_counts(self):
        self.assertAlmostEqual(
            9.8828125,
            self._score((2, 4000, 0), (2, 4000, 0), preemptible=True))

    def test_perfect_balance_is_ten(self):
        self.assertEqual(10.0, self._score((1, 2000, 0), (3, 6000, 0),
                                           memory_mb=16000))

    def test_unbalanced(self):
        # cpu 0.75, memory 0.125: 10 - 6.25.
        self.assertAlmostEqual(3.75, self._score((0, 0, 0), (6, 2048, 0)))

    def test_full_cpu_scores_zero(self):
        self.assertEqual(0.0, self._score((6, 4000, 0), (2, 4000, 0)))

    def test_full_memory_scores_zero(self):
        self.assertEqual(0.0, self._score((0, 12384, 0), (2, 4000, 0)))

    def test_zero_capacity_scores_zero(self):
        self.assertEqual(0.0, self._score((0, 0, 0), (0, 0, 0), vcpus=0))

    def test_fixed_bounds_normalise_to_score_over_ten(self):
        self.assertEqual((0.0, 10.0),
                         (self.weigher.minval, self.weigher.maxval))
        views = [base.make_host_state(name, instances=[
                     base.make_instance(name, used)]).full
                 for name, used in (('skewed', (4, 0, 0)),
                                    ('even', (1, 2048, 0)))]
        handler = weighers.WeightHandler([self.weigher])
        ranked = handler.get_weighed_objects(
            views, base.make_spec((1, 2048, 0)))
        # skewed: cpu 0.625, memory 0.125 -> 5; even: 0.25, 0.25 -> 10.
        self.assertEqual([('even', 1.0), ('skewed', 0.5)],
                         [(i.view.name, i.weight) for i in ranked])
