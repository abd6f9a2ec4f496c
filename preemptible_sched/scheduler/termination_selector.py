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

from preemptible_sched.hosts.victims import RESOURCE_SCALE

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
