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

"""Bounds on every host's cheapest termination cost, all at once.

What the ``termination_cost`` and ``preemptible_count`` weighers rank on
before any exact set is planned: where one victim provably suffices the
bounds are the exact cost, elsewhere they enclose it (see
:func:`cost_bounds`). Scaled like the exact selector
(:mod:`~preemptible_sched.scheduler.termination_selector`).
"""

import numpy

from preemptible_sched.scheduler.termination_selector import COST_SCALE
from preemptible_sched.scheduler.termination_selector import RESOURCE_SCALE

_DIMS = (0, 1, 2)

#: Largest scaled cost the vectorised bounds handle, and a value above it
#: (sums of two stay in int64).
MAX_COST_Q = 2 ** 60
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
    if len(costs_q) and costs_q.max() > MAX_COST_Q:
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
