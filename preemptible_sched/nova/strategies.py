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

"""The preemption strategy and termination costs, configured from
``nova.conf`` (Nova-free but for the configuration object).

``[preemptible_sched] preemption_strategy`` names an entry point of
``preemptible_sched.preemption_strategies``, loaded as the standalone
scheduler loads it and configured from ``nova.conf`` (``qos`` reads
``[qos]`` and ``[service_class_<name>]`` there); ``preemptible`` is the
deprecated name of ``dual_state``. ``termination_costs`` and their
multipliers build the core cost handler.
"""

import logging

from preemptible_sched import conf as core_conf
from preemptible_sched.conf import nova as nova_opts
from preemptible_sched.scheduler import preemption_strategies as preemption
from preemptible_sched.scheduler import termination_costs as termination

LOG = logging.getLogger(__name__)

GROUP = nova_opts.nova_group.name


def load(conf):
    """The strategy ``conf`` names (a new object).

    Raises InvalidInput (an unknown name, listing the valid ones; an
    incomplete service class) naming the option.
    """
    name = conf[GROUP].preemption_strategy
    if name in nova_opts.STRATEGY_ALIASES:
        LOG.warning('[%s] preemption_strategy = %s is deprecated: it is '
                    'called %s now.', GROUP, name,
                    nova_opts.STRATEGY_ALIASES[name])
        name = nova_opts.STRATEGY_ALIASES[name]
    nova_opts.apply(conf, core_conf.CONF)
    return preemption.load(name, conf=conf, group=GROUP)


def fit_only(conf):
    """The strategy of the requests that may displace nothing."""
    return preemption.load('plain', conf=conf, group=GROUP)


def on_victim(conf, strategy):
    """``terminate`` or ``requeue``: the option, else the strategy's
    default.
    """
    return conf[GROUP].on_victim or strategy.default_on_victim


def costs(conf):
    """The termination cost handler of ``termination_costs``."""
    nova_opts.apply(conf, core_conf.CONF)
    return termination.TerminationCostHandler.from_names(
        core_conf.CONF.preemptible.termination_costs)
