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

"""The termination bounds of every host hold the exact selector's answer.

On random hosts (random candidate sizes, costs from every built-in
termination cost, held victims), for a random request, each host's bounds
from :meth:`TerminationPlanner.bounds` must contain the cost of the plan
the exact selector finds there (NaN exactly where it finds none), and be
that cost, bit for bit, where they are equal; the same with the close
bounds of hosts of few victims turned off, so that every host gets the
loose ones.
"""

import itertools
import math
from unittest import mock

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
import numpy

from preemptible_sched.hosts import manager as host_manager
from preemptible_sched import objects
from preemptible_sched.scheduler import termination_bounds
from preemptible_sched.scheduler import termination_costs as termination
from preemptible_sched.scheduler import termination_planner
from preemptible_sched.scheduler import termination_selector
from tests import base

#: Above the exact cost, the close bounds leave room for the selector's
#: choice among sets of one scaled cost: half a scaled unit a member of
#: two sets of at most four.
SLACK = 4 / termination_selector.COST_SCALE
SIZES = st.sampled_from([(1, 2000, 20), (2, 4000, 40), (0.5, 1000, 10),
                         (4, 8000, 80), (1, 6000, 5), (3, 1000, 100)])


@st.composite
def clouds(draw):
    hosts = []
    for h in range(draw(st.integers(1, 8))):
        instances = []
        used = [0.0, 0.0, 0.0]
        for i in range(draw(st.integers(0, 9))):
            size = draw(SIZES)
            limits = (8, 16384, 160)
            if any(u + s > c for u, s, c in zip(used, size, limits)):
                continue
            used = [u + s for u, s in zip(used, size)]
            instances.append(objects.Instance(
                'h%di%d' % (h, i), objects.Resources(*size),
                draw(st.integers(0, 3)) > 0,
                started_at=-float(draw(st.sampled_from(
                    [0, 1, 60, 3599, 3600, 3601, 5000, 7200]))),
                priority=float(draw(st.integers(0, 2)))))
        hosts.append((instances, draw(st.integers(0, 1))))
    request = objects.Resources(*draw(SIZES))
    cost = draw(st.sampled_from([['billing_period'], ['runtime'], ['count'],
                                 ['priority'],
                                 ['billing_period', 'count']]))
    return hosts, request, cost, float(draw(st.integers(0, 3)) * 1800)


class TestBoundsHoldTheExactCost(base.TestCase):

    @settings(max_examples=300, deadline=None)
    @given(clouds(), st.booleans(), st.sampled_from([8, 0]))
    def test_bounds_contain_the_exact_cost(self, cloud, unit, dense_width):
        with mock.patch.object(termination_bounds, 'DENSE_WIDTH',
                               dense_width):
            self._check_bounds(cloud, unit)

    def _check_bounds(self, cloud, unit):
        hosts, request, cost, now = cloud
        planner = termination_planner.TerminationPlanner(
            termination.TerminationCostHandler.from_names(cost))
        manager = host_manager.HostManager(planner)
        for h, (instances, held) in enumerate(hosts):
            name = 'h%d' % h
            manager.add_host(objects.Host(name, 8, 16384, 160))
            for instance in instances:
                manager.add_instance(name, instance)
            for victim in [i for i in instances if i.preemptible][:held]:
                manager.hold_victim(name, victim, 'held')
        batch = manager.batch()
        low, high = planner.bounds(batch, request, now, unit=unit)
        for position, name in enumerate(batch.names):
            state = manager.host_states[name]
            if unit:
                count = state.termination_count(request, now)
                exact = None if count is None else count
            else:
                plan = state.termination_plan(request, now)
                exact = None if plan is None else plan.cost
            if exact is None:
                self.assertTrue(math.isnan(low[position]), name)
                self.assertTrue(math.isnan(high[position]), name)
                continue
            self.assertLessEqual(low[position], exact, name)
            self.assertGreaterEqual(high[position], exact, name)
            if low[position] == high[position]:
                self.assertEqual(exact, low[position], name)

    def test_one_covering_victim_is_exact_and_two_are_bounded(self):
        planner = termination_planner.TerminationPlanner(
            termination.TerminationCostHandler.from_names(['runtime']))
        manager = host_manager.HostManager(planner)
        for name in ('one', 'two'):
            manager.add_host(objects.Host(name, 4, 8192, 100))
        # "one" needs 2 vCPUs: its 2-vCPU victim (ran 50 s) covers alone.
        manager.add_instance('one', objects.Instance(
            'a', objects.Resources(2, 1000, 10), True, started_at=-50.0))
        manager.add_instance('one', objects.Instance(
            'b', objects.Resources(2, 1000, 10), False))
        # "two" needs 2 vCPUs from two 1-vCPU victims (10 s and 30 s).
        for index, started in enumerate((-10.0, -30.0)):
            manager.add_instance('two', objects.Instance(
                't%d' % index, objects.Resources(1, 1000, 10), True,
                started_at=started))
        manager.add_instance('two', objects.Instance(
            'n', objects.Resources(2, 1000, 10), False))
        low, high = planner.bounds(manager.batch(),
                                   objects.Resources(2, 1000, 10), 0.0)
        self.assertEqual(50.0, low[0])
        self.assertEqual(50.0, high[0])
        # Two victims: within a billionth of 40 s below, and above within
        # a billionth and the few millionths of a second the selector's
        # ties on scaled costs allow (SLACK).
        self.assertLess(low[1], high[1])
        self.assertLessEqual(low[1], 40.0)
        self.assertGreaterEqual(high[1], 40.0)
        self.assertGreater(low[1], 40.0 * (1 - 2e-9))
        self.assertLess(high[1], 40.0 * (1 + 2e-9) + SLACK)

    def test_hosts_of_few_victims_are_bounded_closely(self):
        # Four 2-vCPU victims a host, a request that needs 2 or 3 of them:
        # the cheapest set is the 2 (or 3) cheapest, and the bounds hold
        # it within a billionth (and SLACK above).
        planner = termination_planner.TerminationPlanner(
            termination.TerminationCostHandler.from_names(['runtime']))
        manager = host_manager.HostManager(planner)
        runs = [(7.0, 3.0, 11.0, 5.0), (2.0, 13.0, 17.0, 19.0),
                (23.0, 29.0, 31.0, 1.0)]
        for h, times in enumerate(runs):
            manager.add_host(objects.Host('h%d' % h, 8, 16384, 160))
            for i, ran in enumerate(times):
                manager.add_instance('h%d' % h, objects.Instance(
                    'h%di%d' % (h, i), objects.Resources(2, 4096, 40), True,
                    started_at=-ran))
        for need, request in ((2, objects.Resources(4, 8192, 80)),
                              (3, objects.Resources(6, 12288, 120))):
            low, high = planner.bounds(manager.batch(), request, 0.0)
            for h, times in enumerate(runs):
                exact = sum(sorted(times)[:need])
                self.assertLessEqual(low[h], exact)
                self.assertGreaterEqual(high[h], exact)
                self.assertGreater(low[h], exact * (1 - 2e-9), (need, h))
                self.assertLess(high[h], exact * (1 + 2e-9) + SLACK,
                                (need, h))

    def test_the_sorting_network_sorts_every_width_it_is_used_at(self):
        # By the 0-1 principle, a network that sorts every sequence of 0s
        # and 1s sorts every sequence.
        for width in range(1, termination_bounds.DENSE_WIDTH + 1):
            network = termination_bounds.sorting_network(width)
            for bits in itertools.product((0, 1), repeat=width):
                items = list(bits)
                for upper, lower in network:
                    if items[lower] < items[upper]:
                        items[upper], items[lower] = items[lower], items[upper]
                self.assertEqual(sorted(bits), items, width)

    @settings(max_examples=100, deadline=None)
    @given(st.integers(1, 8), st.integers(1, 6), st.integers(0, 2 ** 32))
    def test_sorted_columns_carry_their_grids_along(self, width, count,
                                                    seed):
        rng = numpy.random.default_rng(seed)
        # Costs drawn from a few values, so that ties are frequent.
        keys = rng.choice([0.0, 1.5, 2.25, 7.0, 1e6], size=(width, count))
        grid = rng.integers(0, 10 ** 12, size=(width, count))
        original = keys.copy()
        got, (carried,) = termination_bounds._sort_columns(keys, [grid])
        self.assertIs(keys, got)    # in place
        for column in range(count):
            pairs = sorted(zip(original[:, column], grid[:, column]))
            # Sorted down the column (these costs are far more than a few
            # ulps apart), each grid value beside its own cost.
            self.assertEqual([cost for cost, _ in pairs],
                             got[:, column].tolist())
            self.assertEqual(sorted(pairs), sorted(zip(
                got[:, column].tolist(), carried[:, column].tolist())))


class TestOneVictimProvably(base.TestCase):
    """Where one covering victim is claimed to be the exact answer, and
    where it is not, on a full 2-vCPU request (both ways of laying out the
    candidates).
    """

    def check(self, victims, exact, claimed):
        """``victims`` (name, vCPUs, seconds run) on a full host: the
        selector's cost is ``exact``; the bounds are it exactly when
        ``claimed``, else enclose it without being equal.
        """
        request = objects.Resources(2, 1000, 10)
        for width in (8, 0):
            planner = termination_planner.TerminationPlanner(
                termination.TerminationCostHandler.from_names(['runtime']))
            manager = host_manager.HostManager(planner)
            manager.add_host(objects.Host('h', 4, 8192, 100))
            for name, vcpus, ran in victims:
                manager.add_instance('h', objects.Instance(
                    name, objects.Resources(vcpus, 1000, 10), True,
                    started_at=-ran))
            with mock.patch.object(termination_bounds, 'DENSE_WIDTH',
                                   width):
                low, high = planner.bounds(manager.batch(), request, 0.0)
            plan = manager.host_states['h'].termination_plan(request, 0.0)
            self.assertEqual(exact, plan.cost)
            if claimed:
                self.assertEqual((exact, exact), (low[0], high[0]), width)
            else:
                self.assertLessEqual(low[0], exact, width)
                self.assertGreaterEqual(high[0], exact, width)
                self.assertLess(low[0], high[0], width)

    def test_two_cheap_victims_beat_one_covering_victim(self):
        # 1 + 1 s for two 1-vCPU victims, 5 s for the 2-vCPU one.
        self.check([('a', 1, 1.0), ('b', 1, 1.0), ('c', 2, 5.0)], 2.0,
                   claimed=False)

    def test_one_victim_cheaper_than_any_two_is_exact(self):
        # 5 s alone against 3 + 4 s: the 2-vCPU victim, exactly.
        self.check([('a', 1, 3.0), ('b', 1, 4.0), ('c', 2, 5.0)], 5.0,
                   claimed=True)

    def test_one_victim_as_cheap_as_two_is_exact(self):
        # 2 s alone against 1 + 1 s: a tie the selector gives to the set
        # of fewer victims.
        self.check([('a', 1, 1.0), ('b', 1, 1.0), ('c', 2, 2.0)], 2.0,
                   claimed=True)

    def test_covering_victims_tied_on_scaled_cost_are_not_exact(self):
        # Two covering victims a tenth of a microsecond apart: the same
        # scaled cost, so the selector picks by id ("a", the dearer), not
        # by float; the bounds must not claim the cheaper float.
        self.check([('a', 2, 10.0000002), ('b', 2, 10.0000001)], 10.0000002,
                   claimed=False)
