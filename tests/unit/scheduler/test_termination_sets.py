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

"""Every host's small termination set at once is the exact selector's.

On random hosts (mixed sizes, costs from the built-in termination costs,
held victims), wherever :meth:`TerminationPlanner.exact_costs` says it
proved a host's cost, that cost is the exact selector's, bit for bit (NaN
exactly where it finds no plan); and it does prove the hosts it is for.
"""

import math

from hypothesis import given
from hypothesis import settings
import numpy

from preemptible_sched.hosts import manager as host_manager
from preemptible_sched import objects
from preemptible_sched.scheduler import termination_costs as termination
from preemptible_sched.scheduler import termination_planner
from preemptible_sched.scheduler import termination_sets
from tests import base
from tests.unit.scheduler import test_termination_bounds

R = objects.Resources


def _manager(costs, hosts, capacity=(8, 16384, 160)):
    planner = termination_planner.TerminationPlanner(
        termination.TerminationCostHandler.from_names(costs))
    manager = host_manager.HostManager(planner)
    for h, (instances, held) in enumerate(hosts):
        name = 'h%d' % h
        manager.add_host(objects.Host(name, *capacity))
        for instance in instances:
            manager.add_instance(name, instance)
        for victim in [i for i in instances if i.preemptible][:held]:
            manager.hold_victim(name, victim, 'held')
    return planner, manager


def _exact(state, request, now, unit):
    if unit:
        return state.termination_count(request, now)
    plan = state.termination_plan(request, now)
    return None if plan is None else plan.cost


class TestSameAsTheExactSelector(base.TestCase):

    @settings(max_examples=300, deadline=None)
    @given(test_termination_bounds.clouds(),
           test_termination_bounds.st.booleans(),
           test_termination_bounds.st.sampled_from([None, 0, 1]))
    def test_proven_costs_are_the_selectors(self, cloud, unit, every_other):
        hosts, request, costs, now = cloud
        planner, manager = _manager(costs, hosts)
        batch = manager.batch()
        if every_other is not None:
            # A batch of some hosts only (what filters leave), in another
            # order than the table's: the candidates are not every victim.
            batch = batch.take(numpy.arange(len(batch))[every_other::2][::-1])
        positions = numpy.flatnonzero(~batch.fits(request))
        cost, proven = planner.exact_costs(batch, request, now, positions,
                                           unit)
        for index, position in enumerate(positions.tolist()):
            state = manager.host_states[batch.names[position]]
            exact = _exact(state, request, now, unit)
            candidates = len(state.preemptible_instances)
            if candidates <= termination_sets.MAX_VICTIMS:
                # Every set was tried: always proven.
                self.assertTrue(proven[index], state.name)
            if not proven[index]:
                continue
            if exact is None:
                self.assertTrue(math.isnan(cost[index]), state.name)
            else:
                self.assertEqual(float(exact), cost[index], state.name)


class TestHandComputed(base.TestCase):

    def _instances(self, host, specs):
        return [objects.Instance('%s-%s' % (host, name), R(*size), True,
                                 started_at=-float(ran))
                for name, size, ran in specs]

    def test_pairs_triples_and_what_is_left_to_the_selector(self):
        hosts = [
            # Needs 3 vCPUs: a (3 vCPUs, ran 90 s) alone, or b + c (1 + 2
            # vCPUs, 20 + 30 s): the pair is cheaper.
            (self._instances('pair', [('a', (3, 1000, 10), 90),
                                      ('b', (1, 1000, 10), 20),
                                      ('c', (2, 1000, 10), 30)]), 0),
            # Needs 3 vCPUs from three 1-vCPU instances out of five; the
            # three cheapest (1 + 2 + 3 s) cost 6 <= any four (10).
            (self._instances('triple', [(str(i), (1, 500, 5), ran)
                                        for i, ran in enumerate(
                                            (4, 3, 2, 1, 5))]), 0),
            # Needs 3 vCPUs from seven 1-vCPU instances: more candidates
            # than the sets tried cover, so the selector answers.
            (self._instances('many', [(str(i), (1, 500, 5), 10 + i)
                                      for i in range(7)]), 0),
            # Needs 3 vCPUs, has 2 in all: no plan.
            (self._instances('none', [('x', (1, 500, 5), 1),
                                      ('y', (1, 500, 5), 1)]), 0),
        ]
        # Normal instances fill each host to its 8 vCPUs.
        normal = {'pair': 2, 'triple': 3, 'many': 1, 'none': 6}
        for instances, _ in hosts:
            host = instances[0].id.split('-')[0]
            instances.append(objects.Instance(
                host + '-normal', R(normal[host], 1000, 10), False))
        planner, manager = _manager(['runtime'], hosts)
        batch = manager.batch()
        cost, proven = planner.exact_costs(
            batch, R(3, 1000, 10), 0.0, numpy.arange(4))
        self.assertEqual([True, True, False, True], proven.tolist())
        self.assertEqual(50.0, cost[0])
        self.assertEqual(6.0, cost[1])
        self.assertTrue(math.isnan(cost[3]))
        # The selector agrees where it was proven.
        self.assertEqual(50.0, manager.host_states['h0'].termination_plan(
            R(3, 1000, 10), 0.0).cost)
        self.assertEqual(6.0, manager.host_states['h1'].termination_plan(
            R(3, 1000, 10), 0.0).cost)

    def test_a_larger_set_could_be_cheaper_or_the_ids_decide(self):
        hosts = [
            # Full, needs 4 vCPUs: the lone 4-vCPU instance (50 s) is the
            # best set of at most three, but the four 1-vCPU ones cost 10.
            (self._instances('four', [(str(i), (1, 500, 5), i + 1)
                                      for i in range(4)] +
                             [('big', (4, 500, 5), 50)]), 0),
            # Needs 1 vCPU: two 1-vCPU instances whose costs differ below
            # the selector's scale: a tie its ids break.
            (self._instances('tie', [('p', (1, 500, 5), 1.0000001),
                                     ('q', (1, 500, 5), 1.0000002)]), 0),
        ]
        hosts[1][0].append(objects.Instance('tie-n', R(6, 500, 5), False))
        planner, manager = _manager(['runtime'], hosts)
        batch = manager.batch()
        cost, proven = planner.exact_costs(batch, R(4, 500, 5), 0.0,
                                           numpy.array([0]))
        self.assertEqual([False], proven.tolist())
        self.assertEqual(10.0, manager.host_states['h0'].termination_plan(
            R(4, 500, 5), 0.0).cost)
        cost, proven = planner.exact_costs(batch, R(1, 500, 5), 0.0,
                                           numpy.array([1]))
        self.assertEqual([False], proven.tolist())

    def test_fewer_victims_then_less_excess_break_ties_on_cost(self):
        # Costs equal at the selector's scale (1e-6) but not as floats:
        # the tie rules pick one set, and it is proven.
        hosts = [
            # Needs 2 vCPUs: a or b + c, each half of a (the same room
            # freed): a, one victim.
            (self._instances('size', [('a', (2, 500, 5), 2.0000001),
                                      ('b', (1, 250, 2.5), 1.0),
                                      ('c', (1, 250, 2.5), 1.0)]), 0),
            # Needs 2 vCPUs: d (2 vCPUs) or e (3): d frees less beyond.
            (self._instances('excess', [('d', (2, 500, 5), 2.0000001),
                                        ('e', (3, 500, 5), 2.0000002)]),
             0),
        ]
        # Normal instances fill both hosts' 8 vCPUs.
        hosts[0][0].append(objects.Instance('size-n', R(4, 500, 5), False))
        hosts[1][0].append(objects.Instance('excess-n', R(3, 500, 5),
                                            False))
        planner, manager = _manager(['runtime'], hosts)
        request = R(2, 500, 5)
        cost, proven = planner.exact_costs(manager.batch(), request, 0.0,
                                           numpy.arange(2))
        self.assertEqual([True, True], proven.tolist())
        self.assertEqual([2.0000001, 2.0000001], cost.tolist())
        for index in range(2):
            self.assertEqual(cost[index], manager.host_states[
                'h%d' % index].termination_plan(request, 0.0).cost)

    def test_a_batch_of_some_hosts_in_another_order(self):
        # h0 carries no victim, so every victim is a candidate of the
        # batch of h2 and h1 (in that order): the asked positions are not
        # the hosts' slots in the table.
        hosts = [
            ([objects.Instance('h0-n', R(8, 500, 5), False)], 0),
            (self._instances('h1', [('a', (2, 500, 5), 30),
                                    ('b', (2, 500, 5), 20)]), 0),
            (self._instances('h2', [('c', (2, 500, 5), 70),
                                    ('d', (2, 500, 5), 40)]), 0),
        ]
        for h in (1, 2):
            hosts[h][0].append(objects.Instance('h%d-n' % h, R(4, 500, 5),
                                                False))
        planner, manager = _manager(['runtime'], hosts)
        batch = manager.batch().take(numpy.array([2, 1]))
        request = R(4, 500, 5)
        cost, proven = planner.exact_costs(batch, request, 0.0,
                                           numpy.array([1, 0]))
        self.assertEqual([True, True], proven.tolist())
        # h1: a + b (50 s); h2: c + d (110 s).
        self.assertEqual([50.0, 110.0], cost.tolist())
