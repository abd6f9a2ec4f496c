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

"""Cost of terminating an instance: the partial billing period it forfeits."""

import numpy

from preemptible_sched.conf import CONF
from preemptible_sched.scheduler import termination_costs as termination


class BillingPeriodCost(termination.BaseTerminationCost):
    """Prefer terminating instances early in their current billing period.

    Providers bill preemptible instances in whole periods and do not charge the
    period an instance is terminated in, so terminating an instance that has
    run ``runtime`` seconds loses ``runtime mod period`` seconds of billable
    time. The cheapest victims are those that just started a new period. Use it
    when revenue matters more than the work the instances lose.

    Options: ``[preemptible] billing_period_seconds`` (default 3600, read once
    when the plugin is loaded) and ``[preemptible]
    billing_period_cost_multiplier``.
    """

    name = 'billing_period'

    def __init__(self):
        # Read once: the selector calls cost() for every candidate victim.
        self.period = CONF.preemptible.billing_period_seconds

    def cost(self, instance, host_state, now):
        return instance.runtime(now) % self.period

    def cost_all(self, victims, rows, now, state_of):
        ran = now - victims.started[rows]
        return floored_mod(numpy.maximum(ran, 0.0, out=ran), self.period,
                           in_place=True)


#: Below this quotient the fast path of :func:`floored_mod` is exact.
_EXACT_QUOTIENT = 2.0 ** 52


def floored_mod(values, period, in_place=False):
    """``values % period`` (Python's float ``%``), bit for bit, for
    non-negative ``values``; about ten times faster than numpy's ``%`` when
    ``period`` is a whole number of seconds.

    With q = floor(v / p) the remainder v - q p is exact: q p is an integer
    below 2**53, q is the true quotient n or n + 1, v - n p is the
    (representable) remainder, and v - (n + 1) p is exact by Sterbenz's
    lemma (then p is added back, exactly). ``in_place``: the remainders
    may be written over ``values``.
    """
    period = float(period)
    if (not period > 0 or not period.is_integer() or not len(values) or
            not values.max() / period < _EXACT_QUOTIENT):
        return values % period
    multiple = numpy.divide(values, period)
    numpy.floor(multiple, out=multiple)
    multiple *= period
    rest = numpy.subtract(values, multiple,
                          out=values if in_place else multiple)
    numpy.add(rest, period, out=rest, where=rest < 0.0)
    return rest
