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

"""Weigh hosts by the number of instances they run, on the full view."""

from preemptible_sched.scheduler import weighers


class NumInstancesWeigher(weighers.BaseHostWeigher):
    """Raw weight: instances on the host; the negative default spreads.

    The raw weight is the count of every instance on the host, preemptible ones
    included. The default multiplier is negative, so hosts with fewer instances
    win, which spreads instances regardless of their size; set it positive to
    pack instances onto the hosts that already run the most.

    Options: ``[filter_scheduler] num_instances_weight_multiplier`` (default
    -1.0), overridable per aggregate by metadata of the same name.
    """

    name = 'num_instances'
    multiplier_default = -1.0
    raw_type = int

    def weigh_all(self, batch, spec, context):
        return batch.count.astype(float)
