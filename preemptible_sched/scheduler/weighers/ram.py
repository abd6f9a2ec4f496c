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

"""Weigh hosts by free RAM on the full view."""

from preemptible_sched.scheduler import weighers


class RAMWeigher(weighers.BaseHostWeigher):
    """Prefer hosts with more free RAM (spread); negative multiplier packs.

    The raw weight is the free memory in MB counting every instance,
    preemptible ones included. With a positive multiplier the host with the
    most free RAM wins, which spreads instances over hosts; set the multiplier
    negative to stack them instead (fill one host before the next, leaving
    whole hosts free for large requests).

    Options: ``[filter_scheduler] ram_weight_multiplier`` (default 1.0),
    overridable per aggregate by metadata of the same name.
    """

    name = 'ram'

    def weigh_all(self, batch, spec, context):
        return batch.free[1]
