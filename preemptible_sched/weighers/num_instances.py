"""Weigh hosts by the number of instances they run, on the full view."""

from preemptible_sched import weighers


class NumInstancesWeigher(weighers.BaseHostWeigher):
    """Raw weight: instances on the host; the negative default spreads.

    The raw weight is the count of every instance on the host, preemptible ones
    included. The default multiplier is negative, so hosts with fewer instances
    win, which spreads instances regardless of their size; set it positive to
    pack instances onto the hosts that already run the most.

    Options: ``[filter_scheduler] num_instances_weight_multiplier`` (default
    -1.0), overridable per aggregate by metadata of the same name.
    """

    multiplier_default = -1.0

    def _weigh_object(self, host_view, spec):
        return host_view.num_instances
