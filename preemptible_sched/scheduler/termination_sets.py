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

"""Every host's cheapest termination set at once, when it is small.

The exact selector (:mod:`preemptible_sched.scheduler.termination_selector`)
answers one host at a time in Python. Most hosts a request could displace
carry a handful of preemptible instances and need one, two or three of
them gone: for those, every single victim, every pair and every triple of
a host's candidates is tried as array operations over all hosts together,
and the best set by the selector's own order (cost, then fewer victims,
then less freed beyond the need) is its answer. It is *proven* the answer
of the exact selector where

* the host has at most three useful candidates (every set was tried), or
  the best set found costs no more than the host's four cheapest
  candidates together (any larger set costs at least that, and loses the
  tie on its size); and
* the sets tied with it on that order all cost the same float (the
  selector's last rule, the victims' ids, could only pick among equal
  costs), each summed in every order alike (the selector sums in id
  order).

Elsewhere (more candidates than the tried sets cover, or a doubtful tie)
the host is left to the exact selector. All comparisons are made on the
selector's scaled integers.
"""

import itertools

import numpy

_DIMS = (0, 1, 2)
#: Hosts with more useful candidates than this go to the exact selector
#: (a host of six tries 6 + 15 + 20 sets).
MAX_CANDIDATES = 6
#: Sets of up to this many victims are tried.
MAX_VICTIMS = 3


def cheapest_costs(need_q, capacity_q, positions, sizes_q, costs_q, costs,
                   n):
    """The cost of each host's cheapest termination set, where proven.

    ``need_q`` and ``capacity_q`` (3 x ``n``, scaled integers) are what
    each host lacks and its capacity; ``positions``, ``sizes_q`` (3 x m),
    ``costs_q`` and ``costs`` describe the m candidates (their host, size,
    scaled and float cost). Returns ``(cost, proven)``: ``cost`` is the
    float cost of the set (NaN: no set fits), meaningful where ``proven``.
    """
    cost = numpy.full(n, numpy.nan)
    proven = numpy.zeros(n, dtype=bool)
    needed = need_q > 0
    lacking = needed.any(axis=0)
    cost[~lacking] = 0.0
    proven[~lacking] = True
    # Only candidates that free something their host lacks can be in an
    # optimal set (the selector drops the others too).
    useful = numpy.zeros(len(positions), dtype=bool)
    for d in _DIMS:
        useful |= needed[d][positions] & (sizes_q[d] > 0)
    useful &= lacking[positions]
    positions, sizes_q, costs_q, costs = (positions[useful],
                                          sizes_q[:, useful],
                                          costs_q[useful], costs[useful])
    count = numpy.bincount(positions, minlength=n)
    # A host with no useful candidate has no plan.
    proven[lacking & (count == 0)] = True
    hosts = lacking & (count > 0) & (count <= MAX_CANDIDATES)
    if not hosts.any():
        return cost, proven
    if not hosts[positions].all():
        keep = hosts[positions]
        positions, sizes_q, costs_q, costs = (
            positions[keep], sizes_q[:, keep], costs_q[keep], costs[keep])
    # One row per host tried, one column per candidate.
    rows = numpy.flatnonzero(hosts)
    row_of = numpy.full(n, -1, dtype=numpy.intp)
    row_of[rows] = numpy.arange(len(rows))
    order = numpy.argsort(positions, kind='stable')
    row = row_of[positions[order]]
    starts = numpy.searchsorted(row, numpy.arange(len(rows)))
    slot = numpy.zeros((len(rows), int(count[rows].max())), dtype=numpy.intp)
    slot[row, numpy.arange(len(order)) - starts[row]] = order
    # Hosts with as many candidates together: every set is there.
    widths = count[rows]
    for width in numpy.unique(widths).tolist():
        mine = widths == width
        hosts_w = rows[mine]
        found, best, settled = _settle(
            slot[mine, :width], need_q[:, hosts_w], capacity_q[:, hosts_w],
            sizes_q, costs_q, costs)
        cost[hosts_w[settled & found]] = best[settled & found]
        proven[hosts_w[settled]] = True
    return cost, proven


def _sets(width):
    """The sets of 1 to MAX_VICTIMS of ``width`` candidates: one index
    array per member (a set of k members repeats its last one beyond k;
    :func:`_settle` counts it once) and each set's size.
    """
    members = [list(itertools.combinations(range(width), k))
               for k in range(1, min(MAX_VICTIMS, width) + 1)]
    flat = [combination for group in members for combination in group]
    columns = [numpy.array([c[min(i, len(c) - 1)] for c in flat])
               for i in range(MAX_VICTIMS)]
    return columns, numpy.array([len(c) for c in flat])


def _settle(slot, need, capacity_q, sizes_q, costs_q, costs):
    """``(found, cost, settled)`` per row of ``slot`` (rows x width: every
    candidate of a host): whether a set of at most MAX_VICTIMS fits, the
    best one's float cost, and whether that is proven the selector's.
    """
    width = slot.shape[1]
    columns, set_size = _sets(width)
    # A member repeated beyond a set's size adds nothing.
    counted = [set_size > i for i in range(MAX_VICTIMS)]
    fits = True
    excess = 0.0
    total = []
    for d in _DIMS:
        values = sizes_q[d][slot]
        total.append(values.sum(axis=1))
        freed = values[:, columns[0]]
        for column, once in zip(columns[1:], counted[1:]):
            freed = freed + values[:, column] * once
        lacking = need[d][:, None]
        fits = fits & ((freed >= lacking) | (lacking <= 0))
        excess = excess + ((freed - numpy.maximum(lacking, 0)) /
                           numpy.maximum(capacity_q[d], 1)[:, None])
    price_q = costs_q[slot]
    set_q = price_q[:, columns[0]]
    for column, once in zip(columns[1:], counted[1:]):
        set_q = set_q + price_q[:, column] * once
    price = costs[slot]
    set_cost = _float_sum([price[:, column] for column in columns],
                          set_size)
    # The best set in the selector's order: cost, size, excess.
    top = numpy.iinfo(numpy.int64).max
    set_q = numpy.where(fits, set_q, top)
    best_q = set_q.min(axis=1)
    found = best_q < top
    best = fits & (set_q == best_q[:, None])
    best_size = numpy.where(best, set_size, MAX_VICTIMS + 1).min(axis=1)
    best &= set_size == best_size[:, None]
    best_excess = numpy.where(best, excess, numpy.inf).min(axis=1)
    best &= excess == best_excess[:, None]
    # Sets as good as it that cost another float (or a sum that depends on
    # its order) leave it to the ids, hence to the selector.
    lowest = numpy.where(best, set_cost, numpy.inf).min(axis=1)
    highest = numpy.where(best, set_cost, -numpy.inf).max(axis=1)
    clear = ~(best & numpy.isnan(set_cost)).any(axis=1) & (lowest == highest)
    if width <= MAX_VICTIMS:
        complete = numpy.ones(len(slot), dtype=bool)
    else:
        # Larger sets cost at least the four cheapest candidates together.
        floor = numpy.sort(price_q, axis=1)[:, :MAX_VICTIMS + 1].sum(axis=1)
        complete = found & (best_q <= floor)
        # No set at all when every candidate together is not enough.
        complete |= ~((numpy.array(total) >= need) | (need <= 0)).all(axis=0)
    return found, lowest, complete & (clear | ~found)


def _float_sum(parts, set_size):
    """Each set's float sum of ``parts`` (one array per member, a set of
    size k using the first k), NaN where the order of summation could
    change it (the exact selector sums in id order).
    """
    a, b, c = parts
    pair = a + b
    first = pair + c
    same = (first == (a + c) + b) & (first == (b + c) + a)
    triple = numpy.where(same, first, numpy.nan)
    return numpy.where(set_size == 1, a,
                       numpy.where(set_size == 2, pair, triple))
