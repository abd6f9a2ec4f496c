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

``db sync`` migrates the database named by ``[database] connection`` to
the newest schema (or to ``--revision``); run it on install and on every
upgrade, while no scheduler runs (the service refuses to start on an older
schema unless ``[database] auto_migrate`` is set). ``db version`` prints
the schema revision of the database and the newest one this code knows.

The database must answer within ``[service] startup_timeout`` seconds
(it is tried again every second until then).

Exit codes: 0 done; 1 the database cannot be reached or migrated (one line
of stderr, without the password); 2 bad configuration (one line of stderr
per problem).
"""

import sys

from oslo_config import cfg

from preemptible_sched.cmd import scheduler as scheduler_cmd
from preemptible_sched.conf import checks
from preemptible_sched.conf import CONF
from preemptible_sched.conf import parsing
from preemptible_sched.db import api as db_api
from preemptible_sched.db import migration
from preemptible_sched import exception
from preemptible_sched import version

EXIT_OK, EXIT_ERROR, EXIT_BAD_INPUT = 0, 1, 2


def _store():
    """The Store of ``[database] connection``, once it answers."""
    from preemptible_sched.service import readiness
    readiness.wait_for_database(CONF, CONF.service.startup_timeout)
    return db_api.Store.from_config(CONF)


def db_sync(args):
    store = _store()
    try:
        before = store.revision()
        store.upgrade(args.revision or 'head')
        after = store.revision()
    finally:
        store.dispose()
    sys.stdout.write('%s: schema %s -> %s\n' % (
        store, before or 'none', after))
    return EXIT_OK


def db_version(args):
    store = _store()
    try:
        current = store.revision()
    finally:
        store.dispose()
    head = migration.head_revision()
    sys.stdout.write('%s: schema %s (newest %s)%s\n' % (
        store, current or 'none', head,
        '' if current == head else ': run "preemptible-sched-manage db '
        'sync"'))
    return EXIT_OK if current == head else EXIT_ERROR


def _add_parsers(subparsers):
    db = subparsers.add_parser('db', help='Database schema operations.',
                               description='Database schema operations.')
    actions = db.add_subparsers(title='actions', dest='action')
    actions.required = True
    sync = actions.add_parser(
        'sync', help='Migrate the database to the newest schema.',
        description='Migrate the database named by [database] connection '
        'to the newest schema (or to --revision).')
    sync.add_argument('--revision', help='Target revision (default: the '
                      'newest).')
    sync.set_defaults(func=db_sync)
    show = actions.add_parser(
        'version', help='Print the schema revision; exit 1 unless newest.',
        description='Print the schema revision of the database and the '
        'newest one; exit 1 when they differ.')
    show.set_defaults(func=db_version)


def _fail(message, code):
    sys.stderr.write('preemptible-sched-manage: %s\n'
                     % ' '.join(parsing.mask_passwords(message).split()))
    return code


def main(argv=None):
    command = cfg.SubCommandOpt('category', title='Categories',
                                handler=_add_parsers)
    # The database wait imports oslo.messaging (preemptible_sched.service).
    scheduler_cmd.quiet_eventlet()
    CONF.register_cli_opt(command)
    try:
        try:
            CONF(sys.argv[1:] if argv is None else argv,
                 project='preemptible-sched', prog='preemptible-sched-manage',
                 version=version.version_string())
        except parsing.BadValues as error:
            for problem in error.problems:
                _fail(problem, EXIT_BAD_INPUT)
            return EXIT_BAD_INPUT
        except cfg.Error as error:
            return _fail(error, EXIT_BAD_INPUT)
        problems = checks.database_problems(CONF)
        for problem in problems:
            _fail(problem, EXIT_BAD_INPUT)
        if problems:
            return EXIT_BAD_INPUT
        try:
            return CONF.category.func(CONF.category)
        except cfg.Error as error:
            return _fail(error, EXIT_BAD_INPUT)
        except exception.StartupFailed as error:
            return _fail(error, EXIT_ERROR)
        except KeyboardInterrupt:
            return _fail('interrupted', EXIT_ERROR)
        except Exception as error:   # the database, reached or migrated
            from preemptible_sched.service import readiness
            return _fail('%s: %s' % (type(error).__name__,
                                     readiness.one_line(error)), EXIT_ERROR)
    finally:
        CONF.reset()
        CONF.unregister_opt(command)


if __name__ == '__main__':
    sys.exit(main())
