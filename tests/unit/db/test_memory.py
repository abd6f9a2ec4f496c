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

"""The simulator's store: every behaviour of the synchronous store (the
same tests), its rows, and the journal written in batches.
"""

import os
import threading
from unittest import mock

import fixtures
from oslo_db import exception as db_exc
import sqlalchemy as sa

from preemptible_sched.db import api
from preemptible_sched.db import errors
from preemptible_sched.db import memory
from preemptible_sched.db import models
from preemptible_sched.loop import lifecycle
from preemptible_sched import objects
from tests import base
from tests.unit.db import test_api

T0 = test_api.T0
_spec = test_api._spec


class MemoryBehaviour(test_api.StoreBehaviour):
    """:class:`test_api.StoreBehaviour`, on a :class:`MemoryStore`: the
    database is compared after a flush, so a change made in memory only
    shows too.
    """

    def snapshot(self):
        self.store.flush()
        return super().snapshot()

    def test_rows_are_detached_and_readable(self):
        # Plain rows, read-only: a row a caller holds never changes.
        self.add_pending('r')
        instance = self.store.get_instance('r')
        self.assertEqual('r', lifecycle.instance_from_row(instance).id)
        self.assertEqual(T0 + 10, instance.created_at)
        self.assertRaises(AttributeError, setattr, instance, 'state',
                          'running')
        self.store.update_instance('r', at=T0 + 11, state='building',
                                   host='h1')
        self.assertEqual(('pending', None), (instance.state, instance.host))
        self.assertEqual('building', self.store.get_instance('r').state)

    def test_a_failed_write_is_not_run_again(self):
        # In memory nothing deadlocks, and the simulator is the journal's
        # only writer: no retry policy (its wrapper cost every call), and
        # a write that fails fails at once, having changed nothing.
        self.assertIsNone(self.store.deadlock_retry)
        flush = self.useFixture(fixtures.MockPatchObject(
            self.store._writer, 'flush_if_full',
            side_effect=db_exc.DBDeadlock())).mock
        self.assertRaises(db_exc.DBDeadlock, self.add_pending, 'r')
        self.assertEqual(1, flush.call_count)
        self.assertEqual([], self.store.list_requests())

    def test_migration_0003_gives_stored_requests_the_default_project(self):
        # The memory store reads the database when it is upgraded: a row
        # an older writer left is read then; one written behind its back
        # afterwards is not.
        self.downgrade_to_0002()
        self.assertEqual([], self.store.list_requests())
        self.insert_without_project('old', 1.0)
        self.store.upgrade()
        self.assertEqual('default', self.store.get_request('old').project_id)
        self.insert_without_project('older', 2.0)
        self.assertEqual(['old'], [
            r.id for r in self.store.list_requests(project_id='default')])


class TestMemoryStore(MemoryBehaviour, base.TestCase):
    """A small batch: flushes all along."""

    def make_store(self):
        return memory.MemoryStore('sqlite://', batch_size=3)


class TestMemoryStoreLargeBatch(MemoryBehaviour, base.TestCase):
    """A batch no test fills: nothing is written until a flush."""

    def make_store(self):
        return memory.MemoryStore('sqlite://')


class TestMemoryStoreFile(MemoryBehaviour, test_api.ReopenBehaviour,
                          base.TestCase):
    """On a file: dispose() writes what waits, a new store reads it."""

    def make_store(self):
        if not hasattr(self, 'path'):
            self.path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                                     'state.sqlite')
        return memory.MemoryStore('sqlite:///' + self.path, batch_size=50)

    def test_a_reopened_store_counts_on_from_the_database(self):
        self.add_running('p')
        self.add_pending('new')
        decision_id = self.journal(['p'])
        self.store.record_event('x', T0)
        self.store.dispose()
        reopened = self.make_store()
        self.addCleanup(reopened.dispose)
        reopened.upgrade()
        self.assertEqual(['p', 'new'],
                         [r.id for r in reopened.list_instances()])
        self.assertEqual(['p'], reopened.get_decision(decision_id).victims)
        reopened.add_request(_spec('later'), T0 + 50)
        self.assertEqual(decision_id + 1, reopened.journal_decision(
            'later', 'later', 'h2', [], T0 + 51))
        event = reopened.record_event('y', T0 + 52)
        self.assertEqual([e.id for e in reopened.list_events()][-1],
                         event.id)
        self.assertEqual(4, event.id)


class TestSameRowsAsTheStore(base.TestCase):
    """The same calls leave the same rows in the database, written in the
    same order, as the synchronous store's.
    """

    def calls(self, store):
        store.upgrade()
        store.save_host(objects.Host('h1', 8, 16384, attributes={'a': 'b'}),
                        T0)
        store.save_host(objects.Host('h2', 8, 16384), T0)
        store.add_request(_spec('p', preemptible=True, num_instances=3), T0)
        for key in ('p-0', 'p-1', 'p-2'):
            store.update_instance(key, at=T0 + 1, state='building',
                                  host='h1')
            store.update_instance(key, at=T0 + 2, state='running')
        store.set_request_status('p', 'placed', T0 + 2)
        store.add_request(_spec('n'), T0 + 3, duration_s=60.0, image='i')
        store.record_event('request.submitted', T0 + 3, request_id='n',
                           payload={'request_id': 'n'})
        first = store.journal_decision('n', 'n', 'h1', ['p-1', 'p-0'],
                                       T0 + 4, strategy='dual_state',
                                       explanation={'why': [1, 2.5]})
        store.set_decision_state(first, 'terminating', T0 + 5)
        store.confirm_termination(first, 'p-1', T0 + 6)
        store.increment_attempts('n')
        store.roll_back_decision(first, T0 + 7, 'host down')
        store.set_host_up('h1', False, T0 + 7)
        second = store.journal_decision('n', 'n', 'h2', [], T0 + 8)
        store.set_decision_state(second, 'spawning', T0 + 9)
        store.update_instance('n', at=T0 + 9, state='building')
        store.update_instance('n', at=T0 + 10, state='running')
        store.set_decision_state(second, 'done', T0 + 10)
        store.update_instance('p-2', at=T0 + 11, state='ended',
                              running_s=9.0)
        store.record_event('instance.ended', T0 + 11, instance_id='p-2')
        store.flush()
        rows = {}
        with store.engine.connect() as connection:
            for table in models.Base.metadata.sorted_tables:
                rows[table.name] = connection.exec_driver_sql(
                    'SELECT rowid, * FROM %s ORDER BY rowid'
                    % table.name).all()
        return rows

    def test_same_rows(self):
        expected = self.calls(api.Store('sqlite://'))
        self.assertEqual(6, len(expected['events']))
        for batch_size in (1, 2, 5, 1000):
            store = memory.MemoryStore('sqlite://', batch_size=batch_size)
            self.addCleanup(store.dispose)
            self.assertEqual(expected, self.calls(store), batch_size)


class TestBatches(base.TestCase):

    def setUp(self):
        super().setUp()
        self.store = memory.MemoryStore('sqlite://', batch_size=5)
        self.addCleanup(self.store.dispose)
        self.store.upgrade()

    def count(self, model):
        with self.store.engine.connect() as connection:
            return connection.scalar(sa.select(sa.func.count()).select_from(
                model.__table__))

    def test_rows_wait_in_memory_until_a_batch_is_full(self):
        self.store.add_request(_spec('a', num_instances=2), T0)
        self.assertEqual(3, self.store.waiting)
        self.assertEqual(0, self.count(models.Request))
        # Read from memory all the same.
        self.assertEqual(['a-0', 'a-1'],
                         [r.id for r in self.store.list_instances()])
        self.store.add_request(_spec('b'), T0)
        self.assertEqual(5, self.store.waiting)
        self.assertEqual(0, self.count(models.Request))
        # The batch is full: the next change writes it first.
        self.store.record_event('x', T0)
        self.assertEqual(1, self.store.waiting)
        self.assertEqual((2, 3, 0), (self.count(models.Request),
                                     self.count(models.Instance),
                                     self.count(models.Event)))

    def test_a_failed_batch_fails_the_next_change_with_nothing_changed(
            self):
        self.store.add_request(_spec('a', num_instances=4), T0)
        with mock.patch.object(self.store._writer, 'flush',
                               side_effect=RuntimeError('disk full')):
            self.assertRaises(RuntimeError, self.store.update_instance,
                              'a-0', at=T0 + 1, running_s=5.0)
        self.assertEqual(0.0, self.store.get_instance('a-0').running_s)
        self.assertEqual(5, self.store.waiting)
        self.store.update_instance('a-0', at=T0 + 1, running_s=5.0)
        self.assertEqual((1, 1), (self.store.waiting,
                                  self.count(models.Request)))

    def test_a_row_changed_in_a_batch_is_written_once(self):
        self.store.add_request(_spec('a'), T0)
        for at in range(1, 4):
            self.store.update_instance('a', at=T0 + at, running_s=at)
        self.assertEqual(2, self.store.waiting)
        self.assertEqual(2, self.store.flush())
        self.assertEqual(0, self.store.flush())
        with self.store.engine.connect() as connection:
            self.assertEqual(3.0, connection.scalar(
                sa.select(models.Instance.running_s)))

    def test_a_change_that_changes_nothing_is_not_written(self):
        self.store.add_request(_spec('a'), T0)
        self.store.flush()
        self.store.update_instance('a', state='pending')
        self.store.set_request_status('a', 'pending', T0)
        self.assertEqual(0, self.store.waiting)

    def test_events_are_flushed_before_they_are_read(self):
        self.store.record_event('one', T0)
        self.store.record_event('two', T0 + 1, payload={'k': 'v'})
        self.assertEqual(2, self.store.waiting)
        self.assertEqual(['one', 'two'],
                         [e.kind for e in self.store.list_events()])
        self.assertEqual(0, self.store.waiting)
        self.store.record_event('three', T0 + 5)
        self.assertEqual(T0 + 5, self.store.latest_time())
        self.assertEqual(0, self.store.waiting)

    def test_events_are_numbered_in_the_order_recorded(self):
        ids = [self.store.record_event('e%d' % i, T0).id for i in range(7)]
        self.assertEqual(list(range(1, 8)), ids)
        self.assertEqual([('e%d' % i, i + 1) for i in range(7)],
                         [(e.kind, e.id) for e in self.store.list_events()])

    def test_a_refused_call_leaves_memory_and_waiting_rows_alone(self):
        self.store.add_request(_spec('a'), T0)
        waiting = self.store.waiting
        before = self.store.get_instance('a')
        self.assertRaises(errors.Refused, self.store.journal_decision,
                          'a', 'a', 'h1', ['ghost'], T0)
        self.assertRaises(errors.NotFound, self.store.update_instance,
                          'ghost', state='running')
        self.assertEqual(waiting, self.store.waiting)
        self.assertIs(before, self.store.get_instance('a'))
        self.assertEqual([], self.store.unfinished_decisions())

    def test_json_columns_are_new_objects_on_each_read(self):
        self.store.add_request(_spec('a'), T0)
        decision_id = self.store.journal_decision('a', 'a', 'h1', [], T0,
                                                  explanation={'k': [1]})
        decision = self.store.get_decision(decision_id)
        decision.explanation['k'].append(2)
        decision.victims.append('x')
        self.assertEqual(({'k': [1]}, []),
                         (decision.explanation, decision.victims))

    def test_a_value_json_cannot_store_is_refused_at_once(self):
        self.store.add_request(_spec('a'), T0)
        waiting = self.store.waiting
        self.assertRaises(TypeError, self.store.record_event, 'x', T0,
                          payload={'when': object()})
        self.assertEqual(waiting, self.store.waiting)

    def test_values_are_stored_as_the_database_returns_them(self):
        self.store.add_request(_spec('a', preemptible=1), 5)
        row = self.store.update_instance('a', at=6, preemptions=True)
        self.assertEqual((5.0, 6.0, True, 1),
                         (row.created_at, row.updated_at, row.preemptible,
                          row.preemptions))
        self.assertIs(float, type(row.created_at))
        self.assertIs(int, type(row.preemptions))

    def test_every_method_of_the_store_is_served(self):
        # A read of Store goes to the database: MemoryStore must answer it
        # from memory, or flush first. Writes go through the hooks.
        through_hooks = {
            'save_host', 'set_host_up', 'add_request', 'set_request_status',
            'set_request_size',
            'increment_attempts', 'update_instance', 'journal_decision',
            'confirm_termination', 'set_decision_state',
            'roll_back_decision', 'record_event',
            'from_config', 'revision', 'is_in_memory',
            # The service's terms: a simulation has no other scheduler.
            'begin_term', 'leader', 'depose'}
        public = {name for name in dir(api.Store)
                  if not name.startswith('_')}
        own = {name for name in vars(memory.MemoryStore)
               if not name.startswith('_')}
        self.assertEqual(set(), public - own - through_hooks)
        hooks = {'_changes', '_edit', '_find', '_insert', '_journal_rows',
                 '_decision_rows', '_add_event', '_check_new_request'}
        self.assertEqual(hooks, hooks & set(vars(memory.MemoryStore)))

    def test_concurrent_readers_see_whole_calls(self):
        self.store.add_request(_spec('p', preemptible=True), T0)
        self.store.update_instance('p', at=T0, state='building', host='h1')
        errors = []

        def read():
            try:
                for _ in range(200):
                    states = {r.state for r in self.store.list_instances()}
                    self.assertLessEqual(states, {'pending', 'building',
                                                  'running'})
            except Exception as error:  # noqa: B902
                errors.append(error)

        readers = [threading.Thread(target=read) for _ in range(2)]
        for reader in readers:
            reader.start()
        for index in range(50):
            self.store.add_request(_spec('r%d' % index), T0 + index)
        for reader in readers:
            reader.join(60)
        self.assertEqual([], errors)


class TestMemoryStoreWithoutDatabase(MemoryBehaviour, base.TestCase):
    """Without a database (a simulation's store): every check, refusal
    and row of the store's behaviour, in memory. What only a database
    holds (its schema, migrations and events, and the events the
    journal's calls add) is not collected here: see
    :meth:`test_no_events_and_no_database`.
    """

    (test_migration_0003_gives_stored_requests_the_default_project,
     test_migration_0007_counts_stored_running_time_as_work,
     test_migration_0008_leaves_stored_instances_undeclared,
     test_migrations_match_the_models, test_schema_has_the_tables_and_indexes,
     test_upgrade_is_idempotent, test_record_and_list_events,
     test_confirm_termination, test_journal_decision,
     test_roll_back_decision, test_concurrent_writers,
     test_a_failed_write_is_not_run_again) = (None,) * 12

    def make_store(self):
        return memory.MemoryStore()

    def snapshot(self):
        return {table: sorted((sorted(vars(row).items())
                               for row in rows.values()), key=repr)
                for table, rows in self.store._tables.items()}

    def test_no_events_and_no_database(self):
        self.assertFalse(self.store.journaled)
        self.assertIsNone(self.store.engine)
        self.add_running('p')
        self.add_pending('new')
        decision_id = self.journal(['p'])
        self.assertEqual('journaled',
                         self.store.get_decision(decision_id).state)
        self.assertIsNone(self.store.record_event('x', T0))
        self.assertEqual((0, 0), (self.store.flush(), self.store.waiting))
        self.assertRaises(errors.NoJournal, self.store.list_events)
        self.assertRaises(errors.NoJournal, self.store.latest_time)
        # Upgrading starts it empty; disposing of it is a no-op.
        self.store.upgrade()
        self.assertEqual([], self.store.list_requests())
        self.store.dispose()
