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

"""The journal's state machines, on SQLite (the other backends:
tests/functional/nova/test_journal_backends.py).
"""

import os

import fixtures

from preemptible_sched.db import deadlock
from preemptible_sched.db import models
from preemptible_sched.nova import journal
from preemptible_sched.nova import journal_records
from tests import base
from tests import deadlocks


def decision(decision_id, *victims, terminate_at=100.0, reason='preempt'):
    return journal_records.Decision(
        decision_id, 'sched-1', reason, ['new-%s' % decision_id], 0.0,
        terminate_at, [journal_records.Victim(v, 'host1') for v in victims])


class JournalCase(base.TestCase):

    def make_journal(self):
        folder = self.useFixture(fixtures.TempDir()).path
        return journal.Journal('sqlite:///%s' % os.path.join(folder,
                                                             'j.sqlite'))

    def setUp(self):
        super().setUp()
        self.journal = self.make_journal()


class TestJournal(JournalCase):

    def test_recorded_decision_reads_back(self):
        self.journal.record(decision('d1', 'a', 'b'))
        found, = self.journal.open_decisions()
        self.assertEqual(('d1', 'decided', 'preempt', ['new-d1'], 100.0),
                         (found.id, found.state, found.reason,
                          found.request, found.terminate_at))
        self.assertEqual([('a', 'pending'), ('b', 'pending')],
                         [(v.id, v.state) for v in found.victims])

    def test_a_server_is_the_victim_of_one_open_decision_only(self):
        self.journal.record(decision('d1', 'a', 'b'))
        error = self.assertRaises(journal.VictimTaken, self.journal.record,
                                  decision('d2', 'c', 'b'))
        self.assertEqual(['b'], error.victims)
        # Nothing of d2 was written.
        self.assertEqual(['d1'], [d.id for d in
                                  self.journal.open_decisions()])
        self.journal.move('d1', 'acting')
        self.assertTrue(self.journal.take('d1', 'b'))

    def test_a_settled_victim_may_be_named_again(self):
        self.journal.record(decision('d1', 'a'))
        self.journal.move('d1', 'acting')
        self.assertTrue(self.journal.take('d1', 'a'))
        self.journal.settle('d1', 'a', 'failed')
        self.journal.record(decision('d2', 'a'))

    def test_rolled_back_decision_frees_its_victims(self):
        self.journal.record(decision('d1', 'a'))
        self.journal.move('d1', 'rolled_back')
        self.journal.record(decision('d2', 'a'))
        self.assertEqual('rolled_back', self.journal.get('d1').state)

    def test_take_is_once(self):
        """Taken at 100 s; with a lease of 60 s another scheduler takes
        it again only when taken before now - 60: not at 160.0 (100 is
        not before 100.0), at 160.5 (100 < 100.5) yes. Once settled, never.
        """
        self.journal.record(decision('d1', 'a'))
        self.journal.move('d1', 'acting')
        self.assertTrue(self.journal.take('d1', 'a', 100.0))
        self.assertFalse(self.journal.take('d1', 'a', 100.0))
        self.assertFalse(self.journal.take('d1', 'a', 160.0,
                                           stale_before=100.0))
        self.assertTrue(self.journal.take('d1', 'a', 160.5,
                                          stale_before=100.5))
        # Taken anew at 160.5: the lease starts again.
        self.assertFalse(self.journal.take('d1', 'a', 200.0,
                                           stale_before=140.0))
        self.journal.settle('d1', 'a', 'done')
        self.assertFalse(self.journal.take('d1', 'a', 1e9,
                                           stale_before=1e9))

    def test_victim_taken_at_an_unknown_time_is_stale(self):
        # Taken without a time (as before revision 0005).
        self.journal.record(decision('d1', 'a'))
        self.journal.move('d1', 'acting')
        self.assertTrue(self.journal.take('d1', 'a'))
        self.assertFalse(self.journal.take('d1', 'a', 0.0))
        self.assertTrue(self.journal.take('d1', 'a', 0.0,
                                          stale_before=0.0))

    def test_illegal_moves_are_refused(self):
        self.journal.record(decision('d1', 'a'))
        # decided -> done skips acting.
        self.assertRaises(journal.JournalError, self.journal.move, 'd1',
                          'done')
        self.journal.move('d1', 'acting')
        # A victim must be taken before it is settled, and once.
        self.assertRaises(journal.JournalError, self.journal.settle, 'd1',
                          'a', 'done')
        # Not done while a victim is left; no roll back once acting.
        self.assertRaises(journal.JournalError, self.journal.move, 'd1',
                          'done')
        self.assertRaises(journal.JournalError, self.journal.move, 'd1',
                          'rolled_back')
        self.journal.take('d1', 'a')
        self.journal.settle('d1', 'a', 'gone')
        self.assertRaises(journal.JournalError, self.journal.settle, 'd1',
                          'a', 'done')
        self.journal.move('d1', 'done')
        self.assertRaises(journal.JournalError, self.journal.move, 'd1',
                          'acting')
        self.assertEqual([], self.journal.open_decisions())

    def test_victims_are_taken_only_while_their_decision_acts(self):
        self.journal.record(decision('d1', 'a'))
        # decided: the room may not be the request's yet.
        self.assertFalse(self.journal.take('d1', 'a'))
        self.journal.move('d1', 'rolled_back')
        self.assertFalse(self.journal.take('d1', 'a', 1e9,
                                           stale_before=1e9))
        self.assertEqual(['pending'], [v.state for v in
                                       self.journal.get('d1').victims])
        self.journal.record(decision('d2', 'a'))
        self.journal.move('d2', 'acting')
        self.assertTrue(self.journal.take('d2', 'a'))

    def test_refusals_say_why(self):
        self.journal.record(decision('d1', 'b', 'a'))
        self.journal.move('d1', 'acting')
        self.journal.take('d1', 'a')
        error = self.assertRaises(journal.JournalError, self.journal.move,
                                  'd1', 'done')
        self.assertEqual('decision d1 has victim(s) left: a, b', str(error))
        error = self.assertRaises(journal.JournalError, self.journal.move,
                                  'd1', 'rolled_back')
        self.assertEqual('decision d1 cannot go from acting to rolled_back',
                         str(error))
        error = self.assertRaises(journal.JournalError, self.journal.move,
                                  'd9', 'acting')
        self.assertEqual('no decision d9', str(error))
        error = self.assertRaises(journal.JournalError, self.journal.settle,
                                  'd1', 'b', 'done')
        self.assertEqual('victim b cannot go from pending to done',
                         str(error))
        error = self.assertRaises(journal.JournalError, self.journal.settle,
                                  'd1', 'z', 'done')
        self.assertEqual('no victim z in decision d1', str(error))
        error = self.assertRaises(journal.JournalError, self.journal.settle,
                                  'd1', 'a', 'acting')
        self.assertEqual('victim a cannot be settled as acting', str(error))

    def test_unknown_action_refused(self):
        bad = decision('d1', 'a')
        bad.victims[0].action = 'explode'
        self.assertRaises(journal.JournalError, self.journal.record, bad)
        self.assertEqual([], self.journal.open_decisions())


class TestVictimOutcomes(JournalCase):
    """A victim is done when its server is gone, not when its deletion
    was asked for; a decision's request may die first.
    """

    def acting(self, *victims):
        self.journal.record(decision('d1', *victims))
        self.journal.move('d1', 'acting')

    def test_requested_victim_stays_open_until_confirmed(self):
        self.acting('a')
        self.journal.take('d1', 'a')
        self.journal.settle('d1', 'a', 'requested')
        self.assertEqual({'a': 'host1'}, self.journal.open_victims())
        self.assertRaises(journal.VictimTaken, self.journal.record,
                          decision('d2', 'a'))
        self.assertRaises(journal.JournalError, self.journal.move, 'd1',
                          'done')
        found, = self.journal.get('d1').victims
        self.assertEqual(('requested', 1), (found.state, found.attempts))
        self.journal.settle('d1', 'a', 'done')
        self.assertEqual({}, self.journal.open_victims())
        self.journal.move('d1', 'done')

    def test_deleted_victims_stay_out_for_a_while(self):
        # Nova shows a deleted server gone before its cell database does:
        # a decision that read its node earlier must not name it again.
        self.acting('a')
        self.journal.take('d1', 'a')
        self.journal.settle('d1', 'a', 'requested')
        self.journal.settle('d1', 'a', 'done')
        created = self.journal.get('d1').created_at
        self.assertEqual({}, self.journal.open_victims())
        self.assertEqual({'a': 'host1'},
                         self.journal.open_victims(created - 3600))
        self.assertEqual({}, self.journal.open_victims(created + 1))

    def test_failed_deletion_is_taken_again_and_counted(self):
        self.acting('a')
        self.journal.take('d1', 'a')
        self.journal.settle('d1', 'a', 'requested')
        # Only a requested victim is taken again, and once.
        self.assertFalse(self.journal.take('d1', 'a', 5.0))
        self.assertTrue(self.journal.take('d1', 'a', 5.0, again=True))
        self.assertFalse(self.journal.take('d1', 'a', 5.0, again=True))
        self.journal.settle('d1', 'a', 'requested')
        self.assertEqual(2, self.journal.get('d1').victims[0].attempts)
        self.journal.settle('d1', 'a', 'failed')
        self.assertEqual({}, self.journal.open_victims())

    def test_spared_victims_close_an_abandoned_decision(self):
        self.acting('a', 'b')
        self.journal.take('d1', 'a')
        self.journal.settle('d1', 'a', 'requested')
        self.assertEqual(['b'], self.journal.spare('d1'))
        self.assertEqual([], self.journal.spare('d1'))
        self.assertEqual({'a': 'host1'}, self.journal.open_victims())
        # Not finished while 'a' may still go.
        self.assertRaises(journal.JournalError, self.journal.move, 'd1',
                          'abandoned')
        self.journal.settle('d1', 'a', 'done')
        self.journal.move('d1', 'abandoned')
        self.assertIn('abandoned', journal.CLOSED_DECISIONS)
        self.assertEqual({'a': 'done', 'b': 'spared'},
                         {v.id: v.state for v in
                          self.journal.get('d1').victims})

    def test_only_an_acting_decision_spares(self):
        self.journal.record(decision('d1', 'a'))
        self.assertEqual([], self.journal.spare('d1'))
        self.assertEqual('pending', self.journal.get('d1').victims[0].state)

    def test_the_victims_consumer_is_kept(self):
        held = {'allocations': {'rp1': {'resources': {'VCPU': 2}}},
                'project_id': 'p', 'user_id': 'u'}
        recorded = decision('d1', 'a')
        recorded.victims[0].consumer = held
        self.journal.record(recorded)
        self.assertEqual(held, self.journal.get('d1').victims[0].consumer)


def every_move(book):
    """Every move of both state machines, each a transaction of its own;
    what the moves that answer answered.
    """
    answers = []
    book.record(decision('d1', 'a', 'b'))
    book.move('d1', 'acting')
    answers.append(book.take('d1', 'a', now=1.0))
    book.settle('d1', 'a', 'requested')
    answers.append(book.take('d1', 'a', now=2.0, again=True))
    book.settle('d1', 'a', 'done')
    answers.append(book.take('d1', 'b', now=3.0))
    book.settle('d1', 'b', 'gone')
    book.move('d1', 'done')
    book.record(decision('d2', 'c', 'e'))
    book.move('d2', 'acting')
    answers.append(book.take('d2', 'c', now=4.0))
    book.settle('d2', 'c', 'failed')
    answers.append(book.spare('d2'))
    book.move('d2', 'abandoned')
    book.record(decision('d3', 'f'))
    book.move('d3', 'rolled_back')
    return answers


def journal_rows(book):
    rows = {}
    with book.engine.connect() as connection:
        for model in (models.NovaDecision, models.NovaVictim):
            table = model.__table__
            rows[table.name] = [tuple(row) for row in connection.execute(
                table.select().order_by(*table.primary_key.columns))]
    return rows


class TestDeadlockRetry(base.TestCase):

    def make_journal(self, max_retries=3):
        book = journal.Journal('sqlite://', deadlock.Policy(
            max_retries=max_retries, interval=0))
        self.addCleanup(book.engine.dispose)
        book.open_decisions()       # the schema, before counting
        return book

    def test_each_move_deadlocking_once_ends_as_an_undisturbed_run(self):
        moves, answers, rows = deadlocks.check_each_once(
            self, self.make_journal, '_session', every_move, journal_rows)
        self.assertEqual(17, moves)
        self.assertEqual([True, True, True, True, ['e']], answers)
        self.assertEqual(['done', 'abandoned', 'rolled_back'],
                         [dict(zip(models.NovaDecision.__table__.c.keys(),
                                   row))['state']
                          for row in rows['nova_decisions']])

    def test_a_move_that_keeps_deadlocking_gives_up(self):
        book = self.make_journal(max_retries=1)
        book.record(decision('d1', 'a'))
        before = journal_rows(book)
        injected = deadlocks.Deadlocks(book, '_session', at=0, times=2)
        error = self.assertRaises(deadlock.GaveUp, book.move, 'd1',
                                  'acting')
        self.assertEqual((2, 2), (injected.failed, error.attempts))
        self.assertIn('move was aborted as a deadlock by the database 2 '
                      'time(s) in a row, nothing written', str(error))
        self.assertEqual(before, journal_rows(book))
        self.assertEqual('decided', book.get('d1').state)
