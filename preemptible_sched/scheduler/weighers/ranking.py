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

"""Ranking weighed hosts: the weighted sum, on vectors, exact where it counts.

:class:`Ranking` normalises every weigher's raw weights over the batch,
multiplies and sums them as Nova does, and answers the questions the
driver asks: the best ``k`` hosts (with every host tied with the last of
them), the best host among some, or the whole order.

A weigher may give :class:`Bounds` instead of exact weights where they are
dear (a termination plan per host). Exact weights are then asked for only
where they can change an answer: first where a host could hold the
smallest or largest raw weight (they set the normalisation), then where a
host's best possible total could reach the answer asked for. Totals are
computed in the same order and with the same operations as one host at a
time, so the answers are those of weighing every host exactly.
"""

import logging

import numpy

LOG = logging.getLogger(__name__)


#: Batches of at most this many hosts are ranked with Python floats: numpy's
#: cost per call dominates there. The operations, and so the answers, are
#: the same.
SMALL = 24


class Bounds:
    """Raw weights known exactly on some hosts, within bounds elsewhere.

    ``low``/``high`` are float vectors over a batch (equal where the weight
    is exact; NaN in both where the host cannot take the request);
    ``resolve(positions)`` returns the exact weights of those hosts (NaN
    for None). Every exact weight must lie within its bounds.
    """

    def __init__(self, low, high, resolve):
        self.low = low
        self.high = high
        self.resolve = resolve


def _first_extreme(weights, value):
    # The first weight equal to ``value``, as min()/max() return it: only
    # a zero may differ (in sign) from the weights equal to it, and the
    # sign of a zero decides the sign of the normalised zeros.
    if value:
        return value
    return weights[numpy.argmax(weights == value)]


def normalize_vector(weights, minval=None, maxval=None):
    """Scale ``weights`` to [0, 1] like :func:`..weighers.normalize`."""
    if minval is not None or maxval is not None:
        low = minval
        high = maxval
        if low is None:
            low = min(_first_extreme(weights, weights.min()), high)
        if high is None:
            high = max(_first_extreme(weights, weights.max()), low)
        weights = numpy.where(weights < low, low, weights)
        weights = numpy.where(high < weights, high, weights)
    else:
        low = _first_extreme(weights, weights.min())
        high = _first_extreme(weights, weights.max())
    if high == low:
        return numpy.zeros(len(weights))
    return (weights - low) / float(high - low)


def normalize_list(weights, minval=None, maxval=None):
    """:func:`normalize_vector` on a list of floats, in plain Python."""
    if not weights:
        return []
    if minval is not None or maxval is not None:
        low = minval
        high = maxval
        if low is None:
            low = min(min(weights), high)
        if high is None:
            high = max(max(weights), low)
        weights = [min(max(weight, low), high) for weight in weights]
    else:
        low, high = min(weights), max(weights)
    if high == low:
        return [0.0] * len(weights)
    span = float(high - low)
    return [(weight - low) / span for weight in weights]


def rank_last_list(weights):
    """:func:`rank_last_vector` on a list of floats (NaN for None)."""
    known = [weight for weight in weights if weight == weight]
    if len(known) == len(weights):
        return weights
    floor = min(known) - 1 if known else -1.0
    return [weight if weight == weight else floor for weight in weights]


def rank_last_vector(weights):
    """NaN (a host that cannot take the request) becomes one less than
    the lowest other weight, like :func:`..weighers.rank_last`.
    """
    missing = numpy.isnan(weights)
    if not missing.any():
        return weights
    if missing.all():
        return numpy.full(len(weights), -1.0)
    floor = _first_extreme(weights, numpy.nanmin(weights)) - 1
    return numpy.where(missing, floor, weights)


class Column:
    """One weigher's raw weights over the batch, and its multipliers."""

    def __init__(self, weigher, raw, multipliers, default):
        self.weigher = weigher
        self.multipliers = multipliers
        self.default = default
        if isinstance(raw, Bounds):
            self.low = numpy.array(raw.low, dtype=float)
            self.high = numpy.array(raw.high, dtype=float)
            self.resolve = raw.resolve
            self.unknown = ~((self.low == self.high) |
                             (numpy.isnan(self.low) &
                              numpy.isnan(self.high)))
        else:
            self.low = self.high = numpy.asarray(raw, dtype=float)
            self.resolve = None
            self.unknown = numpy.zeros(len(self.low), dtype=bool)
        #: Whether some weight is known only within its bounds.
        self.open = bool(self.unknown.any())
        self.normalized = None
        self.skipped = False

    def settle(self, positions):
        positions = positions[self.unknown[positions]]
        if not len(positions):
            return
        values = numpy.asarray(self.resolve(positions), dtype=float)
        self.low[positions] = values
        self.high[positions] = values
        self.unknown[positions] = False
        self.open = bool(self.unknown.any())

    def extremes_wanted(self):
        """Hosts whose exact weight may be the smallest or the largest."""
        if not self.open:
            return None
        unknown = self.unknown
        low, high = self.low, self.high
        known = ~unknown & ~numpy.isnan(low)
        ceiling = high[unknown].min()
        floor = low[unknown].max()
        if known.any():
            ceiling = min(ceiling, low[known].min())
            floor = max(floor, low[known].max())
        return unknown & ((low <= ceiling) | (high >= floor))

    def normalize(self):
        """Normalised weights at both bounds (equal where exact)."""
        weigher = self.weigher
        low = normalize_vector(rank_last_vector(self.low), weigher.minval,
                               weigher.maxval)
        if not self.open:
            return low, low
        high = normalize_vector(rank_last_vector(self.high), weigher.minval,
                                weigher.maxval)
        return low, high

    def detail(self, index):
        raw = self.low[index]
        multiplier = self.multipliers
        if self.skipped:
            multiplier = self.default
        elif isinstance(multiplier, numpy.ndarray):
            multiplier = multiplier[index]
        return {'raw': (None if numpy.isnan(raw)
                        else self.weigher.raw_type(raw)),
                'normalized': float(self.normalized[index]),
                'multiplier': float(multiplier)}


class WeighedHost:
    """A candidate host with its total weight.

    ``details`` maps each weigher's name to ``{"raw", "normalized",
    "multiplier"}`` for this host; it is built on demand from the columns
    the handler computed, so ranking many hosts costs nothing extra.
    """

    __slots__ = ('view', 'weight', 'index', 'columns')

    def __init__(self, view, weight=0.0, index=0, columns=None):
        self.view = view
        self.weight = weight
        self.index = index
        self.columns = columns

    @property
    def details(self):
        return {name: column.detail(self.index)
                for name, column in (self.columns or {}).items()}

    def __repr__(self):
        return '<WeighedHost %s %.6g>' % (self.view.name, self.weight)


class Ranking:
    """The weighted totals of a batch of hosts, and their order."""

    def __init__(self, batch, weighed):
        self.batch = batch
        self.columns = [Column(*column) for column in weighed]
        self.by_name = {column.weigher.name: column
                        for column in self.columns}
        self._totals = None
        if len(batch) <= SMALL:
            self._compute_small()
        else:
            self._compute()
        if LOG.isEnabledFor(logging.DEBUG):
            self._log()

    def _log(self):
        """Every weigher's weights on every host (bounds where the exact
        weight was not needed).
        """
        names = self.batch.names
        for name, column in self.by_name.items():
            for index, host in enumerate(names):
                if column.unknown[index]:
                    LOG.debug('Weigher %s on host %s: raw within [%s, %s]',
                              name, host, column.low[index],
                              column.high[index])
                    continue
                detail = column.detail(index)
                LOG.debug('Weigher %s on host %s: raw %s, normalized %s, '
                          'multiplier %s', name, host, detail['raw'],
                          detail['normalized'], detail['multiplier'])

    @classmethod
    def of_totals(cls, batch, totals):
        """The ranking of ``batch`` by totals weighed elsewhere (one
        float per host, in batch order): Nova's weighers, in the Nova
        adapter. No per-weigher details.
        """
        ranking = cls.__new__(cls)
        ranking.batch = batch
        ranking.columns = []
        ranking.by_name = {}
        ranking._totals = [float(total) for total in totals]
        ranking.total_low = ranking.total_high = numpy.array(
            ranking._totals, dtype=float)
        ranking.unknown = numpy.zeros(len(batch), dtype=bool)
        return ranking

    def __len__(self):
        return len(self.batch)

    def _resolve(self, mask):
        positions = numpy.flatnonzero(mask)
        for column in self.columns:
            if column.resolve is not None:
                column.settle(positions)

    def _compute(self):
        """Exact normalisation, then the totals at both bounds."""
        n = len(self.batch)
        if not n:
            self.total_low = self.total_high = numpy.zeros(0)
            self.unknown = numpy.zeros(0, dtype=bool)
            return
        for column in self.columns:
            wanted = column.extremes_wanted()
            while wanted is not None and wanted.any():
                column.settle(numpy.flatnonzero(wanted))
                wanted = column.extremes_wanted()
        total_low = numpy.zeros(n)
        total_high = numpy.zeros(n)
        unknown = numpy.zeros(n, dtype=bool)
        for column in self.columns:
            low, high = column.normalize()
            open_ = column.unknown
            if column.open and not low[~open_].any() and (
                    low[open_].any() or high[open_].any()):
                # Whether this weigher adds anything at all hangs on
                # weights not known yet.
                column.settle(numpy.flatnonzero(open_))
                return self._compute()
            column.normalized = low
            column.skipped = not (low.any() or (column.open and high.any()))
            if column.skipped:
                continue    # all 0: this weigher adds nothing to anyone
            at_low = column.multipliers * low
            if column.open:
                at_high = column.multipliers * high
                total_low += numpy.minimum(at_low, at_high)
                total_high += numpy.maximum(at_low, at_high)
                unknown |= open_
            else:
                total_low += at_low
                total_high += at_low
        self.total_low = total_low
        self.total_high = total_high
        self.unknown = unknown

    def _compute_small(self):
        """The totals of a small batch, every weight exact, in Python."""
        n = len(self.batch)
        totals = [0.0] * n
        for column in self.columns:
            if column.open:
                column.settle(numpy.flatnonzero(column.unknown))
            weigher = column.weigher
            normalized = normalize_list(rank_last_list(column.low.tolist()),
                                        weigher.minval, weigher.maxval)
            column.normalized = normalized
            column.skipped = not any(normalized)
            if column.skipped:
                continue    # all 0: this weigher adds nothing to anyone
            multipliers = column.multipliers
            if isinstance(multipliers, numpy.ndarray):
                multipliers = multipliers.tolist()
                for i in range(n):
                    totals[i] += multipliers[i] * normalized[i]
            else:
                for i in range(n):
                    totals[i] += multipliers * normalized[i]
        self._totals = totals
        self.total_low = self.total_high = numpy.array(totals)
        self.unknown = numpy.zeros(n, dtype=bool)

    def _sorted(self):
        # Best first; a stable sort keeps equal totals in batch order.
        totals = self._totals
        return sorted(range(len(totals)), key=totals.__getitem__,
                      reverse=True)

    def _settle_where(self, mask):
        """Exact totals on the hosts of ``mask``."""
        mask = mask & self.unknown
        if mask.any():
            self._resolve(mask)
            self._compute()

    @staticmethod
    def _kth_largest(values, k):
        if k == 1:
            return values.max()
        return numpy.partition(values, len(values) - k)[len(values) - k]

    def top(self, k):
        """Positions of the best ``k`` hosts and of every host tied with
        the last of them, best first (ties: batch order).
        """
        n = len(self.batch)
        if not n:
            return numpy.zeros(0, dtype=numpy.intp)
        k = min(k, n)
        if self._totals is not None:
            order = self._sorted()
            cutoff = self._totals[order[k - 1]]
            while k < n and self._totals[order[k]] == cutoff:
                k += 1
            return numpy.array(order[:k], dtype=numpy.intp)
        while True:
            cutoff = self._kth_largest(self.total_low, k)
            wanted = self.unknown & (self.total_high >= cutoff)
            if not wanted.any():
                break
            self._settle_where(wanted)
        totals = self.total_low
        if self.unknown.any():
            totals = numpy.where(self.unknown, -numpy.inf, totals)
        best = numpy.flatnonzero(totals >= self._kth_largest(totals, k))
        values = totals[best]
        if k == 1 or (values == values[0]).all():
            return best     # all tied: batch order
        return best[numpy.lexsort((best, -values))]

    def order(self):
        """Positions of every host, best first (ties: batch order)."""
        if self._totals is not None:
            return numpy.array(self._sorted(), dtype=numpy.intp)
        self._settle_where(self.unknown)
        return numpy.lexsort((numpy.arange(len(self.batch)),
                              -self.total_low))

    def best_where(self, mask):
        """Position of the best host of ``mask`` (ties: batch order), or
        None if ``mask`` is empty.
        """
        if not mask.any():
            return None
        while True:
            cutoff = self.total_low[mask].max()
            wanted = mask & self.unknown & (self.total_high >= cutoff)
            if not wanted.any():
                break
            self._settle_where(wanted)
        totals = numpy.where(mask & ~self.unknown, self.total_low,
                             -numpy.inf)
        return int(numpy.flatnonzero(totals == totals.max())[0])

    def weight(self, index):
        """The exact total of the host at ``index``."""
        if self.unknown[index]:
            mask = numpy.zeros(len(self.batch), dtype=bool)
            mask[index] = True
            self._settle_where(mask)
        return float(self.total_low[index])

    def weighed(self, index):
        """The host at ``index`` as a :class:`WeighedHost`."""
        weight = self.weight(index)
        return WeighedHost(self.batch.view(index), weight, int(index),
                           self.by_name)
