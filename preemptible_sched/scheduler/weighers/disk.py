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

"""Weigh hosts by free disk on the full view."""

from preemptible_sched.scheduler import weighers


class DiskWeigher(weighers.BaseHostWeigher):
    """Prefer hosts with more free disk (spread); negative packs.

    The raw weight is the free disk in GB counting every instance, preemptible
    ones included. With a positive multiplier the host with the most free disk
    wins (spread); set the multiplier negative to stack instead. Useful when
    disk, not CPU or RAM, is the scarce resource.

    Options: ``[filter_scheduler] disk_weight_multiplier`` (default 1.0),
    overridable per aggregate by metadata of the same name.
    """

    name = 'disk'

    def weigh_all(self, batch, spec, context):
        return batch.free[2]
