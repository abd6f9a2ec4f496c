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

"""The QoS-driven queue: at-risk requests first, least slack first."""

from preemptible_sched.queue import queue_policies as policies
from preemptible_sched.service_classes import qos


class QoSSlackPolicy(policies.BaseQueuePolicy):
    """Consider requests by how soon they break their availability SLO.

    A request's time to violation Q is how long it can still wait without
    breaking its class's SLO (see
    :mod:`preemptible_sched.service_classes.qos`); it is *at risk* when Q is
    below its class's safety margin. At-risk requests come
    first, by class importance and then Q ascending; the others follow by Q
    ascending; the admission time breaks ties. Q changes with time, so the
    order is recomputed in every pass (``[scheduler] watchdog_interval``
    bounds how stale it gets).
    """

    name = 'qos_slack'

    def __init__(self, classes=None):
        self.classes = classes or qos.Classes()

    def sort_key(self, request, now):
        return qos.request_account(request, self.classes, now).slack_key() \
            + (request.sequence,)
