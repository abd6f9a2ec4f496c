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

from preemptible_sched import objects
from preemptible_sched.scheduler import weighers
from preemptible_sched.scheduler.weighers import termination_cost
from tests import base


class TestTerminationCostWeigher(base.TestCase):
    """A 4 vCPU request on 8 vCPU blades full of preemptible mediums."""

    def setUp(self):
        super().setUp()
        self.weigher = termination_cost.TerminationCostWeigher()
        self.spec = base.make_spec((4, 8000, 40))

    @staticmethod
    def _plan(name, *costs):
        victims = tuple(base.make_instance(f'{name}-v{i}',
                                           preemptible=True)
                        for i in range(len(costs)))
        return objects.TerminationPlan(name, victims, costs)

    def _views(self):
        # Two cheap victims beat one dear victim: the cost ranks, not
        # the count.
        planner = base.FakePlanner({
            'cheap': self._plan('cheap', 600.0, 300.0),
            'dear': self._plan('dear', 2000.0)})

        def host(name, preemptible):
            instances = [base.make_instance(f'{name}-p{i}',
                                            preemptible=True)
                         for i in range(preemptible)]
            return base.make_host_state(name, instances=instances,
                                        planner=planner).full

        return [host('dear', 4), host('never', 4), host('cheap', 4),
                host('fits', 2)]

    def test_raw_weights(self):
        self.assertEqual([-2000.0, None, -900.0, 0.0],
                         self.weigher.weigh_objects(self._views(), self.spec))

    def test_fitting_host_does_not_ask_planner(self):
        state = base.make_host_state(planner=base.RefusingPlanner())
        self.assertEqual(
            0.0, self.weigher.weigh_objects([state.full], self.spec)[0])

    def test_unplaceable_everywhere(self):
        views = [base.make_host_state(name, vcpus=2).full
                 for name in ('a', 'b')]
        self.assertEqual([None, None],
                         self.weigher.weigh_objects(views, self.spec))
        ranked = weighers.WeightHandler([self.weigher]).get_weighed_objects(
            views, self.spec)
        self.assertEqual([0.0, 0.0], [item.weight for item in ranked])

    def test_ranking_with_default_multiplier(self):
        handler = weighers.WeightHandler([self.weigher])
        ranked = handler.get_weighed_objects(self._views(), self.spec)
        self.assertEqual(['fits', 'cheap', 'dear', 'never'],
                         [item.view.name for item in ranked])
        # Default multiplier 10; bounds -2001 .. 0.
        expected = [10.0, 10 * 1101 / 2001, 10 * 1 / 2001, 0.0]
        for want, item in zip(expected, ranked):
            self.assertAlmostEqual(want, item.weight)
