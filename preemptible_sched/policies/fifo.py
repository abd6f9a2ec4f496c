"""First come, first served."""

from preemptible_sched import policies


class FifoPolicy(policies.BaseQueuePolicy):
    """Consider requests in the order they were submitted.

    The default, and what Nova does. A request that cannot be placed does
    not block the ones behind it (with ``on_no_valid_host = wait`` it is
    simply tried again in the next pass).
    """

    def sort_key(self, request, now):
        return (request.submitted_at, request.sequence)
