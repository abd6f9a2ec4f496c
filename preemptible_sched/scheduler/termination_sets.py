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
    positions, sizes_q, costs_q, costs = (positions[useful],
                                          sizes_q[:, useful],
                                          costs_q[useful], costs[useful])
    count = numpy.bincount(positions, minlength=n)
    total = numpy.zeros((3, n), dtype=numpy.int64)
    for d in _DIMS:
        numpy.add.at(total[d], positions, sizes_q[d])
    feasible = ((total >= need_q) | ~needed).all(axis=0)
    nothing_fits = lacking & ~feasible
    proven[nothing_fits] = True          # cost stays NaN: no plan
    hosts = lacking & feasible & (count <= MAX_CANDIDATES)
    if not hosts.any():
        return cost, proven
    keep = hosts[positions]
    positions, sizes_q, costs_q, costs = (positions[keep], sizes_q[:, keep],
                                          costs_q[keep], costs[keep])
    # One row per host tried, one column per candidate (-1: none).
    rows = numpy.flatnonzero(hosts)
    row_of = numpy.full(n, -1, dtype=numpy.intp)
    row_of[rows] = numpy.arange(len(rows))
    order = numpy.argsort(positions, kind='stable')
    row = row_of[positions[order]]
    starts = numpy.searchsorted(row, numpy.arange(len(rows)))
    column = numpy.arange(len(order)) - starts[row]
    width = int(count[rows].max())
    slot = numpy.full((len(rows), width), -1, dtype=numpy.intp)
    slot[row, column] = order
    best = _Best(len(rows))
    need = need_q[:, rows]
    capacity = numpy.maximum(capacity_q[:, rows], 1)
    wanted = numpy.maximum(need, 0)
    for size in range(1, min(MAX_VICTIMS, width) + 1):
        for members in itertools.combinations(range(width), size):
            chosen = slot[:, members]
            present = (chosen >= 0).all(axis=1)
            if not present.any():
                continue
            picked = numpy.where(chosen >= 0, chosen, 0)
            freed = sizes_q[:, picked].sum(axis=2)
            fits = present & ((freed >= need) |
                              (need <= 0)).all(axis=0)
            if not fits.any():
                continue
            excess = 0.0
            for d in _DIMS:
                excess = excess + (freed[d] - wanted[d]) / capacity[d]
            best.offer(fits, costs_q[picked].sum(axis=1), size, excess,
                       _float_sum(costs[picked]))
    found = best.cost_q >= 0
    # Larger sets cost at least the four cheapest candidates together.
    complete = count[rows] <= MAX_VICTIMS
    if not complete.all():
        cheapest = numpy.sort(numpy.where(
            slot >= 0, costs_q[numpy.maximum(slot, 0)],
            numpy.iinfo(numpy.int64).max // 8), axis=1)
        floor = cheapest[:, :MAX_VICTIMS + 1].sum(axis=1)
        complete |= found & (best.cost_q <= floor)
    settled = complete & ~best.doubtful
    cost[rows[settled & found]] = best.cost[settled & found]
    proven[rows[settled]] = True
    return cost, proven


def _float_sum(values):
    """Each row's float sum, NaN where the order of summation could
    change it (sets are summed in id order by the exact selector).
    """
    if values.shape[1] < 3:
        return values.sum(axis=1)
    a, b, c = values[:, 0], values[:, 1], values[:, 2]
    first = (a + b) + c
    same = (first == (a + c) + b) & (first == (b + c) + a)
    return numpy.where(same, first, numpy.nan)


class _Best:
    """Per host, the best set offered so far in the selector's order, and
    whether another set as good costs a different float.
    """

    def __init__(self, n):
        self.cost_q = numpy.full(n, -1, dtype=numpy.int64)
        self.size = numpy.zeros(n, dtype=numpy.int64)
        self.excess = numpy.zeros(n)
        self.cost = numpy.full(n, numpy.nan)
        self.doubtful = numpy.zeros(n, dtype=bool)

    def offer(self, fits, cost_q, size, excess, cost):
        empty = self.cost_q < 0
        better = fits & (empty | (cost_q < self.cost_q) |
                         ((cost_q == self.cost_q) &
                          ((size < self.size) |
                           ((size == self.size) &
                            (excess < self.excess)))))
        tied = (fits & ~empty & ~better & (cost_q == self.cost_q) &
                (size == self.size) & (excess == self.excess))
        # A tie costing another float (or a sum that depends on its
        # order) needs the ids to decide.
        self.doubtful |= tied & ~(cost == self.cost)
        self.doubtful[better] = numpy.isnan(cost[better])
        self.cost_q[better] = cost_q[better]
        self.size[better] = size
        self.excess[better] = excess[better]
        self.cost[better] = cost[better]
