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

"""A deadlock injected at each write of the store and each move of its
journal: the write is run again and the end state is that of a run with
no deadlock; a write that deadlocks every time gives up, nothing written.

The deadlock is raised where Galera raises its certification conflicts:
at the end of the transaction, after its statements ran, so the retry must
start from a rolled-back transaction.
"""

import fixtures
from oslo_db import exception as db_exc

from preemptible_sched.db import api
from preemptible_sched.db import deadlock
from preemptible_sched.db import models
from preemptible_sched import objects
from tests import base
from tests import deadlocks

T0 = 1718000000.125


def snapshot(store):
    """Every row of every table."""
    tables = {}
    with store.engine.connect() as connection:
        for table in models.Base.metadata.sorted_tables:
            query = table.select().order_by(*table.primary_key.columns)
            tables[table.name] = [tuple(row)
                                  for row in connection.execute(query)]
    return tables


def scenario(store):
    """Every write of the store: hosts, requests, instances, events, and
    every move of a decision (journaled, a victim confirmed, spawning,
    done; another one rolled back). Returns the decisions.
    """
    store.save_host(objects.Host('h1', 8, 16384), T0)
    store.set_host_up('h1', False, T0 + 1)
    store.save_host(objects.Host('h1', 8, 16384), T0 + 2)
    for name in ('v1', 'v2'):
        spec = base.make_spec(spec_id=name, preemptible=True)
        store.add_request(spec, T0)
        store.update_instance(name, at=T0, state='building', host='h1')
        store.update_instance(name, at=T0 + 1, state='running')
        store.set_request_status(name, 'placed', T0 + 1)
    for name in ('new', 'other'):
        store.add_request(base.make_spec(spec_id=name), T0 + 10)
        store.increment_attempts(name)
    first = store.journal_decision('new', 'new', 'h1', ['v1'], T0 + 20)
    store.confirm_termination(first, 'v1', T0 + 21)
    store.set_decision_state(first, 'spawning', T0 + 22)
    store.set_decision_state(first, 'done', T0 + 23)
    second = store.journal_decision('other', 'other', 'h1', ['v2'], T0 + 30)
    store.roll_back_decision(second, T0 + 31, 'host gone')
    store.record_event('host.down', T0 + 40, host='h1')
    return first, second


class TestDeadlockRetry(base.TestCase):

    def make_store(self, max_retries=3):
        store = api.Store('sqlite://')
        self.addCleanup(store.dispose)
        store.upgrade()
        store.deadlock_retry = deadlock.Policy(max_retries=max_retries,
                                               interval=0)
        return store

    def test_each_write_deadlocking_once_ends_as_an_undisturbed_run(self):
        writes, decisions, expected = deadlocks.check_each_once(
            self, self.make_store, '_changes', scenario, snapshot)
        self.assertEqual(22, writes)
        self.assertEqual(2, len(decisions))
        self.assertEqual(['done', 'rolled_back'],
                         [dict(zip(models.Decision.__table__.c.keys(),
                                   row))['state']
                          for row in expected['decisions']])

    def test_a_move_that_keeps_deadlocking_gives_up(self):
        store = self.make_store(max_retries=2)
        store.add_request(base.make_spec(spec_id='r'), T0)
        before = snapshot(store)
        injected = deadlocks.Deadlocks(store, '_changes', at=0, times=10)
        error = self.assertRaises(deadlock.GaveUp, store.set_request_status,
                                  'r', 'failed', T0 + 1)
        self.assertEqual(3, injected.failed)
        self.assertEqual(3, error.attempts)
        self.assertIn('set_request_status was aborted as a deadlock by the '
                      'database 3 time(s) in a row, nothing written',
                      str(error))
        self.assertIn('[database] db_max_retries', str(error))
        self.assertIsInstance(error.__cause__, db_exc.DBDeadlock)
        self.assertEqual(before, snapshot(store))

    def test_other_errors_are_not_retried(self):
        store = self.make_store()
        counter = deadlocks.Deadlocks(store, '_changes')
        self.assertRaises(LookupError, store.set_request_status, 'nope',
                          'failed', T0)
        self.assertEqual(1, counter.count)

    def test_the_policy_comes_from_the_database_options(self):
        self.flags(group='database', db_max_retries=7, db_retry_interval=2,
                   db_inc_retry_interval=False, db_max_retry_interval=5)
        policy = deadlock.policy(base.CONF)
        self.assertEqual(7, policy.max_retries)
        self.flags(state_path=self.useFixture(fixtures.TempDir()).path)
        store = api.Store.from_config(base.CONF)
        self.addCleanup(store.dispose)
        self.assertEqual(7, store.deadlock_retry.max_retries)
