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
from preemptible_sched.scheduler.weighers import preemptible_count
from tests import base


class TestPreemptibleCountWeigher(base.TestCase):
    """A 4 vCPU / 8000 MB request on 8 vCPU / 16384 MB blades."""

    def setUp(self):
        super().setUp()
        self.weigher = preemptible_count.PreemptibleCountWeigher()
        self.spec = base.make_spec((4, 8000, 40))

    @staticmethod
    def _victims(name, count):
        victims = tuple(base.make_instance(f'{name}-v{i}',
                                           preemptible=True)
                        for i in range(count))
        return objects.TerminationPlan(name, victims, (5.0,) * count)

    def _views(self):
        planner = base.FakePlanner({'one': self._victims('one', 1),
                                    'two': self._victims('two', 2)})

        def host(name, normal, preemptible):
            instances = [base.make_instance(f'{name}-n{i}')
                         for i in range(normal)]
            instances += [base.make_instance(f'{name}-p{i}',
                                             preemptible=True)
                          for i in range(preemptible)]
            return base.make_host_state(name, instances=instances,
                                        planner=planner).full

        # 'never' cannot fit: its normal instances leave 2 vCPUs.
        return [host('never', 3, 1), host('two', 0, 4), host('fits', 1, 0),
                host('one', 0, 3)]

    def test_raw_weights(self):
        self.assertEqual([None, -2, 0, -1],
                         self.weigher.weigh_objects(self._views(), self.spec))

    def test_fitting_host_does_not_ask_planner(self):
        state = base.make_host_state(planner=base.RefusingPlanner())
        self.assertEqual(
            0, self.weigher.weigh_objects([state.full], self.spec)[0])

    def test_unplaceable_everywhere(self):
        views = [base.make_host_state(name, vcpus=2).full
                 for name in ('a', 'b')]
        self.assertEqual([None, None],
                         self.weigher.weigh_objects(views, self.spec))
        ranked = weighers.WeightHandler([self.weigher]).get_weighed_objects(
            views, self.spec)
        self.assertEqual([0.0, 0.0], [item.weight for item in ranked])

    def test_ranking(self):
        handler = weighers.WeightHandler([self.weigher])
        ranked = handler.get_weighed_objects(self._views(), self.spec)
        self.assertEqual(['fits', 'one', 'two', 'never'],
                         [item.view.name for item in ranked])
        self.assertEqual([1.0, 2 / 3, 1 / 3, 0.0],
                         [item.weight for item in ranked])
