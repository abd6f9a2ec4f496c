"""Cost of terminating an instance: the seconds it has run so far."""

from preemptible_sched import termination


class RuntimeCost(termination.BaseTerminationCost):
    """Prefer terminating the instances that have run the shortest time.

    The selector then terminates the youngest instances and protects
    long-running work, which loses the most when killed if it does not
    checkpoint. Use it when preemptible work is batch jobs that restart from
    scratch.

    Options: ``[preemptible] runtime_cost_multiplier``.
    """

    def cost(self, instance, host_state, now):
        return instance.runtime(now)
