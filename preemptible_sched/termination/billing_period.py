"""Cost of terminating an instance: the partial billing period it forfeits."""

from preemptible_sched.conf import CONF
from preemptible_sched import termination


class BillingPeriodCost(termination.BaseTerminationCost):
    """Prefer terminating instances early in their current billing period.

    Providers bill preemptible instances in whole periods and do not charge the
    period an instance is terminated in, so terminating an instance that has
    run ``runtime`` seconds loses ``runtime mod period`` seconds of billable
    time. The cheapest victims are those that just started a new period. Use it
    when revenue matters more than the work the instances lose.

    Options: ``[preemptible] billing_period_seconds`` (default 3600, read once
    when the plugin is loaded) and ``[preemptible]
    billing_period_cost_multiplier``.
    """

    def __init__(self):
        # Read once: the selector calls cost() for every candidate victim.
        self.period = CONF.preemptible.billing_period_seconds

    def cost(self, instance, host_state, now):
        return instance.runtime(now) % self.period
