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

"""Keep SLA requests on the hosts of their reputation category."""

from preemptible_sched.scheduler import filters
from preemptible_sched.service_classes import sla


class ReputationFilter(filters.BaseHostFilter):
    """Pass only the hosts of the request's reputation category.

    A premium reputation runs on hosts whose attribute ``reputation`` is
    ``high``, advanced on ``average``, best effort on ``low``; a host
    without the attribute takes no SLA request. Requests without an SLA
    pass every host. The copies of a replicated request land on distinct
    hosts whether ``anti_affinity`` is enabled or not (see
    :class:`preemptible_sched.service_classes.sla.CopiesApart`).

    Options: none.
    """

    name = 'reputation'

    def applies_to(self, spec):
        return spec.sla is not None

    def filter_all(self, batch, spec):
        wanted = sla.category(spec)
        return batch.per_profile(
            lambda profile: sla.host_category(profile) == wanted)
