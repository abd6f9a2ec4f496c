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

"""The numpy floor of a saturated decision: the same answer, plain numpy.

What the cheapest vectorised program computing the decision of the
default configuration (``ram``, ``cpu`` and ``termination_cost``
weighers, ``billing_period`` cost, one host drawn from the best) costs on
a cloud whose every host passes the filters: the host with the best
weighted sum and the cost of its cheapest termination set. No scheduler,
no plugin, no per-host object: arrays laid out for this one question
before the clock starts, one pass of numpy at decision time.

The layout groups each host's preemptible instances by size: instances
of one size are interchangeable for covering a request, so the cheapest
set with ``c`` instances of a size takes that size's ``c`` cheapest.
Before timing, the count vectors (how many of each size) that could be a
cheapest set are listed: at most ``sum over dimensions of ceil(need /
smallest size)`` instances (a set with a member that no dimension needs
is never cheaper), minus every vector that contains a smaller one
covering the largest need of any host (costs are non-negative), and
every vector that covers no host. At decision time: the costs (``run
time mod period``) as a matrix per size, sorted per host, prefix sums,
the cost of each count vector on the hosts it covers, the minimum per
host, the three normalised weights and the argmax.
"""

import itertools
import math

import numpy

#: The tolerance of the project's fit test (hosts/table.py).
EPSILON = 1e-6
#: Default multipliers of the ram, cpu and termination_cost weighers.
MULTIPLIERS = (1.0, 1.0, 10.0)


def _normalised(values):
    """``values`` scaled to [0, 1] as the weighers' normalisation does
    (all equal: all 0).
    """
    low = values.min()
    high = values.max()
    if high == low:
        return numpy.zeros(len(values))
    return (values - low) / (high - low)


class Floor:
    """The arrays of one cloud and one request, ready for :meth:`answer`.

    ``cloud`` is a list of ``(name, normal, preemptible)`` (instances),
    ``capacity`` and ``request`` resources triples, ``period`` the billing
    period in seconds.
    """

    def __init__(self, cloud, capacity, request, period):
        self.names = [name for name, _, _ in cloud]
        self.period = float(period)
        hosts = len(cloud)
        used = numpy.zeros((3, hosts))
        groups = {}
        for index, (_, normal, preemptible) in enumerate(cloud):
            for instance in list(normal) + list(preemptible):
                used[:, index] += tuple(instance.resources)
            for instance in preemptible:
                groups.setdefault(tuple(instance.resources), {}).setdefault(
                    index, []).append(instance.started_at)
        self.free = numpy.asarray(capacity, dtype=float)[:, None] - used
        need = numpy.asarray(request, dtype=float)[:, None] - self.free
        self.sizes = sorted(groups)
        #: Per size, the start times (hosts x most of that size; NaN
        #: where a host has fewer).
        self.started = []
        for size in self.sizes:
            widest = max(len(times) for times in groups[size].values())
            started = numpy.full((hosts, widest), numpy.nan)
            for index, times in groups[size].items():
                started[index, :len(times)] = times
            self.started.append(started)
        sizes = numpy.array(self.sizes, dtype=float).reshape(-1, 3)
        #: The count vectors that cover some host, and per vector the
        #: hosts it covers (a mask).
        self.vectors = []
        self.covers = []
        for counts in self._count_vectors(need):
            covers = numpy.all(numpy.asarray(counts, dtype=float) @ sizes >=
                               need.T - EPSILON, axis=1)
            if covers.any():
                self.vectors.append(counts)
                self.covers.append(covers)

    def _count_vectors(self, need):
        """The count vectors that could be a host's cheapest set."""
        most = need.max(axis=1)
        members = 0
        for dimension, amount in enumerate(most):
            if amount > EPSILON:
                smallest = min(size[dimension] for size in self.sizes)
                if smallest <= 0:
                    members = sum(s.shape[1] for s in self.started)
                    break
                members += math.ceil(amount / smallest)
        limits = [started.shape[1] for started in self.started]
        vectors = [counts for counts in itertools.product(
            *(range(limit + 1) for limit in limits))
            if sum(counts) <= members]

        def covers_most(counts):
            return all(sum(c * size[d] for c, size in zip(counts,
                                                          self.sizes)) >=
                       most[d] - EPSILON for d in range(3))

        covering = [counts for counts in vectors if covers_most(counts)]
        return [counts for counts in vectors if not any(
            other != counts and all(o <= c for o, c in zip(other, counts))
            for other in covering)]

    def answer(self, now):
        """``(host name, cost of its cheapest set)`` of the decision at
        ``now``; the cost is None when no host can take the request.
        """
        prefixes = []
        for started in self.started:
            run = numpy.maximum(0.0, now - started)
            costs = numpy.sort(run % self.period, axis=1)
            prefix = numpy.zeros((costs.shape[0], costs.shape[1] + 1))
            numpy.cumsum(costs, axis=1, out=prefix[:, 1:])
            # A NaN (no such instance) sorts last and spoils the sums
            # that need it: no such set on that host.
            prefixes.append(prefix)
        best = numpy.full(len(self.names), numpy.inf)
        for counts, covers in zip(self.vectors, self.covers):
            total = numpy.zeros(len(self.names))
            for prefix, count in zip(prefixes, counts):
                if count:
                    total += prefix[:, count]
            total = numpy.where(covers & ~numpy.isnan(total), total,
                                numpy.inf)
            numpy.minimum(best, total, out=best)
        possible = numpy.isfinite(best)
        if not possible.any():
            return None, None
        ram, cpu, termination = MULTIPLIERS
        candidates = numpy.flatnonzero(possible)
        weight = (ram * _normalised(self.free[1, candidates]) +
                  cpu * _normalised(self.free[0, candidates]) +
                  termination * _normalised(-best[candidates]))
        chosen = int(candidates[int(numpy.argmax(weight))])
        return self.names[chosen], float(best[chosen])
