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
OpenStack ``<project>-status upgrade check`` convention, oslo.upgradecheck).
What is checked depends on the configuration files given (see
:mod:`preemptible_sched.conf.nova_journal`).

Given a **nova.conf** (a file of ``--config-file`` or ``--config-dir`` with
a ``[preemptible_sched]`` or an ``[api_database]`` section); Nova's own
databases are never opened:

* **Journal database**: the database of ``[preemptible_sched]
  journal_connection`` answers, and its schema revision against the newest
  (a warning when it is empty or older: the scheduler migrates it on first
  use, ``preemptible-sched-manage --config-file nova.conf db sync`` does it
  now; a failure when it cannot be reached or is newer than this code);
* **Nova integration**: what the operator guide asks of the file: the
  package's filter is available, the service classes have numeric
  priorities, the termination costs exist, and several scheduler workers
  share a lock path.

Otherwise, for the standalone scheduler:

* **Database schema**: the database of ``[database] connection`` is at the
  newest schema revision (otherwise run ``preemptible-sched-manage db
  sync``);
* **Plugins and options**: every configured plugin is installed, and the
  options agree with each other (the start-up checks of the services,
  deprecated options included);
* **Nova integration**: says it is not used.

The database must answer within ``[service] startup_timeout`` seconds (for
a nova.conf, that option's default); when it does not, the check fails
with one line saying why.

Exit codes are oslo.upgradecheck's: 0 success, 1 warning, 2 failure (a bad
configuration file: one line of stderr per problem).
"""

import sys

from oslo_config import cfg
from oslo_upgradecheck import upgradecheck
import sqlalchemy as sa
from sqlalchemy import pool

from preemptible_sched.cmd import common
from preemptible_sched.cmd import serving
from preemptible_sched.conf import checks
from preemptible_sched.conf import CONF
from preemptible_sched.conf import config_files
from preemptible_sched.conf import database as database_conf
from preemptible_sched.conf import nova_journal
from preemptible_sched.conf import parsing
from preemptible_sched.conf import plugins
from preemptible_sched.db import engine_setup
from preemptible_sched.db import migration
from preemptible_sched import exception
from preemptible_sched import version

Code = upgradecheck.Code
Result = upgradecheck.Result

NOVA_GROUP = config_files.NOVA_GROUP


def _nova_sections(conf):
    """(path, sections) of every configuration file with our Nova group."""
    return [(path, sections)
            for path, sections in config_files.parsed_files(conf)
            if NOVA_GROUP in sections]


def _value(sections, group, option, default=''):
    """The last value of ``[group] option`` in a parsed file."""
    values = sections.get(group, {}).get(option)
    return values[-1] if values else default


def _nova_problems(path, sections):
    """(failures, warnings) of the Nova integration in one nova.conf."""
    failures, warnings = [], []
    costs = plugins.names(plugins.TERMINATION_COSTS)
    for item in filter(None, (i.strip() for i in _value(
            sections, NOVA_GROUP, 'service_classes').split(','))):
        name, _, priority = item.partition(':')
        try:
            float(priority)
        except ValueError:
            failures.append('%s: [%s] service_classes: the priority of %r '
                            'is %r, not a number' % (
                                path, NOVA_GROUP, name.strip(),
                                priority.strip()))
    for name in filter(None, (c.strip() for c in _value(
            sections, NOVA_GROUP, 'termination_costs',
            'billing_period').split(','))):
        if costs and name not in costs:
            failures.append('%s: [%s] termination_costs: unknown cost %r '
                            '(valid: %s)' % (path, NOVA_GROUP, name,
                                             ', '.join(costs)))
    filters = ' '.join(_value(sections, 'filter_scheduler', option)
                       for option in ('available_filters', 'enabled_filters'))
    if 'preemptible_sched.nova.filters' not in filters:
        warnings.append(
            '%s: [filter_scheduler] available_filters does not list '
            'preemptible_sched.nova.filters.all_filters: the '
            'PreemptibleResourcesFilter cannot be enabled' % path)
    workers = _value(sections, 'scheduler', 'workers', '1').strip()
    if workers not in ('', '0', '1') and not _value(
            sections, 'oslo_concurrency', 'lock_path'):
        warnings.append(
            '%s: [scheduler] workers = %s without [oslo_concurrency] '
            'lock_path: the workers would not share the decision lock'
            % (path, workers))
    return failures, warnings


def check_nova(conf):
    """The Nova integration's requirements in the files of ``conf``."""
    sections = _nova_sections(conf)
    if not sections:
        return Result(Code.SUCCESS, 'No [%s] section: not used with '
                      'Nova.' % NOVA_GROUP)
    failures, warnings = [], []
    for path, parsed in sections:
        found = _nova_problems(path, parsed)
        failures += found[0]
        warnings += found[1]
    if failures:
        return Result(Code.FAILURE, '\n'.join(failures + warnings))
    if warnings:
        return Result(Code.WARNING, '\n'.join(warnings))
    return Result(Code.SUCCESS)


def _wait(url, option):
    # Imported once quiet_eventlet() has run: readiness imports
    # oslo.messaging.
    from preemptible_sched.service import readiness
    readiness.wait_for_url(url, CONF.service.startup_timeout, option)


def _read_revision(url, option):
    """The schema revision at ``url`` (None: empty), or a failed Result."""
    from preemptible_sched.service import readiness
    try:
        _wait(url, option)
        engine = sa.create_engine(url, poolclass=pool.NullPool)
        try:
            return migration.current_revision(engine)
        finally:
            engine.dispose()
    except exception.StartupFailed as error:
        return Result(Code.FAILURE, str(error))
    except Exception as error:
        return Result(Code.FAILURE, 'The database %s cannot be read: %s'
                      % (engine_setup.shown_url(url),
                         readiness.one_line(error)))


def check_journal(conf, files):
    """The journal of the nova.conf ``files``: reachable, and its schema
    revision against the newest.
    """
    try:
        url = nova_journal.journal_url(conf)
    except exception.InvalidInput as error:
        return Result(Code.FAILURE, str(error))
    sync = '"%s"' % common.sync_command(files)
    where = '%s (%s)' % (engine_setup.shown_url(url),
                         nova_journal.JOURNAL_OPTION)
    missing = engine_setup.sqlite_file_missing(url)
    if missing:
        return Result(Code.WARNING, 'No journal database yet at %s: the '
                      'scheduler creates it on first use; %s creates it '
                      'now.' % (where, sync))
    current = _read_revision(url, nova_journal.JOURNAL_OPTION)
    if isinstance(current, Result):
        return current
    head = migration.head_revision()
    if current == head:
        return Result(Code.SUCCESS, 'Journal %s at schema revision %s, the '
                      'newest.' % (where, head))
    if current is not None and not migration.is_known(current):
        return Result(Code.FAILURE, 'The journal %s is at schema revision '
                      '%s, which this code does not know (its newest is '
                      '%s): is an older preemptible-sched installed here '
                      'than on the schedulers?' % (where, current, head))
    return Result(Code.WARNING, 'The journal %s is at schema revision %s, '
                  'the newest is %s: the scheduler migrates it on first '
                  'use; run %s to do it now, while no scheduler runs.'
                  % (where, current or 'none (empty)', head, sync))


class Checks(upgradecheck.UpgradeCommands):
    """The standalone scheduler's checks."""

    def _check_database(self):
        problem = checks.connection_problems(CONF)
        if problem:
            return Result(Code.FAILURE, '\n'.join(problem))
        current = _read_revision(database_conf.get_connection_url(CONF),
                                 '[database] connection')
        if isinstance(current, Result):
            return current
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
        return check_nova(CONF)

    _upgrade_checks = (
        ('Database schema', _check_database),
        ('Plugins and options', _check_options),
        ('Nova integration', _check_nova),
    )


class NovaChecks(upgradecheck.UpgradeCommands):
    """The checks of a nova.conf: never Nova's own databases."""

    def __init__(self, conf, files):
        self.conf = conf
        self.files = files

    def _check_journal(self):
        return check_journal(self.conf, self.files)

    def _check_nova(self):
        return check_nova(self.conf)

    _upgrade_checks = (
        ('Journal database', _check_journal),
        ('Nova integration', _check_nova),
    )


def _add_parsers(checks_command):
    def add_parsers(subparsers):
        upgrade = subparsers.add_parser(
            'upgrade', help='Check that this deployment is ready.',
            description='Check that this deployment is ready. Given a '
            'nova.conf (a file with a [preemptible_sched] or an '
            '[api_database] section): the journal database of '
            '[preemptible_sched] journal_connection (never Nova\'s own '
            'databases) and the Nova integration; otherwise the database '
            'schema of [database] connection, plugins and options.')
        upgrade.add_argument('check')
        upgrade.add_argument('--json', action='store_true',
                             help='Print the results as JSON.')
        upgrade.set_defaults(action_fn=checks_command.check)
    return add_parsers


def _fail(message):
    sys.stderr.write('preemptible-sched-status: %s\n' % ' '.join(
        parsing.mask_passwords(message).split()))
    return 2


def main(argv=None):
    """oslo.upgradecheck's ``main``, with a command option this process can
    unregister again (tests run it several times).
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    nova_files = config_files.nova_files(argv)
    if nova_files:
        conf = nova_journal.make_conf()
        checks_command = NovaChecks(conf, nova_files)
    else:
        conf, checks_command = CONF, Checks()
    command = cfg.SubCommandOpt('command',
                                handler=_add_parsers(checks_command))
    serving.quiet_eventlet()
    if not nova_files:
        from preemptible_sched import service
        plugins.register_opts(CONF)
        # So that [DEFAULT] transport_url is checked with the options.
        service.register_messaging_opts(CONF)
    conf.register_cli_opt(command)
    try:
        conf(argv, project='nova' if nova_files else 'preemptible-sched',
             prog='preemptible-sched-status',
             version=version.version_string())
        # Where the library's check() reads ``--json`` from.
        upgradecheck.CONF = conf
        return upgradecheck.run(conf)
    except parsing.BadValues as error:
        for problem in error.problems:
            _fail(problem)
        return 2
    except cfg.Error as error:
        return _fail(str(error))
    finally:
        conf.reset()
        conf.unregister_opt(command)


if __name__ == '__main__':
    sys.exit(main())
