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

"""The termination selector: the cheapest set of preemptible instances to kill.

Given the preemptible instances on a host and how much room a request still
lacks (per resource, on the full view), find the subset S whose removal
makes the request fit in every dimension and that minimises, in order:

1. the total termination cost;
2. the number of instances;
3. the resources freed beyond what is needed: the sum over vCPU, RAM and
   disk of (freed - needed) / host capacity;
4. the sorted tuple of instance ids (the smallest wins).

This is a multi-dimensional covering knapsack. It is solved exactly by a
depth-first branch and bound over *groups* of identical instances (same
size and cost: the ones with the smallest ids are always taken first, so
symmetric instances cost nothing to explore), with two lower bounds at every
node: the fractional cover cost of the remaining need in each dimension
alone, and the fewest instances that could cover it. Only bounds that are
strictly worse than the best answer found prune, so ties are all explored
and the tie rules decide, exactly as trying every subset would.

All comparisons are made on integers (resources scaled by 10**9, costs by
10**6) so that the order of summation cannot change an answer.
"""

import functools

import numpy

from preemptible_sched import objects
from preemptible_sched.scheduler import termination_sets

RESOURCE_SCALE = 10 ** 9
COST_SCALE = 10 ** 6
_DIMS = (0, 1, 2)


def solution_key(chosen, costs_q, resources_q, ids, need_q, capacity_q):
    """The tie-ordered key of a feasible set ``chosen`` (indices).

    Public: the brute-force oracle in ``tests/oracles.py`` ranks sets by
    this same definition.
    """
    freed = [sum(resources_q[i][d] for i in chosen) for d in _DIMS]
    excess = sum((freed[d] - max(need_q[d], 0)) / max(capacity_q[d], 1)
                 for d in _DIMS)
    return (sum(costs_q[i] for i in chosen), len(chosen), excess,
            tuple(sorted(ids[i] for i in chosen)))


@functools.lru_cache(maxsize=4096)
def _quantize_resources(resources):
    # Instances mostly come in a few flavors: scale each size once.
    return tuple(int(round(resources[d] * RESOURCE_SCALE)) for d in _DIMS)


def quantize_problem(resources, costs, need, capacity):
    resources_q = [_quantize_resources(tuple(r)) for r in resources]
    costs_q = [int(round(c * COST_SCALE)) for c in costs]
    need_q = _quantize_resources(tuple(need))
    capacity_q = _quantize_resources(tuple(capacity))
    return resources_q, costs_q, need_q, capacity_q


class _Group:
    """Identical candidates: same scaled size and cost; ids ascending."""

    __slots__ = ('cost', 'size', 'members')

    def __init__(self, cost, size, members):
        self.cost = cost
        self.size = size
        self.members = members


def select(resources, costs, ids, need, capacity):
    """Indices of the cheapest feasible termination set, or None.

    ``resources[i]``, ``costs[i]`` and ``ids[i]`` describe candidate i;
    ``need`` is how much must be freed per dimension (a dimension <= 0
    needs nothing); ``capacity`` is the host's capacity (for the excess
    tie rule). Costs must be >= 0. Returns a tuple of indices sorted by id;
    an empty tuple when nothing is needed.
    """
    resources_q, costs_q, need_q, capacity_q = quantize_problem(
        resources, costs, need, capacity)
    needed = [d for d in _DIMS if need_q[d] > 0]
    if not needed:
        return ()
    # An instance that frees nothing the request needs is never in an
    # optimal set: dropping it keeps the set feasible with fewer members.
    useful = [i for i in range(len(ids))
              if any(resources_q[i][d] > 0 for d in needed)]
    for d in needed:
        if sum(resources_q[i][d] for i in useful) < need_q[d]:
            return None
    single = _best_single(useful, resources_q, costs_q, ids, need_q,
                          capacity_q, needed)
    if single is not None:
        return single
    return _BranchAndBound(useful, resources_q, costs_q, ids, need_q,
                           capacity_q, needed).solve()


def _best_single(useful, resources_q, costs_q, ids, need_q, capacity_q,
                 needed):
    """The answer when one victim provably suffices, else None.

    Any set of two or more victims costs at least the two smallest costs
    together; if the best lone victim that covers the whole need costs no
    more than that, it wins (a tie on cost is won by the smaller set).
    """
    best_key = best = None
    for i in useful:
        size = resources_q[i]
        if all(size[d] >= need_q[d] for d in needed):
            # solution_key() of the set {i}, less its constant count.
            key = (costs_q[i],
                   sum((size[d] - max(need_q[d], 0)) / max(capacity_q[d], 1)
                       for d in _DIMS),
                   ids[i])
            if best_key is None or key < best_key:
                best_key, best = key, i
    if best is None:
        return None
    if len(useful) > 1:
        first = second = None
        for i in useful:
            cost = costs_q[i]
            if first is None or cost < first:
                first, second = cost, first
            elif second is None or cost < second:
                second = cost
        if best_key[0] > first + second:
            return None
    return (best,)


class _BranchAndBound:

    def __init__(self, useful, resources_q, costs_q, ids, need_q,
                 capacity_q, needed):
        self.resources_q = resources_q
        self.costs_q = costs_q
        self.ids = ids
        self.need_q = need_q
        self.capacity_q = capacity_q
        self.needed = needed
        by_kind = {}
        for i in useful:
            by_kind.setdefault((costs_q[i], resources_q[i]), []).append(i)
        groups = [_Group(cost, size, sorted(members, key=ids.__getitem__))
                  for (cost, size), members in by_kind.items()]

        # Explore cheap-per-unit-of-need groups first: good answers early
        # make the bounds bite.
        def efficiency(group):
            share = sum(min(1.0, group.size[d] / need_q[d]) for d in needed)
            return (group.cost / share, -share, ids[group.members[0]])
        groups.sort(key=efficiency)
        self.groups = groups
        # Per needed dimension: group positions ordered for the fractional
        # bound (cost per unit, ascending) and for the count bound (size,
        # descending).
        self.by_ratio = {}
        self.by_size = {}
        for d in needed:
            carrying = [g for g in range(len(groups)) if groups[g].size[d]]
            self.by_ratio[d] = sorted(
                carrying, key=lambda g: groups[g].cost / groups[g].size[d])
            self.by_size[d] = sorted(
                carrying, key=lambda g: -groups[g].size[d])
        self.best_key = None
        self.best = None
        self.counts = [0] * len(groups)

    def solve(self):
        self._search(0, [self.need_q[d] for d in _DIMS], 0, 0)
        return self.best

    def _bounds(self, position, remaining):
        """Lower bounds on (extra cost, extra instances) from ``position``."""
        cost_bound = 0.0
        count_bound = 0
        groups = self.groups
        for d in self.needed:
            left = remaining[d]
            if left <= 0:
                continue
            cost = 0.0
            for g in self.by_ratio[d]:
                if g < position:
                    continue
                group = groups[g]
                supply = group.size[d] * len(group.members)
                if supply >= left:
                    cost += group.cost * (left / group.size[d])
                    left = 0
                    break
                cost += group.cost * len(group.members)
                left -= supply
            if left > 0:
                return None
            cost_bound = max(cost_bound, cost)
            left = remaining[d]
            count = 0
            for g in self.by_size[d]:
                if g < position:
                    continue
                group = groups[g]
                take = min(len(group.members),
                           -(-left // group.size[d]))
                count += take
                left -= take * group.size[d]
                if left <= 0:
                    break
            count_bound = max(count_bound, count)
        return cost_bound, count_bound

    def _record(self):
        chosen = []
        for group, count in zip(self.groups, self.counts):
            chosen.extend(group.members[:count])
        key = solution_key(chosen, self.costs_q, self.resources_q, self.ids,
                           self.need_q, self.capacity_q)
        if self.best_key is None or key < self.best_key:
            self.best_key = key
            self.best = tuple(sorted(chosen, key=self.ids.__getitem__))

    def _search(self, position, remaining, cost, count):
        if all(remaining[d] <= 0 for d in self.needed):
            self._record()
            return
        if position == len(self.groups):
            return
        bounds = self._bounds(position, remaining)
        if bounds is None:
            return
        if self.best_key is not None:
            best_cost, best_count = self.best_key[0], self.best_key[1]
            cost_bound = cost + bounds[0]
            # The fractional bound is a float: allow for its rounding so a
            # tie with the best answer is never pruned.
            slack = 1e-9 * max(1.0, abs(best_cost))
            if cost_bound > best_cost + slack:
                return
            if (cost_bound >= best_cost - slack and
                    count + bounds[1] > best_count):
                return
        group = self.groups[position]
        most = 0
        for d in self.needed:
            if remaining[d] > 0 and group.size[d] > 0:
                most = max(most, -(-remaining[d] // group.size[d]))
        most = min(most, len(group.members))
        for take in range(most, -1, -1):
            self.counts[position] = take
            after = [remaining[d] - take * group.size[d] for d in _DIMS]
            self._search(position + 1, after, cost + take * group.cost,
                         count + take)
        self.counts[position] = 0


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
        chosen = select([c.resources for c in candidates], costs,
                        [c.id for c in candidates], need,
                        host_state.capacity)
        if chosen is None:
            return None
        return objects.TerminationPlan(
            host_state.name,
            tuple(candidates[i] for i in chosen),
            tuple(costs[i] for i in chosen))

    def bounds(self, batch, resources, now, unit=False):
        """Bounds on the cost of the cheapest termination set of every host
        of ``batch`` (a full-view table batch): see :func:`cost_bounds`.

        ``unit`` prices every instance 1 (the number of victims).
        """
        sizes, positions, costs = self._candidates(batch, now, unit)
        return cost_bounds(batch, resources, sizes, positions, costs)

    def exact_costs(self, batch, resources, now, positions, unit=False):
        """The cost of the cheapest termination set of the hosts at
        ``positions`` of ``batch`` (a full-view table batch), all at once
        where it is small (see
        :mod:`~preemptible_sched.scheduler.termination_sets`): ``(cost,
        proven)`` over ``positions``, ``cost`` NaN where no set fits; the
        others are for :meth:`plan`.
        """
        sizes, where, costs = self._candidates(batch, now, unit)
        n = len(batch)
        need = numpy.array(tuple(resources))[:, None] - batch.free
        need_q = numpy.rint(need * RESOURCE_SCALE).astype(numpy.int64)
        costs_q = numpy.rint(costs * COST_SCALE)
        if len(costs_q) and costs_q.max() > _MAX_COST_Q:
            return (numpy.full(len(positions), numpy.nan),
                    numpy.zeros(len(positions), dtype=bool))
        asked = numpy.zeros(n, dtype=bool)
        asked[positions] = True
        mine = asked[where]
        need_q[:, ~asked] = 0
        capacity_q = numpy.rint(batch.capacity *
                                RESOURCE_SCALE).astype(numpy.int64)
        cost, proven = termination_sets.cheapest_costs(
            need_q, capacity_q, where[mine], sizes[:, mine],
            costs_q[mine].astype(numpy.int64), costs[mine], n)
        return cost[positions], proven[positions]

    def _candidates(self, batch, now, unit):
        """The victim table's candidates on the hosts of ``batch``: their
        scaled sizes (3 x m), positions in ``batch`` and costs.
        """
        victims = batch.table.victims
        hosts = victims.column('host')
        if batch.whole:
            rows = slice(0, len(victims))
            positions = hosts
        else:
            where = numpy.full(len(batch.table), -1, dtype=numpy.intp)
            where[batch.slots] = numpy.arange(len(batch))
            positions = where[hosts]
            rows = numpy.flatnonzero(positions >= 0)
            positions = positions[rows]
        if unit:
            costs = numpy.ones(len(positions))
        else:
            costs = self.costs.cost_all(victims, rows, now,
                                        batch.table.states.__getitem__)
        return victims.size_q[:, rows], positions, costs


#: Largest scaled cost the vectorised bounds handle, and a value above it
#: (sums of two stay in int64).
_MAX_COST_Q = 2 ** 60
_NONE_Q = 2 ** 61


def cost_bounds(batch, resources, sizes, positions, costs):
    """``(low, high)``: bounds on each host's cheapest termination cost.

    Both are 0 where ``resources`` fit the host already and NaN where they
    cannot fit even with every candidate gone. The bounds are equal (the
    exact cost :func:`select` finds) where one victim provably suffices
    (the cheapest covering victim costs no more than any two candidates)
    and every covering victim of that scaled cost costs the same; elsewhere
    ``low`` is the cheaper of the cheapest covering victim and the two
    cheapest candidates together, and ``high`` the cost of every useful
    candidate. ``sizes`` (3 x candidates, scaled like :func:`select`),
    ``positions`` and ``costs`` are the candidates' sizes, their hosts'
    positions in ``batch`` and their costs.
    """
    n = len(batch)
    fits = batch.fits(resources)
    low = numpy.zeros(n)
    high = numpy.zeros(n)
    open_ = ~fits
    if not open_.any():
        return low, high
    need = numpy.array(tuple(resources))[:, None] - batch.free
    need_q = numpy.rint(need * RESOURCE_SCALE).astype(numpy.int64)
    keep = True if open_.all() else open_[positions]
    if keep is not True and not keep.all():
        positions, costs, sizes = (positions[keep], costs[keep],
                                   sizes[:, keep])
    costs_q = numpy.rint(costs * COST_SCALE)
    if len(costs_q) and costs_q.max() > _MAX_COST_Q:
        low[open_] = 0.0
        high[open_] = numpy.inf
        return low, high
    costs_q = costs_q.astype(numpy.int64)
    # Per dimension: whether a candidate frees some of what its host
    # lacks (useful) and all of it (covers).
    useful = numpy.zeros(len(positions), dtype=bool)
    covers = numpy.ones(len(positions), dtype=bool)
    for d in _DIMS:
        short = need_q[d][open_] > 0
        if not short.any():
            continue        # no host lacks this resource
        lacking = need_q[d][positions]
        if short.all():
            useful |= sizes[d] > 0
            covers &= sizes[d] >= lacking
        else:
            needed = lacking > 0
            useful |= needed & (sizes[d] > 0)
            covers &= ~needed | (sizes[d] >= lacking)
    covers &= useful
    if not useful.all():
        positions, costs, costs_q, sizes, covers = (
            positions[useful], costs[useful], costs_q[useful],
            sizes[:, useful], covers[useful])

    first_q = _smallest(positions, costs_q, n, _NONE_Q)
    every_one_covers = covers.all()
    single_q = (first_q if every_one_covers else
                _smallest(positions[covers], costs_q[covers], n, _NONE_Q))
    # One victim provably suffices when the cheapest covering one costs
    # no more than the two cheapest candidates together: always when it
    # is the cheapest candidate.
    provable = (single_q < _NONE_Q) & (single_q == first_q)
    doubtful = (single_q < _NONE_Q) & ~provable
    if doubtful.any():
        useful_count = numpy.bincount(positions, minlength=n)
        second_q = _second_smallest(positions, costs_q, first_q, n,
                                    _NONE_Q)
        provable |= doubtful & ((useful_count == 1) |
                                (single_q <= first_q + second_q))
    # Its float cost is exact when the covering candidates of that scaled
    # cost all cost the same (usually there is one: then, as scaling is
    # monotonic, it is the cheapest covering candidate).
    cheapest = costs_q == single_q[positions]
    if not every_one_covers:
        cheapest &= covers
    tied = numpy.bincount(positions, weights=cheapest, minlength=n)
    cost = (_smallest(positions, costs, n, numpy.inf) if every_one_covers
            else _smallest(positions[covers], costs[covers], n, numpy.inf))
    exact = provable & (tied == 1)
    several = provable & (tied > 1)
    if several.any():
        chosen = cheapest & several[positions]
        lowest = _smallest(positions[chosen], costs[chosen], n, numpy.inf)
        highest = numpy.full(n, -numpy.inf)
        numpy.maximum.at(highest, positions[chosen], costs[chosen])
        same = several & (lowest == highest)
        exact |= same
        cost = numpy.where(same, lowest, cost)
    low[exact] = cost[exact]
    high[exact] = cost[exact]

    rest = open_ & ~exact
    if rest.any():
        _bound_the_rest(rest, low, high, need_q, positions, costs, sizes,
                        covers, n)
    return low, high


def _bound_the_rest(rest, low, high, need_q, positions, costs, sizes,
                    covers, n):
    """Bounds (or NaN: no set fits) on the hosts of ``rest``."""
    mine = rest[positions]
    positions, costs, sizes, covers = (positions[mine], costs[mine],
                                       sizes[:, mine], covers[mine])
    feasible = rest.copy()
    for d in _DIMS:
        freed = numpy.zeros(n, dtype=numpy.int64)
        numpy.add.at(freed, positions, sizes[d])
        feasible &= (need_q[d] <= 0) | (freed >= need_q[d])
    low[rest & ~feasible] = numpy.nan
    high[rest & ~feasible] = numpy.nan
    first = _smallest(positions, costs, n, numpy.inf)
    second = _second_smallest(positions, costs, first, n, numpy.inf)
    single = _smallest(positions[covers], costs[covers], n, numpy.inf)
    everything = numpy.bincount(positions, weights=costs, minlength=n)
    low[feasible] = numpy.minimum(single, first + second)[feasible]
    # Sums in another order may differ in the last bits: widen a little.
    high[feasible] = (everything * (1 + 1e-9))[feasible]


def _smallest(positions, values, n, empty):
    smallest = numpy.full(n, empty, dtype=values.dtype)
    numpy.minimum.at(smallest, positions, values)
    return smallest


def _second_smallest(positions, values, first, n, empty):
    """Second smallest value per host (equal to the first when it occurs
    twice).
    """
    at_first = values == first[positions]
    repeats = numpy.bincount(positions[at_first], minlength=n)
    second = _smallest(positions[~at_first], values[~at_first], n, empty)
    return numpy.where(repeats >= 2, first, second)
