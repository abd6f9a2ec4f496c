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

"""Two scheduler processes making room at once, as the Nova manager does
it: the decision lock (tooz on the local Redis, or a file lock), the
journal (SQLite, MariaDB, PostgreSQL) and the terminator.

A cloud of 24 preemptible servers lives in an SQLite file. Each process
makes 12 decisions: under the lock it picks the cheapest server that no
open decision names (the lowest id still alive), journals it, marks the
decision acting and deletes it; every call of the delete action is logged,
before the server is touched. Afterwards (and once the periodic task has
confirmed the deletions): 24 decisions, every server named by exactly one
of them and deleted exactly once, and nothing left open. (Without a
shared lock, the journal still refuses a second *open* decision naming a
server: tests/unit/nova/test_journal.py.)
"""

import multiprocessing
import os
import socket
import sqlite3
import uuid

import fixtures

from preemptible_sched.nova import coordination
from preemptible_sched.nova import journal
from preemptible_sched.nova import journal_records
from preemptible_sched.nova import terminator
from tests import base
from tests.functional.db import test_backends

SERVERS = 24
PER_PROCESS = 12
REDIS = ('127.0.0.1', 6379)


def _cloud(path):
    connection = sqlite3.connect(path, timeout=30, isolation_level=None)
    return connection


class Servers:
    """The terminator's port to the shared table of servers: every
    deletion is logged before the server is touched.
    """

    def __init__(self, name, path):
        self.name = name
        self.cloud = _cloud(path)

    def act(self, victim):
        self.cloud.execute('INSERT INTO actions VALUES (?, ?)',
                           (victim.id, self.name))
        if self.cloud.execute('UPDATE servers SET alive = 0 WHERE id = ? '
                              'AND alive = 1', (victim.id,)).rowcount != 1:
            raise terminator.Gone()

    def outcome(self, victim):
        alive, = self.cloud.execute('SELECT alive FROM servers WHERE id = ?',
                                    (victim.id,)).fetchone()
        return terminator.FAILED if alive else terminator.DONE

    def request(self, decision):
        return terminator.ALIVE, True

    def give_up(self, decision, victims):
        raise AssertionError('no request dies here')

    failed = give_up


def _scheduler(name, journal_url, lock_url, lock_path, cloud_path):
    """One scheduler process: PER_PROCESS decisions."""
    lock = coordination.DecisionLock(lock_url, 30, lock_path, member=name)
    book = journal.Journal(journal_url)
    cloud = Servers(name, cloud_path).cloud
    worker = terminator.Terminator(book, Servers(name, cloud_path))
    made = 0
    while made < PER_PROCESS:
        with lock():
            named = {victim.id for decision in book.open_decisions()
                     for victim in decision.victims}
            alive = [row[0] for row in cloud.execute(
                'SELECT id FROM servers WHERE alive = 1 ORDER BY id')]
            free = [server for server in alive if server not in named]
            if not free:
                break
            decision = journal_records.Decision(
                str(uuid.uuid4()), name, 'preempt', [], 0.0, 0.0,
                [journal_records.Victim(free[0], 'host1')])
            try:
                book.record(decision)
            except journal.VictimTaken:
                continue
            book.move(decision.id, 'acting')
        worker.act(decision, 0.0)
        made += 1
    lock.stop()
    return made


class AcrossProcesses(base.TestCase):
    """Subclasses give :meth:`journal_url` and the lock."""

    LOCK_URL = None

    def setUp(self):
        super().setUp()
        self.folder = self.useFixture(fixtures.TempDir()).path
        self.cloud_path = os.path.join(self.folder, 'cloud.sqlite')
        cloud = _cloud(self.cloud_path)
        cloud.execute('CREATE TABLE servers (id TEXT PRIMARY KEY, '
                      'alive INTEGER)')
        cloud.execute('CREATE TABLE actions (id TEXT, scheduler TEXT)')
        cloud.executemany('INSERT INTO servers VALUES (?, 1)',
                          [('s%02d' % i,) for i in range(SERVERS)])
        cloud.close()

    def journal_url(self):
        return 'sqlite:///%s' % os.path.join(self.folder, 'journal.sqlite')

    def test_no_server_is_named_or_deleted_twice(self):
        url = self.journal_url()
        journal.Journal(url).open_decisions()     # the schema, once
        lock_path = os.path.join(self.folder, 'locks')
        context = multiprocessing.get_context('spawn')
        with context.Pool(2) as pool:
            made = pool.starmap(_scheduler, [
                ('sched-%d' % i, url, self.LOCK_URL, lock_path,
                 self.cloud_path) for i in (1, 2)])
        self.assertEqual(SERVERS, sum(made))
        # Every deletion asked for; each decision done once its server is
        # confirmed gone.
        book = journal.Journal(url)
        terminator.Terminator(book, Servers('test', self.cloud_path)
                              ).run_due(1.0)
        cloud = _cloud(self.cloud_path)
        actions = [row[0] for row in cloud.execute(
            'SELECT id FROM actions ORDER BY id')]
        self.assertEqual(['s%02d' % i for i in range(SERVERS)], actions)
        self.assertEqual(0, cloud.execute(
            'SELECT COUNT(*) FROM servers WHERE alive = 1').fetchone()[0])
        self.assertEqual([], book.open_decisions())


class TestFileLockSQLite(AcrossProcesses):
    """oslo.concurrency's file lock, shared by the two processes."""


def redis_url(test):
    """The local Redis server's tooz URL; ``test`` is skipped when
    nothing listens there.
    """
    try:
        socket.create_connection(REDIS, timeout=5).close()
    except OSError as error:
        test.skipTest('Redis not reachable at %s:%d: %s'
                      % (REDIS + (error,)))
    return 'redis://%s:%d' % REDIS


class TestRedisLock(AcrossProcesses):

    def setUp(self):
        self.LOCK_URL = redis_url(self)
        super().setUp()


class ServerJournal(test_backends.ServerDatabaseURL):

    def journal_url(self):
        return self.database_url()


class TestRedisLockMariaDB(ServerJournal, TestRedisLock):

    DATABASE = test_backends.MariaDBDatabase
    LABEL = 'MariaDB'


class TestRedisLockPostgreSQL(ServerJournal, TestRedisLock):

    DATABASE = test_backends.PostgreSQLDatabase
    LABEL = 'PostgreSQL'
