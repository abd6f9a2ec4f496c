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

"""Termination costs: what the provider loses by terminating one instance.

A termination cost overrides :meth:`BaseTerminationCost.cost` and returns a
non-negative number; the termination selector minimises the sum of
``[preemptible] <name>_cost_multiplier`` times each configured cost over
the instances it terminates. Costs are registered in the
``preemptible_sched.termination_costs`` namespace.
"""

import numpy

from preemptible_sched.conf import CONF
from preemptible_sched.conf import plugins
from preemptible_sched import loadables


class BaseTerminationCost:
    """Base of every termination cost."""

    #: Its entry-point name: each class declares it (``name = 'count'``).
    #: A third-party class that declares none still loads; the loader sets
    #: the name on the object (:func:`preemptible_sched.loadables.named`).
    name = None
    #: Default of ``[preemptible] <name>_cost_multiplier``.
    multiplier_default = 1.0

    def cost(self, instance, host_state, now):
        """Cost of terminating ``instance`` on ``host_state`` at ``now``."""
        raise NotImplementedError()

    def cost_all(self, victims, rows, now, state_of):
        """Costs of the instances at ``rows`` (indices or a slice) of
        ``victims`` (a :class:`~preemptible_sched.hosts.victims.VictimTable`),
        as a vector.

        ``state_of(slot)`` gives a host's state. Override it to price every
        candidate at once from the table's columns; by default each
        instance goes through :meth:`cost`.
        """
        instances = victims.instances
        hosts = victims.host
        return numpy.array([
            self.cost(instances[row], state_of(int(hosts[row])), now)
            for row in numpy.arange(len(instances))[rows].tolist()],
            dtype=float)

    def multiplier(self):
        """``[preemptible] <name>_cost_multiplier``, or 1.0 if undeclared."""
        plugins.register_opts(CONF)
        return getattr(CONF.preemptible, '%s_cost_multiplier' % self.name,
                       self.multiplier_default)


class TerminationCostHandler:
    """The configured termination costs combined into one cost function."""

    def __init__(self, costs):
        self.costs = [(plugin, plugin.multiplier()) for plugin in costs]

    @classmethod
    def from_names(cls, names):
        return cls(loadables.load_plugins(
            'preemptible_sched.termination_costs', names,
            'preemptible', 'termination_costs'))

    def cost(self, instance, host_state, now):
        total = 0.0
        for plugin, multiplier in self.costs:
            if not multiplier:
                continue
            value = plugin.cost(instance, host_state, now)
            if not value >= 0:
                # A negative cost would make terminating more instances
                # cheaper, which no exact selector can honour.
                raise ValueError('termination cost %r returned %r for '
                                 'instance %s: costs must be numbers >= 0'
                                 % (plugin.name, value, instance.id))
            total += multiplier * value
        return total

    def cost_all(self, victims, rows, now, state_of):
        """:meth:`cost` of the instances at ``rows`` of ``victims``."""
        total = 0.0
        for plugin, multiplier in self.costs:
            if not multiplier:
                continue
            values = plugin.cost_all(victims, rows, now, state_of)
            bad = ~(values >= 0)
            if bad.any():
                index = int(numpy.flatnonzero(bad)[0])
                raise ValueError('termination cost %r returned %r for '
                                 'instance %s: costs must be numbers >= 0'
                                 % (plugin.name, float(values[index]),
                                    victims.instances[numpy.arange(
                                        len(victims))[rows][index]].id))
            total = total + multiplier * values
        if not isinstance(total, numpy.ndarray):
            # Every multiplier is 0: every instance costs nothing.
            total = numpy.zeros(len(victims.started[rows]))
        return total
