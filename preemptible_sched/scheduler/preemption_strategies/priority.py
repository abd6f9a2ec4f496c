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

"""Priority-based preemption: the Kubernetes default scheduler's rule.

A request displaces only instances of strictly lower priority (a request's
priority is its own, or its service class's). Victims are the lowest
priority first and, among equals, the most recently admitted first: every
eligible instance is removed, then the most important are added back while
the request still fits. The host whose victims are fewest in the highest
priority, then in the next priorities in order, wins.
"""

from preemptible_sched.conf import CONF
from preemptible_sched.scheduler import preemption_strategies as preemption


class PriorityStrategy(preemption.ClassBasedStrategy):
    """Preempt strictly lower priorities, as Kubernetes does.

    Goes with the ``priority`` queue policy (its default) and the
    ``allocation_score`` weigher; victims are requeued unless
    ``[scheduler] on_victim = terminate``.
    """

    name = 'priority'
    default_queue_policy = 'priority'

    def __init__(self, booting=None):
        #: Whether booting instances may be victims (``[qos]
        #: preempt_booting``).
        self.booting = (CONF.qos.preempt_booting if booting is None
                        else booting)

    @classmethod
    def from_conf(cls, conf):
        return cls(booting=conf.qos.preempt_booting)

    def displaceable(self, state, request, now):
        priority = request.spec.priority
        return [instance for instance in state.displaceable_instances()
                if (self.booting or instance.running_since is not None) and
                instance.priority < priority]

    def keep_order(self, candidates, request, now):
        # Highest priority, then oldest admission, is kept first.
        return sorted(candidates, key=lambda instance: (
            -instance.priority,
            instance.admitted_at if instance.admitted_at is not None
            else instance.started_at,
            instance.id))

    def victim_standing(self, instance, request, now):
        # Always at risk by one, at the level of its priority (the highest
        # first): the hosts compare by their number of victims at the
        # highest priority, then at the next... (one victim of priority 2
        # is worse than three of priority 1; [2, 1] is better than
        # [2, 1, 1]).
        return preemption.Standing(-instance.priority, 1.0, 0.0)
