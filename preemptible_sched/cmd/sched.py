"""``preemptible-sched``: the operator and researcher command line.

Exit codes: 0 success; 1 the request could not be placed; 2 bad input
(file, field, option or plugin name), reported on one line of stderr.
"""

import re
import sys

from oslo_config import cfg
from oslo_log import log as logging

from preemptible_sched.cmd import client
from preemptible_sched.cmd import decide
from preemptible_sched.cmd import experiment
from preemptible_sched.cmd import simulate
from preemptible_sched.cmd import testbed
from preemptible_sched.conf import CONF
from preemptible_sched.conf import opts as opts_mod
from preemptible_sched.conf import plugins
from preemptible_sched import exception

EXIT_OK, EXIT_NO_VALID_HOST, EXIT_BAD_INPUT = 0, 1, 2

_COMMANDS = (decide, testbed, simulate, experiment, client)


def _add_parsers(subparsers):
    for command in _COMMANDS:
        command.add_parser(subparsers)


_GLOBAL_OPTIONS = ('--config-file', '--config-dir')


def _hoist_global_options(argv):
    """Move ``--config-file``/``--config-dir`` in front of the subcommand.

    oslo.config parses them before the subcommand, but users write them
    anywhere (``preemptible-sched decide --scenario F --config-file C``).
    """
    hoisted, rest = [], []
    args = iter(argv)
    for arg in args:
        if arg in _GLOBAL_OPTIONS:
            hoisted += [arg, next(args, '')]
        elif arg.split('=', 1)[0] in _GLOBAL_OPTIONS:
            hoisted.append(arg)
        else:
            rest.append(arg)
    return hoisted + rest


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


def _main(argv):
    logging.register_options(CONF)
    # stdout carries the command's output (JSON); logs go to stderr.
    CONF.set_default('use_stderr', True)
    logging.set_defaults(default_log_levels=logging.get_default_log_levels() +
                         ['alembic=WARN'])
    try:
        CONF(_hoist_global_options(sys.argv[1:] if argv is None else argv),
             project='preemptible-sched')
    except cfg.ConfigFileValueError as error:
        return _fail(_describe_bad_value(error))
    except cfg.Error as error:
        return _fail(error)
    logging.setup(CONF, 'preemptible-sched')
    try:
        return CONF.command.func(CONF.command)
    except exception.ConfigProblems as error:
        for problem in error.problems:
            _fail(problem)
        return EXIT_BAD_INPUT
    except exception.UnknownPlugin as error:
        return _fail('%s: %s' % (_option_source(error.group, error.option),
                                 error))
    except cfg.ConfigFileValueError as error:
        return _fail(_describe_bad_value(error))
    except (exception.InvalidInput, cfg.Error) as error:
        return _fail(error)


if __name__ == '__main__':
    sys.exit(main())
