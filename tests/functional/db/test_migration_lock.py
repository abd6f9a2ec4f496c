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

"""Four processes migrating one empty database at the same moment (as
scheduler services, or the Nova managers of four hosts, starting together
on a new journal): each succeeds and the database ends at the head
revision, on SQLite (a file), MariaDB and PostgreSQL. Without the
migration lock all but one fail with "table already exists" (or
PostgreSQL's duplicate type), which this test shows by failing.
"""

import multiprocessing
import os

import fixtures
import sqlalchemy as sa

from preemptible_sched.db import migration
from tests import base
from tests.functional.db import test_backends

PROCESSES = 4


def _migrate(url, barrier):
    """One process: migrate once the others are ready; the error, if any,
    as text (exceptions of drivers do not always pickle).
    """
    engine = sa.create_engine(url)
    barrier.wait()
    try:
        migration.upgrade(engine)
    except Exception as error:      # noqa: B902 (reported to the test)
        return '%s: %s' % (type(error).__name__, error)
    finally:
        engine.dispose()
    return None


class MigrationRace:

    def test_processes_migrating_at_once_all_succeed(self):
        url = self.database_url()
        context = multiprocessing.get_context('spawn')
        with context.Manager() as manager:
            barrier = manager.Barrier(PROCESSES)
            with context.Pool(PROCESSES) as pool:
                errors = pool.starmap(_migrate,
                                      [(url, barrier)] * PROCESSES)
        self.assertEqual([None] * PROCESSES, errors)
        engine = sa.create_engine(url)
        self.addCleanup(engine.dispose)
        self.assertEqual(migration.head_revision(),
                         migration.current_revision(engine))


class TestSQLiteFile(MigrationRace, base.TestCase):

    def database_url(self):
        folder = self.useFixture(fixtures.TempDir()).path
        return 'sqlite:///%s' % os.path.join(folder, 'new.sqlite')


class TestMariaDB(test_backends.ServerDatabaseURL, MigrationRace,
                  base.TestCase):

    DATABASE = test_backends.MariaDBDatabase
    LABEL = 'MariaDB'


class TestPostgreSQL(test_backends.ServerDatabaseURL, MigrationRace,
                     base.TestCase):

    DATABASE = test_backends.PostgreSQLDatabase
    LABEL = 'PostgreSQL'
