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

"""``preemptible-sched``: the operator and researcher command line.

Exit codes: 0 success; 1 the request could not be placed; 2 bad input
(file, field, option or plugin name), reported on one line of stderr.
"""

import argparse
import difflib
import functools
import os
import re
import sys

from oslo_config import cfg
from oslo_log import log as logging

from preemptible_sched.cmd import client
from preemptible_sched.cmd import common
from preemptible_sched.cmd import decide
from preemptible_sched.cmd import experiment
from preemptible_sched.cmd import load_watcher
from preemptible_sched.cmd import simulate
from preemptible_sched.cmd import testbed
from preemptible_sched.cmd import traces
from preemptible_sched.conf import CONF
from preemptible_sched.conf import opts as opts_mod
from preemptible_sched.conf import plugins
from preemptible_sched import exception
from preemptible_sched import input_limits as limits
from preemptible_sched import version

EXIT_OK, EXIT_NO_VALID_HOST, EXIT_BAD_INPUT = 0, 1, 2
#: The reader of stdout went away: the shell's code for SIGPIPE.
EXIT_BROKEN_PIPE = 128 + 13

_COMMANDS = (decide, testbed, simulate, experiment, client, traces,
             load_watcher)


#: Shown first by ``preemptible-sched --help``.
DESCRIPTION = (
    'Preemptible (spot) instances and QoS service classes for '
    'OpenStack-style schedulers. COMMAND is one of: decide (explain one '
    'decision on a snapshot), testbed (the original evaluation on emulated '
    'blades), simulate (replay a trace through the scheduler loop), '
    'experiment (compare strategies over workloads, size factors and '
    'seeds), traces (list, show and download the real traces), '
    'load-watcher (serve per-host utilisation windows), '
    'submit, list, show, delete (talk to a running scheduler '
    'service); each is described under "Commands" below. Run '
    '"preemptible-sched COMMAND --help" for its options. The logging '
    'options may also be set in [DEFAULT] of the configuration file.')


class _CommandParsers:
    """``subparsers`` that give every command a description and the help
    of the options every command honours (``--config-file``,
    ``--config-dir``, ``--debug``: parsed before the command, wherever they
    are written).
    """

    def __init__(self, subparsers):
        self.subparsers = subparsers

    def add_parser(self, name, **kw):
        if 'help' in kw and 'description' not in kw:
            kw['description'] = kw['help']
        parser = self.subparsers.add_parser(name, **kw)
        common = parser.add_argument_group('configuration')
        common.add_argument(
            '--config-file', metavar='PATH', action='append',
            dest='_config_file_help', default=argparse.SUPPRESS,
            help='Configuration file (INI, nova.conf style); repeatable, '
            'later files win. Default: none, the built-in defaults.')
        common.add_argument(
            '--config-dir', metavar='DIR', dest='_config_dir_help',
            default=argparse.SUPPRESS,
            help='Directory of *.conf files read after --config-file.')
        common.add_argument(
            '--debug', '-d', dest='_debug_help', action='store_true',
            default=argparse.SUPPRESS, help='Log at DEBUG level.')
        return parser


_BAD_NUMBER = re.compile(r"^argument (?P<option>[^:/]+)(/[^:]+)?: invalid "
                         r"(?P<type>int|float) value: (?P<value>.*)$", re.S)


def _argument_error(parser, message):
    """argparse's ``error``: a value that is not a number is one line (the
    command's own checks say so of the other bad values), anything else
    argparse's usage and message.
    """
    match = _BAD_NUMBER.match(message)
    if not match:
        argparse.ArgumentParser.error(parser, message)
    sys.stderr.write('preemptible-sched: %s: expected %s, got %s\n' % (
        match['option'], 'an integer' if match['type'] == 'int' else
        'a number', limits.one_line(match['value'], 80)))
    sys.exit(EXIT_BAD_INPUT)


def _parsers(subparsers):
    """Every parser of ``subparsers``, those of sub-commands included."""
    found, actions = [], [subparsers]
    while actions:
        for parser in actions.pop().choices.values():
            found.append(parser)
            # argparse has no public view of a parser's actions.
            actions += [action for action in parser._actions
                        if isinstance(action, argparse._SubParsersAction)]
    return found


def _add_parsers(subparsers):
    parsers = _CommandParsers(subparsers)
    for command in _COMMANDS:
        command.add_parser(parsers)
    for parser in _parsers(subparsers):
        parser.error = functools.partial(_argument_error, parser)


_GLOBAL_OPTIONS = ('--config-file', '--config-dir')
_GLOBAL_FLAGS = ('--debug', '-d', '--nodebug')


def _hoist_global_options(argv):
    """Move ``--config-file``/``--config-dir`` in front of the subcommand.

    oslo.config parses them before the subcommand, but users write them
    anywhere (``preemptible-sched decide --scenario F --config-file C``).
    """
    hoisted, rest = [], []
    args = iter(argv)
    for arg in args:
        if arg in _GLOBAL_FLAGS:
            hoisted.append(arg)
        elif arg in _GLOBAL_OPTIONS:
            hoisted += [arg, next(args, '')]
        elif arg.split('=', 1)[0] in _GLOBAL_OPTIONS:
            hoisted.append(arg)
        else:
            rest.append(arg)
    return hoisted + rest


#: A value argparse would take for an option, not being a plain negative
#: integer or decimal: ``-1e3``, ``-inf``, ``-nan``, ``-1,2``, ``-3``.
_NEGATIVE = re.compile(r'^-(\d|\.\d|inf|nan)', re.I)


def _command_options(values_only=False):
    """``{command: option strings of its options}`` (only those that take
    a value with ``values_only``), those of its own sub-commands (``traces
    download``) included.
    """
    parser = argparse.ArgumentParser(add_help=False)
    subparsers = parser.add_subparsers()
    _add_parsers(subparsers)
    table = {}
    for name, command in subparsers.choices.items():
        nested = [command] + [
            parser for action in command._actions
            if isinstance(action, argparse._SubParsersAction)
            for parser in _parsers(action)]
        table[name] = {option for parser in nested
                       for action in parser._actions
                       if not values_only or action.nargs != 0
                       for option in action.option_strings}
    return table


def _unknown_option(argv):
    """A one-line error for the first ``--option`` of ``argv`` that its
    command does not have, with the closest one it has; else None.

    argparse checks the required options before it reports an unknown
    one, so ``simulate --workload W --polcy qos`` would otherwise be told
    nothing of the typo, and a typo of a required option (``--workloads``)
    that it is missing.
    """
    table = _command_options()
    known = None
    for arg in argv:
        if arg == '--':
            return None
        if known is None:
            if arg in table:
                command, known = arg, table[arg]
            continue
        option = arg.split('=', 1)[0]
        if not option.startswith('--') or \
                option in _GLOBAL_OPTIONS + _GLOBAL_FLAGS or \
                any(name.startswith(option) for name in known):
            # Known, or a prefix argparse may take as an abbreviation.
            continue
        close = difflib.get_close_matches(option, sorted(known), n=1)
        return '%s: unknown option %s%s' % (
            command, option,
            ' (did you mean %s?)' % close[0] if close else
            '; see preemptible-sched %s --help' % command)
    return None


def _attach_negative_values(argv):
    """``--hosts -3`` as ``--hosts=-3``.

    argparse takes a value that starts with ``-`` for an option of its own
    when the value is not a plain negative number (``-1e3``, ``-inf``,
    ``-1,2``), and stops with its usage; attached, the value reaches the
    command, which says on one line what it must be.
    """
    table = _command_options(values_only=True)
    options = set()
    result = []
    for arg in argv:
        if result and result[-1] in options and _NEGATIVE.match(arg):
            result[-1] = '%s=%s' % (result[-1], arg)
            continue
        if not options and arg in table:
            options = table[arg]
        result.append(arg)
    return result


def _option_source(group, name):
    """Where the value of ``[group] name`` came from, for error messages."""
    location = CONF.get_location(name, group)
    if location.location == cfg.Locations.user:
        return location.detail
    if location.location == cfg.Locations.set_default:
        return 'scenario config'
    return 'default'


_BAD_VALUE = re.compile(r"Value for option (?P<name>\S+) from .*?"
                        r"detail='(?P<file>[^']*)'.*? is not valid: "
                        r"(?P<reason>.*)", re.S)


def _describe_bad_value(error):
    """``FILE: [group] option: reason`` for oslo's ConfigFileValueError."""
    match = _BAD_VALUE.match(str(error))
    if not match:
        return str(error)
    groups = [group.name for group, opts in opts_mod.list_opts()
              if any(opt.dest == match['name'] for opt in opts)]
    return '%s: [%s] %s: %s' % (match['file'], '|'.join(groups) or '?',
                                match['name'], match['reason'])


def _fail(message):
    sys.stderr.write('preemptible-sched: %s\n' % ' '.join(
        str(message).split()))
    return EXIT_BAD_INPUT


def main(argv=None):
    command = cfg.SubCommandOpt(
        'command', title='Commands', handler=_add_parsers,
        help='Run "preemptible-sched COMMAND --help" for its options.')
    CONF.register_cli_opt(command)
    plugins.register_opts(CONF)
    try:
        return _main(argv)
    finally:
        CONF.reset()
        CONF.unregister_opt(command)


USAGE = ('preemptible-sched [--config-file PATH] [--debug] [--version] '
         'COMMAND [options]')


def _main(argv):
    logging.register_options(CONF)
    # stdout carries the command's output (JSON); logs go to stderr.
    CONF.set_default('use_stderr', True)
    logging.set_defaults(default_log_levels=logging.get_default_log_levels() +
                         ['alembic=WARN'])
    argv = _hoist_global_options(sys.argv[1:] if argv is None else argv)
    unknown = _unknown_option(argv)
    if unknown:
        return _fail(unknown)
    try:
        CONF(_attach_negative_values(argv),
             project='preemptible-sched', prog='preemptible-sched',
             version=version.version_string(), usage=USAGE,
             description=DESCRIPTION)
    except cfg.ConfigFileValueError as error:
        return _fail(_describe_bad_value(error))
    except cfg.Error as error:
        return _fail(error)
    try:
        logging.setup(CONF, 'preemptible-sched')
    except logging.LogConfigError as error:
        # A log_config_append file that logging.config cannot use.
        return _fail('[DEFAULT] log_config_append: %s' % error)
    common.invocation[:] = ['preemptible-sched'] + list(argv)
    try:
        code = CONF.command.func(CONF.command)
        # Written out here, where a reader that has gone is caught.
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        # The reader went (``| head``): nothing more to say, and nothing
        # for the interpreter to fail to flush at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except exception.ConfigProblems as error:
        for problem in error.problems:
            _fail(problem)
        return EXIT_BAD_INPUT
    except exception.UnknownPlugin as error:
        return _fail('%s: %s' % (_option_source(error.group, error.option),
                                 error))
    except exception.MissingExtra as error:
        return _fail('%s: %s' % (CONF.command.name, error))
    except cfg.ConfigFileValueError as error:
        return _fail(_describe_bad_value(error))
    except (exception.InvalidInput, cfg.Error) as error:
        return _fail(error)


if __name__ == '__main__':
    sys.exit(main())
