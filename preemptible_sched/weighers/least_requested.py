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

"""Kubernetes 1.9 ``LeastRequestedPriority``: prefer the emptiest hosts."""

import numpy

from preemptible_sched import weighers
from preemptible_sched.weighers import ranking

MAX_SCORE = 10.0


def _score(capacity, requested):
    if capacity <= 0:
        return 0.0
    score = MAX_SCORE * (capacity - requested) / capacity
    return min(max(score, 0.0), MAX_SCORE)


def scores(capacity, requested):
    """:func:`_score` of every host: vectors in, vector out."""
    score = numpy.zeros(len(capacity))
    numpy.divide(MAX_SCORE * (capacity - requested), capacity, out=score,
                 where=capacity > 0)
    score = numpy.where(score < 0.0, 0.0, score)
    return numpy.where(MAX_SCORE < score, MAX_SCORE, score)


def weigh_all(batch, spec):
    """Raw weights of every host of ``batch``."""
    capacity = batch.capacity
    used = batch.used
    resources = spec.resources
    if len(batch) <= ranking.SMALL:
        # A few hosts: the scalar formula on Python floats is cheaper.
        return numpy.array([
            (_score(cpu, cpu_requested) +
             _score(memory, memory_requested)) / 2.0
            for cpu, cpu_requested, memory, memory_requested
            in batch.requested(resources)])
    return (scores(capacity[0], used[0] + resources.vcpus) +
            scores(capacity[1], used[1] + resources.memory_mb)) / 2.0


class LeastRequestedWeigher(weighers.BaseHostWeigher):
    """Score 0-10: mean free CPU and memory share after placing the request.

    For CPU and memory, with ``requested`` the full-view usage plus the new
    instance, the score is ``10 * (capacity - requested) / capacity`` clamped
    to [0, 10] (0 when the capacity is 0); the raw weight is the mean of the
    two, so it lies in [0, 10] and a higher value means more room left
    (spread). Set the multiplier negative to prefer the fullest hosts (much
    like Kubernetes' ``MostRequested``).

    ``minval``/``maxval`` are fixed at 0 and 10 instead of the observed
    extremes: the normalised weight is then score / 10, a fixed scale, so the
    weighted sum with ``balanced_allocation`` ranks hosts exactly as the
    Kubernetes weighted sum of scores does, and a tiny spread between hosts is
    not stretched to the full [0, 1].

    Options: ``[filter_scheduler] least_requested_weight_multiplier`` (default
    1.0), overridable per aggregate by metadata of the same name.
    """

    minval = 0.0
    maxval = MAX_SCORE

    def _weigh_object(self, host_view, spec):
        capacity = host_view.host.capacity
        requested = host_view.used + spec.resources
        return (_score(capacity.vcpus, requested.vcpus) +
                _score(capacity.memory_mb, requested.memory_mb)) / 2.0

    def weigh_all(self, batch, spec, context):
        return weigh_all(batch, spec)
