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

"""The core's class-based preemption strategies, configured from
``nova.conf``.

``[preemptible_sched] preemption_strategy = preemptible`` is the manager's
own path (servers of preemptible flavors, the termination selector) and has
no strategy object; ``priority`` and ``qos`` are the core strategies of the
same names, the latter with the service classes of ``[qos]`` and
``[service_class_<name>]`` in ``nova.conf``.
"""

from preemptible_sched.preemption import priority
from preemptible_sched.preemption import qos as qos_strategy
from preemptible_sched import qos


def load(conf):
    """A new strategy of the kind ``conf`` names, or None for
    ``preemptible``.

    New on every call: a strategy memoises per host name and time within
    one decision, and host states are rebuilt for every call. Raises
    InvalidInput naming the option when a service class is incomplete.
    """
    name = conf.preemptible_sched.preemption_strategy
    if name == 'preemptible':
        return None
    if name == 'priority':
        strategy = priority.PriorityStrategy()
    else:
        strategy = qos_strategy.QoSStrategy(
            qos.Classes(qos.load_classes(conf),
                        conf.qos.default_service_class or None),
            exempt=conf.qos.preempt_exempt_seconds,
            literal=conf.qos.literal_policy)
    strategy.name = name
    return strategy


def on_victim(conf):
    """``terminate`` or ``requeue``: the option, else the strategy's
    default.
    """
    chosen = conf.preemptible_sched.on_victim
    if chosen:
        return chosen
    return ('terminate' if conf.preemptible_sched.preemption_strategy ==
            'preemptible' else 'requeue')
