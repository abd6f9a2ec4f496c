# Copyright 2026 The preemptible_sched developers
#
#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
#    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
#    License for the specific language governing permissions and limitations
#    under the License.

"""The core termination planner, configured from ``nova.conf``."""


from preemptible_sched import conf as core_conf
from preemptible_sched.conf import nova as nova_opts
from preemptible_sched.driver import termination_selector
from preemptible_sched.nova import config
from preemptible_sched.nova import host_states
from preemptible_sched import termination

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
