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

"""Cost of terminating an instance: the seconds it has run so far."""

import numpy

from preemptible_sched.scheduler import termination_costs as termination


class RuntimeCost(termination.BaseTerminationCost):
    """Prefer terminating the instances that have run the shortest time.

    The selector then terminates the youngest instances and protects
    long-running work, which loses the most when killed if it does not
    checkpoint. Use it when preemptible work is batch jobs that restart from
    scratch.

    Options: ``[preemptible] runtime_cost_multiplier``.
    """

    name = 'runtime'

    def cost(self, instance, host_state, now):
        return instance.runtime(now)

    def cost_all(self, victims, rows, now, state_of):
        return numpy.maximum(0.0, now - victims.started[rows])
