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

"""The allocation weighers of stage R5: first, best and worst fit."""

import numpy

from preemptible_sched.hosts import batch as host_batch
from preemptible_sched import objects
from preemptible_sched.scheduler import weighers
from preemptible_sched.scheduler.weighers import best_fit
from preemptible_sched.scheduler.weighers import first_fit
from preemptible_sched.scheduler.weighers import fit
from preemptible_sched.scheduler.weighers import worst_fit
from tests import base


def hosts(free):
    """Host views named h0, h1 ... (registration order) with ``free``
    vCPUs free out of 4 (the rest taken by one instance each).
    """
    views = []
    for index, vcpus in enumerate(free):
        instances = [] if vcpus == 4 else [base.make_instance(
            'i%d' % index, (4 - vcpus, 0, 0))]
        views.append(base.make_host_state('h%d' % index, vcpus=4,
                                          instances=instances).full)
    return views


class FitTestMixin:

    cls = None

    def setUp(self):
        super().setUp()
        self.weigher = self.cls()
        self.handler = weighers.WeightHandler([self.weigher])

    def choose(self, free, vcpus=1):
        """The name of the host the weigher ranks first for ``vcpus``, and
        how many hosts share the best total (the scheduler draws among
        them at random: always 1 here).
        """
        views = hosts(free)
        spec = base.make_spec(objects.Resources(vcpus, 0, 0))
        ranking = self.handler.rank(host_batch.HostBatch.of_views(views),
                                    spec)
        best = ranking.top(1)
        return views[int(best[0])].name, len(best)

    def test_vector_and_per_host_forms_agree(self):
        views = hosts([3, 1, 4, 1, 2, 4, 0, 3])
        spec = base.make_spec(objects.Resources(1, 0, 0))
        per_host = self.weigher.weigh_objects(views, spec)
        vector = self.weigher.weigh_all(
            host_batch.HostBatch.of_views(views), spec, None)
        self.assertEqual(per_host, vector.tolist())
        # Ranks: one host per weight, 0 the best.
        self.assertEqual(sorted(per_host), [-7.0, -6.0, -5.0, -4.0, -3.0,
                                            -2.0, -1.0, 0.0])


class TestFirstFit(FitTestMixin, base.TestCase):

    cls = first_fit.FirstFitWeigher

    def test_first_registered_whatever_the_room(self):
        self.assertEqual(('h0', 1), self.choose([1, 4, 4]))
        self.assertEqual(('h0', 1), self.choose([4, 1, 2]))


class TestBestFit(FitTestMixin, base.TestCase):

    cls = best_fit.BestFitWeigher

    def test_least_left_over(self):
        # Left after 1 vCPU: 2, 0, 3 -> h1.
        self.assertEqual(('h1', 1), self.choose([3, 1, 4]))
        # 2 vCPUs on 4, 3, 2 free: left 2, 1, 0 -> h2.
        self.assertEqual(('h2', 1), self.choose([4, 3, 2], vcpus=2))

    def test_ties_go_to_the_host_registered_first(self):
        # h1 and h3 both leave 0; h1 came first.
        self.assertEqual(('h1', 1), self.choose([4, 1, 3, 1]))
        self.assertEqual(('h0', 1), self.choose([2, 2, 2]))

    def test_ranks_by_leftover_then_position(self):
        # Leftovers 1, 0, 3, 0 -> order h1, h3, h0, h2.
        weights = fit.ranks(fit.leftover(numpy.array([2., 1., 4., 1.]),
                                         base.make_spec((1, 0, 0))))
        self.assertEqual([-2.0, 0.0, -3.0, -1.0], weights.tolist())


class TestWorstFit(FitTestMixin, base.TestCase):

    cls = worst_fit.WorstFitWeigher

    def test_most_left_over(self):
        self.assertEqual(('h2', 1), self.choose([3, 1, 4]))

    def test_ties_go_to_the_host_registered_first(self):
        # h1 and h2 both have 4 free; h1 came first.
        self.assertEqual(('h1', 1), self.choose([3, 4, 4, 2]))
