"""Two passes: the full view first, terminations only when nothing fits."""

from preemptible_sched import preemption
from preemptible_sched.preemption import dual_state


class RetryStrategy(dual_state.DualStateStrategy):
    """Filter on the full view; only when no host passes, filter a normal
    request again on the normal view and terminate.

    The two-cycle design the preemptible-instances paper compares against:
    a normal request first looks for free room, and terminations are a
    fallback. Preemptible requests are filtered on the full view only.
    """

    def phases(self, spec):
        if spec.preemptible:
            return (preemption.FIT,)
        return (preemption.FIT, preemption.DISPLACE)
