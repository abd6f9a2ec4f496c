"""Cost of terminating an instance: 1, whatever the instance."""

from preemptible_sched import termination


class CountCost(termination.BaseTerminationCost):
    """Prefer terminating fewer instances.

    The selector then terminates as few instances as possible, whatever their
    size or age. Use it alone to disturb the fewest users, or with a small
    multiplier beside another cost to break its ties towards fewer victims.

    Options: ``[preemptible] count_cost_multiplier``.
    """

    def cost(self, instance, host_state, now):
        return 1.0
