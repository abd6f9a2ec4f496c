"""Keep only hosts in the availability zone the request asks for."""

from preemptible_sched import filters


class AvailabilityZoneFilter(filters.BaseHostFilter):
    """Pass hosts in the requested zone, or every host if none is asked.

    A host's zone is its own, else the one named by one of its aggregates, else
    ``[compute] default_availability_zone``. A request without a zone may go to
    any host. Enable it whenever users may pick a zone.

    Options: none here; see ``[compute] default_availability_zone``.
    """

    def applies_to(self, spec):
        return spec.availability_zone is not None

    def host_passes(self, host_view, spec):
        if spec.availability_zone is None:
            return True
        return host_view.host.availability_zone == spec.availability_zone
