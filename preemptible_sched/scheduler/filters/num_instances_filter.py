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

"""Keep only hosts carrying fewer instances than a fixed limit."""

from preemptible_sched.conf import CONF
from preemptible_sched.scheduler import filters


class NumInstancesFilter(filters.BaseHostFilter):
    """Pass hosts with fewer than ``max_instances_per_host`` instances.

    Every instance on the host counts, preemptible ones included, whatever view
    the request is judged on: the termination selector frees resources, not
    instance slots, so counting only normal instances could let a host exceed
    the limit. Use it to bound the per-host blast radius or a per-host limit of
    the hypervisor that is not a resource.

    Options: ``[filter_scheduler] max_instances_per_host``.
    """

    name = 'num_instances'

    def filter_all(self, batch, spec):
        return batch.full_count < CONF.filter_scheduler.max_instances_per_host
