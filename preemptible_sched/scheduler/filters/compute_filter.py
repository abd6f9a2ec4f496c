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

"""Keep only hosts whose compute service is enabled and up."""

from preemptible_sched.scheduler import filters


class ComputeFilter(filters.BaseHostFilter):
    """Pass hosts that are enabled and whose compute service is up.

    A disabled host is one an operator took out of scheduling on purpose; a
    down host is one whose compute service stopped reporting. Neither should
    receive new instances, preemptible or not. Enable this filter first: it is
    the cheapest and removes hosts that every other check would waste time on.

    Options: none.
    """

    name = 'compute'

    def filter_all(self, batch, spec):
        return batch.usable
