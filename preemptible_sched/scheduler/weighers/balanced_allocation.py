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

from preemptible_sched.conf import CONF
from preemptible_sched.scheduler import weighers
from preemptible_sched.scheduler.weighers import least_requested
from preemptible_sched.scheduler.weighers import ranking

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


def _integer_balance(cpu, memory):
    # Kubernetes 1.9 balancedResourceScorer: int64((1 - diff) * 10).
    if cpu >= 1.0 or memory >= 1.0:
        return 0.0
    return float(int((1.0 - abs(cpu - memory)) * MAX_SCORE))


def score(cpu, cpu_requested, memory, memory_requested, integer=False):
    """The raw weight of one host: capacities and requested amounts (the
    request included) of CPU (vCPUs) and memory (MB), as Python floats.
    """
    if integer:
        return _integer_balance(
            _fraction(*least_requested.integers(
                (cpu, cpu_requested), least_requested.MILLICORES)),
            _fraction(*least_requested.integers(
                (memory, memory_requested), least_requested.BYTES_PER_MB)))
    return _balance(_fraction(cpu, cpu_requested),
                    _fraction(memory, memory_requested))


def weigh_all(batch, spec, integer=False):
    """Raw weights of every host of ``batch``; ``integer``: as Kubernetes
    computes them (see :class:`BalancedAllocationWeigher`).
    """
    resources = spec.resources
    if len(batch) <= ranking.SMALL:
        # A few hosts: the scalar formula on Python numbers is cheaper.
        return numpy.array([score(*host, integer=integer)
                            for host in batch.requested(resources)])
    capacity, used = batch.capacity, batch.used
    cpu_requested = used[0] + resources.vcpus
    memory_requested = used[1] + resources.memory_mb
    if integer:
        cpu = _fractions(*least_requested.integers(
            numpy.stack((capacity[0], cpu_requested)),
            least_requested.MILLICORES).astype(float))
        memory = _fractions(*least_requested.integers(
            numpy.stack((capacity[1], memory_requested)),
            least_requested.BYTES_PER_MB).astype(float))
        balance = numpy.trunc((1.0 - numpy.abs(cpu - memory)) * MAX_SCORE)
    else:
        cpu = _fractions(capacity[0], cpu_requested)
        memory = _fractions(capacity[1], memory_requested)
        balance = MAX_SCORE - MAX_SCORE * numpy.abs(cpu - memory)
    return numpy.where((cpu >= 1.0) | (memory >= 1.0), 0.0, balance)


class BalancedAllocationWeigher(weighers.BaseHostWeigher):
    """Score 0-10: 10 when CPU and memory end up equally used.

    With ``requested`` the full-view usage plus the new instance, the CPU and
    memory fractions are ``requested / capacity`` (1 when the capacity is 0)
    and the score is ``10 - 10 * |cpu_fraction - memory_fraction|``; when
    either fraction reaches 1 the host would be full and the score is 0, as in
    Kubernetes. Higher is better: it prefers hosts where the request leaves the
    two resources equally used, so neither is stranded. A negative multiplier
    would prefer unbalanced hosts and is rarely useful.

    With ``[filter_scheduler] kubernetes_integer_scores`` (the default) it
    is computed as Kubernetes 1.9 does: the fractions of CPU in millicores
    and memory in bytes, and the score ``(1 - |difference|) * 10``
    truncated to an integer.

    ``minval``/``maxval`` are fixed at 0 and 10 for the reason given in
    ``least_requested``: the normalised weight is score / 10 and the weighted
    sum of the two ranks hosts as Kubernetes does.

    Options: ``[filter_scheduler] balanced_allocation_weight_multiplier``
    (default 1.0), overridable per aggregate by metadata of the same name.
    """

    name = 'balanced_allocation'
    minval = 0.0
    maxval = MAX_SCORE

    def __init__(self):
        self.integer = CONF.filter_scheduler.kubernetes_integer_scores

    def weigh_all(self, batch, spec, context):
        return weigh_all(batch, spec, self.integer)
