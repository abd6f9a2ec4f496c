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

"""A stock filter scheduler: nothing is ever displaced."""

from preemptible_sched.scheduler import preemption_strategies as preemption


class PlainStrategy(preemption.BasePreemptionStrategy):
    """Filter every request on the full view; never terminate anything.

    The baseline without preemption: what Nova does. A normal request that
    finds no free room fails (or waits, with ``[scheduler]
    on_no_valid_host = wait``).
    """

    name = 'plain'

    def phases(self, spec):
        return (preemption.FIT,)

    def displaceable(self, state, request, now):
        return ()

    def plan(self, state, request, displaceable, now):
        return None
