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

"""The allocation score of the QoS-driven scheduler."""

from preemptible_sched.scheduler import weighers
from preemptible_sched.scheduler.weighers import balanced_allocation
from preemptible_sched.scheduler.weighers import least_requested


class AllocationScoreWeigher(weighers.BaseHostWeigher):
    """Score 0-10: mean of ``least_requested`` and ``balanced_allocation``.

    The host-ranking of the QoS-driven and priority-based schedulers (the
    Kubernetes 1.9 default priorities with equal weights): prefer hosts that
    keep the most room after the request, with CPU and memory in step.
    Bounds fixed at 0 and 10, as for its two parts; with
    ``[filter_scheduler] kubernetes_integer_scores`` (the default) both
    parts are Kubernetes' integers, so the mean is a multiple of 0.5.

    Options: ``[filter_scheduler] allocation_score_weight_multiplier``
    (default 1.0), overridable per aggregate by metadata of the same name.
    """

    name = 'allocation_score'
    minval = 0.0
    maxval = 10.0

    def __init__(self):
        self._parts = (least_requested.LeastRequestedWeigher(),
                       balanced_allocation.BalancedAllocationWeigher())
        self.integer = self._parts[0].integer

    def weigh_all(self, batch, spec, context):
        return (least_requested.weigh_all(batch, spec, self.integer) +
                balanced_allocation.weigh_all(batch, spec, self.integer)) / 2
