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

"""Core filters as Nova host filters, for ``[filter_scheduler]``.

List them with ``available_filters = nova.scheduler.filters.all_filters``
and ``available_filters = preemptible_sched.nova.filters.all_filters``, and
name them in ``enabled_filters``. A wrapped filter judges the view the
preemption-aware manager shows (the normal view of a normal request on its
preemption path); on Nova's own path, where Placement has already found
room, it judges the full view from Nova's usage figures.
"""

from nova.scheduler import filters as nova_filters

from preemptible_sched.hosts import batch as host_batch
from preemptible_sched.nova import host_states
from preemptible_sched.nova import host_views
from preemptible_sched.scheduler.filters import resources_filter


class CoreFilter(nova_filters.BaseHostFilter):
    """Runs one core filter (:attr:`core`) on a Nova host state."""

    #: The core filter class this Nova filter runs.
    core = None

    def __init__(self):
        super().__init__()
        self.plugin = self.core()

    def host_passes(self, host_state, spec_obj):
        view = host_views.view_of(host_state)
        request = host_states.core_request(spec_obj, {})
        return self.plugin.host_passes(view, request)

    def filter_all(self, filter_obj_list, spec_obj):
        # Every host at once: the core filter's one (batch) form.
        hosts = list(filter_obj_list)
        request = host_states.core_request(spec_obj, {})
        if not hosts or not self.plugin.applies_to(request):
            return hosts
        batch = host_batch.HostBatch.of_views(
            host_views.view_of(host) for host in hosts)
        passes = self.plugin.filter_all(batch, request)
        return [host for host, passed in zip(hosts, passes.tolist())
                if passed]


class PreemptibleResourcesFilter(CoreFilter):
    """The core ``resources`` filter: the request's vCPUs, RAM and disk fit
    the view, counted in Placement's units and capacities.
    """

    core = resources_filter.ResourcesFilter


def all_filters():
    """The filter classes of this module, for ``available_filters``."""
    return [PreemptibleResourcesFilter]
