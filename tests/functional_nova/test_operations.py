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

"""What an operator runs, against a real Nova 34 install.

* ``preemptible-sched-status upgrade check`` and ``preemptible-sched-manage
  db sync`` given a ``nova.conf`` whose Nova databases (API, cell0, main)
  were created by ``nova-manage api_db sync``, ``cell_v2 map_cell0`` and
  ``db sync`` on the local MariaDB: the journal of ``journal_connection``
  gets the project's schema, and Nova's databases are unchanged (tables,
  schema versions, contents);
* the Nova path (``preemptible_sched.nova``) imports without the
  libraries of the ``simulation`` and ``plots`` extras;
* ``preemptible-nova-scheduler`` with ``coordination_url = redis://...``
  and no redis package stops at start with one line naming the extra.

Each run creates databases of its own (``psched_ops_<random>_*``) and
drops them at the end; skipped when nothing listens on 127.0.0.1:3306.
"""

import os
import socket
import subprocess
import sys
import uuid

import fixtures
from oslotest import base
import sqlalchemy as sa

from preemptible_sched.db import migration
from tests import lean

MYSQL_SERVER = os.environ.get(
    'PSCHED_TEST_MYSQL_URL',
    'mysql+pymysql://root@127.0.0.1:3306/?charset=utf8mb4')
BIN = os.path.dirname(sys.executable)


def _server():
    url = sa.engine.make_url(MYSQL_SERVER)
    try:
        socket.create_connection((url.host or '127.0.0.1', url.port or 3306),
                                 timeout=5).close()
    except OSError as error:
        raise base.BaseTestCase.skipException(
            'MariaDB not reachable: %s' % error)
    return url


def _command(name, *args):
    return subprocess.run([os.path.join(BIN, name)] + list(args),
                          capture_output=True, text=True, timeout=600)


class MariaDBDatabases(fixtures.Fixture):
    """Empty databases named ``psched_ops_<random>_<name>``, dropped at
    cleanup; ``urls[name]`` is the URL of each.
    """

    def __init__(self, *names):
        super().__init__()
        self.names = names

    def _setUp(self):
        server_url = _server()
        self.server = sa.create_engine(server_url,
                                       isolation_level='AUTOCOMMIT')
        self.addCleanup(self.server.dispose)
        prefix = 'psched_ops_%s' % uuid.uuid4().hex[:10]
        self.urls = {}
        for name in self.names:
            database = '%s_%s' % (prefix, name)
            with self.server.connect() as connection:
                connection.exec_driver_sql(
                    'CREATE DATABASE %s CHARACTER SET utf8mb4' % database)
            self.addCleanup(self._drop, database)
            self.urls[name] = server_url.set(database=database)

    def _drop(self, database):
        with self.server.connect() as connection:
            connection.exec_driver_sql('DROP DATABASE IF EXISTS %s'
                                       % database)


def snapshot(url):
    """Everything of a database the commands could change: its tables,
    each one's checksum (MariaDB's CHECKSUM TABLE, of the contents) and
    its schema versions (alembic's and sqlalchemy-migrate's).
    """
    engine = sa.create_engine(url)
    try:
        with engine.connect() as connection:
            tables = sorted(sa.inspect(connection).get_table_names())
            checksums = {row[0].split('.')[-1]: row[1] for row in
                         connection.exec_driver_sql(
                             'CHECKSUM TABLE %s' % ', '.join(
                                 '`%s`' % t for t in tables))}
            versions = {}
            for table in ('alembic_version', 'migrate_version'):
                if table in tables:
                    versions[table] = sorted(
                        tuple(row) for row in connection.exec_driver_sql(
                            'SELECT * FROM %s' % table))
    finally:
        engine.dispose()
    return {'tables': tables, 'checksums': checksums, 'versions': versions}


class TestOperationsOnNovaDatabases(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.databases = self.useFixture(MariaDBDatabases(
            'api', 'cell0', 'main', 'journal'))
        urls = {name: url.render_as_string(hide_password=False)
                for name, url in self.databases.urls.items()}
        self.journal_url = urls['journal']
        folder = self.useFixture(fixtures.TempDir()).path
        self.conf = os.path.join(folder, 'nova.conf')
        with open(self.conf, 'w') as stream:
            stream.write(
                '[DEFAULT]\nstate_path = %s\n'
                'transport_url = fake:/\n'
                '[api_database]\nconnection = %s\n'
                '[database]\nconnection = %s\n'
                '[filter_scheduler]\navailable_filters = '
                'nova.scheduler.filters.all_filters\n'
                'available_filters = '
                'preemptible_sched.nova.filters.all_filters\n'
                '[preemptible_sched]\njournal_connection = %s\n'
                % (folder, urls['api'], urls['main'], self.journal_url))
        for args in (('api_db', 'sync'),
                     ('cell_v2', 'map_cell0', '--database_connection',
                      urls['cell0']),
                     ('db', 'sync')):
            result = _command('nova-manage', '--config-file', self.conf,
                              *args)
            self.assertEqual(0, result.returncode, result.stderr)
        self.nova_urls = (urls['api'], urls['main'], urls['cell0'])
        self.before = [snapshot(url) for url in self.nova_urls]
        # Nova's schemas are there: what must not change is not nothing.
        self.assertIn('cell_mappings', self.before[0]['tables'])
        for before in self.before[1:]:
            self.assertIn('instances', before['tables'])
        for before in self.before:
            self.assertTrue(before['versions'])

    def run_ours(self, name, *args):
        result = _command(name, '--config-file', self.conf, *args)
        self.assertNotIn('Traceback', result.stderr)
        return result

    def test_status_and_sync_act_on_the_journal_only(self):
        status = self.run_ours('preemptible-sched-status', 'upgrade',
                               'check')
        self.assertEqual(1, status.returncode, status.stdout + status.stderr)
        self.assertIn('none (empty)', status.stdout)
        sync = self.run_ours('preemptible-sched-manage', 'db', 'sync')
        self.assertEqual(0, sync.returncode, sync.stderr)
        head = migration.head_revision()
        self.assertIn('schema none -> %s' % head, sync.stdout)
        for args in (('preemptible-sched-status', 'upgrade', 'check'),
                     ('preemptible-sched-manage', 'db', 'version'),
                     ('preemptible-sched-manage', 'journal', 'list'),
                     ('preemptible-sched-manage', 'journal', 'purge',
                      '--older-than', '0')):
            result = self.run_ours(*args)
            self.assertEqual(0, result.returncode,
                             '%s: %s%s' % (args, result.stdout,
                                           result.stderr))
        # Nova's databases are exactly as nova-manage left them.
        self.assertEqual(self.before,
                         [snapshot(url) for url in self.nova_urls])
        journal = snapshot(self.journal_url)
        self.assertEqual({'alembic_version': [(head,)]},
                         journal['versions'])
        for table in ('nova_decisions', 'nova_victims', 'decisions',
                      'requests', 'instances', 'hosts', 'events'):
            self.assertIn(table, journal['tables'])


class TestLeanNovaInstall(base.BaseTestCase):

    def test_nova_path_imports_without_the_simulator_libraries(self):
        modules = lean.nova_path_modules()
        self.assertIn('preemptible_sched.nova.manager', modules)
        result = lean.run_lean(
            'import importlib\n'
            'for name in %r:\n'
            '    importlib.import_module(name)\n' % (modules,))
        self.assertEqual(0, result.returncode, result.stderr)

    def test_scheduler_without_redis_stops_in_one_line(self):
        folder = self.useFixture(fixtures.TempDir()).path
        conf = os.path.join(folder, 'nova.conf')
        with open(conf, 'w') as stream:
            stream.write('[DEFAULT]\ntransport_url = fake:/\n'
                         '[preemptible_sched]\n'
                         'coordination_url = redis://127.0.0.1:6379\n')
        result = lean.run_lean(
            'import sys\n'
            'from preemptible_sched.nova import cmd\n'
            'sys.exit(cmd.main(["preemptible-nova-scheduler", '
            '"--config-file", %r]))\n' % conf, blocked=['redis'])
        self.assertEqual(2, result.returncode, result.stderr)
        lines = [line for line in result.stderr.splitlines()
                 if line.startswith('preemptible-nova-scheduler:')]
        self.assertEqual(1, len(lines), result.stderr)
        self.assertNotIn('Traceback', result.stderr)
        self.assertIn('[preemptible_sched] coordination_url: the redis '
                      'backend needs the Python package redis', lines[0])
        self.assertIn("pip install '.[redis]'", lines[0])
