"""``preemptible-sched``: the operator and researcher command line.

Exit codes: 0 success; 1 the request could not be placed; 2 bad input
(file, field, option or plugin name), reported on one line of stderr.
"""

import sys

from oslo_config import cfg

from preemptible_sched.cmd import decide
from preemptible_sched.conf import CONF
from preemptible_sched import exception

EXIT_OK, EXIT_NO_VALID_HOST, EXIT_BAD_INPUT = 0, 1, 2

_COMMANDS = (decide,)


def _add_parsers(subparsers):
    for command in _COMMANDS:
        command.add_parser(subparsers)


def _option_source(group, name):
    """Where the value of ``[group] name`` came from, for error messages."""
    location = CONF.get_location(name, group)
    if location.location == cfg.Locations.user:
        return location.detail
    if location.location == cfg.Locations.set_default:
        return 'scenario config'
    return 'default'


def _fail(message):
    sys.stderr.write('preemptible-sched: %s\n' % ' '.join(
        str(message).split()))
    return EXIT_BAD_INPUT


def main(argv=None):
    CONF.register_cli_opt(cfg.SubCommandOpt(
        'command', title='Commands', handler=_add_parsers,
        help='Run "preemptible-sched COMMAND --help" for its options.'))
    try:
        CONF(sys.argv[1:] if argv is None else argv,
             project='preemptible-sched')
    except cfg.Error as error:
        return _fail(error)
    try:
        return CONF.command.func(CONF.command)
    except exception.UnknownPlugin as error:
        return _fail('%s: %s' % (_option_source(error.group, error.option),
                                 error))
    except (exception.InvalidInput, cfg.Error) as error:
        return _fail(error)
    finally:
        CONF.reset()


if __name__ == '__main__':
    sys.exit(main())
