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

"""``preemptible-sched-status upgrade check``: is this deployment ready?

Run after installing a new version and before starting the services (the
OpenStack ``<project>-status upgrade check`` convention, oslo.upgradecheck):

* **Database schema**: the database of ``[database] connection`` is at the
  newest schema revision (otherwise run ``preemptible-sched-manage db
  sync``);
* **Plugins and options**: every configured plugin is installed, and the
  options agree with each other (the start-up checks of the services,
  deprecated options included);
* **Nova integration**: when a configuration file has a
  ``[preemptible_sched]`` section (a ``nova.conf``), what the operator
  guide asks of it: the package's filter is available, the service
  classes have numeric priorities, the termination costs exist, and
  several scheduler workers share a lock path.

The database must answer within ``[service] startup_timeout`` seconds;
when it does not, the database check fails with one line saying why.

Exit codes are oslo.upgradecheck's: 0 success, 1 warning, 2 failure (a bad
configuration file: one line of stderr per problem).
"""

import configparser
import sys

from oslo_config import cfg
from oslo_upgradecheck import upgradecheck

from preemptible_sched.cmd import scheduler as scheduler_cmd
from preemptible_sched.conf import checks
from preemptible_sched.conf import CONF
from preemptible_sched.conf import parsing
from preemptible_sched.conf import plugins
from preemptible_sched.db import api as db_api
from preemptible_sched.db import migration
from preemptible_sched import exception
from preemptible_sched import version

Code = upgradecheck.Code
Result = upgradecheck.Result

NOVA_GROUP = 'preemptible_sched'


def _nova_sections():
    """(path, parser) of every configuration file with our Nova group."""
    found = []
    for path in CONF.config_file or ():
        parser = configparser.ConfigParser(interpolation=None,
                                           strict=False)
        try:
            parser.read(path)
        except configparser.Error:
            continue    # oslo.config already parsed it or said why
        if parser.has_section(NOVA_GROUP):
            found.append((path, parser))
    return found


class Checks(upgradecheck.UpgradeCommands):

    def _check_database(self):
        from preemptible_sched.service import readiness
        problem = checks.connection_problems(CONF)
        if problem:
            return Result(Code.FAILURE, '\n'.join(problem))
        try:
            readiness.wait_for_database(CONF, CONF.service.startup_timeout)
            store = db_api.Store.from_config(CONF)
            try:
                current = store.revision()
            finally:
                store.dispose()
        except exception.StartupFailed as error:
            return Result(Code.FAILURE, str(error))
        except Exception as error:
            return Result(Code.FAILURE, 'The database cannot be read: %s'
                          % readiness.one_line(error))
        head = migration.head_revision()
        if current != head:
            return Result(
                Code.FAILURE,
                'The database is at schema revision %s, the newest is %s: '
                'run "preemptible-sched-manage db sync".'
                % (current or 'none (empty)', head))
        return Result(Code.SUCCESS, 'Schema revision %s.' % head)

    def _check_options(self):
        problems = checks.problems(CONF)
        if problems:
            return Result(Code.FAILURE, '\n'.join(problems))
        return Result(Code.SUCCESS)

    def _check_nova(self):
        sections = _nova_sections()
        if not sections:
            return Result(Code.SUCCESS, 'No [%s] section: not used with '
                          'Nova.' % NOVA_GROUP)
        failures, warnings = [], []
        costs = plugins.names(plugins.TERMINATION_COSTS)
        for path, parser in sections:
            group = parser[NOVA_GROUP]
            for item in filter(None, (
                    i.strip() for i in group.get('service_classes', '')
                    .split(','))):
                name, _, priority = item.partition(':')
                try:
                    float(priority)
                except ValueError:
                    failures.append('%s: [%s] service_classes: the priority '
                                    'of %r is %r, not a number' % (
                                        path, NOVA_GROUP, name.strip(),
                                        priority.strip()))
            for name in filter(None, (c.strip() for c in group.get(
                    'termination_costs', 'billing_period').split(','))):
                if costs and name not in costs:
                    failures.append('%s: [%s] termination_costs: unknown '
                                    'cost %r (valid: %s)' % (
                                        path, NOVA_GROUP, name,
                                        ', '.join(costs)))
            filters = ' '.join(
                parser.get('filter_scheduler', option, fallback='')
                for option in ('available_filters', 'enabled_filters'))
            if 'preemptible_sched.nova.filters' not in filters:
                warnings.append(
                    '%s: [filter_scheduler] available_filters does not list '
                    'preemptible_sched.nova.filters.all_filters: the '
                    'PreemptibleResourcesFilter cannot be enabled' % path)
            workers = parser.get('scheduler', 'workers', fallback='1')
            if workers.strip() not in ('', '0', '1') and not parser.get(
                    'oslo_concurrency', 'lock_path', fallback=''):
                warnings.append(
                    '%s: [scheduler] workers = %s without [oslo_concurrency] '
                    'lock_path: the workers would not share the decision '
                    'lock' % (path, workers.strip()))
        if failures:
            return Result(Code.FAILURE, '\n'.join(failures + warnings))
        if warnings:
            return Result(Code.WARNING, '\n'.join(warnings))
        return Result(Code.SUCCESS)

    _upgrade_checks = (
        ('Database schema', _check_database),
        ('Plugins and options', _check_options),
        ('Nova integration', _check_nova),
    )


def main(argv=None):
    """oslo.upgradecheck's ``main``, with a command option this process can
    unregister again (tests run it several times).
    """
    checks_command = Checks()

    def add_parsers(subparsers):
        upgrade = subparsers.add_parser(
            'upgrade', help='Check that this deployment is ready.',
            description='Check that this deployment is ready: database '
            'schema, plugins and options, Nova integration.')
        upgrade.add_argument('check')
        upgrade.add_argument('--json', action='store_true',
                             help='Print the results as JSON.')
        upgrade.set_defaults(action_fn=checks_command.check)

    command = cfg.SubCommandOpt('command', handler=add_parsers)
    scheduler_cmd.quiet_eventlet()
    from preemptible_sched import service
    plugins.register_opts(CONF)
    # So that [DEFAULT] transport_url is checked with the options.
    service.register_messaging_opts(CONF)
    CONF.register_cli_opt(command)
    try:
        CONF(sys.argv[1:] if argv is None else list(argv),
             project='preemptible-sched', prog='preemptible-sched-status',
             version=version.version_string())
        # Where the library's check() reads ``--json`` from.
        upgradecheck.CONF = CONF
        return upgradecheck.run(CONF)
    except parsing.BadValues as error:
        for problem in error.problems:
            sys.stderr.write('preemptible-sched-status: %s\n' % problem)
        return 2
    except cfg.Error as error:
        sys.stderr.write('preemptible-sched-status: %s\n' % ' '.join(
            parsing.mask_passwords(error).split()))
        return 2
    finally:
        CONF.reset()
        CONF.unregister_opt(command)


if __name__ == '__main__':
    sys.exit(main())
