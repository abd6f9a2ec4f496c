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

"""Options that plugins bring with them, built from their entry points.

A plugin describes itself, as OpenStack Watcher's do: the names listed in
the help of ``enabled_filters``, ``weighers``, ``termination_costs``,
``queue_policy`` and ``preemption_strategy`` are read from the entry points,
and every weigher and termination cost gets its multiplier option
(``[filter_scheduler] <name>_weight_multiplier``, ``[preemptible]
<name>_cost_multiplier``) with the default and help the plugin class
declares (``multiplier_default``, its docstring). A new weigher is one
module, one line in ``setup.cfg`` and its unit test: its option appears in
the sample configuration and the docs by itself.

Names come from the installed distribution's metadata without importing
anything; the multiplier options import the plugin classes, so they are
registered when first needed (:func:`register_opts`), not at import time.
"""

import importlib.metadata
import inspect
import logging

from oslo_config import cfg

LOG = logging.getLogger(__name__)

FILTERS = 'preemptible_sched.filters'
WEIGHERS = 'preemptible_sched.weighers'
TERMINATION_COSTS = 'preemptible_sched.termination_costs'
QUEUE_POLICIES = 'preemptible_sched.queue_policies'
PREEMPTION_STRATEGIES = 'preemptible_sched.preemption_strategies'
SLA_PRICES = 'preemptible_sched.sla_prices'


#: ``{namespace: [entry points]}``: the installed distributions do not
#: change while a process runs, and reading them takes tens of
#: milliseconds (the start-up checks ask several times).
_CACHE = {}


def _entry_points(namespace):
    if namespace not in _CACHE:
        seen = {}
        for entry_point in importlib.metadata.entry_points(group=namespace):
            seen.setdefault(entry_point.name, entry_point)
        _CACHE[namespace] = list(seen.values())
    return list(_CACHE[namespace])


def names(namespace):
    """The plugin names registered in ``namespace``, in setup.cfg order."""
    return [entry_point.name for entry_point in _entry_points(namespace)]


def listed(namespace):
    """``names(namespace)`` as reStructuredText literals, comma separated."""
    found = names(namespace)
    if not found:
        return '(none installed)'
    return ', '.join('``%s``' % name for name in found)


def fill_names(opts):
    """Replace ``%(filters)s``-style markers in the help of ``opts`` by
    the names registered in the matching namespace.
    """
    table = {'filters': FILTERS, 'weighers': WEIGHERS,
             'costs': TERMINATION_COSTS, 'queue_names': QUEUE_POLICIES,
             'names': PREEMPTION_STRATEGIES}
    values = {key: listed(namespace) for key, namespace in table.items()}
    for opt in opts:
        if opt.help and '%(' in opt.help:
            opt.help = opt.help % values
    return opts


def _classes(namespace):
    classes = []
    for entry_point in _entry_points(namespace):
        try:
            classes.append((entry_point.name, entry_point.load()))
        except Exception as error:   # a broken third-party plugin
            LOG.warning('Plugin %s of %s cannot be loaded, so its options '
                        'are not registered: %s', entry_point.name,
                        namespace, error)
    return classes


def summary(plugin_class):
    doc = inspect.getdoc(plugin_class) or ''
    return doc.split('\n\n')[0].replace('\n', ' ').strip()


def weigher_opts(related='weighers'):
    """``<name>_weight_multiplier`` for every registered weigher;
    ``related`` names the option that lists the weighers.
    """
    opts = []
    for name, plugin_class in _classes(WEIGHERS):
        opts.append(cfg.FloatOpt(
            '%s_weight_multiplier' % name,
            default=getattr(plugin_class, 'multiplier_default', 1.0),
            help="""
Multiplier of the ``%s`` weigher: %s

Its raw weights are normalised to [0, 1] over the candidate hosts and
multiplied by this; a negative value inverts the weigher's preference. Host
aggregate metadata with the same key overrides it for the aggregate's
hosts (the smallest value wins when several aggregates set it).

Possible values:

* A finite number.

Related options:

* ``%s``
""" % (name, summary(plugin_class), related)))
    return opts


def cost_opts():
    """``<name>_cost_multiplier`` for every registered termination cost."""
    opts = []
    for name, plugin_class in _classes(TERMINATION_COSTS):
        opts.append(cfg.FloatOpt(
            '%s_cost_multiplier' % name,
            default=getattr(plugin_class, 'multiplier_default', 1.0),
            min=0.0,
            help="""
Multiplier of the ``%s`` termination cost: %s

The cost of terminating an instance is the sum, over ``termination_costs``,
of each plugin's cost times its multiplier; 0 turns the plugin off.

Possible values:

* A finite number >= 0.

Related options:

* ``termination_costs``
""" % (name, summary(plugin_class))))
    return opts


_registered_on = []


def register_opts(conf):
    """Register the plugins' options on ``conf``, once.

    Called when the options are first needed (a weigher's multiplier, the
    start-up checks, a command's parsing), never when this package is
    imported: the plugin classes import the configuration themselves.
    oslo.config reads a value set in a file even when its option is
    registered after the files were parsed.
    """
    if any(known is conf for known in _registered_on):
        return
    _registered_on.append(conf)
    conf.register_opts(weigher_opts(), group='filter_scheduler')
    conf.register_opts(cost_opts(), group='preemptible')


def plugin_class(namespace, name):
    """The class of plugin ``name`` in ``namespace``, or None."""
    for entry_point in _entry_points(namespace):
        if entry_point.name == name:
            return entry_point.load()
    return None


def list_opts():
    return {'filter_scheduler': weigher_opts(), 'preemptible': cost_opts()}
