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

"""Keep only hosts with room for the request on the view it is judged on."""

from preemptible_sched.scheduler import filters


class ResourcesFilter(filters.BaseHostFilter):
    """Pass hosts where the request's vCPUs, RAM and disk fit the view.

    vCPUs, RAM and disk are all checked against the free amounts of the view
    the filter receives. In ``dual_state`` mode a normal request gets the
    normal view, so a host passes when the request would fit after terminating
    every preemptible instance on it; which of them actually die is decided
    later by the termination selector. A preemptible request gets the full view
    and passes only where it fits without terminating anything.

    Options: none; capacities come from the ``[compute]`` allocation ratios and
    reserved amounts when the host state is built.
    """

    name = 'resources'

    def filter_all(self, batch, spec):
        return batch.fits(spec.resources)
