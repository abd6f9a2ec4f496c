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

"""Cost of terminating an instance: its priority."""

import numpy

from preemptible_sched.scheduler import termination_costs as termination


class PriorityCost(termination.BaseTerminationCost):
    """Prefer terminating lower-priority instances; negative counts as 0.

    The selector then terminates low-priority instances first (higher priority
    means more valuable, as in the Google trace where priorities run 0-11). Use
    it when preemptible instances come in classes of different importance.

    Costs must not be negative, so a negative priority costs 0, the same as
    priority 0: such an instance is among the first to go, and the exact
    selector's guarantee (adding a victim never lowers the cost) still holds.

    Options: ``[preemptible] priority_cost_multiplier``.
    """

    name = 'priority'

    def cost(self, instance, host_state, now):
        return max(0.0, float(instance.priority))

    def cost_all(self, victims, rows, now, state_of):
        return numpy.maximum(0.0, victims.priority[rows])
