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

"""Keep only hosts in the availability zone the request asks for."""

from preemptible_sched.scheduler import filters


class AvailabilityZoneFilter(filters.BaseHostFilter):
    """Pass hosts in the requested zone, or every host if none is asked.

    A host's zone is its own, else the one named by one of its aggregates, else
    ``[compute] default_availability_zone``. A request without a zone may go to
    any host. Enable it whenever users may pick a zone.

    Options: none here; see ``[compute] default_availability_zone``.
    """

    name = 'availability_zone'

    def applies_to(self, spec):
        return spec.availability_zone is not None

    def filter_all(self, batch, spec):
        zone = spec.availability_zone
        return batch.per_profile(
            lambda profile: profile.availability_zone == zone)
