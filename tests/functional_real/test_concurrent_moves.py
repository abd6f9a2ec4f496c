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

"""Concurrent writers on the same rows of a real MariaDB, with deadlocks.

Several writers, each with an engine of its own as separate schedulers
have, race to make the same moves of both journals (the Nova adapter's
and the store's) on the same decisions and victims. On top of the
deadlocks the server reports by itself, a share of the transactions are
made to fail at their end with MariaDB's own deadlock error (1213, raised
by the server with ``SIGNAL``, the error Galera gives a transaction that
lost a certification conflict), so that retries run while the others
write. No move may be lost nor made twice: every decision ends ``done``,
every victim is taken once, asked for once (``attempts`` is 1) and
confirmed once.

Skipped, with the reason, when no MariaDB listens (``PSCHED_TEST_MYSQL_URL``,
by default ``mysql+pymysql://root@127.0.0.1:3306/``).
"""

import concurrent.futures
import contextlib
import random
import threading

import sqlalchemy as sa

from preemptible_sched.db import api as db_api
from preemptible_sched.db import deadlock
from preemptible_sched.db import errors
from preemptible_sched.db import models
from preemptible_sched.nova import journal
from preemptible_sched.nova import journal_records
from preemptible_sched import objects
from tests import base
from tests import deadlocks
from tests.functional_real import test_multiprocess as real

WRITERS = 6
DECISIONS = 12
VICTIMS = 3
#: Share of the transactions made to fail as deadlocks.
INJECTED = 0.3
SIGNAL_DEADLOCK = ("SIGNAL SQLSTATE '40001' SET MYSQL_ERRNO = 1213, "
                   "MESSAGE_TEXT = 'Deadlock found when trying to get lock; "
                   "try restarting transaction'")
T0 = 1718000000.125


def server_deadlocks(owner, hook, seed):
    """Make a share of the transactions of ``owner`` (opened with its
    method ``hook``) fail at their end with the server's deadlock error.
    """
    rng = random.Random(seed)

    def signal(unit):
        unit.flush()
        unit.execute(sa.text(SIGNAL_DEADLOCK))

    return deadlocks.Deadlocks(owner, hook, fail=signal,
                               choose=lambda: rng.random() < INJECTED)


class ConcurrentCase(base.TestCase):

    def setUp(self):
        super().setUp()
        server = sa.engine.make_url(real.MYSQL_URL)
        why = real.reachable(server.host or '127.0.0.1', server.port or 3306)
        if why:
            self.skipTest('MariaDB not reachable at %s' % why)
        database = self.useFixture(real.ThrowawayDatabase(
            real.MYSQL_URL, 'CREATE DATABASE %s CHARACTER SET utf8mb4',
            'DROP DATABASE IF EXISTS %s'))
        self.url = database.url

    def race(self, writer, seeds=range(WRITERS)):
        """Run ``writer(seed)`` in every thread at once; what they
        returned.
        """
        start = threading.Barrier(len(seeds))

        def run(seed):
            start.wait()
            return writer(seed)

        with concurrent.futures.ThreadPoolExecutor(len(seeds)) as pool:
            return list(pool.map(run, seeds))

    def policy(self):
        return deadlock.Policy(max_retries=50, interval=0)


class TestNovaJournal(ConcurrentCase):

    def test_no_move_lost_or_made_twice(self):
        first = journal.Journal(self.url)
        self.addCleanup(first.engine.dispose)
        ids = ['d%02d' % n for n in range(DECISIONS)]
        for decision_id in ids:
            first.record(journal_records.Decision(
                decision_id, 'sched', 'preempt', ['new-' + decision_id],
                0.0, 100.0, [journal_records.Victim(
                    '%s-v%d' % (decision_id, v), 'host1')
                    for v in range(VICTIMS)]))

        def writer(seed):
            book = journal.Journal(self.url, self.policy())
            injected = server_deadlocks(book, '_session', seed)
            made = []
            order = list(ids)
            random.Random(seed).shuffle(order)
            try:
                for decision_id in order:
                    with contextlib.suppress(journal.JournalError):
                        book.move(decision_id, 'acting')
                        made.append(('acting', decision_id))
                    for v in range(VICTIMS):
                        victim = '%s-v%d' % (decision_id, v)
                        if book.take(decision_id, victim, now=1.0):
                            made.append(('take', victim))
                            book.settle(decision_id, victim, 'requested')
                        if book.take(decision_id, victim, now=2.0,
                                     again=True):
                            made.append(('again', victim))
                            book.settle(decision_id, victim, 'done')
                    with contextlib.suppress(journal.JournalError):
                        book.move(decision_id, 'done')
                        made.append(('done', decision_id))
                return made, injected.failed
            finally:
                book.engine.dispose()

        results = self.race(writer)
        made = [move for moves, _ in results for move in moves]
        victims = ['%s-v%d' % (d, v) for d in ids for v in range(VICTIMS)]
        # Each move made by exactly one writer.
        self.assertEqual(sorted([('acting', d) for d in ids] +
                                [('done', d) for d in ids] +
                                [('take', v) for v in victims] +
                                [('again', v) for v in victims]),
                         sorted(made))
        self.assertGreater(sum(count for _, count in results), 0)
        with first.engine.connect() as connection:
            decisions = dict(connection.execute(sa.select(
                models.NovaDecision.id, models.NovaDecision.state)).all())
            rows = connection.execute(sa.select(
                models.NovaVictim.victim, models.NovaVictim.state,
                models.NovaVictim.attempts,
                models.NovaVictim.open_victim)).all()
        self.assertEqual({d: 'done' for d in ids}, decisions)
        self.assertEqual(sorted((v, 'done', 1, None) for v in victims),
                         sorted(tuple(row) for row in rows))


class TestStoreJournal(ConcurrentCase):

    def test_no_move_lost_or_made_twice(self):
        first = db_api.Store(self.url)
        self.addCleanup(first.dispose)
        first.upgrade()
        first.save_host(objects.Host('h1', 64, 262144), T0)
        decisions = []
        for n in range(DECISIONS):
            victims = []
            for v in range(VICTIMS):
                name = 'v%02d-%d' % (n, v)
                first.add_request(base.make_spec(spec_id=name,
                                                 preemptible=True), T0)
                first.update_instance(name, at=T0, state='building',
                                      host='h1')
                first.update_instance(name, at=T0, state='running')
                victims.append(name)
            name = 'new%02d' % n
            first.add_request(base.make_spec(spec_id=name), T0)
            decisions.append((first.journal_decision(
                name, name, 'h1', victims, T0 + 1), victims))

        def writer(seed):
            store = db_api.Store(self.url)
            store.deadlock_retry = self.policy()
            injected = server_deadlocks(store, '_changes', seed)
            order = list(decisions)
            random.Random(seed).shuffle(order)
            try:
                for decision_id, victims in order:
                    for victim in victims:
                        store.confirm_termination(decision_id, victim,
                                                  T0 + 2)
                    with contextlib.suppress(errors.Refused):
                        store.set_decision_state(decision_id, 'done',
                                                 T0 + 3)
                return injected.failed
            finally:
                store.dispose()

        injected = self.race(writer)
        self.assertGreater(sum(injected), 0)
        for decision_id, victims in decisions:
            decision = first.get_decision(decision_id)
            self.assertEqual('done', decision.state)
            self.assertEqual(sorted(victims), sorted(decision.confirmed))
        confirmed = [event.instance_id for event in first.list_events(
            kind='decision.termination_confirmed')]
        every_victim = [v for _, victims in decisions for v in victims]
        self.assertEqual(sorted(every_victim), sorted(confirmed))
        self.assertEqual(
            {'terminated'},
            {first.get_instance(v).state for v in every_victim})
