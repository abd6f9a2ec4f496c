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

import fixtures

from preemptible_sched.cmd import manage
from preemptible_sched.conf import CONF
from preemptible_sched.db import api as db_api
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
        error = self.assertRaises(db_api.SchemaOutOfDate,
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
