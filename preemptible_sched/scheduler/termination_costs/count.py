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

"""Cost of terminating an instance: 1, whatever the instance."""

import numpy

from preemptible_sched.scheduler import termination_costs as termination


class CountCost(termination.BaseTerminationCost):
    """Prefer terminating fewer instances.

    The selector then terminates as few instances as possible, whatever their
    size or age. Use it alone to disturb the fewest users, or with a small
    multiplier beside another cost to break its ties towards fewer victims.

    Options: ``[preemptible] count_cost_multiplier``.
    """

    name = 'count'

    def cost(self, instance, host_state, now):
        return 1.0

    def cost_all(self, victims, rows, now, state_of):
        return numpy.ones(len(victims.started[rows]))
