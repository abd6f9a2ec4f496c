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
from preemptible_sched.scheduler.weighers import least_requested
from tests import base


class TestLeastRequestedWeigher(base.TestCase):
    """8 vCPU / 16384 MB blades."""

    def setUp(self):
        super().setUp()
        # The real-valued formulas (the integer ones: TestIntegerScores).
        self.flags(group='filter_scheduler', kubernetes_integer_scores=False)
        self.weigher = least_requested.LeastRequestedWeigher()

    def _score(self, used, request, preemptible=False, **host_kw):
        instances = [base.make_instance('i', used, preemptible=preemptible)]
        state = base.make_host_state(instances=instances, **host_kw)
        return self.weigher._weigh_object(state.full,
                                          base.make_spec(request))

    def test_hand_computed(self):
        # cpu 10 * (8 - 4) / 8 = 5; memory 10 * (16384 - 8000) / 16384.
        self.assertAlmostEqual(5.05859375,
                               self._score((2, 4000, 0), (2, 4000, 0)))

    def test_preemptible_usage_counts(self):
        self.assertAlmostEqual(
            5.05859375,
            self._score((2, 4000, 0), (2, 4000, 0), preemptible=True))

    def test_disk_ignored(self):
        self.assertAlmostEqual(5.05859375,
                               self._score((2, 4000, 300), (2, 4000, 150)))

    def test_overcommitted_term_clamped_to_zero(self):
        # cpu 10 * (8 - 10) / 8 = -2.5 -> 0; memory 5.1171875.
        self.assertAlmostEqual(2.55859375,
                               self._score((6, 4000, 0), (4, 4000, 0)))

    def test_zero_capacity_term_is_zero(self):
        # cpu capacity 0 -> 0; memory 10 * (16384 - 4000) / 16384.
        self.assertAlmostEqual(3.779296875,
                               self._score((0, 0, 0), (2, 4000, 0), vcpus=0))

    def test_empty_host_empty_request_is_ten(self):
        self.assertEqual(10.0, self._score((0, 0, 0), (0, 0, 0)))

    def test_fixed_bounds_normalise_to_score_over_ten(self):
        self.assertEqual((0.0, 10.0),
                         (self.weigher.minval, self.weigher.maxval))
        views = [base.make_host_state(name, instances=[
                     base.make_instance(name, used)]).full
                 for name, used in (('busy', (4, 8192, 0)),
                                    ('idle', (2, 4096, 0)))]
        handler = weighers.WeightHandler([self.weigher])
        ranked = handler.get_weighed_objects(
            views, base.make_spec((2, 4096, 0)))
        # busy: cpu 2.5, memory 2.5; idle: cpu 5, memory 5.
        self.assertEqual([('idle', 0.5), ('busy', 0.25)],
                         [(i.view.name, i.weight) for i in ranked])
