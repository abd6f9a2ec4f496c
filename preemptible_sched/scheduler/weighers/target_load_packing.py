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


"""Trimaran's ``TargetLoadPacking``: fill hosts up to a target CPU load."""

import numpy

from preemptible_sched.conf import CONF
from preemptible_sched.hosts import load
from preemptible_sched.scheduler.weighers import load_aware

MAX_SCORE = load_aware.MAX_SCORE


def score(utilisation, target):
    """Score 0-100 of a host whose predicted CPU is ``utilisation`` %.

    Rises linearly from ``target`` at 0 % to 100 at the target, falls
    linearly to 0 at 100 %, and is 0 beyond.
    """
    if utilisation <= target:
        return (MAX_SCORE - target) * utilisation / target + target
    if utilisation <= MAX_SCORE:
        return target * (MAX_SCORE - utilisation) / (MAX_SCORE - target)
    return 0.0


def scores(utilisation, target):
    """:func:`score` of every host: vector in, vector out."""
    rising = (MAX_SCORE - target) * utilisation / target + target
    falling = target * (MAX_SCORE - utilisation) / (MAX_SCORE - target)
    return numpy.where(utilisation <= target, rising,
                       numpy.where(utilisation <= MAX_SCORE, falling, 0.0))


class TargetLoadPackingWeigher(load_aware.LoadAwareWeigher):
    """Score 0-100: prefer hosts whose CPU load lands nearest the target.

    The predicted CPU utilisation U of a host (% of its physical cores) is
    the load watcher's latest 15-minute average, plus the predicted CPU of
    the instances placed since that window (or less than 60 s before its
    end), plus the request's predicted CPU (``min(vcpus, expected *
    default_multiplier)`` when an expected usage is declared, else its
    vCPUs). With X the target: ``(100 - X) * U / X + X`` up to X, then
    ``X * (100 - U) / (100 - X)`` down to 0 at 100 %, and 0 beyond. Hosts
    are packed up to X, which leaves the others idle (and saves energy)
    while keeping headroom for bursts. Use it for clouds whose instances
    use much less CPU than they reserve.

    Bounds are fixed at 0 and 100 (normalised weight = score / 100), as
    Kubernetes adds absolute scores. A host whose load is unknown scores 0;
    while the metrics source is down every host is ranked by best fit on
    allocations instead (fullest host that fits first).

    ``least_requested``, ``balanced_allocation``, ``allocation_score`` and a
    positive ``cpu``/``ram`` multiplier spread the load, which works
    against this weigher: do not combine them.

    Options: ``[target_load_packing] target_utilization`` (default 40),
    ``default_multiplier`` (1.5); ``[filter_scheduler]
    target_load_packing_weight_multiplier`` (default 1.0).
    """

    name = 'target_load_packing'

    def _weigh_all_loaded(self, batch, spec, snapshot):
        target = CONF.target_load_packing.target_utilization
        request = load.request_cores(spec, snapshot.multiplier)

        def compute(columns, recent_cores, recent_memory):
            utilisation, unknown = load.utilisation_of(columns, recent_cores,
                                                       request)
            return numpy.where(unknown, 0.0, scores(utilisation, target))

        def one(row, recent_cores, recent_memory):
            utilisation = load.one_utilisation(row, recent_cores, request)
            return 0.0 if utilisation is None else score(utilisation,
                                                         target)
        # Host by host: kept across passes for the hosts that did not
        # change (see LoadSnapshot.weights). ``score`` divides by the
        # target and by 100 less it: one by one only strictly between.
        return snapshot.weights(batch, (self.name, request, target),
                                load.UTILISATION_FIELDS, compute,
                                one if 0.0 < target < MAX_SCORE else None)
