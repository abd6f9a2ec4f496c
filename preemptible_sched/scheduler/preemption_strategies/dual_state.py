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

"""One pass on two host views: the preemptible-aware filter scheduler."""

import numpy

from preemptible_sched.hosts import batch as host_batch
from preemptible_sched.scheduler import preemption_strategies as preemption


class DualStateStrategy(preemption.BasePreemptionStrategy):
    """Filter normal requests on the normal view, and terminate in the
    same pass.

    A normal request is filtered on each host's normal view (what the host
    would carry with every preemptible instance gone); the hosts that pass
    are weighed on their full view, and on the chosen host the exact
    termination selector picks the cheapest set of preemptible instances
    whose removal makes the request fit (``[preemptible]
    termination_costs``). A preemptible request is filtered on the full
    view and never terminates anything. The default, and the design of
    the preemptible-instances paper.
    """

    name = 'dual_state'
    empty_plan_where_it_fits = True

    def phases(self, spec):
        if spec.preemptible:
            return (preemption.FIT,)
        return (preemption.DISPLACE,)

    def displaceable(self, state, request, now):
        if request.spec.preemptible:
            return ()
        return state.preemptible_instances.values()

    def displacement_view(self, state, displaceable):
        # The normal view is exactly the host without its preemptible
        # instances, kept up to date in O(1).
        return state.normal

    def displacement_batch(self, hosts, request, now, skip_unchanged):
        if request.spec.preemptible:
            return None
        table = hosts.table
        slots = (numpy.flatnonzero(table.candidates) if skip_unchanged
                 else None)
        return host_batch.HostBatch.of_table(table, False, slots)

    def plan(self, state, request, displaceable, now):
        plan = state.termination_plan(request.spec.resources, now)
        if plan is None or not plan.victims:
            return plan
        return plan.__class__(
            plan.host, plan.victims, plan.costs,
            'cheapest termination set (cost %.6g)' % plan.cost)
