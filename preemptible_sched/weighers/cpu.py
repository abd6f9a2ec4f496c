"""Weigh hosts by free vCPUs on the full view."""

from preemptible_sched import weighers


class CPUWeigher(weighers.BaseHostWeigher):
    """Prefer hosts with more free vCPUs (spread); negative packs.

    The raw weight is the number of free vCPUs (after the allocation ratio)
    counting every instance, preemptible ones included. With a positive
    multiplier the host with the most free vCPUs wins, which spreads instances;
    set the multiplier negative to stack them on the busiest hosts instead.

    Options: ``[filter_scheduler] cpu_weight_multiplier`` (default 1.0),
    overridable per aggregate by metadata of the same name.
    """

    def _weigh_object(self, host_view, spec):
        return host_view.free_vcpus
