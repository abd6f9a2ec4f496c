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
configuration is parsed: each problem is reported at once, one line each
naming the file, before anything runs:

* a value that cannot be used: of the wrong type, out of bounds, not a
  finite number (every float option, the plugins' multipliers and those
  of the libraries included), empty for a number (see :mod:`.parsing`);
* a group or an option in a file that nothing registered (a misspelling:
  the closest known name is suggested);
* an unknown plugin name, an incomplete service class, a malformed
  ``[database] connection`` or ``transport_url`` (:mod:`.urls`), a
  logging option that would stop logging from being set up;
* options that contradict each other, deprecated options that disagree
  with their replacements.
"""

import os

from oslo_config import cfg

from preemptible_sched.conf import config_files
from preemptible_sched.conf import database
from preemptible_sched.conf import load
from preemptible_sched.conf import load_watcher
from preemptible_sched.conf import metrics
from preemptible_sched.conf import parsing
from preemptible_sched.conf import plugins
from preemptible_sched.conf import qos
from preemptible_sched.conf import service
from preemptible_sched.conf import sla
from preemptible_sched.conf import unknown_names
from preemptible_sched.conf import urls
from preemptible_sched import exception

#: ``[scheduler] preemption_policy`` (deprecated) as a strategy; ``billing``
#: is whatever ``[preemptible] mode`` says.
_POLICY_STRATEGY = {'none': 'plain', 'qos': 'qos', 'priority': 'priority'}

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
                    '%s = %s contradicts [preemptible] mode = %s: set only '
                    '[scheduler] preemption_strategy' % (
                        where(conf, 'scheduler', 'preemption_policy'),
                        policy, mode))
    elif mode is not None:
        derived = mode
    if derived is None or new == derived:
        return derived or new, problems
    # oslo.config cannot tell whether an option was set (the location it
    # reports survives clear_override), so the new option counts as set
    # when it differs from its default.
    if new != DEFAULT_STRATEGY:
        problems.append(
            '%s = %s contradicts the deprecated %s: remove the deprecated '
            'option' % (
                where(conf, 'scheduler', 'preemption_strategy'), new,
                '[scheduler] preemption_policy = %s' % policy
                if policy is not None else '[preemptible] mode = %s' % mode))
    return derived, problems


def where(conf, group, option, defaults_source=None):
    """``[group] option`` prefixed by the file that set it, if one did."""
    return parsing.where(conf, group, option, defaults_source)


def _unknown(namespace, names, where):
    valid = plugins.names(namespace)
    if not valid:
        return []     # not installed as a distribution: nothing to check
    unknown = [name for name in names if name not in valid]
    if not unknown:
        return []
    # One problem per option, however many names it gets wrong.
    return ['%s: unknown name%s %s (valid: %s)' % (
        where, 's' if len(unknown) > 1 else '',
        ', '.join(repr(name) for name in unknown), ', '.join(valid))]


def _register_classes(conf):
    """Register the ``[service_class_<name>]`` group of every class
    ``[qos] service_classes`` names, so that their options are known.
    """
    try:
        names = conf.qos.service_classes or ()
    except (cfg.Error, ValueError):
        return
    for name in names:
        if name.strip():
            qos.register_class(conf, name.strip())


def _class_problems(conf, at):
    names = [name.strip() for name in conf.qos.service_classes
             if name.strip()]
    if not names:
        return ['%s: must name at least one class'
                % at('qos', 'service_classes')]
    found = []
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        found.append('%s: names %s more than once' % (
            at('qos', 'service_classes'), ', '.join(twice)))
    for name in dict.fromkeys(names):
        group = qos.class_group(name).name
        for option in ('slo', 'importance'):
            if conf[group][option] is None:
                found.append('%s: class %r needs [%s] %s (only %s have '
                             'defaults)' % (
                                 at('qos', 'service_classes'), name, group,
                                 option, ', '.join(qos.DEFAULT_CLASSES)))
    default = conf.qos.default_service_class
    if default and default not in names:
        found.append('%s: %r is not one of the service classes (%s)' % (
            at('qos', 'default_service_class'), default, ', '.join(names)))
    return found


def _fake_driver_problems(conf, at):
    found = []
    for option in ('boot_times_hot', 'boot_times_cold'):
        if not conf.fake_driver[option]:
            found.append('%s: needs at least one boot time'
                         % at('fake_driver', option))
    if conf.fake_driver.utilization_model == 'replay':
        trace = conf.fake_driver.utilization_trace
        if not trace:
            found.append('%s = replay needs [fake_driver] utilization_trace'
                         % at('fake_driver', 'utilization_model'))
        elif not os.path.exists(os.path.expanduser(trace)):
            found.append('%s: no file %s'
                         % (at('fake_driver', 'utilization_trace'), trace))
    return found


def _replay_problems(conf, at):
    if conf.replay.sample_users and conf.replay.sample_share <= 0:
        return ['%s: must be > 0 to sample users ([replay] sample_users = '
                '%d)' % (at('replay', 'sample_share'),
                         conf.replay.sample_users)]
    return []


def _topic_problems(conf, at):
    scheduler_topic = conf.service.scheduler_topic
    compute_topic = conf.service.compute_topic
    found = ['%s: must not be empty' % at('service', name)
             for name, topic in (('scheduler_topic', scheduler_topic),
                                 ('compute_topic', compute_topic))
             if not topic or not topic.strip()]
    if found:
        return found
    if compute_topic in (scheduler_topic,
                         service.report_topic(conf)):
        found.append(
            '%s = %s is also the topic the scheduler listens on (%s): the '
            'agents and the scheduler would take each other\'s messages; '
            'give each a topic of its own' % (
                at('service', 'compute_topic'), compute_topic,
                ', '.join((scheduler_topic, service.report_topic(conf)))))
    return found


def _database_problems(conf, at):
    connection = conf.database.connection
    if connection:
        problem = urls.database_url_problem(connection)
        return ['%s: %s' % (at('database', 'connection'), problem)] \
            if problem else []
    path = database.get_state_path(conf)
    if os.path.exists(path) and not os.path.isdir(path):
        return ['%s: %s is not a directory' % (at('DEFAULT', 'state_path'),
                                               path)]
    return []


def _transport_problems(conf, at):
    found = []
    files = None
    for group, option in (('DEFAULT', 'transport_url'),
                          ('oslo_messaging_notifications', 'transport_url')):
        section = conf if group == 'DEFAULT' else (
            conf[group] if group in conf else ())
        if option in section:
            text, place = section[option], at(group, option)
        else:
            # oslo.messaging is not used by this command: the files' value.
            if files is None:
                files = config_files.parsed_files(conf)
            text = place = None
            for path, sections in files:
                values = sections.get(group, {}).get(option)
                if values:
                    text, place = values[-1], '%s: [%s] %s' % (
                        path, group, option)
        if text and '$' not in text:
            problem = urls.transport_url_problem(conf, text)
            if problem:
                found.append('%s: %s' % (place, problem))
    return found


def _on_victim_problem(conf, strategy, at):
    strategy_class = plugins.plugin_class(plugins.PREEMPTION_STRATEGIES,
                                          strategy)
    if strategy_class is None or strategy_class.spot or \
            conf.scheduler.on_victim != 'terminate':
        return []
    option = at('scheduler', 'on_victim')
    files = config_files.parsed_files(conf)
    if not any('on_victim' in sections.get('scheduler', {})
               for _, sections in files):
        # Set under its deprecated name: say so.
        for path, sections in files:
            if 'on_preempt' in sections.get('preemptible', {}):
                option = '%s: [preemptible] on_preempt (deprecated)' % path
    return ['%s = terminate contradicts [scheduler] preemption_strategy = '
            '%s: a class-based strategy displaces normal (not preemptible) '
            'instances too, which must never be terminated; use requeue '
            '(the strategy\'s default when on_victim is unset)'
            % (option, strategy)]


def _option_problems(conf, defaults_source=None):
    """Values that cannot be used and names nothing knows, one line each."""
    plugins.register_opts(conf)
    _register_classes(conf)
    files = config_files.parsed_files(conf)
    # Every option's value, so that a bad one in a group this command
    # would not read is reported now too, and every name nothing knows.
    found = parsing.value_problems(conf, defaults_source)
    found += parsing.logging_problems(conf)
    found += unknown_names.unknown_names(conf, files)
    return found


def database_problems(conf):
    """What ``preemptible-sched-manage`` stops on, one line each: the
    values and names of the files, then ``[database]``.
    """
    return _option_problems(conf) or connection_problems(conf)


def connection_problems(conf):
    """What is wrong with ``[database] connection`` (or, without it, with
    ``[DEFAULT] state_path``), one line each.
    """
    return _database_problems(conf, lambda group, option: where(
        conf, group, option))


def problems(conf, defaults_source=None):
    """Every problem of the parsed ``conf``, one line each.

    Each line names the file that set the option; ``defaults_source``
    names what set the defaults (a scenario file's ``config``).
    """
    def at(group, option):
        return where(conf, group, option, defaults_source)

    found = _option_problems(conf, defaults_source)
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
    found += _class_problems(conf, at)
    found += _fake_driver_problems(conf, at)
    found += load.problems(conf, at)
    found += load_watcher.problems(conf, at)
    found += metrics.problems(conf, at)
    found += _replay_problems(conf, at)
    found += _topic_problems(conf, at)
    found += _database_problems(conf, at)
    found += _transport_problems(conf, at)
    found += _on_victim_problem(conf, strategy, at)
    found += _unknown(plugins.SLA_PRICES, [conf.sla.price],
                      at('sla', 'price'))
    found += sla.problems(conf, at)
    return found


def require_valid(conf, defaults_source=None):
    """Raise :class:`ConfigProblems` listing every problem, if any."""
    found = problems(conf, defaults_source)
    if found:
        raise exception.ConfigProblems(found)
