"""Weigh hosts by free disk on the full view."""

from preemptible_sched import weighers


class DiskWeigher(weighers.BaseHostWeigher):
    """Prefer hosts with more free disk (spread); negative packs.

    The raw weight is the free disk in GB counting every instance, preemptible
    ones included. With a positive multiplier the host with the most free disk
    wins (spread); set the multiplier negative to stack instead. Useful when
    disk, not CPU or RAM, is the scarce resource.

    Options: ``[filter_scheduler] disk_weight_multiplier`` (default 1.0),
    overridable per aggregate by metadata of the same name.
    """

    def _weigh_object(self, host_view, spec):
        return host_view.free_disk_gb
