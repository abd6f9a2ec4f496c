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

"""Keep members of an ``anti-affinity`` server group on distinct hosts."""

from preemptible_sched.scheduler import filters


class AntiAffinityFilter(filters.BaseHostFilter):
    """Reject hosts that already hold a member of the anti-affinity group.

    When the request belongs to a group with policy ``anti-affinity``, a host
    is rejected if the scheduler lists it among the group's hosts
    (``spec.group_hosts``) or if it already runs an instance of the group. The
    second check catches members placed earlier in the same multi-instance
    request, which ``group_hosts`` does not know about yet. Requests with
    another policy or no group are not affected.

    Options: none.
    """

    name = 'anti_affinity'

    def applies_to(self, spec):
        return spec.group_policy == 'anti-affinity'

    def filter_all(self, batch, spec):
        taken = batch.named(spec.group_hosts)
        if spec.group:
            taken |= batch.with_group(spec.group)
        return ~taken
