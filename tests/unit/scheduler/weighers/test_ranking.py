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

"""The vectorised ranking against weighing one host at a time.

The reference below is the per-host algorithm written out in plain Python:
raw weights (None for a host that cannot take the request), ``rank_last``,
``normalize``, the multiplier of each host, the running sum in weigher
order (a weigher whose normalised weights are all 0 is skipped), and a
stable sort. A :class:`Ranking` must give the same totals, bit for bit,
the same order, the same best ``k`` with ties and the same best host of a
subset, whether the weights are given exactly or as :class:`Bounds` that
are resolved on demand.
"""

import math

import fixtures
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
import numpy

from preemptible_sched.hosts import batch as host_batch
from preemptible_sched.scheduler import weighers
from preemptible_sched.scheduler.weighers import ranking
from tests import base

_VALUES = st.one_of(st.none(), st.sampled_from([0.0, -0.0, 1.0, -1.0, 2.5]),
                    st.floats(-1e6, 1e6, allow_nan=False))


class _Weigher(weighers.BaseHostWeigher):

    def __init__(self, name, minval, maxval, multiplier):
        self.name = name
        self.minval = minval
        self.maxval = maxval
        self.multiplier = multiplier

    def default_multiplier(self):
        return self.multiplier


@st.composite
def problems(draw):
    n = draw(st.integers(1, 12))
    columns = []
    for index in range(draw(st.integers(1, 3))):
        exact = draw(st.lists(_VALUES, min_size=n, max_size=n))
        bounded = draw(st.booleans())
        widths = draw(st.lists(st.floats(0, 10), min_size=n, max_size=n))
        fixed = draw(st.sampled_from([(None, None), (0.0, 10.0),
                                      (None, 5.0), (-3.0, None)]))
        multiplier = draw(st.sampled_from([1.0, 10.0, -1.0, 0.5]))
        per_host = draw(st.one_of(st.none(), st.lists(
            st.sampled_from([1.0, 2.0, -1.0]), min_size=n, max_size=n)))
        columns.append((_Weigher('w%d' % index, fixed[0], fixed[1],
                                 multiplier),
                        exact, bounded, widths, per_host))
    k = draw(st.integers(1, 4))
    mask = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return n, columns, k, mask


def _reference(n, columns):
    """Totals of every host, one host at a time."""
    totals = [0.0] * n
    for weigher, exact, _, _, per_host in columns:
        normalized = weighers.normalize(weighers.rank_last(list(exact)),
                                        weigher.minval, weigher.maxval)
        if not any(normalized):
            continue
        for i in range(n):
            multiplier = (weigher.multiplier if per_host is None
                          else per_host[i])
            totals[i] += multiplier * normalized[i]
    return totals


def _ranking(n, columns, resolved):
    batch = host_batch.HostBatch(numpy.zeros((3, n)), numpy.zeros(n), True,
                                 columns={'names': ['h%d' % i
                                                    for i in range(n)]})
    weighed = []
    for weigher, exact, bounded, widths, per_host in columns:
        values = numpy.array([numpy.nan if value is None else value
                              for value in exact], dtype=float)
        multipliers = (weigher.multiplier if per_host is None
                       else numpy.array(per_host))
        if bounded:
            low = numpy.where(numpy.isnan(values), numpy.nan,
                              values - numpy.array(widths))
            high = numpy.where(numpy.isnan(values), numpy.nan,
                               values + numpy.array(widths))

            def resolve(positions, values=values):
                resolved.extend(positions.tolist())
                return values[positions]
            raw = ranking.Bounds(low, high, resolve)
        else:
            raw = values
        weighed.append((weigher, raw, multipliers, weigher.multiplier))
    return ranking.Ranking(batch, weighed)


def _key(totals):
    return sorted(range(len(totals)), key=lambda i: -totals[i])


class TestRankingAgainstOneHostAtATime(base.TestCase):
    """Both ways of ranking: on vectors, and in Python for small batches."""

    @settings(max_examples=300, deadline=None)
    @given(problems(), st.booleans())
    def test_order_totals_top_and_best_of_a_subset(self, problem, small):
        n, columns, k, mask = problem
        self.useFixture(fixtures.MonkeyPatch(
            'preemptible_sched.scheduler.weighers.ranking.SMALL',
            100 if small else 0))
        expected = _reference(n, columns)
        order = _key(expected)

        ranked = _ranking(n, columns, [])
        self.assertEqual(order, ranked.order().tolist())
        for i in range(n):
            self.assertEqual(math.copysign(1, expected[i]) if expected[i]
                             else 0, math.copysign(1, ranked.weight(i))
                             if ranked.weight(i) else 0)
            self.assertEqual(expected[i], ranked.weight(i))

        size = min(k, n)
        cutoff = expected[order[size - 1]]
        top = [i for i in order if expected[i] >= cutoff]
        self.assertEqual(top, _ranking(n, columns, []).top(k).tolist())

        chosen = [i for i in order if mask[i]]
        best = _ranking(n, columns, []).best_where(numpy.array(mask))
        self.assertEqual(chosen[0] if chosen else None, best)

    def test_bounds_are_resolved_only_where_they_can_win(self):
        self.useFixture(fixtures.MonkeyPatch(
            'preemptible_sched.scheduler.weighers.ranking.SMALL', 0))
        # Host 0 is exact and best; hosts 1-3 are bounded well below it,
        # so only the hosts that set the normalisation (the extremes)
        # are resolved: the lowest bounded one.
        weigher = _Weigher('cost', None, None, 1.0)
        exact = [0.0, -5.0, -6.0, -7.0]
        columns = [(weigher, exact, True, [0.0, 0.4, 0.4, 0.4], None)]
        resolved = []
        ranked = _ranking(4, columns, resolved)
        self.assertEqual([0], ranked.top(1).tolist())
        self.assertNotIn(1, resolved)
        self.assertNotIn(2, resolved)
        self.assertIn(3, resolved)

    def test_a_bounded_host_that_may_win_is_resolved(self):
        self.useFixture(fixtures.MonkeyPatch(
            'preemptible_sched.scheduler.weighers.ranking.SMALL', 0))
        weigher = _Weigher('cost', None, None, 1.0)
        columns = [(weigher, [-1.0, -0.5, -9.0], True, [0.0, 2.0, 0.0],
                    None)]
        resolved = []
        ranked = _ranking(3, columns, resolved)
        self.assertEqual([1], ranked.top(1).tolist())
        self.assertIn(1, resolved)
