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

"""preemptible-sched-manage on a nova.conf: db sync and db version act on
the journal of journal_connection and never on Nova's [database]; journal
list, show and purge (on SQLite here; MariaDB and PostgreSQL:
tests/functional/nova/test_journal_backends.py).
"""

import contextlib
import io
import json
import os
import time

import fixtures

from preemptible_sched.cmd import manage
from preemptible_sched.db import migration
from preemptible_sched.nova import journal
from preemptible_sched.nova import journal_records
from tests.unit.nova import test_journal

DAY = 86400.0


def decision(decision_id, created_at, *victims):
    return journal_records.Decision(
        decision_id, 'sched-1', 'preempt', ['new-%s' % decision_id],
        created_at, created_at + 30, [journal_records.Victim(v, 'host1')
                                      for v in victims])


class NovaConfCase(test_journal.JournalCase):
    """A nova.conf whose journal is ``self.journal``'s database and whose
    [database] is a SQLite file that must never be created.
    """

    def setUp(self):
        super().setUp()
        self.folder = self.useFixture(fixtures.TempDir()).path
        self.nova_db = os.path.join(self.folder, 'nova.sqlite')
        self.path = os.path.join(self.folder, 'nova.conf')
        self.write_conf(self.journal.engine.url.render_as_string(
            hide_password=False))

    def write_conf(self, journal_url):
        with open(self.path, 'w') as stream:
            stream.write('[DEFAULT]\nstate_path = %s\n'
                         '[database]\nconnection = sqlite:///%s\n'
                         '[preemptible_sched]\njournal_connection = %s\n'
                         % (self.folder, self.nova_db, journal_url))

    def manage(self, *args):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), \
                contextlib.redirect_stderr(err):
            code = manage.main(['--config-file', self.path] + list(args))
        # Nova's database is never touched, whatever the command.
        self.assertFalse(os.path.exists(self.nova_db))
        return code, out.getvalue(), err.getvalue()

    def one_line_error(self, code, *args):
        got, out, err = self.manage(*args)
        self.assertEqual(code, got, out + err)
        lines = err.splitlines()
        self.assertEqual(1, len(lines), err)
        self.assertTrue(lines[0].startswith('preemptible-sched-manage: '))
        self.assertNotIn('Traceback', err)
        return lines[0]


class TestDbOnNovaConf(NovaConfCase):

    def make_journal(self):
        folder = self.useFixture(fixtures.TempDir()).path
        return journal.Journal('sqlite:///%s/j.sqlite' % folder)

    def test_sync_migrates_the_journal(self):
        self.assertIsNone(self.journal.revision())
        code, out, _ = self.manage('db', 'sync')
        self.assertEqual(0, code)
        head = migration.head_revision()
        self.assertIn('j.sqlite>: schema none -> %s' % head, out)
        self.assertEqual(head, self.journal.revision())

    def test_version_names_the_nova_conf_in_its_remedy(self):
        code, _, _ = self.manage('db', 'sync', '--revision', '0003')
        self.assertEqual(0, code)
        code, out, _ = self.manage('db', 'version')
        self.assertEqual(1, code)
        self.assertIn('schema 0003', out)
        self.assertIn('preemptible-sched-manage --config-file %s db sync'
                      % self.path, out)

    def test_journal_before_sync_is_one_line_and_exit_1(self):
        line = self.one_line_error(1, 'journal', 'list')
        self.assertIn('is at schema revision none (empty)', line)
        self.assertIn('db sync', line)

    def test_bad_journal_url_names_file_and_option(self):
        self.write_conf('nosuchdriver://u:secret@h/db')
        line = self.one_line_error(2, 'db', 'sync')
        self.assertIn('%s: [preemptible_sched] journal_connection: '
                      "unknown database driver 'nosuchdriver'" % self.path,
                      line)
        self.assertNotIn('secret', line)


class TestJournalCommands(NovaConfCase):
    """Runs on every backend: ``make_journal`` gives the database."""

    def setUp(self):
        super().setUp()
        now = time.time()
        self.now = now
        # Open: decided (old) and acting (recent).
        self.journal.record(decision('d-decided', now - 10 * DAY, 'a'))
        self.journal.record(decision('d-acting', now - 60, 'b', 'c'))
        self.journal.move('d-acting', 'acting')
        self.assertTrue(self.journal.take('d-acting', 'b', now=now))
        # Closed: done (old), rolled back (very old), done (recent).
        self.journal.record(decision('d-done', now - 5 * DAY, 'd'))
        self.journal.move('d-done', 'acting')
        self.assertTrue(self.journal.take('d-done', 'd', now=now))
        self.journal.settle('d-done', 'd', 'gone')
        self.journal.move('d-done', 'done')
        self.journal.record(decision('d-rolled', now - 20 * DAY, 'e'))
        self.journal.move('d-rolled', 'rolled_back')
        self.journal.record(decision('d-new', now - 3600))
        self.journal.move('d-new', 'acting')
        self.journal.move('d-new', 'done')

    def listed(self, *args):
        code, out, err = self.manage('journal', 'list', '--format', 'json',
                                     *args)
        self.assertEqual(0, code, err)
        return [(d['id'], d['state'], len(d['victims']))
                for d in json.loads(out)]

    def test_list_open_first_then_newest_first(self):
        self.assertEqual([('d-acting', 'acting', 2),
                          ('d-decided', 'decided', 1),
                          ('d-new', 'done', 0),
                          ('d-done', 'done', 1),
                          ('d-rolled', 'rolled_back', 1)], self.listed())

    def test_list_table(self):
        code, out, _ = self.manage('journal', 'list')
        self.assertEqual(0, code)
        lines = out.splitlines()
        self.assertEqual(['ID', 'STATE', 'CREATED', 'SCHEDULER', 'REASON',
                          'REQUEST', 'VICTIMS'], lines[0].split())
        self.assertEqual(['d-acting', 'acting'], lines[1].split()[:2])
        self.assertEqual(['sched-1', 'preempt', 'new-d-acting', '2'],
                         lines[1].split()[3:])
        self.assertEqual(6, len(lines))

    def test_list_by_state_and_limit(self):
        self.assertEqual([('d-new', 'done', 0), ('d-done', 'done', 1)],
                         self.listed('--state', 'done'))
        self.assertEqual([('d-acting', 'acting', 2)],
                         self.listed('--limit', '1'))

    def test_show(self):
        code, out, _ = self.manage('journal', 'show', 'd-acting', '--format',
                                   'json')
        self.assertEqual(0, code)
        shown = json.loads(out)
        self.assertEqual(('acting', ['new-d-acting']),
                         (shown['state'], shown['request']))
        self.assertEqual([('b', 'host1', 'delete', 'acting'),
                          ('c', 'host1', 'delete', 'pending')],
                         [(v['id'], v['host'], v['action'], v['state'])
                          for v in shown['victims']])
        code, out, _ = self.manage('journal', 'show', 'd-acting')
        self.assertEqual(0, code)
        self.assertIn('state:        acting', out)
        self.assertIn('b       host1  delete  acting', out)

    def test_purge_deletes_only_old_closed_decisions(self):
        code, out, _ = self.manage('journal', 'purge', '--older-than', '1')
        self.assertEqual(0, code)
        self.assertIn('Purged 2 closed decisions (2 victims) created '
                      'before ', out)
        # The open ones stay, however old; the recent closed one too.
        self.assertEqual([('d-acting', 'acting', 2),
                          ('d-decided', 'decided', 1),
                          ('d-new', 'done', 0)], self.listed())
        code, out, _ = self.manage('journal', 'purge', '--older-than', '1')
        self.assertIn('Purged 0 closed decisions (0 victims)', out)

    def test_purge_zero_days_takes_every_closed_decision(self):
        code, out, _ = self.manage('journal', 'purge', '--older-than', '0',
                                   '--format', 'json')
        self.assertEqual(0, code)
        result = json.loads(out)
        self.assertEqual((3, 2, False),
                         (result['decisions'], result['victims'],
                          result['dry_run']))
        self.assertEqual(['acting', 'decided'],
                         sorted(s for _, s, _ in self.listed()))

    def test_purge_dry_run_deletes_nothing(self):
        code, out, _ = self.manage('journal', 'purge', '--older-than',
                                   '1.5', '--dry-run')
        self.assertEqual(0, code)
        self.assertIn('Would purge 2 closed decisions (2 victims)', out)
        self.assertEqual(5, len(self.listed()))

    def test_bad_input_is_one_line_and_exit_2(self):
        for args, message in (
                (('purge', '--older-than', 'soon'),
                 "--older-than: 'soon' is not a number >= 0"),
                (('purge', '--older-than', '-1'),
                 "--older-than: '-1' is not a number >= 0"),
                (('purge', '--older-than', 'nan'),
                 "--older-than: 'nan' is not a number >= 0"),
                (('list', '--limit', '-3'),
                 "--limit: '-3' is not a whole number >= 0"),
                (('list', '--state', 'bogus'),
                 "--state: unknown state 'bogus' (valid: decided, "),
                (('show', 'nope'), "journal show: no decision 'nope'")):
            line = self.one_line_error(2, 'journal', *args)
            self.assertIn(message, line)
        self.assertEqual(5, len(self.listed()))


class TestJournalCommandsNeedNovaConf(test_journal.JournalCase):

    def test_standalone_configuration_is_one_line_and_exit_2(self):
        folder = self.useFixture(fixtures.TempDir()).path
        path = os.path.join(folder, 'psched.conf')
        with open(path, 'w') as stream:
            stream.write('[database]\nconnection = sqlite:///%s/s.sqlite\n'
                         % folder)
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            code = manage.main(['--config-file', path, 'journal', 'list'])
        self.assertEqual(2, code)
        self.assertIn('give the nova.conf with --config-file',
                      err.getvalue())
        self.assertEqual(1, len(err.getvalue().splitlines()))
