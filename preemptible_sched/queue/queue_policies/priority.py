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

"""Highest priority first."""

from preemptible_sched.queue import queue_policies as policies


class PriorityPolicy(policies.BaseQueuePolicy):
    """Consider requests by descending priority, oldest first among equals.

    The priority is the request's ``priority`` field (higher is more
    important), the order of Kubernetes' default scheduling queue. Use it
    when some tenants must not wait behind a batch of less important work.
    """

    name = 'priority'
    time_invariant = True

    def sort_key(self, request, now):
        return (-request.spec.priority, request.submitted_at,
                request.sequence)
