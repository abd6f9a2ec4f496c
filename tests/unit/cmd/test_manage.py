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

"""preemptible-sched-manage db sync / db version, and a service that will
not start on an old schema."""

import contextlib
import io
import time

import fixtures

from preemptible_sched.cmd import manage
from preemptible_sched.conf import CONF
from preemptible_sched.db import api as db_api
from preemptible_sched.db import errors as db_errors
from preemptible_sched.db import migration
from preemptible_sched.service import scheduler_service
from tests import base


class DatabaseTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        directory = self.useFixture(fixtures.TempDir()).path
        self.url = 'sqlite:///%s/state.sqlite' % directory
        self.conf_file = '%s/test.conf' % directory
        with open(self.conf_file, 'w') as stream:
            stream.write('[database]\nconnection = %s\n' % self.url)

    def revision(self):
        store = db_api.Store(self.url)
        self.addCleanup(store.dispose)
        return store.revision()

    def manage(self, *args):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), \
                contextlib.redirect_stderr(err):
            code = manage.main(['--config-file', self.conf_file] +
                               list(args))
        return code, out.getvalue(), err.getvalue()


class TestManage(DatabaseTestCase):

    def test_sync_creates_then_leaves_the_newest_schema(self):
        self.assertIsNone(self.revision())
        code, out, _ = self.manage('db', 'sync')
        self.assertEqual(0, code)
        head = migration.head_revision()
        self.assertIn('schema none -> %s' % head, out)
        self.assertEqual(head, self.revision())
        code, out, _ = self.manage('db', 'sync')
        self.assertEqual(0, code)
        self.assertIn('schema %s -> %s' % (head, head), out)

    def test_the_database_options_set_up_the_engine(self):
        # The store of db sync is made with the [database] options (issue
        # 31: oslo.db's engine facade and options), not oslo.db's
        # defaults.
        with open(self.conf_file, 'a') as stream:
            stream.write('max_retries = 7\nretry_interval = 3\n')
        made = []
        real = db_api.Store

        def store(url, conf=None, **kw):
            made.append((conf.database.max_retries,
                         conf.database.retry_interval))
            return real(url, conf=conf, **kw)
        self.useFixture(fixtures.MockPatchObject(db_api, 'Store', store))
        code, _, err = self.manage('db', 'sync')
        self.assertEqual(0, code, err)
        self.assertEqual([(7, 3)], made)

    def test_sync_to_a_revision_then_version_says_it_is_old(self):
        code, _, _ = self.manage('db', 'sync', '--revision', '0001')
        self.assertEqual(0, code)
        self.assertEqual('0001', self.revision())
        code, out, _ = self.manage('db', 'version')
        self.assertEqual(1, code)
        self.assertIn('schema 0001 (newest %s)' % migration.head_revision(),
                      out)
        self.assertIn('db sync', out)

    def test_unknown_revision_is_one_line_and_exit_1(self):
        code, out, err = self.manage('db', 'sync', '--revision', '9999')
        self.assertEqual(1, code)
        self.assertEqual(1, len(err.splitlines()), err)
        self.assertNotIn('Traceback', err)

    def test_missing_action_is_bad_input(self):
        error = self.assertRaises(SystemExit, self.manage, 'db')
        self.assertEqual(2, error.code)


class TestServiceNeedsTheNewestSchema(DatabaseTestCase):

    def test_refuses_an_old_schema_unless_told_to_migrate(self):
        store = db_api.Store(self.url)
        self.addCleanup(store.dispose)
        store.upgrade('0001')
        self.flags(group='database', connection=self.url)
        error = self.assertRaises(db_errors.SchemaOutOfDate,
                                  scheduler_service.SchedulerService, CONF)
        self.assertEqual('0001', error.current)
        self.assertIn('preemptible-sched-manage db sync', str(error))
        self.assertEqual('0001', store.revision())

    def test_auto_migrate_migrates(self):
        store = db_api.Store(self.url)
        self.addCleanup(store.dispose)
        store.upgrade('0001')
        self.flags(group='database', connection=self.url, auto_migrate=True)
        self.flags(group='service', compute_driver='fake')
        service = scheduler_service.SchedulerService(CONF)
        self.addCleanup(service.store.dispose)
        self.assertEqual(migration.head_revision(), store.revision())


class TestManageStartUp(DatabaseTestCase):
    """Unreachable or malformed databases and bad files: one line each."""

    def write(self, text):
        with open(self.conf_file, 'w') as stream:
            stream.write('[service]\nstartup_timeout = 1\n' + text)

    def test_unreachable_database_one_line_exit_1(self):
        self.useFixture(fixtures.MonkeyPatch(
            'preemptible_sched.service.readiness.RETRY_INTERVAL', 0.2))
        port = base.closed_port()
        self.write('[database]\nconnection = mysql+pymysql://root:secret@'
                   '127.0.0.1:%d/test\n' % port)
        for action in ('sync', 'version'):
            start = time.monotonic()
            code, out, err = self.manage('db', action)
            self.assertEqual(1, code, err)
            self.assertEqual(['preemptible-sched-manage: the database '
                              'mysql+pymysql://root:***@127.0.0.1:%d/test '
                              'did not answer within 1 s' % port],
                             [err.split(' (')[0]])
            self.assertEqual(1, len(err.splitlines()), err)
            self.assertNotIn('secret', err + out)
            self.assertLess(time.monotonic() - start, 15)

    def test_malformed_connection_one_line_exit_2(self):
        self.write('[database]\nconnection = mysql+pymysql://u:secret@h:'
                   'notaport/db\n')
        code, _, err = self.manage('db', 'sync')
        self.assertEqual(2, code)
        self.assertEqual(1, len(err.splitlines()), err)
        self.assertIn('[database] connection: not a valid SQLAlchemy URL',
                      err)
        self.assertNotIn('secret', err)

    def test_bad_files_one_line_each_exit_2(self):
        self.write('[database]\nconnection = %s\nauto_migrate = maybe\n'
                   '[schedular]\nx = 1\n' % self.url)
        code, _, err = self.manage('db', 'sync')
        self.assertEqual(2, code)
        self.assertEqual(1, len(err.splitlines()), err)
        self.assertIn("[database] auto_migrate: Unexpected boolean value "
                      "'maybe'", err)
        self.write('[database]\nconnection = %s\n[schedular]\nx = 1\n'
                   % self.url)
        code, _, err = self.manage('db', 'sync')
        self.assertEqual(2, code)
        self.assertIn('[schedular]: unknown group (did you mean '
                      '[scheduler]?)', err)
        self.assertIsNone(self.revision())
