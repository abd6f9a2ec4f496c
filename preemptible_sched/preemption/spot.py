"""The spot policies: preemptible instances, and nothing at all."""

from preemptible_sched import preemption


class BillingPolicy(preemption.BasePreemptionPolicy):
    """Normal requests terminate the cheapest preemptible instances.

    The victims are chosen by the exact termination selector under
    ``[preemptible] termination_costs`` (by default the partial billing
    period each victim forfeits), in the mode ``[preemptible] mode``.
    Preemptible requests never terminate anything.
    """

    spot = True


class NoPreemptionPolicy(preemption.BasePreemptionPolicy):
    """Nothing is ever displaced: a stock filter scheduler on the full
    view (``[preemptible] mode = plain``)."""

    spot = True
