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

"""First fit: the first host, in registration order, that can take it."""

from preemptible_sched.scheduler import weighers
from preemptible_sched.scheduler.weighers import fit


class FirstFitWeigher(weighers.BaseHostWeigher):
    """Prefer the host registered first among those that passed.

    The R5 policy ``first_fit`` of the SC18 experiments: the hosts are
    taken in the order of the infrastructure, so the first ones fill up
    and the last ones stay free for large requests. The raw weight is a
    rank (0 for the first host, -1 for the next ...), so use it alone,
    with any positive multiplier.

    Options: ``[filter_scheduler] first_fit_weight_multiplier`` (default
    1.0).
    """

    name = 'first_fit'

    def weigh_all(self, batch, spec, context):
        return fit.ranks([0.0] * len(batch))
