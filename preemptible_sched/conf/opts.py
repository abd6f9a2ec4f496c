"""The option list for oslo-config-generator and the docs."""

from preemptible_sched.conf import compute
from preemptible_sched.conf import database
from preemptible_sched.conf import fake_driver
from preemptible_sched.conf import filter_scheduler
from preemptible_sched.conf import plugins
from preemptible_sched.conf import preemptible
from preemptible_sched.conf import qos
from preemptible_sched.conf import scheduler
from preemptible_sched.conf import service

_MODULES = (compute, database, fake_driver, filter_scheduler, preemptible,
            qos, scheduler, service)


def list_opts():
    """Return ``[(group, [opts])]`` for every group of the project."""
    opts = []
    generated = plugins.list_opts()
    for module in _MODULES:
        for group, group_opts in module.list_opts().items():
            opts.append((group, list(group_opts) +
                         generated.get(getattr(group, 'name', group), [])))
    return opts
