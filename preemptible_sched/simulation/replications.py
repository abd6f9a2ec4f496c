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


"""Estimates over replications: mean, standard deviation, 95 % interval.

An experiment repeats each cell over *replications* (seeds, or
workloads); :func:`estimate` folds the values of one metric over them into
the mean, the sample standard deviation (n - 1) and the half-width of the
two-sided 95 % confidence interval of the mean, Student's t with n - 1
degrees of freedom times the standard error. :func:`paired` does the same
for the differences between two policies on the same replications, which
removes what the replications share (the same hosts, the same seed) from
the comparison; :func:`separation` says whether two metrics' intervals
separate (the comparison a reader can make from two tables of intervals).

The t quantiles come from :data:`T_975` (the published two-sided 95 %
values, 3 decimals, for 1 to 30 degrees of freedom) and, beyond 30, from
the Cornish-Fisher expansion around the normal quantile, within 0.001 of
the exact value there; scipy is not needed.
"""

import dataclasses
import math
import statistics
import typing

#: t(0.975, df) for df = 1..30.
T_975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262,
         2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101,
         2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052,
         2.048, 2.045, 2.042)
#: The normal quantile z(0.975).
Z_975 = 1.959964


def t_975(df):
    """The 0.975 quantile of Student's t with ``df`` degrees of freedom."""
    if df < 1:
        raise ValueError('t needs at least one degree of freedom')
    if df <= len(T_975):
        return T_975[df - 1]
    z = Z_975
    # Cornish-Fisher: the first three terms of t's expansion in 1/df.
    return (z + (z ** 3 + z) / (4 * df) +
            (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2) +
            (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) /
            (384 * df ** 3))


@dataclasses.dataclass(frozen=True)
class Estimate:
    """A metric over ``n`` replications.

    ``std`` and ``ci95`` (the half-width of the 95 % interval of the
    mean) are None with fewer than two values, ``mean`` with none.
    """

    n: int
    mean: typing.Optional[float]
    std: typing.Optional[float] = None
    ci95: typing.Optional[float] = None

    @property
    def low(self):
        return None if self.ci95 is None else self.mean - self.ci95

    @property
    def high(self):
        return None if self.ci95 is None else self.mean + self.ci95


def estimate(values):
    """The :class:`Estimate` of the values that are not None."""
    values = [float(value) for value in values if value is not None]
    if not values:
        return Estimate(0, None)
    if len(values) == 1:
        return Estimate(1, values[0])
    std = statistics.stdev(values)
    return Estimate(len(values), statistics.fmean(values), std,
                    t_975(len(values) - 1) * std / math.sqrt(len(values)))


def paired(values, baseline):
    """The :class:`Estimate` of ``values[r] - baseline[r]``.

    Both map a replication to a value (or None); only the replications
    where both have a value are paired.
    """
    return estimate(values[key] - baseline[key] for key in values
                    if key in baseline and values[key] is not None and
                    baseline[key] is not None)


def separation(estimate, other):
    """Whether the 95 % intervals of two estimates separate.

    ``'higher'`` when ``estimate``'s interval lies wholly above
    ``other``'s, ``'lower'`` when wholly below, ``'overlap'`` when they
    share a value, None when either has no interval (fewer than two
    replications). Intervals that only touch overlap.
    """
    if estimate.ci95 is None or other.ci95 is None:
        return None
    if estimate.low > other.high:
        return 'higher'
    if estimate.high < other.low:
        return 'lower'
    return 'overlap'
