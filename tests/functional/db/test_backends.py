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

"""The durable state on the servers a deployment uses: MariaDB/MySQL and
PostgreSQL.

The behaviour tests are those run on SQLite by ``tests/unit/db``. Every test
creates a database of its own, ``psched_<random>``, on the server, migrates
it, and drops it afterwards, so runs in parallel never meet. A test is
skipped, with the reason, only when nothing listens at the server's
address; any other error (a refused login, a missing driver) fails it.

The servers default to the local ones of a development machine; set
``PSCHED_TEST_MYSQL_URL`` or ``PSCHED_TEST_POSTGRESQL_URL`` to a server URL
(without a database, or with the maintenance database for PostgreSQL) to
use others.
"""

import os
import socket
import uuid

import fixtures
import sqlalchemy as sa

from preemptible_sched.db import api
from preemptible_sched.db import memory
from tests import base
from tests.unit.db import test_api
from tests.unit.db import test_memory
from tests.unit.service import test_scheduler_service

MYSQL_URL = os.environ.get(
    'PSCHED_TEST_MYSQL_URL',
    'mysql+pymysql://root@127.0.0.1:3306/?charset=utf8mb4')
POSTGRESQL_URL = os.environ.get(
    'PSCHED_TEST_POSTGRESQL_URL',
    'postgresql+psycopg2://postgres@127.0.0.1:5432/postgres')


class ServerUnreachable(Exception):
    pass


class ServerDatabase(fixtures.Fixture):
    """A new, empty database on the server at ``server_url``; dropped at
    cleanup. ``url`` is the URL of the new database.
    """

    def __init__(self, server_url, default_port):
        super().__init__()
        self.server_url = sa.engine.make_url(server_url)
        self.default_port = default_port

    def check_reachable(self):
        address = (self.server_url.host or '127.0.0.1',
                   self.server_url.port or self.default_port)
        try:
            socket.create_connection(address, timeout=5).close()
        except OSError as e:
            raise ServerUnreachable('%s:%s: %s' % (address + (e,)))

    def _setUp(self):
        self.name = 'psched_%s' % uuid.uuid4().hex[:12]
        server = sa.create_engine(self.server_url,
                                  isolation_level='AUTOCOMMIT',
                                  poolclass=sa.pool.NullPool)
        self.addCleanup(server.dispose)
        with server.connect() as connection:
            connection.exec_driver_sql(self.create_statement())
        self.addCleanup(self._drop, server)
        self.url = self.server_url.set(database=self.name)

    def _drop(self, server):
        with server.connect() as connection:
            connection.exec_driver_sql(self.drop_statement())


class MariaDBDatabase(ServerDatabase):

    def __init__(self):
        super().__init__(MYSQL_URL, 3306)

    def create_statement(self):
        return 'CREATE DATABASE %s CHARACTER SET utf8mb4' % self.name

    def drop_statement(self):
        return 'DROP DATABASE IF EXISTS %s' % self.name


class PostgreSQLDatabase(ServerDatabase):

    def __init__(self):
        super().__init__(POSTGRESQL_URL, 5432)

    def create_statement(self):
        return 'CREATE DATABASE %s' % self.name

    def drop_statement(self):
        # FORCE: a connection a failed test left open must not keep the
        # database alive.
        return 'DROP DATABASE IF EXISTS %s WITH (FORCE)' % self.name


class ServerDatabaseURL:
    """``database_url()``: the URL of a database of this test's own on
    the ``DATABASE`` server (made at the first call); the test is skipped
    when nothing listens at the server's address.
    """

    DATABASE = None
    LABEL = None

    def database_url(self):
        if not hasattr(self, 'database'):
            database = self.DATABASE()
            try:
                database.check_reachable()
            except ServerUnreachable as e:
                self.skipTest('%s not reachable at %s' % (self.LABEL, e))
            self.database = self.useFixture(database)
        return self.database.url.render_as_string(hide_password=False)


class ServerBackend(ServerDatabaseURL):
    """``make_store()`` on a database of this test's own."""

    def make_store(self):
        return api.Store(self.database_url())


class TestMariaDB(ServerBackend, test_api.StoreBehaviour,
                  test_api.ReopenBehaviour, base.TestCase):

    DATABASE = MariaDBDatabase
    LABEL = 'MariaDB'

    def test_backend(self):
        self.assertEqual('mysql', self.store.engine.dialect.name)
        with self.store.engine.connect() as connection:
            engines = set(connection.exec_driver_sql(
                'SELECT engine FROM information_schema.tables '
                'WHERE table_schema = DATABASE()').scalars())
        self.assertEqual({'InnoDB'}, engines)


class TestPostgreSQL(ServerBackend, test_api.StoreBehaviour,
                     test_api.ReopenBehaviour, base.TestCase):

    DATABASE = PostgreSQLDatabase
    LABEL = 'PostgreSQL'

    def test_backend(self):
        self.assertEqual('postgresql', self.store.engine.dialect.name)


class MemoryOnServer(ServerDatabaseURL):
    """The simulator's store, its journal batched to the server: each
    batch one ``executemany`` of the server's driver (positional for
    PyMySQL, named for psycopg2).
    """

    def make_store(self):
        return memory.MemoryStore(self.database_url(), batch_size=3)


class TestMemoryStoreOnMariaDB(MemoryOnServer, test_memory.MemoryBehaviour,
                               base.TestCase):

    DATABASE = MariaDBDatabase
    LABEL = 'MariaDB'


class TestMemoryStoreOnPostgreSQL(MemoryOnServer,
                                  test_memory.MemoryBehaviour,
                                  base.TestCase):

    DATABASE = PostgreSQLDatabase
    LABEL = 'PostgreSQL'


class ServiceOnServer(ServerBackend):
    """The scheduler service (``fake`` compute driver) on the server."""

    def make_service_store(self):
        store = self.make_store()
        self.addCleanup(store.dispose)
        store.upgrade()
        return store


class TestHostileSubmitsOnMariaDB(ServiceOnServer,
                                  test_scheduler_service.TestHostileSubmits):
    """A list as a priority put the scheduler in a crash loop on MariaDB;
    NaN and infinities came back to the client as SQL errors.
    """

    DATABASE = MariaDBDatabase
    LABEL = 'MariaDB'


class TestHostileSubmitsOnPostgreSQL(
        ServiceOnServer, test_scheduler_service.TestHostileSubmits):

    DATABASE = PostgreSQLDatabase
    LABEL = 'PostgreSQL'


class TestProjectsOnMariaDB(ServiceOnServer,
                            test_scheduler_service.TestProjects):

    DATABASE = MariaDBDatabase
    LABEL = 'MariaDB'


class TestProjectsOnPostgreSQL(ServiceOnServer,
                               test_scheduler_service.TestProjects):

    DATABASE = PostgreSQLDatabase
    LABEL = 'PostgreSQL'
