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

"""Prefer hosts where making room for the request costs the least."""

from preemptible_sched.scheduler import weighers


class TerminationCostWeigher(weighers.TerminationWeigher):
    """Prefer hosts whose cheapest termination set costs less; 0 is free.

    The raw weight is 0 when the request fits the host's full view and minus
    the cost of the cheapest termination set on the host otherwise, priced by
    the configured termination-cost plugins (``[preemptible]
    termination_costs``). Hosts are ranked by what would really be lost there,
    not by a sum over every preemptible instance they carry. A host where the
    request cannot fit even with every preemptible instance gone (only possible
    when the filters let such a host through) gets one less than the lowest
    weight of the other hosts, so it ranks below all of them; if no host can
    take the request at all, they all get -1 (all equal, so the weigher has no
    say). Keep the multiplier positive; a negative one would prefer expensive
    terminations.

    Options: ``[filter_scheduler] termination_cost_weight_multiplier`` (default
    10.0, so it dominates the resource weighers), overridable per aggregate by
    metadata of the same name.
    """

    name = 'termination_cost'
    multiplier_default = 10.0

    @staticmethod
    def _weigh(host_view, resources, now):
        if host_view.fits(resources):
            return 0.0
        plan = host_view.host.termination_plan(resources, now)
        return None if plan is None else -plan.cost
