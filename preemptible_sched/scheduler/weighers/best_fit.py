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

"""Best fit: the host with the fewest vCPUs left after placing."""

from preemptible_sched.scheduler import weighers
from preemptible_sched.scheduler.weighers import fit


class BestFitWeigher(weighers.BaseHostWeigher):
    """Prefer the host the request fills best: the fewest free vCPUs
    left once it is placed; ties go to the host registered first.

    The R5 policy ``best_fit`` of the SC18 experiments. It packs requests
    into the gaps, keeping whole hosts free for large requests. The raw
    weight is a rank (0 for the best host, -1 for the next ...), so use
    it alone, with any positive multiplier; for a packing weigher to mix
    with others, use ``cpu`` with a negative multiplier.

    Options: ``[filter_scheduler] best_fit_weight_multiplier`` (default
    1.0).
    """

    name = 'best_fit'

    def weigh_all(self, batch, spec, context):
        return fit.ranks(fit.leftover(batch.free[0], spec))
