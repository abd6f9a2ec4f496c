"""The core termination planner, configured from ``nova.conf``."""


from preemptible_sched import conf as core_conf
from preemptible_sched.conf import nova as nova_opts
from preemptible_sched.driver import termination_selector
from preemptible_sched import termination
from preemptible_sched.nova import config
from preemptible_sched.nova import host_states

CONF = config.CONF


_cache = {}


def planner():
    """A :class:`TerminationPlanner` for now, with the configured costs.

    ``[preemptible_sched] termination_costs`` and their options are copied
    into the core configuration; the plugins are loaded once per distinct
    configuration and reused.
    """
    nova_opts.apply(CONF, core_conf.CONF)
    group = CONF[nova_opts.nova_group.name]
    key = tuple((name, repr(group[name])) for name in nova_opts.SHARED)
    handler = _cache.get(key)
    if handler is None:
        _cache.clear()
        handler = _cache[key] = termination.TerminationCostHandler.from_names(
            core_conf.CONF.preemptible.termination_costs)
    return CallPlanner(handler, host_states.now())


class CallPlanner(termination_selector.TerminationPlanner):
    """A planner for one ``select_destinations`` call, made at ``now``."""

    def __init__(self, costs, now):
        super().__init__(costs)
        self.now = now
