"""Highest priority first."""

from preemptible_sched import policies


class PriorityPolicy(policies.BaseQueuePolicy):
    """Consider requests by descending priority, oldest first among equals.

    The priority is the request's ``priority`` field (higher is more
    important), the order of Kubernetes' default scheduling queue. Use it
    when some tenants must not wait behind a batch of less important work.
    """

    def sort_key(self, request, now):
        return (-request.spec.priority, request.submitted_at,
                request.sequence)
