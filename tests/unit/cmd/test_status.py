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
import socket
import time

import fixtures

from preemptible_sched.cmd import status
from preemptible_sched.db import api as db_api
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

    def test_nova_conf_checks(self):
        self.migrate()
        code, out = self.check(
            '[preemptible_sched]\nservice_classes = gold:high\n'
            'termination_costs = billing_period\n'
            '[scheduler]\nworkers = 4\n')
        self.assertEqual(2, code)
        self.assertIn("priority of 'gold' is 'high'", out)
        self.assertIn('lock_path', out)
        self.assertIn('available_filters', out)

    def test_nova_conf_warnings_only(self):
        self.migrate()
        code, out = self.check(
            '[preemptible_sched]\nservice_classes = gold:1000,bronze:0\n'
            '[filter_scheduler]\navailable_filters = '
            'preemptible_sched.nova.filters.all_filters\n'
            '[scheduler]\nworkers = 4\n')
        self.assertEqual(1, code, out)
        self.assertIn('lock_path', out)

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
        self.assertLess(time.monotonic() - start, 5)
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
