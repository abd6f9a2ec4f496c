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

"""Kubernetes 1.9 ``BalancedResourceAllocation``: keep CPU and RAM in step."""

import numpy

from preemptible_sched import weighers
from preemptible_sched.weighers import ranking

MAX_SCORE = 10.0


def _fraction(capacity, requested):
    return 1.0 if capacity <= 0 else requested / capacity


def _fractions(capacity, requested):
    fractions = numpy.ones(len(capacity))
    numpy.divide(requested, capacity, out=fractions, where=capacity > 0)
    return fractions


def _balance(cpu, memory):
    if cpu >= 1.0 or memory >= 1.0:
        return 0.0
    return MAX_SCORE - MAX_SCORE * abs(cpu - memory)


def weigh_all(batch, spec):
    """Raw weights of every host of ``batch``."""
    capacity = batch.capacity
    used = batch.used
    resources = spec.resources
    if len(batch) <= ranking.SMALL:
        # A few hosts: the scalar formula on Python floats is cheaper.
        return numpy.array([
            _balance(_fraction(cpu, cpu_requested),
                     _fraction(memory, memory_requested))
            for cpu, cpu_requested, memory, memory_requested
            in batch.requested(resources)])
    cpu = _fractions(capacity[0], used[0] + resources.vcpus)
    memory = _fractions(capacity[1], used[1] + resources.memory_mb)
    return numpy.where((cpu >= 1.0) | (memory >= 1.0), 0.0,
                       MAX_SCORE - MAX_SCORE * numpy.abs(cpu - memory))


class BalancedAllocationWeigher(weighers.BaseHostWeigher):
    """Score 0-10: 10 when CPU and memory end up equally used.

    With ``requested`` the full-view usage plus the new instance, the CPU and
    memory fractions are ``requested / capacity`` (1 when the capacity is 0)
    and the score is ``10 - 10 * |cpu_fraction - memory_fraction|``; when
    either fraction reaches 1 the host would be full and the score is 0, as in
    Kubernetes. Higher is better: it prefers hosts where the request leaves the
    two resources equally used, so neither is stranded. A negative multiplier
    would prefer unbalanced hosts and is rarely useful.

    ``minval``/``maxval`` are fixed at 0 and 10 for the reason given in
    ``least_requested``: the normalised weight is score / 10 and the weighted
    sum of the two ranks hosts as Kubernetes does.

    Options: ``[filter_scheduler] balanced_allocation_weight_multiplier``
    (default 1.0), overridable per aggregate by metadata of the same name.
    """

    minval = 0.0
    maxval = MAX_SCORE

    def _weigh_object(self, host_view, spec):
        capacity = host_view.host.capacity
        requested = host_view.used + spec.resources
        return _balance(_fraction(capacity.vcpus, requested.vcpus),
                        _fraction(capacity.memory_mb, requested.memory_mb))

    def weigh_all(self, batch, spec, context):
        return weigh_all(batch, spec)
