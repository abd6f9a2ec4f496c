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

"""The journal and the terminator on MariaDB and PostgreSQL (the tests of
tests/unit/nova, which run on SQLite), preemptible-sched-manage journal
(tests/unit/cmd/test_manage_journal.py), and two schedulers racing on one
journal on all three backends, without the decision lock.

Each test on a server gets a database of its own (as
tests/functional/db/test_backends.py makes them), skipped only when
nothing listens at the server's address.
"""

import os
import threading

import fixtures

from preemptible_sched.nova import journal
from tests import base
from tests.functional.db import test_backends
from tests.functional.nova import test_decisions_across_processes as across
from tests.unit.cmd import test_manage_journal
from tests.unit.nova import test_journal
from tests.unit.nova import test_terminator

#: decisions raced in each race test
RACES = 20


class ServerJournal(across.ServerJournal):

    def make_journal(self):
        book = journal.Journal(self.journal_url())
        self.addCleanup(book.engine.dispose)
        return book


class MariaDB(ServerJournal):

    DATABASE = test_backends.MariaDBDatabase
    LABEL = 'MariaDB'


class PostgreSQL(ServerJournal):

    DATABASE = test_backends.PostgreSQLDatabase
    LABEL = 'PostgreSQL'


class TestJournalMariaDB(MariaDB, test_journal.TestJournal):
    pass


class TestJournalPostgreSQL(PostgreSQL, test_journal.TestJournal):
    pass


class TestTerminatorMariaDB(MariaDB, test_terminator.TestTerminator):
    pass


class TestJournalCommandsMariaDB(MariaDB,
                                 test_manage_journal.TestJournalCommands):
    """preemptible-sched-manage journal list, show and purge."""


class TestJournalCommandsPostgreSQL(
        PostgreSQL, test_manage_journal.TestJournalCommands):
    """preemptible-sched-manage journal list, show and purge."""


class TestTerminatorPostgreSQL(PostgreSQL, test_terminator.TestTerminator):
    pass


class TestRecoveryMariaDB(MariaDB, test_terminator.TestRecovery):
    pass


class TestRecoveryPostgreSQL(PostgreSQL, test_terminator.TestRecovery):
    pass


def race(*calls):
    """Run ``calls`` in threads released together; each one's result or
    the JournalError it raised (any other error fails the test).
    """
    barrier = threading.Barrier(len(calls))
    results = [None] * len(calls)

    def run(index, call):
        barrier.wait()
        try:
            results[index] = call()
        except journal.JournalError as error:
            results[index] = error

    threads = [threading.Thread(target=run, args=(index, call))
               for index, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


class RaceBehaviour:
    """Two schedulers (two Journal objects, each with its own connection
    pool) on one database, without the decision lock.
    """

    def setUp(self):
        super().setUp()
        self.first, self.second = self.make_journal(), self.make_journal()
        # The schema, before the races.
        self.first.open_decisions()
        self.second.open_decisions()

    def test_moves_of_one_decision_race_and_one_wins(self):
        """For each of RACES decisions one scheduler moves it to acting
        (it claimed the room) while the other rolls it back (its
        recovery saw no claim): exactly one move succeeds, the other gets
        JournalError, and the state is the winner's: the victim is still
        open (named by no new decision) exactly when ``acting`` won.
        """
        outcomes = []
        for n in range(RACES):
            decision_id = 'd%02d' % n
            self.first.record(test_journal.decision(decision_id,
                                                    'v%02d' % n))
            acting, rolled_back = race(
                lambda: self.first.move(decision_id, 'acting'),
                lambda: self.second.move(decision_id, 'rolled_back'))
            errors = [isinstance(result, journal.JournalError)
                      for result in (acting, rolled_back)]
            self.assertEqual(1, sum(errors), (acting, rolled_back))
            winner = 'rolled_back' if errors[0] else 'acting'
            self.assertEqual(winner, self.first.get(decision_id).state)
            outcomes.append(winner)
            reuse = test_journal.decision('again-%02d' % n, 'v%02d' % n)
            if winner == 'acting':
                self.assertRaises(journal.VictimTaken, self.second.record,
                                  reuse)
            else:
                self.second.record(reuse)
        self.assertEqual(RACES, len(outcomes))

    def test_two_schedulers_journal_one_victim_at_once(self):
        """Each of RACES rounds: both schedulers journal a decision naming
        server 's<n>' at the same time; exactly one is written, the other
        gets VictimTaken naming 's<n>'. RACES open decisions at the end,
        one per server.
        """
        for n in range(RACES):
            server = 's%02d' % n
            results = race(
                lambda: self.first.record(test_journal.decision(
                    'a%02d' % n, server)),
                lambda: self.second.record(test_journal.decision(
                    'b%02d' % n, server)))
            taken = [result for result in results
                     if isinstance(result, journal.VictimTaken)]
            self.assertEqual(1, len(taken), results)
            self.assertEqual([server], taken[0].victims)
        named = sorted(victim.id
                       for decision in self.first.open_decisions()
                       for victim in decision.victims)
        self.assertEqual(['s%02d' % n for n in range(RACES)], named)

    def test_one_victim_is_taken_once(self):
        """Both schedulers take the same pending victim at once, RACES
        times: exactly one take returns True.
        """
        for n in range(RACES):
            decision_id = 'd%02d' % n
            self.first.record(test_journal.decision(decision_id, 'v'))
            self.first.move(decision_id, 'acting')
            results = race(lambda: self.first.take(decision_id, 'v'),
                           lambda: self.second.take(decision_id, 'v'))
            self.assertEqual(sorted([False, True]), sorted(results))
            self.first.settle(decision_id, 'v', 'done')


class TestRaceSQLite(RaceBehaviour, base.TestCase):

    def make_journal(self):
        if not hasattr(self, 'folder'):
            self.folder = self.useFixture(fixtures.TempDir()).path
        book = journal.Journal('sqlite:///%s' % os.path.join(
            self.folder, 'journal.sqlite'))
        self.addCleanup(book.engine.dispose)
        return book


class TestRaceMariaDB(MariaDB, RaceBehaviour, base.TestCase):
    pass


class TestRacePostgreSQL(PostgreSQL, RaceBehaviour, base.TestCase):
    pass
