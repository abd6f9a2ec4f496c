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

from preemptible_sched.conf import CONF
from preemptible_sched.scheduler import weighers
from preemptible_sched.scheduler.weighers import ranking

MAX_SCORE = 10.0
#: Kubernetes counts CPU in millicores and memory in bytes, as integers.
MILLICORES = 1000
BYTES_PER_MB = 1024 * 1024


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


def _unused(capacity, requested):
    # Kubernetes 1.9 calculateUnusedScore, on integers.
    if capacity <= 0 or requested > capacity:
        return 0
    return (capacity - requested) * int(MAX_SCORE) // capacity


def _unused_all(capacity, requested):
    score = numpy.zeros(len(capacity), dtype=numpy.int64)
    room = (capacity > 0) & (requested <= capacity)
    score[room] = ((capacity[room] - requested[room]) * int(MAX_SCORE) //
                   capacity[room])
    return score


def integers(values, unit):
    """``values`` (a float, a tuple of floats or an array) in Kubernetes'
    integer ``unit`` per unit of ours (:data:`MILLICORES`,
    :data:`BYTES_PER_MB`).
    """
    if isinstance(values, numpy.ndarray):
        return numpy.rint(values * unit).astype(numpy.int64)
    if isinstance(values, tuple):
        return tuple(int(round(value * unit)) for value in values)
    return int(round(values * unit))


def score(cpu, cpu_requested, memory, memory_requested, integer=False):
    """The raw weight of one host: capacities and requested amounts (the
    request included) of CPU (vCPUs) and memory (MB), as Python floats.
    """
    if integer:
        return float((
            _unused(integers(cpu, MILLICORES),
                    integers(cpu_requested, MILLICORES)) +
            _unused(integers(memory, BYTES_PER_MB),
                    integers(memory_requested, BYTES_PER_MB))) // 2)
    return (_score(cpu, cpu_requested) +
            _score(memory, memory_requested)) / 2.0


def weigh_all(batch, spec, integer=False):
    """Raw weights of every host of ``batch``; ``integer``: as Kubernetes
    computes them (see :class:`LeastRequestedWeigher`).
    """
    resources = spec.resources
    if len(batch) <= ranking.SMALL:
        # A few hosts: the scalar formula on Python numbers is cheaper.
        return numpy.array([score(*host, integer=integer)
                            for host in batch.requested(resources)])
    capacity, used = batch.capacity, batch.used
    if integer:
        cpu = _unused_all(integers(capacity[0], MILLICORES),
                          integers(used[0] + resources.vcpus, MILLICORES))
        memory = _unused_all(
            integers(capacity[1], BYTES_PER_MB),
            integers(used[1] + resources.memory_mb, BYTES_PER_MB))
        return ((cpu + memory) // 2).astype(float)
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

    With ``[filter_scheduler] kubernetes_integer_scores`` (the default) it
    is computed as Kubernetes 1.9 does: CPU in millicores and memory in
    bytes, each score ``(capacity - requested) * 10 // capacity`` (0 when
    the request does not fit), and their mean in integer division, so
    hosts Kubernetes would tie are tied here too.

    ``minval``/``maxval`` are fixed at 0 and 10 instead of the observed
    extremes: the normalised weight is then score / 10, a fixed scale, so the
    weighted sum with ``balanced_allocation`` ranks hosts exactly as the
    Kubernetes weighted sum of scores does, and a tiny spread between hosts is
    not stretched to the full [0, 1].

    Options: ``[filter_scheduler] least_requested_weight_multiplier`` (default
    1.0), overridable per aggregate by metadata of the same name.
    """

    name = 'least_requested'
    minval = 0.0
    maxval = MAX_SCORE

    def __init__(self):
        self.integer = CONF.filter_scheduler.kubernetes_integer_scores

    def weigh_all(self, batch, spec, context):
        return weigh_all(batch, spec, self.integer)
