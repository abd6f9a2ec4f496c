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

"""Start-up checks of options that only make sense together.

Every command that schedules calls :func:`require_valid` once the
configuration is parsed: each problem (an unknown plugin name, a
non-finite multiplier, options that contradict each other, deprecated
options that disagree with their replacements) is reported at once, one
line each, before anything runs. oslo.config already checks each option on
its own (types, choices, bounds).
"""

import math
import re

from oslo_config import cfg

from preemptible_sched.conf import plugins
from preemptible_sched import exception

#: ``[scheduler] preemption_policy`` (deprecated) as a strategy; ``billing``
#: is whatever ``[preemptible] mode`` says.
_POLICY_STRATEGY = {'none': 'plain', 'qos': 'qos', 'priority': 'priority'}

_DETAIL = re.compile(r"detail='([^']+)'")

DEFAULT_STRATEGY = 'dual_state'


def strategy_name(conf):
    """``(name, problems)``: the preemption strategy the options choose.

    ``[scheduler] preemption_strategy`` unless the deprecated
    ``[scheduler] preemption_policy`` or ``[preemptible] mode`` are set:
    ``preemption_policy`` wins (``billing`` meaning ``mode``), then
    ``mode``. Contradictions are problems, never silently resolved.
    """
    problems = []
    new = conf.scheduler.preemption_strategy
    policy = conf.scheduler.preemption_policy
    mode = conf.preemptible.mode
    derived = None
    if policy is not None:
        if policy == 'billing':
            derived = mode or 'dual_state'
        else:
            derived = _POLICY_STRATEGY[policy]
            if mode is not None and mode != derived and \
                    not (policy != 'none' and mode == 'dual_state'):
                problems.append(
                    '[scheduler] preemption_policy = %s contradicts '
                    '[preemptible] mode = %s: set only [scheduler] '
                    'preemption_strategy' % (policy, mode))
    elif mode is not None:
        derived = mode
    if derived is None or new == derived:
        return derived or new, problems
    # oslo.config cannot tell whether an option was set (the location it
    # reports survives clear_override), so the new option counts as set
    # when it differs from its default.
    if new != DEFAULT_STRATEGY:
        problems.append(
            '[scheduler] preemption_strategy = %s contradicts the '
            'deprecated %s: remove the deprecated option' % (
                new, '[scheduler] preemption_policy = %s' % policy
                if policy is not None else '[preemptible] mode = %s' % mode))
    return derived, problems


def where(conf, group, option, defaults_source=None):
    """``[group] option`` prefixed by the file that set it, if one did."""
    location = conf.get_location(option, group)
    if location is None:
        return '[%s] %s' % (group, option)
    if location.location == cfg.Locations.user and location.detail:
        return '%s: [%s] %s' % (location.detail, group, option)
    if location.location == cfg.Locations.set_default and defaults_source:
        return '%s: config.%s.%s' % (defaults_source, group, option)
    return '[%s] %s' % (group, option)


def _unknown(namespace, names, where):
    valid = plugins.names(namespace)
    if not valid:
        return []     # not installed as a distribution: nothing to check
    return ['%s: unknown name %r (valid: %s)' % (where, name,
                                                 ', '.join(valid))
            for name in names if name not in valid]


def problems(conf, defaults_source=None):
    """Every problem of the parsed ``conf``, one line each.

    Each line names the file that set the option; ``defaults_source``
    names what set the defaults (a scenario file's ``config``).
    """
    def at(group, option):
        return where(conf, group, option, defaults_source)

    plugins.register_opts(conf)
    found = []
    # Every option's value, so that a bad one in a group this command
    # would not read is reported now too.
    for group in sorted(conf.keys()):
        section = conf[group]
        if not isinstance(section, cfg.ConfigOpts.GroupAttr):
            continue
        for name in sorted(section):
            try:
                section[name]
            except (cfg.ConfigFileValueError, ValueError) as error:
                # get_location() would read the bad value again: the
                # file is in the message.
                text = str(error)
                reason = text.split(' is not valid: ', 1)[-1]
                source = _DETAIL.search(text)
                found.append('%s[%s] %s: %s' % (
                    source.group(1) + ': ' if source else '', group, name,
                    reason))
    if found:
        return found    # the checks below would only trip on these
    strategy, found_strategy = strategy_name(conf)
    found += found_strategy
    found += _unknown(plugins.PREEMPTION_STRATEGIES, [strategy],
                      at('scheduler', 'preemption_strategy'))
    if conf.scheduler.queue_policy is not None:
        found += _unknown(plugins.QUEUE_POLICIES,
                          [conf.scheduler.queue_policy],
                          at('scheduler', 'queue_policy'))
    found += _unknown(plugins.FILTERS, conf.filter_scheduler.enabled_filters,
                      at('filter_scheduler', 'enabled_filters'))
    if conf.filter_scheduler.weighers is not None:
        found += _unknown(plugins.WEIGHERS, conf.filter_scheduler.weighers,
                          at('filter_scheduler', 'weighers'))
    found += _unknown(plugins.TERMINATION_COSTS,
                      conf.preemptible.termination_costs,
                      at('preemptible', 'termination_costs'))
    for group, suffix in (('filter_scheduler', '_weight_multiplier'),
                          ('preemptible', '_cost_multiplier')):
        for name in conf[group]:
            if name.endswith(suffix):
                value = conf[group][name]
                if value is not None and not math.isfinite(value):
                    found.append('%s: must be a finite number, got %r'
                                 % (at(group, name), value))
    strategy_class = plugins.plugin_class(plugins.PREEMPTION_STRATEGIES,
                                          strategy)
    if strategy_class is not None and not strategy_class.spot and \
            conf.scheduler.on_victim == 'terminate':
        found.append(
            '[scheduler] on_victim = terminate contradicts '
            'preemption_strategy = %s: a class-based strategy displaces '
            'normal instances too, which must never be terminated; use '
            'requeue (or leave on_victim unset)' % strategy)
    return found


def require_valid(conf, defaults_source=None):
    """Raise :class:`ConfigProblems` listing every problem, if any."""
    found = problems(conf, defaults_source)
    if found:
        raise exception.ConfigProblems(found)
