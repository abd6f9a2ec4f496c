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

"""Priority-based preemption (the Kubernetes default scheduler's rule).

8 vCPU / 16384 MB / 500 GB blades.
"""

from preemptible_sched import objects
from preemptible_sched.scheduler import preemption_strategies as preemption
from preemptible_sched.scheduler.preemption_strategies import priority
from tests import base

NOW = 1000.0
MEDIUM = (2, 4000, 40)


def instance(instance_id, prio, admitted_at=0.0, running_since=0.0,
             resources=MEDIUM, **kw):
    return base.make_instance(instance_id, resources, priority=prio,
                              admitted_at=admitted_at,
                              running_since=running_since, **kw)


def request(prio, resources=MEDIUM):
    return objects.PendingRequest(
        base.make_spec(resources, priority=prio), NOW, 0)


class TestPriorityPolicy(base.TestCase):

    def setUp(self):
        super().setUp()
        self.policy = priority.PriorityStrategy()

    def _victims(self, state, pending):
        candidates = self.policy.displaceable(state, pending, NOW)
        plan = self.policy.plan(state, pending, candidates, NOW)
        victims = None if plan is None else plan.victims
        return None if victims is None else sorted(v.id for v in victims)

    def test_only_strictly_lower_priority(self):
        state = base.make_host_state(instances=[
            instance('lower', 1), instance('equal', 2),
            instance('higher', 3), instance('booting', 1,
                                            running_since=None)])
        candidates = self.policy.displaceable(state, request(2), NOW)
        self.assertEqual(['lower'], [i.id for i in candidates])

    def test_booting_instances_with_preempt_booting(self):
        # As Kubernetes would: a booting instance of lower priority is a
        # candidate too, and among equals the younger goes first.
        policy = priority.PriorityStrategy(booting=True)
        state = base.make_host_state(instances=[
            instance('lower', 1, 10), instance('equal', 2),
            instance('higher', 3), instance('booting', 1, 20,
                                            running_since=None)])
        candidates = policy.displaceable(state, request(2), NOW)
        self.assertEqual(['lower', 'booting'], [i.id for i in candidates])
        plan = policy.plan(state, request(2), candidates, NOW)
        self.assertEqual(['booting'], [v.id for v in plan.victims])

    def test_preempt_booting_is_read_from_the_configuration(self):
        self.assertFalse(priority.PriorityStrategy().booting)
        self.flags(preempt_booting=True, group='qos')
        self.assertTrue(priority.PriorityStrategy().booting)

    def test_preemptible_flag_plays_no_part(self):
        state = base.make_host_state(instances=[
            instance('normal-low', 1, preemptible=False),
            instance('spot-high', 5, preemptible=True)])
        candidates = self.policy.displaceable(state, request(2), NOW)
        self.assertEqual(['normal-low'], [i.id for i in candidates])

    def test_lowest_priority_goes_first(self):
        # Full blade: p1 admitted at 10 and 20, p0 at 30, p3 not eligible.
        state = base.make_host_state(instances=[
            instance('p1-old', 1, 10), instance('p1-new', 1, 20),
            instance('p0', 0, 30), instance('p3', 3, 0)])
        self.assertEqual(['p0'], self._victims(state, request(2)))

    def test_among_equals_the_most_recently_admitted_goes_first(self):
        state = base.make_host_state(instances=[
            instance('p1-old', 1, 10), instance('p1-new', 1, 20),
            instance('p0', 0, 30), instance('p3', 3, 0)])
        # Two slots: p0, then the younger p1.
        self.assertEqual(['p0', 'p1-new'],
                         self._victims(state, request(2, (4, 8000, 80))))

    def test_admission_falls_back_to_start(self):
        state = base.make_host_state(instances=[
            instance('old', 1, None, started_at=10),
            instance('new', 1, None, started_at=20),
            instance('p3a', 3), instance('p3b', 3)])
        self.assertEqual(['new'], self._victims(state, request(2)))

    def test_minimal_set(self):
        # Keep order: h (2, 4 vCPUs), then l-old (1, 1 vCPU), l-new (1,
        # 1 vCPU); 'top' (5, 2 vCPUs) is not eligible. Request 4 vCPUs:
        # all removed -> 2 + 4 fits; h back -> 6 + 4 = 10 no; l-old back
        # -> 3 + 4 fits; l-new back -> 4 + 4 = 8 fits. Victims: h only.
        state = base.make_host_state(instances=[
            instance('top', 5, resources=(2, 2000, 0)),
            instance('h', 2, resources=(4, 4000, 0)),
            instance('l-old', 1, 10, resources=(1, 1000, 0)),
            instance('l-new', 1, 20, resources=(1, 1000, 0))])
        self.assertEqual(['h'], self._victims(state,
                                              request(3, (4, 4000, 0))))

    def test_infeasible(self):
        state = base.make_host_state(instances=[
            instance('p1', 1), instance('p5a', 5), instance('p5b', 5),
            instance('p5c', 5)])
        # Only p1 (2 vCPUs) may go: 6 + 4 > 8.
        self.assertIsNone(self._victims(state, request(2, (4, 4000, 0))))

    def _scores(self, *plans):
        """The scores of ``plans`` (each a list of victims' priorities),
        compared together as the hosts of one decision are.
        """
        scores = preemption.plan_scores(
            {index: objects.TerminationPlan('h%d' % index, tuple(
                instance('v%d' % i, p) for i, p in enumerate(priorities)))
             for index, priorities in enumerate(plans)},
            lambda victim: self.policy.victim_standing(victim, request(3),
                                                       NOW))
        return [scores[index] for index in range(len(plans))]

    def assertCheaper(self, cheaper, dearer):
        first, second = self._scores(cheaper, dearer)
        self.assertLess(first, second)

    def test_fewer_at_the_highest_priority_wins(self):
        # One victim of priority 2 is worse than three of priority 1.
        self.assertCheaper([1, 1, 1], [2])

    def test_then_fewer_at_the_next_priority(self):
        self.assertCheaper([2, 1], [2, 1, 1])
        self.assertCheaper([1, 2], [2, 2])
        # (2, 1, 1): one at 2 beats (2, 2): two at 2
        self.assertCheaper([1, 2, 1], [2, 2])

    def test_same_priorities_tie_in_any_order(self):
        first, second = self._scores([0, 2, 1], [1, 0, 2])
        self.assertEqual(first, second)
        self.assertNotEqual(*self._scores([2, 1], [2, 1, 0]))

    def test_score_counts_victims_per_priority_highest_first(self):
        # Priorities 2, 1 and 0 among the plans: (at 2, at 1, at 0, safe).
        self.assertEqual([(1.0, 1.0, 1.0, 0.0), (2.0, 0.0, 0.0, 0.0)],
                         self._scores([0, 2, 1], [2, 2]))

    def test_orders_plans_as_their_priorities_sorted_highest_first(self):
        # Counting per priority orders plans as comparing their victims'
        # priorities sorted highest first (the Kubernetes rule) does.
        plans = [[], [0], [1], [2], [1, 1], [1, 1, 1], [2, 1], [2, 1, 1],
                 [2, 2], [1, 0], [1, 0, 0], [2, 0], [0, 0, 0, 0]]
        scores = self._scores(*plans)
        for a, plan_a in enumerate(plans):
            for b, plan_b in enumerate(plans):
                by_sort = (sorted(plan_a, reverse=True) <
                           sorted(plan_b, reverse=True))
                self.assertEqual(by_sort, scores[a] < scores[b],
                                 (plan_a, plan_b))


class TestLoad(base.TestCase):

    def test_loaded_by_name(self):
        policy = preemption.load('priority')
        self.assertIsInstance(policy, priority.PriorityStrategy)
        self.assertFalse(policy.spot)
