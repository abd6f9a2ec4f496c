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

"""The store's engine: oslo.db's, set up by the ``[database]`` options."""

import os
import threading
from unittest import mock

import fixtures
from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import engines

from preemptible_sched.db import api
from preemptible_sched.db import engine_setup
from preemptible_sched.service import readiness
from tests import base


class TestCreateEngine(base.TestCase):

    def test_pool_options_size_the_pool(self):
        self.flags(group='database', max_pool_size=7, max_overflow=3,
                   pool_timeout=11, connection_recycle_time=600)
        engine = engine_setup.create_engine(
            'mysql+pymysql://u:p@127.0.0.1/db', base.CONF, max_retries=0)
        self.addCleanup(engine.dispose)
        self.assertEqual((7, 3, 11, 600),
                         (engine.pool.size(), engine.pool._max_overflow,
                          engine.pool._timeout, engine.pool._recycle))

    def test_the_first_connection_is_retried_as_configured(self):
        self.flags(group='database', max_retries=3, retry_interval=0,
                   connection='mysql+pymysql://u:p@127.0.0.1:%d/db'
                   % base.closed_port())
        with mock.patch.object(engines.time, 'sleep') as sleep:
            error = self.assertRaises(db_exc.DBConnectionError,
                                      api.Store.from_config, base.CONF)
        self.assertEqual([mock.call(0)] * 3, sleep.call_args_list)
        # The scheduler command says it in one line, no traceback.
        self.assertTrue(readiness.unreachable(error))

    def test_no_connection_without_configuration(self):
        # A store made from a URL connects at its first use.
        store = api.Store('mysql+pymysql://u:p@127.0.0.1:%d/db'
                          % base.closed_port())
        self.addCleanup(store.dispose)
        self.assertRaises(db_exc.DBConnectionError, store.revision)

    def test_sqlite_file_waits_for_another_writer(self):
        path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'x.sqlite')
        engine = engine_setup.create_engine('sqlite:///' + path)
        self.addCleanup(engine.dispose)
        self.assertEqual('sqlite:///' + path, str(engine.url))
        with engine.connect() as connection:
            self.assertEqual(1, connection.exec_driver_sql(
                'PRAGMA foreign_keys').scalar())
            self.assertEqual(engine_setup.SQLITE_BUSY_TIMEOUT * 1000,
                             connection.exec_driver_sql(
                                 'PRAGMA busy_timeout').scalar())

    def test_in_memory_sqlite_is_one_database_for_every_thread(self):
        store = api.Store('sqlite://')
        self.addCleanup(store.dispose)
        store.upgrade()
        seen = []
        thread = threading.Thread(
            target=lambda: seen.append(store.revision()))
        thread.start()
        thread.join()
        self.assertEqual([store.revision()], seen)
        self.assertIsNotNone(seen[0])
