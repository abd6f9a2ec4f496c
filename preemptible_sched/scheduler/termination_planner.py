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

"""The termination planner: termination sets and their costs for hosts.

Host states ask it for one host's cheapest :class:`TerminationPlan`
(:mod:`~preemptible_sched.scheduler.termination_selector`, exact, one host
at a time); the ``termination_cost`` and ``preemptible_count`` weighers ask
it for bounds on every host's cost at once
(:mod:`~preemptible_sched.scheduler.termination_bounds`) and for the exact
costs of the hosts that can still win, all at once where the sets are small
(:mod:`~preemptible_sched.scheduler.termination_sets`).
"""

import numpy

from preemptible_sched import objects
from preemptible_sched.scheduler import termination_bounds
from preemptible_sched.scheduler import termination_selector as selector
from preemptible_sched.scheduler import termination_sets


class TerminationPlanner:
    """Prices and picks termination sets for host states.

    Host states ask it through :meth:`HostState.termination_plan`; the
    ``termination_cost`` and ``preemptible_count`` weighers ask it for
    :meth:`bounds` over every candidate host at once.
    """

    def __init__(self, costs):
        self.costs = costs

    def plan(self, host_state, resources, now, cost=None):
        """The cheapest :class:`TerminationPlan` on ``host_state``, or None.

        ``now`` is the time the decision is made at (run times are
        measured to it). ``cost`` replaces the configured cost function
        (``(instance, host_state, now) -> float``); the host's instances
        are never changed here.
        """
        cost = cost or self.costs.cost
        candidates = list(host_state.preemptible_instances.values())
        need = resources - host_state.full.free
        costs = [cost(instance, host_state, now)
                 for instance in candidates]
        chosen = selector.select([c.resources for c in candidates], costs,
                                 [c.id for c in candidates], need,
                                 host_state.capacity)
        if chosen is None:
            return None
        return objects.TerminationPlan(
            host_state.name,
            tuple(candidates[i] for i in chosen),
            tuple(costs[i] for i in chosen))

    def bounds(self, batch, resources, now, unit=False, candidates=None):
        """Bounds on the cost of the cheapest termination set of every host
        of ``batch`` (a full-view table batch): see
        :func:`~preemptible_sched.scheduler.termination_bounds.cost_bounds`.

        ``unit`` prices every instance 1 (the number of victims).
        """
        sizes, positions, costs, rows = (candidates or
                                         self.candidates(batch, now, unit))
        return termination_bounds.cost_bounds(batch, resources, sizes,
                                              positions, costs, rows)

    def exact_costs(self, batch, resources, now, positions, unit=False,
                    candidates=None):
        """The cost of the cheapest termination set of the hosts at
        ``positions`` of ``batch`` (a full-view table batch), all at once
        where it is small (see
        :mod:`~preemptible_sched.scheduler.termination_sets`): ``(cost,
        proven)`` over ``positions``, ``cost`` NaN where no set fits; the
        others are for :meth:`plan`.
        """
        sizes, where, costs, rows = (candidates or
                                     self.candidates(batch, now, unit))
        # Only the asked hosts and their candidates, renumbered 0..k-1.
        positions, asked = numpy.unique(
            numpy.asarray(positions, dtype=numpy.intp), return_inverse=True)
        mine, host = self._candidates_of(batch, positions, where, rows)
        costs = costs[mine]
        costs_q = numpy.rint(costs * selector.COST_SCALE)
        if len(costs_q) and costs_q.max() > termination_bounds.MAX_COST_Q:
            return (numpy.full(len(asked), numpy.nan),
                    numpy.zeros(len(asked), dtype=bool))
        need = (numpy.array(tuple(resources))[:, None] -
                batch.free[:, positions])
        need_q = numpy.rint(need * selector.RESOURCE_SCALE).astype(numpy.int64)
        capacity_q = numpy.rint(batch.capacity[:, positions] *
                                selector.RESOURCE_SCALE).astype(numpy.int64)
        cost, proven = termination_sets.cheapest_costs(
            need_q, capacity_q, host, sizes[:, mine],
            costs_q.astype(numpy.int64), costs, len(positions))
        return cost[asked], proven[asked]

    @staticmethod
    def _candidates_of(batch, positions, where, rows):
        """``(mine, host)``: the candidates on the hosts at ``positions``
        (sorted) of ``batch``, in the candidates' order, and each one's
        host as an index into ``positions``. ``where`` and ``rows`` are
        every candidate's position and victim-table row.
        """
        victims = batch.table.victims
        if len(rows) != len(victims):
            local = numpy.full(len(batch), -1, dtype=numpy.intp)
            local[positions] = numpy.arange(len(positions))
            host = local[where]
            mine = numpy.flatnonzero(host >= 0)
            return mine, host[mine]
        # Every victim is a candidate (candidate i is row i): the asked
        # hosts' rows are their columns of the victim table's layout,
        # without reading every candidate's host.
        slots = positions if batch.whole else batch.slots[positions]
        layout, _count = victims.rows_of(slots, len(batch))
        cells = layout.T
        taken = cells >= 0
        mine = cells[taken]
        host = numpy.nonzero(taken)[0]
        # Within a host, in row order, as the candidates are.
        order = numpy.lexsort((mine, host))
        return mine[order], host[order]

    def candidates(self, batch, now, unit=False):
        """The victim table's candidates on the hosts of ``batch``: their
        scaled sizes (3 x m), positions in ``batch``, costs and rows in the
        victim table. A caller
        that asks for :meth:`bounds` and :meth:`exact_costs` of one batch
        prices them once and hands them to both (``candidates``).
        """
        victims = batch.table.victims
        hosts = victims.column('host')
        if batch.whole:
            # Every row: columns read as views.
            taken = slice(0, len(victims))
            positions = hosts
            rows = numpy.arange(len(victims))
        else:
            where = numpy.full(len(batch.table), -1, dtype=numpy.intp)
            where[batch.slots] = numpy.arange(len(batch))
            positions = where[hosts]
            rows = taken = numpy.flatnonzero(positions >= 0)
            positions = positions[rows]
        if unit:
            costs = numpy.ones(len(positions))
        else:
            costs = self.costs.cost_all(victims, taken, now,
                                        batch.table.states.__getitem__)
        # take, not a mask: a mask on the second axis would lay the copy
        # out a candidate a row.
        sizes = (victims.column('size_q') if batch.whole else
                 victims.size_q.take(rows, axis=1))
        return sizes, positions, costs, rows
