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

"""Two passes: the full view first, terminations only when nothing fits."""

from preemptible_sched.scheduler import preemption_strategies as preemption
from preemptible_sched.scheduler.preemption_strategies import dual_state


class RetryStrategy(dual_state.DualStateStrategy):
    """Filter on the full view; only when no host passes, filter a normal
    request again on the normal view and terminate.

    The two-cycle design the preemptible-instances paper compares against:
    a normal request first looks for free room, and terminations are a
    fallback. Preemptible requests are filtered on the full view only.
    """

    name = 'retry'

    def phases(self, spec):
        if spec.preemptible:
            return (preemption.FIT,)
        return (preemption.FIT, preemption.DISPLACE)
