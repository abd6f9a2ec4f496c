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

"""The Kubernetes scores in Kubernetes 1.9's integer arithmetic (the
default, ``[filter_scheduler] kubernetes_integer_scores``): CPU in
millicores, memory in bytes, every score an integer from 0 to 10.
"""

import numpy

from preemptible_sched.hosts import batch as host_batch
from preemptible_sched.scheduler.weighers import allocation_score
from preemptible_sched.scheduler.weighers import balanced_allocation
from preemptible_sched.scheduler.weighers import least_requested
from tests import base


def full_view(used, vcpus=8, memory_mb=16384):
    return base.make_host_state(
        instances=[base.make_instance('i', used)], vcpus=vcpus,
        memory_mb=memory_mb).full


class TestIntegerScores(base.TestCase):

    def weigh(self, weigher_class, used, request, **host):
        weigher = weigher_class()
        self.assertTrue(weigher.integer)
        view = full_view(used, **host)
        spec = base.make_spec(request)
        one = weigher._weigh_object(view, spec)
        # The vector form (a large batch of the same host) agrees.
        batch = host_batch.HostBatch.of_views([view] * 30)
        self.assertEqual([one] * 30,
                         weigher.weigh_all(batch, spec, None).tolist())
        return one

    def test_least_requested_truncates_each_resource_then_the_mean(self):
        # requested (3, 8000): cpu (8000 - 3000) * 10 // 8000 = 6 (6.25);
        # memory (16384 - 8000) * 10 // 16384 = 5 (5.117); (6 + 5) // 2
        # = 5 where the real formula gives 5.68.
        self.assertEqual(5.0, self.weigh(
            least_requested.LeastRequestedWeigher, (2, 4000, 0),
            (1, 4000, 0)))

    def test_least_requested_is_zero_for_a_resource_that_does_not_fit(self):
        # cpu 10 > 8: 0; memory (16384 - 8000) * 10 // 16384 = 5; 5 // 2.
        self.assertEqual(2.0, self.weigh(
            least_requested.LeastRequestedWeigher, (6, 4000, 0),
            (4, 4000, 0)))

    def test_least_requested_counts_fractional_vcpus_in_millicores(self):
        # 0.375 vCPU = 375 m on 4000 m: (4000 - 375) * 10 // 4000 = 9;
        # memory (3750 - 375) * 10 // 3750 = 9.
        self.assertEqual(9.0, self.weigh(
            least_requested.LeastRequestedWeigher, (0, 0, 0),
            (0.375, 375, 0), vcpus=4, memory_mb=3750))

    def test_balanced_allocation_truncates(self):
        # cpu 3000 / 8000 = 0.375; memory 8000 / 16384 = 0.48828125;
        # (1 - 0.11328125) * 10 = 8.87 -> 8.
        self.assertEqual(8.0, self.weigh(
            balanced_allocation.BalancedAllocationWeigher, (2, 4000, 0),
            (1, 4000, 0)))

    def test_balanced_allocation_in_kubernetes_order_of_operations(self):
        # Fractions 0.1 and 0.9: Kubernetes computes (1 - 0.8) * 10 =
        # 1.9999999999999996 and keeps 1; 10 - 10 * 0.8 would give 2.
        self.assertEqual(1.0, self.weigh(
            balanced_allocation.BalancedAllocationWeigher, (0, 0, 0),
            (1, 9000, 0), vcpus=10, memory_mb=10000))

    def test_balanced_allocation_is_zero_on_a_full_resource(self):
        self.assertEqual(0.0, self.weigh(
            balanced_allocation.BalancedAllocationWeigher, (6, 4000, 0),
            (2, 4000, 0)))

    def test_allocation_score_is_the_mean_of_two_integers(self):
        # least_requested 5 and balanced_allocation 8 (above): 6.5.
        self.assertEqual(6.5, self.weigh(
            allocation_score.AllocationScoreWeigher, (2, 4000, 0),
            (1, 4000, 0)))

    def test_hosts_kubernetes_ties_are_tied(self):
        # 3.0 and 3.2 vCPUs requested of 8, 5000 MB of 16384: CPU scores
        # 6.25 and 6.0 -> 6 and 6; balance (1 - 0.0698) * 10 = 9.30 and
        # (1 - 0.0948) * 10 = 9.05 -> 9 and 9: tied in Kubernetes, not in
        # reals.
        weigher = allocation_score.AllocationScoreWeigher()
        spec = base.make_spec((1, 1000, 0))
        views = [full_view((2.0, 4000, 0)), full_view((2.2, 4000, 0))]
        batch = host_batch.HostBatch.of_views(views * 15)
        integers = weigher.weigh_all(batch, spec, None)
        self.assertEqual(1, len(numpy.unique(integers)))
        self.flags(group='filter_scheduler', kubernetes_integer_scores=False)
        reals = allocation_score.AllocationScoreWeigher().weigh_all(
            batch, spec, None)
        self.assertEqual(2, len(numpy.unique(reals)))
