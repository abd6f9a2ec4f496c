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

"""``preemptible-sched-manage``: operations on the scheduler's database.

Which database depends on the configuration files given (see
:mod:`preemptible_sched.conf.nova_journal`): with a **nova.conf** (a file of
``--config-file`` or ``--config-dir`` with a ``[preemptible_sched]`` or an
``[api_database]`` section) the Nova integration's journal,
``[preemptible_sched] journal_connection``, and never Nova's own databases;
otherwise the standalone scheduler's ``[database] connection``.

``db sync`` migrates that database to the newest schema (or to
``--revision``); run it on install and on every upgrade, while no scheduler
runs (the standalone service refuses to start on an older schema unless
``[database] auto_migrate`` is set; the Nova scheduler migrates its journal
on first use). ``db version`` prints the schema revision of the database
and the newest one this code knows.

``journal list|show|purge`` (a nova.conf only) read the Nova journal and
delete its closed decisions (:mod:`preemptible_sched.cmd.journal`).

The database must answer within ``[service] startup_timeout`` seconds
(for a nova.conf, that option's default; it is tried again every second
until then).

Exit codes: 0 done; 1 the database cannot be reached or migrated, or is
not at the newest schema (``db version``, ``journal``); 2 bad configuration
or arguments (one line of stderr per problem).
"""

import sys

from oslo_config import cfg

from preemptible_sched.cmd import common
from preemptible_sched.cmd import journal as journal_cmd
from preemptible_sched.cmd import serving
from preemptible_sched.conf import checks
from preemptible_sched.conf import CONF
from preemptible_sched.conf import config_files
from preemptible_sched.conf import database as database_conf
from preemptible_sched.conf import nova_journal
from preemptible_sched.conf import parsing
from preemptible_sched.db import api as db_api
from preemptible_sched.db import migration
from preemptible_sched import exception
from preemptible_sched import version

EXIT_OK, EXIT_ERROR, EXIT_BAD_INPUT = 0, 1, 2

WHICH_DATABASE = (
    'Given a nova.conf (a file with a [preemptible_sched] or an '
    '[api_database] section), the Nova journal of [preemptible_sched] '
    'journal_connection (never Nova\'s own databases); otherwise the '
    'standalone scheduler\'s [database] connection.')


class Target:
    """The database a command acts on: its URL, the option that names it
    and the configuration files it came from (``nova`` for a nova.conf).
    """

    def __init__(self, url, option, nova_files=(), conf=None):
        self.url = url
        self.option = option
        self.nova_files = list(nova_files)
        #: the configuration whose ``[database]`` options set up the
        #: engine (the standalone database's; None: oslo.db's defaults)
        self.conf = conf

    def wait(self):
        """Return once the database answers (StartupFailed otherwise)."""
        # Imported once quiet_eventlet() has run: readiness imports
        # oslo.messaging.
        from preemptible_sched.service import readiness
        readiness.wait_for_url(self.url, CONF.service.startup_timeout,
                               self.option)

    def store(self):
        """The :class:`Store` of the database, once it answers."""
        self.wait()
        return db_api.Store(self.url, conf=self.conf)

    def sync_command(self):
        """The command that migrates this database."""
        if self.nova_files:
            return common.sync_command(self.nova_files)
        return 'preemptible-sched-manage db sync'


def db_sync(args, target):
    store = target.store()
    try:
        before = store.revision()
        store.upgrade(args.revision or 'head')
        after = store.revision()
    finally:
        store.dispose()
    sys.stdout.write('%s: schema %s -> %s\n' % (
        store, before or 'none', after))
    return EXIT_OK


def db_version(args, target):
    store = target.store()
    try:
        current = store.revision()
    finally:
        store.dispose()
    head = migration.head_revision()
    sys.stdout.write('%s: schema %s (newest %s)%s\n' % (
        store, current or 'none', head,
        '' if current == head else ': run "%s"' % target.sync_command()))
    return EXIT_OK if current == head else EXIT_ERROR


def _add_parsers(subparsers):
    db = subparsers.add_parser(
        'db', help='Database schema operations.',
        description='Database schema operations. ' + WHICH_DATABASE)
    actions = db.add_subparsers(title='actions', dest='action')
    actions.required = True
    sync = actions.add_parser(
        'sync', help='Migrate the database to the newest schema.',
        description='Migrate the database to the newest schema (or to '
        '--revision). ' + WHICH_DATABASE)
    sync.add_argument('--revision', help='Target revision (default: the '
                      'newest).')
    sync.set_defaults(func=db_sync)
    show = actions.add_parser(
        'version', help='Print the schema revision; exit 1 unless newest.',
        description='Print the schema revision of the database and the '
        'newest one; exit 1 when they differ. ' + WHICH_DATABASE)
    show.set_defaults(func=db_version)
    journal_cmd.add_parser(subparsers)


def _fail(message, code):
    sys.stderr.write('preemptible-sched-manage: %s\n'
                     % ' '.join(parsing.mask_passwords(message).split()))
    return code


def _parse(conf, argv, nova_files):
    """Parse ``argv`` into ``conf``; the target, or the exit code."""
    try:
        conf(argv, project='nova' if nova_files else 'preemptible-sched',
             prog='preemptible-sched-manage',
             version=version.version_string())
    except parsing.BadValues as error:
        for problem in error.problems:
            _fail(problem, EXIT_BAD_INPUT)
        return EXIT_BAD_INPUT
    except cfg.Error as error:
        return _fail(error, EXIT_BAD_INPUT)
    if nova_files:
        try:
            return Target(nova_journal.journal_url(conf),
                          nova_journal.JOURNAL_OPTION, nova_files)
        except exception.InvalidInput as error:
            return _fail(error, EXIT_BAD_INPUT)
    problems = checks.database_problems(conf)
    for problem in problems:
        _fail(problem, EXIT_BAD_INPUT)
    if problems:
        return EXIT_BAD_INPUT
    return Target(database_conf.get_connection_url(conf),
                  '[database] connection', conf=conf)


def _run(conf, target):
    try:
        return conf.category.func(conf.category, target)
    except (cfg.Error, exception.InvalidInput) as error:
        return _fail(error, EXIT_BAD_INPUT)
    except (exception.StartupFailed, journal_cmd.NotAtHead) as error:
        return _fail(error, EXIT_ERROR)
    except KeyboardInterrupt:
        return _fail('interrupted', EXIT_ERROR)
    except Exception as error:   # the database, reached or migrated
        from preemptible_sched.service import readiness
        return _fail('%s: %s' % (type(error).__name__,
                                 readiness.one_line(error)), EXIT_ERROR)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    command = cfg.SubCommandOpt('category', title='Categories',
                                handler=_add_parsers)
    # The database wait imports oslo.messaging (preemptible_sched.service).
    serving.quiet_eventlet()
    nova_files = config_files.nova_files(argv)
    conf = nova_journal.make_conf() if nova_files else CONF
    conf.register_cli_opt(command)
    try:
        target = _parse(conf, argv, nova_files)
        if isinstance(target, int):
            return target
        return _run(conf, target)
    finally:
        conf.reset()
        conf.unregister_opt(command)


if __name__ == '__main__':
    sys.exit(main())
