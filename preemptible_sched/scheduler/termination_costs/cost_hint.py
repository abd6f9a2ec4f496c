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

"""Cost of terminating an instance: what its owner asked for."""

from preemptible_sched.scheduler import termination_costs as termination

#: The range of a hint; values beyond are taken as its ends.
HINT_MIN, HINT_MAX = -1000.0, 1000.0


class CostHintCost(termination.BaseTerminationCost):
    """Honour the owner's wish to be terminated later or sooner.

    An instance's ``cost_hint`` (in Nova, the server metadata key
    ``preemptible_sched:termination_cost_hint``; like Kubernetes' pod
    deletion cost) runs from -1000 (terminate me first) to 1000 (terminate
    me last), 0 when unset. The cost is the hint mapped onto [0, 1]:
    ``(hint + 1000) / 2000``, 0.5 for no hint, so that no instance costs
    less than nothing; the multiplier is what the whole range is worth
    against the other costs (by default 600, the billing cost of ten
    minutes of run time).

    Options: ``[preemptible] cost_hint_cost_multiplier``.
    """

    name = 'cost_hint'
    multiplier_default = 600.0

    def cost(self, instance, host_state, now):
        hint = min(HINT_MAX, max(HINT_MIN, instance.cost_hint))
        return (hint - HINT_MIN) / (HINT_MAX - HINT_MIN)
