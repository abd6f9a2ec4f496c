"""A stock filter scheduler: nothing is ever displaced."""

from preemptible_sched import preemption


class PlainStrategy(preemption.BasePreemptionStrategy):
    """Filter every request on the full view; never terminate anything.

    The baseline without preemption: what Nova does. A normal request that
    finds no free room fails (or waits, with ``[scheduler]
    on_no_valid_host = wait``).
    """

    def phases(self, spec):
        return (preemption.FIT,)

    def displaceable(self, state, request, now):
        return ()

    def plan(self, state, request, displaceable, now):
        return None
