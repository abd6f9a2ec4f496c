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
#: Hosts with at most this many victims get the close bounds of
#: :func:`_bound_few` (at most 8: :func:`_sort_columns` keeps a row number
#: in three bits).
DENSE_WIDTH = 8
_ROW_MASK = 7
#: Relative widening of a bound summed in another order than the exact
#: selector sums (a sum of a few floats differs in its last bits at most).
_WIDEN = 1e-9


def cost_bounds(batch, resources, sizes, positions, costs, rows):
    """``(low, high)``: bounds on each host's cheapest termination cost.

    Both are 0 where ``resources`` fit the host already and NaN where they
    cannot fit even with every candidate gone. The bounds are equal (the
    exact cost :func:`select` finds) where one victim provably suffices
    (the cheapest covering victim costs no more than any two candidates)
    and every covering victim of that scaled cost costs the same; elsewhere
    they enclose it as :func:`_bound_few` (a host of at most DENSE_WIDTH
    victims) or :func:`_bound_many` says. ``sizes`` (3 x candidates,
    scaled like :func:`select`), ``positions``, ``costs`` and ``rows`` are
    the candidates' sizes, their hosts' positions in ``batch``, their
    costs and their rows in the batch's victim table.
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
        positions, costs, sizes, rows = (positions[keep], costs[keep],
                                         sizes[:, keep], rows[keep])
    if len(costs) and numpy.rint(costs.max() * COST_SCALE) > MAX_COST_Q:
        low[open_] = 0.0
        high[open_] = numpy.inf
        return low, high
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
        positions, costs, sizes, covers, rows = (
            positions[useful], costs[useful], sizes[:, useful],
            covers[useful], rows[useful])
    rest = open_
    if covers.any():
        exact, cost = _one_victim(positions, costs, covers, n)
        low[exact] = cost[exact]
        high[exact] = cost[exact]
        rest = open_ & ~exact
    if rest.any():
        _bound_the_rest(batch, rest, low, high, need_q,
                        (positions, costs, sizes, covers, rows))
    return low, high


def _one_victim(positions, costs, covers, n):
    """``(exact, cost)``: the hosts whose cheapest set is provably one
    covering victim of a known float cost, and that cost.
    """
    costs_q = numpy.rint(costs * COST_SCALE).astype(numpy.int64)
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
    return exact, cost


def _bound_the_rest(batch, rest, low, high, need_q, candidates):
    """Bounds (or NaN: no set fits) on the hosts of ``rest``: close ones
    where a host has at most DENSE_WIDTH victims (:func:`_bound_few`),
    loose ones elsewhere (:func:`_bound_many`). ``candidates`` are the
    useful candidates' positions, costs, sizes, whether each covers its
    host's need alone, and rows.
    """
    victims = batch.table.victims
    layout, totals = victims.rows_of(None if batch.whole else batch.slots,
                                     len(batch))
    few = rest & (totals <= DENSE_WIDTH)
    if few.any():
        width = int(totals[few].max())
        if few.all():
            layout, need = layout[:width], need_q
        else:
            # take, not a mask: a mask on the second axis would hand back
            # the columns laid out across memory, and every reduction down
            # them slow.
            chosen = numpy.flatnonzero(few)
            layout = layout[:width].take(chosen, axis=1)
            need = need_q.take(chosen, axis=1)
        _bound_few(few, low, high, need, layout, len(victims), candidates)
    many = rest & ~few
    if many.any():
        positions, costs, sizes, covers, _rows = candidates
        keep = many[positions]
        _bound_many(many, low, high, need_q, positions[keep], costs[keep],
                    sizes[:, keep], covers[keep])


def _bound_many(hosts, low, high, need_q, positions, costs, sizes, covers):
    """The cheaper of one covering victim and the two cheapest candidates
    below, every candidate (or one covering victim) above.
    """
    n = len(hosts)
    feasible = hosts.copy()
    for d in _DIMS:
        freed = numpy.zeros(n, dtype=numpy.int64)
        numpy.add.at(freed, positions, sizes[d])
        feasible &= (need_q[d] <= 0) | (freed >= need_q[d])
    low[hosts & ~feasible] = numpy.nan
    high[hosts & ~feasible] = numpy.nan
    first = _smallest(positions, costs, n, numpy.inf)
    second = _second_smallest(positions, costs, first, n, numpy.inf)
    single = _smallest(positions[covers], costs[covers], n, numpy.inf)
    everything = numpy.bincount(positions, weights=costs, minlength=n)
    low[feasible] = numpy.minimum(single, first + second)[feasible]
    # Not the cheapest covering victim above: the selector picks among
    # sets of one scaled cost by their ids, and so may one dearer by a
    # few millionths.
    high[feasible] = (everything * (1 + _WIDEN))[feasible]


def _bound_few(hosts, low, high, need, layout, victims, candidates):
    """Close bounds on the hosts of ``hosts``, whose victims' rows in the
    victim table (of ``victims`` rows) ``layout`` lists one column a host
    (-1 below them); their costs and sizes are laid out alike and sorted
    by cost down each column.

    No set has fewer members than its host's largest candidate takes to
    free the need of some resource, so none costs less than as many of the
    cheapest candidates together (costs are not negative), nor less than
    the cheaper of one covering victim and the two cheapest; taking the
    cheapest candidates until the need is covered gives a set that fits,
    so the cheapest set costs no more than that (nor than one covering
    victim).
    """
    _positions, costs, sizes, covers, rows = candidates
    width, count = layout.shape
    if len(rows) == victims:
        # Every victim is a candidate, in the table's order.
        cell = layout
    else:
        # Each cell's candidate, as an index into the candidates' columns.
        index = numpy.full(victims, -1, dtype=numpy.intp)
        index[rows] = numpy.arange(len(rows))
        cell = index.take(layout)
        # An empty cell (-1) stays one.
        numpy.putmask(cell, layout < 0, -1)
    empty = cell < 0
    per_host = width - empty.sum(axis=0)
    feasible = per_host > 0
    if not width or not feasible.any():
        low[hosts] = high[hosts] = numpy.nan
        return
    # take reads an empty cell's -1 as the last candidate: overwritten.
    price = costs.take(cell)
    single = numpy.full(count, numpy.inf)
    if covers.any():
        single = numpy.where(covers.take(cell) & ~empty, price,
                             numpy.inf).min(axis=0)
    numpy.putmask(price, empty, numpy.inf)
    fewest = numpy.ones(count, dtype=numpy.int64)
    grids = []
    lacking = []
    for d in _DIMS:
        short = need[d]
        if not (short > 0).any():
            continue
        grid = sizes[d].take(cell)
        numpy.putmask(grid, empty, 0)
        grids.append(grid)
        lacking.append(short)
        feasible &= grid.sum(axis=0) >= short
        # Each member frees at most the largest candidate.
        largest = numpy.maximum(grid.max(axis=0), 1)
        fewest = numpy.maximum(fewest, -(-short // largest))
    price, grids = _sort_columns(price, grids)
    # Down each column: the cost of the cheapest k candidates, whether
    # they cover the need, and the first k that does (greedy's set).
    spent = price.copy()
    greedy = numpy.full(count, numpy.nan)
    pending = feasible.copy()
    for step in range(width):
        if step:
            spent[step] += spent[step - 1]
        covered = pending
        for total, short in zip(grids, lacking):
            if step:
                total[step] += total[step - 1]
            covered = covered & (total[step] >= short)
        greedy = numpy.where(covered, spent[step], greedy)
        pending = pending & ~covered
    fewest = numpy.minimum(fewest, numpy.maximum(per_host, 1)) - 1
    cheapest = spent[fewest, numpy.arange(count)]
    two = price[0] + (price[1] if width > 1 else numpy.inf)
    # The sort may swap costs a few ulps apart, and the selector breaks
    # ties of its scaled costs its own way, so it may pick a set dearer
    # than one it ties with by half a scaled unit a member of either (at
    # most ``width`` / COST_SCALE together): these bounds are never exact.
    low_few = numpy.maximum(numpy.minimum(single, two), cheapest) * (
        1 - _WIDEN)
    high_few = numpy.nextafter(
        (numpy.minimum(single, greedy) + width / COST_SCALE) * (1 + _WIDEN),
        numpy.inf)
    low[hosts] = numpy.where(feasible, low_few, numpy.nan)
    high[hosts] = numpy.where(feasible, high_few, numpy.nan)


def _sort_columns(keys, grids):
    """``keys`` (at most 8 rows of costs, not negative, C-ordered) sorted
    down each column in place, and each of ``grids`` put in the same
    order.

    A sorting network over all the columns at once, on integers: a cost's
    bits with its row number in the last three, each comparator a minimum
    and a maximum. The costs come back with those bits cleared (a few ulps
    less), so costs that close may come out swapped.
    """
    width, count = keys.shape
    key = keys.view(numpy.int64)
    key &= ~_ROW_MASK
    key |= numpy.arange(width)[:, None]
    for upper, lower in sorting_network(width):
        first, second = key[upper], key[lower]
        smaller = numpy.minimum(first, second)
        numpy.maximum(first, second, out=second)
        first[...] = smaller
    flat = key & _ROW_MASK
    flat *= count
    flat += numpy.arange(count)
    key &= ~_ROW_MASK
    return keys, [grid.ravel().take(flat) for grid in grids]


def sorting_network(width):
    """The comparators ``(i, j)``, ``i < j``, of Batcher's odd-even merge
    sort of ``width`` items: after each puts the smaller item of rows i
    and j in row i, in order, the rows are sorted.
    """
    pairs = []
    span = 1
    while span < width:
        step = span
        while step >= 1:
            for start in range(step % span, width - step, 2 * step):
                for offset in range(min(step, width - start - step)):
                    i = start + offset
                    if i // (2 * span) == (i + step) // (2 * span):
                        pairs.append((i, i + step))
            step //= 2
        span *= 2
    return pairs


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
