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

"""preemptible-sched-status upgrade check."""

import contextlib
import io
import json
import os
import socket
import time

import fixtures
import sqlalchemy as sa

from preemptible_sched.cmd import status
from preemptible_sched.conf import CONF
from preemptible_sched.db import api as db_api
from preemptible_sched.db import migration
from tests import base


class TestUpgradeCheck(base.TestCase):

    def setUp(self):
        super().setUp()
        self.directory = self.useFixture(fixtures.TempDir()).path
        self.url = 'sqlite:///%s/state.sqlite' % self.directory

    def check(self, extra=''):
        path = '%s/test.conf' % self.directory
        with open(path, 'w') as stream:
            stream.write('[database]\nconnection = %s\n%s' % (self.url,
                                                              extra))
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = status.main(['--config-file', path, 'upgrade', 'check'])
        return code, out.getvalue()

    def migrate(self):
        store = db_api.Store(self.url)
        self.addCleanup(store.dispose)
        store.upgrade()

    def test_empty_database_fails(self):
        code, out = self.check()
        self.assertEqual(2, code)
        self.assertIn('preemptible-sched-manage db sync', out)

    def test_ready_deployment_succeeds(self):
        self.migrate()
        code, out = self.check()
        self.assertEqual(0, code, out)
        self.assertIn('not used with Nova', out)

    def test_unknown_plugin_and_contradiction_fail(self):
        self.migrate()
        code, out = self.check(
            '[filter_scheduler]\nweighers = ram,bogus\n'
            '[scheduler]\npreemption_strategy = priority\n'
            'on_victim = terminate\n')
        self.assertEqual(2, code)
        self.assertIn("unknown name 'bogus'", out)
        self.assertIn('on_victim = terminate contradicts', out)

    def test_unreachable_database_fails_in_one_line(self):
        self.useFixture(fixtures.MonkeyPatch(
            'preemptible_sched.service.readiness.RETRY_INTERVAL', 0.2))
        sock = socket.socket()
        sock.bind(('127.0.0.1', 0))
        port = sock.getsockname()[1]
        sock.close()
        self.url = 'mysql+pymysql://root:secret@127.0.0.1:%d/test' % port
        start = time.monotonic()
        code, out = self.check('[service]\nstartup_timeout = 1\n')
        self.assertEqual(2, code)
        self.assertLess(time.monotonic() - start, 15)
        self.assertIn('mysql+pymysql://root:***@127.0.0.1:%d/test' % port,
                      ' '.join(out.split()))
        self.assertIn('did not answer within 1 s', ' '.join(out.split()))
        self.assertNotIn('secret', out)

    def test_malformed_connection_fails(self):
        self.url = 'nosuchdriver://u:secret@h/db'
        code, out = self.check()
        self.assertEqual(2, code)
        self.assertIn("unknown database driver 'nosuchdriver'", out)
        self.assertNotIn('secret', out)

    def test_misspelt_option_fails_the_options_check(self):
        self.migrate()
        code, out = self.check('[scheduler]\nwatchdog_intervall = 5\n')
        self.assertEqual(2, code)
        self.assertIn('watchdog_intervall: unknown option', out)

    def _one_error_line(self, conf_text):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            code, out = self.check(conf_text)
        self.assertEqual(2, code)
        self.assertEqual('', out)
        lines = err.getvalue().splitlines()
        self.assertEqual(1, len(lines), lines)
        self.assertIn('test.conf', lines[0])
        return lines[0]

    def test_bad_value_one_line_on_stderr(self):
        line = self._one_error_line('[scheduler]\nmax_attempts = -1\n')
        self.assertIn('[scheduler] max_attempts: Should be greater than or '
                      'equal to 1', line)

    def test_first_of_several_bad_values_one_line(self):
        line = self._one_error_line('[DEFAULT]\ndebug = maybe\n'
                                    '[scheduler]\nmax_attempts = -1\n')
        self.assertTrue('max_attempts' in line or 'maybe' in line, line)


class TestUpgradeCheckNovaConf(base.TestCase):
    """Given a nova.conf: the journal of journal_connection, never Nova's
    [database] (a MariaDB URL nothing listens at: touching it would fail).
    """

    def setUp(self):
        super().setUp()
        self.directory = self.useFixture(fixtures.TempDir()).path
        self.journal = 'sqlite:///%s/journal.sqlite' % self.directory
        self.path = '%s/nova.conf' % self.directory

    def check(self, extra='', journal=True):
        with open(self.path, 'w') as stream:
            stream.write(
                '[DEFAULT]\nstate_path = %s\n'
                '[database]\nconnection = mysql+pymysql://nova:secret@'
                '127.0.0.1:1/nova\n'
                '[api_database]\nconnection = mysql+pymysql://nova:secret@'
                '127.0.0.1:1/nova_api\n'
                '[preemptible_sched]\n%s%s' % (
                    self.directory, 'journal_connection = %s\n'
                    % self.journal if journal else '', extra))
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = status.main(['--config-file', self.path, 'upgrade',
                                'check', '--json'])
        return code, {r['check']: r for r in json.loads(out.getvalue())[
            'checks']}

    def migrate(self, revision='head'):
        store = db_api.Store(self.journal)
        self.addCleanup(store.dispose)
        store.upgrade(revision)

    def test_journal_at_the_newest_revision(self):
        self.migrate()
        code, results = self.check(
            '[filter_scheduler]\navailable_filters = '
            'preemptible_sched.nova.filters.all_filters\n')
        self.assertEqual(0, code, results)
        self.assertEqual(['Journal database', 'Nova integration'],
                         sorted(results))
        self.assertIn('at schema revision %s, the newest'
                      % migration.head_revision(),
                      results['Journal database']['details'])

    def test_no_journal_yet_is_a_warning_and_creates_nothing(self):
        code, results = self.check(
            '[filter_scheduler]\navailable_filters = '
            'preemptible_sched.nova.filters.all_filters\n')
        self.assertEqual(1, code, results)
        details = results['Journal database']['details']
        self.assertIn('No journal database yet', details)
        self.assertIn('preemptible-sched-manage --config-file %s db sync'
                      % self.path, details)
        self.assertFalse(os.path.exists('%s/journal.sqlite'
                                        % self.directory))

    def test_older_journal_is_a_warning(self):
        self.migrate('0003')
        code, results = self.check()
        self.assertEqual(1, code, results)
        self.assertIn('at schema revision 0003, the newest is',
                      results['Journal database']['details'])

    def test_revision_this_code_does_not_know_fails(self):
        self.migrate()
        engine = sa.create_engine(self.journal)
        self.addCleanup(engine.dispose)
        with engine.begin() as connection:
            connection.execute(sa.text(
                "UPDATE alembic_version SET version_num = '0099'"))
        code, results = self.check()
        self.assertEqual(2, code, results)
        self.assertIn('0099, which this code does not know',
                      results['Journal database']['details'])

    def test_default_journal_is_in_novas_state_path(self):
        code, results = self.check(journal=False)
        self.assertEqual(1, code, results)
        self.assertIn('sqlite:///%s/preemptible_sched.sqlite'
                      % self.directory,
                      results['Journal database']['details'])

    def test_unreachable_journal_fails_without_password(self):
        self.useFixture(fixtures.MonkeyPatch(
            'preemptible_sched.service.readiness.RETRY_INTERVAL', 0.2))
        CONF.set_override('startup_timeout', 1, group='service')
        self.journal = 'mysql+pymysql://psched:secret@127.0.0.1:1/journal'
        code, results = self.check()
        self.assertEqual(2, code, results)
        details = ' '.join(results['Journal database']['details'].split())
        self.assertIn('did not answer within 1 s', details)
        self.assertIn('[preemptible_sched] journal_connection', details)
        self.assertNotIn('secret', details)

    def test_nova_conf_checks(self):
        self.migrate()
        code, results = self.check(
            'service_classes = gold:high\n'
            'termination_costs = billing_period\n'
            '[scheduler]\nworkers = 4\n')
        self.assertEqual(2, code)
        details = results['Nova integration']['details']
        self.assertIn("priority of 'gold' is 'high'", details)
        self.assertIn('lock_path', details)
        self.assertIn('available_filters', details)

    def test_nova_conf_warnings_only(self):
        self.migrate()
        code, results = self.check(
            'service_classes = gold:1000,bronze:0\n'
            '[filter_scheduler]\navailable_filters = '
            'preemptible_sched.nova.filters.all_filters\n'
            '[scheduler]\nworkers = 4\n')
        self.assertEqual(1, code, results)
        self.assertIn('lock_path', results['Nova integration']['details'])

    def test_bad_value_of_our_group_is_one_line(self):
        with open(self.path, 'w') as stream:
            stream.write('[preemptible_sched]\nlock_timeout = soon\n')
        err = io.StringIO()
        with contextlib.redirect_stderr(err), \
                contextlib.redirect_stdout(io.StringIO()):
            code = status.main(['--config-file', self.path, 'upgrade',
                                'check'])
        self.assertEqual(2, code)
        lines = err.getvalue().splitlines()
        self.assertEqual(1, len(lines), lines)
        self.assertIn('nova.conf', lines[0])
        self.assertIn('lock_timeout', lines[0])
