"""Keep only hosts whose compute service is enabled and up."""

from preemptible_sched import filters


class ComputeFilter(filters.BaseHostFilter):
    """Pass hosts that are enabled and whose compute service is up.

    A disabled host is one an operator took out of scheduling on purpose; a
    down host is one whose compute service stopped reporting. Neither should
    receive new instances, preemptible or not. Enable this filter first: it is
    the cheapest and removes hosts that every other check would waste time on.

    Options: none.
    """

    def host_passes(self, host_view, spec):
        host = host_view.host
        return bool(host.enabled and host.up)
