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

"""Keep an ``affinity`` server group on the hosts it already uses."""

from preemptible_sched.scheduler import filters


class AffinityFilter(filters.BaseHostFilter):
    """Pass only the hosts of the request's affinity group, if it has any.

    When the request belongs to a group with policy ``affinity`` and the
    scheduler has found hosts that already hold members of the group
    (``spec.group_hosts``), only those hosts pass. The first member of a group
    (no hosts yet) may go anywhere, and requests with another policy or no
    group are not affected. Disable it only if server groups are not used.

    Options: none.
    """

    name = 'affinity'

    def applies_to(self, spec):
        return spec.group_policy == 'affinity' and bool(spec.group_hosts)

    def filter_all(self, batch, spec):
        return batch.named(spec.group_hosts)
