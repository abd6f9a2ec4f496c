"""Keep only hosts with room for the request on the view it is judged on."""

from preemptible_sched import filters


class ResourcesFilter(filters.BaseHostFilter):
    """Pass hosts where the request's vCPUs, RAM and disk fit the view.

    vCPUs, RAM and disk are all checked against the free amounts of the view
    the filter receives. In ``dual_state`` mode a normal request gets the
    normal view, so a host passes when the request would fit after terminating
    every preemptible instance on it; which of them actually die is decided
    later by the termination selector. A preemptible request gets the full view
    and passes only where it fits without terminating anything.

    Options: none; capacities come from the ``[compute]`` allocation ratios and
    reserved amounts when the host state is built.
    """

    def host_passes(self, host_view, spec):
        return host_view.fits(spec.resources)
