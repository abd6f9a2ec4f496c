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

"""The termination planner on host states, the reference brute force,
and the selector's answers at the edges of the integer scaling."""

from hypothesis import given
from hypothesis import settings

from preemptible_sched import objects
from preemptible_sched.scheduler import termination_planner
from preemptible_sched.scheduler import termination_selector as selector
from tests import base
from tests import oracles
from tests.unit.scheduler import test_termination_selector as reference

SMALL = (1, 2000, 20)
MEDIUM = (2, 4000, 40)
LARGE = (4, 8000, 80)
BLADE = (8, 16384, 500)


class TestBruteForce(base.TestCase):

    def test_nothing_needed(self):
        self.assertEqual((), oracles.brute_force([MEDIUM], [1], ['a'],
                                                 (0, 0, 0), BLADE))
        self.assertEqual((), oracles.brute_force([MEDIUM], [1], ['a'],
                                                 (-1, 0, -5), BLADE))

    def test_tiny_need_still_needs_a_victim(self):
        # One billionth of a vCPU is the smallest amount that counts.
        for solve in (selector.select, oracles.brute_force):
            self.assertEqual((0,), solve([SMALL], [1], ['a'],
                                         (1e-9, 0, 0), BLADE))

    def test_tiny_candidates_still_count(self):
        # Two candidates of a billionth of a vCPU each cover a need of two.
        tiny = (1e-9, 0, 0)
        for solve in (selector.select, oracles.brute_force):
            self.assertEqual((0, 1), solve([tiny, tiny], [1, 1], ['a', 'b'],
                                           (2e-9, 0, 0), BLADE))

    def test_single_first_candidate(self):
        self.assertEqual((0,), oracles.brute_force(
            [MEDIUM, MEDIUM], [1, 2], ['a', 'b'], (2, 0, 0), BLADE))

    def test_impossible(self):
        self.assertIsNone(oracles.brute_force(
            [SMALL, SMALL], [1, 1], ['a', 'b'], (3, 0, 0), BLADE))

    def test_answer_sorted_by_id_not_by_position(self):
        chosen = oracles.brute_force([SMALL, SMALL, LARGE], [1, 1, 9],
                                     ['z', 'a', 'm'], (2, 0, 0), BLADE)
        self.assertEqual((1, 0), chosen)
        self.assertEqual((1, 0), selector.select(
            [SMALL, SMALL, LARGE], [1, 1, 9], ['z', 'a', 'm'], (2, 0, 0),
            BLADE))

    @settings(max_examples=150, deadline=None)
    @given(reference.problems())
    def test_brute_force_equals_the_independent_oracle(self, problem):
        resources, costs, ids, need = problem
        resources, costs, ids = resources[:9], costs[:9], ids[:9]
        self.assertEqual(
            oracles.independent_brute_force(resources, costs, ids, need,
                                            BLADE),
            oracles.brute_force(resources, costs, ids, need, BLADE))


class TestSolutionKey(base.TestCase):

    def test_cost_count_excess_ids(self):
        resources_q, costs_q, need_q, capacity_q = selector.quantize_problem(
            [MEDIUM, LARGE], [1.5, 2.0], (2, 2000, 0), BLADE)
        key = selector.solution_key([1, 0], costs_q, resources_q,
                                    ['b', 'a'], need_q, capacity_q)
        # Freed (6, 12000, 120) of need (2, 2000, 0) on (8, 16384, 500).
        excess = 4 / 8 + 10000 / 16384 + 120 / 500
        self.assertEqual((3500000, 2, ('a', 'b')),
                         (key[0], key[1], key[3]))
        self.assertAlmostEqual(excess, key[2])

    def test_quantized_sizes_and_costs(self):
        resources_q, costs_q, need_q, capacity_q = selector.quantize_problem(
            [(0.25, 1, 2)], [0.5], (1, -3, 0), (8, 16, 32))
        self.assertEqual([(250000000, 10 ** 9, 2 * 10 ** 9)], resources_q)
        self.assertEqual([500000], costs_q)
        self.assertEqual((10 ** 9, -3 * 10 ** 9, 0), need_q)
        self.assertEqual((8 * 10 ** 9, 16 * 10 ** 9, 32 * 10 ** 9),
                         capacity_q)


class TestPlanner(base.TestCase):

    def setUp(self):
        super().setUp()
        self.calls = []

        def cost(instance, state, now):
            self.calls.append((instance.id, state.name, now))
            return {'p1': 30.0, 'p2': 10.0, 'p3': 20.0}[instance.id]
        self.planner = termination_planner.TerminationPlanner(
            objects_costs(cost))
        self.state = base.make_host_state(
            name='h', planner=self.planner, instances=[
                base.make_instance('n1', LARGE),
                base.make_instance('p1', SMALL, preemptible=True),
                base.make_instance('p2', SMALL, preemptible=True),
                base.make_instance('p3', (2, 4000, 40), preemptible=True)])

    def test_cheapest_set_with_its_costs(self):
        # Free: 0 vCPUs. Need 2: p2 + p1 (40) or p3 (20): p3.
        plan = self.planner.plan(self.state, objects.Resources(2, 100, 1),
                                 now=5.0)
        self.assertEqual(('h', ['p3'], (20.0,)),
                         (plan.host, plan.victim_ids, plan.costs))
        self.assertEqual(20.0, plan.cost)
        # Each candidate priced once, at the decision time.
        self.assertEqual([('p1', 'h', 5.0), ('p2', 'h', 5.0),
                          ('p3', 'h', 5.0)], sorted(self.calls))

    def test_need_measured_on_the_free_room(self):
        # Releasing n1 leaves 4 vCPUs free: 5 needs 1 more, p2 is cheapest.
        self.state.release('n1')
        plan = self.planner.plan(self.state, objects.Resources(5, 100, 1),
                                 now=0.0)
        self.assertEqual(['p2'], plan.victim_ids)

    def test_cost_override(self):
        plan = self.planner.plan(self.state, objects.Resources(2, 100, 1),
                                 now=0.0, cost=lambda i, s, n: 1.0)
        # Unit costs: one victim (p3) beats two.
        self.assertEqual((['p3'], (1.0,)), (plan.victim_ids, plan.costs))
        self.assertEqual([], self.calls)

    def test_impossible_is_none(self):
        self.assertIsNone(self.planner.plan(
            self.state, objects.Resources(5, 100, 1), now=0.0))

    def test_victims_are_not_removed(self):
        self.planner.plan(self.state, objects.Resources(2, 100, 1), now=0.0)
        self.assertEqual(['n1', 'p1', 'p2', 'p3'],
                         sorted(self.state.instances))


def objects_costs(function):
    """A cost handler whose ``cost`` is ``function``."""
    class Costs:
        cost = staticmethod(function)
    return Costs()
