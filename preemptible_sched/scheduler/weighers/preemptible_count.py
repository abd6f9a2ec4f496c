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

"""Prefer hosts where the request terminates the fewest instances."""

from preemptible_sched.scheduler import weighers


class PreemptibleCountWeigher(weighers.TerminationWeigher):
    """Prefer hosts needing fewer terminations; 0 means none needed.

    The raw weight is 0 when the request fits the host's full view and minus
    the smallest number of preemptible instances whose termination makes it fit
    otherwise. It is the simplest preemption-aware ranking: it ignores what the
    victims are worth (use ``termination_cost`` for that). A host where the
    request cannot fit even with every preemptible instance gone (only possible
    when the filters let such a host through) gets one less than the lowest
    weight of the other hosts, so it ranks below all of them; if no host can
    take the request at all, they all get -1 (all equal, so the weigher has no
    say). Keep the multiplier positive; a negative one would prefer
    terminating.

    Options: ``[filter_scheduler] preemptible_count_weight_multiplier``
    (default 1.0), overridable per aggregate by metadata of the same name.
    """

    name = 'preemptible_count'
    raw_type = int
    unit_costs = True

    @staticmethod
    def _weigh(host_view, resources, now):
        if host_view.fits(resources):
            return 0
        count = host_view.host.termination_count(resources, now)
        return None if count is None else -count
