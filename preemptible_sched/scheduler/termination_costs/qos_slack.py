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

"""Cost of terminating an instance: how close it is to breaking its SLO."""

import math

from preemptible_sched.scheduler import termination_costs as termination
from preemptible_sched.service_classes import qos


class QoSSlackCost(termination.BaseTerminationCost):
    """Cheap when far from violating its SLO, dear when near or past it.

    With Q the instance's time to violation and m its class's safety
    margin (see :mod:`preemptible_sched.service_classes.qos`):

    * a safe instance (Q >= m) costs ``m / Q`` (1 at the margin, falling
      towards 0 as its slack grows; 0 for a class without an SLO);
    * an at-risk instance costs ``w * (1 + m - Q)``, at least 1 and more
      the deeper it is in violation, with ``w`` = number of classes + 1 -
      importance, so that the same shortfall costs more in a more
      important class.

    Every at-risk instance thus costs more than every safe one.

    Options: ``[preemptible] qos_slack_cost_multiplier``.
    """

    name = 'qos_slack'

    def __init__(self, classes=None):
        self.classes = classes or qos.Classes()
        self.levels = len(self.classes.by_name) + 1

    def cost(self, instance, host_state, now):
        account = qos.instance_account(instance, self.classes, now)
        ttv = account.time_to_violation
        margin = account.service_class.safety_margin
        if not account.at_risk:
            if math.isinf(ttv):
                return 0.0
            return margin / ttv if ttv > 0 else 1.0
        weight = max(1.0, self.levels - account.service_class.importance)
        return weight * (1.0 + margin - ttv)
