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
    # One row per host tried, one column per candidate (-1: none); the
    # candidates get a last, empty column of their own: size and cost 0.
    rows = numpy.flatnonzero(hosts)
    row_of = numpy.full(n, -1, dtype=numpy.intp)
    row_of[rows] = numpy.arange(len(rows))
    order = numpy.argsort(positions, kind='stable')
    row = row_of[positions[order]]
    starts = numpy.searchsorted(row, numpy.arange(len(rows)))
    width = int(count[rows].max())
    empty = len(positions)
    slot = numpy.full((len(rows), width), empty, dtype=numpy.intp)
    slot[row, numpy.arange(len(order)) - starts[row]] = order
    sizes_q = numpy.concatenate((sizes_q, numpy.zeros((3, 1), numpy.int64)),
                                axis=1)
    costs_q = numpy.append(costs_q, 0)
    costs = numpy.append(costs, 0.0)
    present = slot != empty
    need = need_q[:, rows, None]
    capacity = numpy.maximum(capacity_q[:, rows, None], 1)
    wanted = numpy.maximum(need, 0)
    groups = []
    for size in range(1, min(MAX_VICTIMS, width) + 1):
        members = numpy.array(list(itertools.combinations(range(width),
                                                          size)))
        chosen = slot[:, members]                    # rows x sets x size
        there = present[:, members].all(axis=2)
        freed = sizes_q[:, chosen].sum(axis=3)       # 3 x rows x sets
        fits = there & ((freed >= need) | (need <= 0)).all(axis=0)
        excess = 0.0
        for d in _DIMS:
            excess = excess + (freed[d] - wanted[d]) / capacity[d]
        groups.append((fits, costs_q[chosen].sum(axis=2),
                       numpy.full(fits.shape, size), excess,
                       _float_sum(costs[chosen])))
    fits, set_q, set_size, excess, set_cost = (
        numpy.concatenate(column, axis=1) for column in zip(*groups))
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
    # Larger sets cost at least the four cheapest candidates together.
    complete = count[rows] <= MAX_VICTIMS
    if not complete.all():
        cheapest = numpy.sort(numpy.where(
            present, costs_q[slot], top // 8), axis=1)
        floor = cheapest[:, :MAX_VICTIMS + 1].sum(axis=1)
        complete |= found & (best_q <= floor)
    # No set at all when every candidate together is not enough.
    total = sizes_q[:, slot].sum(axis=2)
    complete |= ~((total >= need[..., 0]) | (need[..., 0] <= 0)).all(axis=0)
    settled = complete & (clear | ~found)
    cost[rows[settled & found]] = lowest[settled & found]
    proven[rows[settled]] = True
    return cost, proven


def _float_sum(values):
    """Each set's float sum (over the last axis), NaN where the order of
    summation could change it (the exact selector sums in id order).
    """
    if values.shape[-1] < 3:
        return values.sum(axis=-1)
    a, b, c = values[..., 0], values[..., 1], values[..., 2]
    first = (a + b) + c
    same = (first == (a + c) + b) & (first == (b + c) + a)
    return numpy.where(same, first, numpy.nan)
