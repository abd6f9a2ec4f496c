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

"""The durable state on SQLite; the same behaviour runs on MariaDB and
PostgreSQL in ``tests/functional/db``.

:class:`StoreBehaviour` holds every behaviour test; a concrete test case
mixes it in and provides ``make_store()``, returning a :class:`Store` on
its database (the same database each time it is called).
"""

import os
import threading
from unittest import mock

from alembic import autogenerate
from alembic import migration as alembic_migration
import fixtures
from oslo_db import exception as db_exc
import sqlalchemy as sa

from preemptible_sched.conf import database as database_conf
from preemptible_sched.conf import opts
from preemptible_sched.db import api
from preemptible_sched.db import errors
from preemptible_sched.db import migration
from preemptible_sched.db import models
from preemptible_sched.db import request_store
from preemptible_sched.db import states
from preemptible_sched.loop import lifecycle
from preemptible_sched import objects
from tests import base

# A clock reading with a fraction: single-precision FLOAT would lose it.
T0 = 1718000000.125


def _spec(spec_id, preemptible=False, **kw):
    return base.make_spec(spec_id=spec_id, preemptible=preemptible, **kw)


class StoreBehaviour:
    """Every behaviour of :class:`api.Store`, whatever the backend."""

    def setUp(self):
        super().setUp()
        self.store = self.make_store()
        self.addCleanup(self.store.dispose)
        self.store.upgrade()

    # Helpers.

    def snapshot(self):
        """Every row of every table, to check that nothing was written."""
        tables = {}
        with self.store.engine.connect() as connection:
            for table in models.Base.metadata.sorted_tables:
                query = table.select().order_by(*table.primary_key.columns)
                tables[table.name] = [tuple(row)
                                      for row in connection.execute(query)]
        return tables

    def add_running(self, request_id, host='h1', preemptible=True,
                    num_instances=1, at=T0):
        """A placed request whose instances run on ``host``."""
        spec = _spec(request_id, preemptible=preemptible,
                     num_instances=num_instances)
        self.store.add_request(spec, at)
        ids = [spec.instance_id(i) for i in range(num_instances)]
        for instance_id in ids:
            self.store.update_instance(instance_id, at=at, state='building',
                                       host=host)
            self.store.update_instance(instance_id, at=at, state='running')
        self.store.set_request_status(request_id, 'placed', at)
        return ids

    def add_pending(self, request_id, preemptible=False, at=T0 + 10):
        self.store.add_request(_spec(request_id, preemptible=preemptible),
                               at)
        return request_id

    def journal(self, victims, request_id='new', host='h1', at=T0 + 20):
        return self.store.journal_decision(request_id, request_id, host,
                                           victims, at)

    def assertRefused(self, fragment, func, *args, **kw):
        before = self.snapshot()
        error = self.assertRaises(errors.Refused, func, *args, **kw)
        self.assertIn(fragment, str(error))
        self.assertEqual(before, self.snapshot())
        return error

    # Migrations.

    def test_upgrade_is_idempotent(self):
        self.add_pending('kept')
        before = self.snapshot()
        self.store.upgrade()
        self.store.upgrade()
        self.assertEqual(before, self.snapshot())
        self.assertEqual(migration.head_revision(),
                         migration.current_revision(self.store.engine))

    def test_migrations_match_the_models(self):
        with self.store.engine.connect() as connection:
            context = alembic_migration.MigrationContext.configure(
                connection, opts={'compare_type': True})
            diff = autogenerate.compare_metadata(context,
                                                 models.Base.metadata)
        self.assertEqual([], diff)

    def test_schema_has_the_tables_and_indexes(self):
        inspector = sa.inspect(self.store.engine)
        self.assertEqual(
            {'alembic_version', 'hosts', 'requests', 'instances',
             'decisions', 'events', 'nova_decisions', 'nova_victims',
             'leadership'},
            set(inspector.get_table_names()))
        indexes = {index['name']: index['column_names']
                   for index in inspector.get_indexes('instances')}
        self.assertEqual(['host', 'state'],
                         indexes['ix_instances_host_state'])
        self.assertEqual(['state'], indexes['ix_instances_state'])

    def downgrade_to_0002(self):
        """An empty database at revision 0002 (requests had no project)."""
        models.Base.metadata.drop_all(self.store.engine)
        with self.store.engine.begin() as connection:
            connection.exec_driver_sql('DROP TABLE alembic_version')
        self.store.upgrade('0002')

    def insert_without_project(self, request_id, at):
        """A request row as an older writer inserted it."""
        with self.store.engine.begin() as connection:
            connection.exec_driver_sql(
                "INSERT INTO requests (id, spec, status, attempts, "
                "submitted_at, updated_at) VALUES ('%s', '{}', "
                "'pending', 0, %r, %r)" % (request_id, at, at))

    def test_migration_0003_gives_stored_requests_the_default_project(self):
        self.downgrade_to_0002()
        self.insert_without_project('old', 1.0)
        self.store.upgrade('0003')
        self.assertEqual('0003', self.store.revision())
        self.assertEqual('default', self.store.get_request('old').project_id)
        indexes = {index['name']: index['column_names'] for index in
                   sa.inspect(self.store.engine).get_indexes('requests')}
        self.assertEqual(['project_id'], indexes['ix_requests_project_id'])
        # A row inserted without a project by an older writer: 'default'.
        self.insert_without_project('older', 2.0)
        self.assertEqual(['old', 'older'], [
            r.id for r in self.store.list_requests(project_id='default')])

    def old_instance_at(self, revision, running_s=None):
        """A fresh schema at ``revision`` holding request and instance
        'old', inserted as a writer of that revision did.
        """
        models.Base.metadata.drop_all(self.store.engine)
        with self.store.engine.begin() as connection:
            connection.exec_driver_sql('DROP TABLE alembic_version')
        self.store.upgrade(revision)
        running = '' if running_s is None else ', running_s'
        value = '' if running_s is None else ', %r' % running_s
        with self.store.engine.begin() as connection:
            connection.exec_driver_sql(
                "INSERT INTO requests (id, spec, status, attempts, "
                "submitted_at, updated_at) VALUES ('old', '{}', "
                "'pending', 0, 1.0, 1.0)")
            connection.exec_driver_sql(
                "INSERT INTO instances (id, request_id, state, preemptible, "
                "vcpus, memory_mb, disk_gb, created_at%s) VALUES "
                "('old', 'old', 'pending', false, 1, 1, 1, 1.0%s)"
                % (running, value))

    def test_migration_0007_counts_stored_running_time_as_work(self):
        # Instances stored before 0007 ran their remaining duration less
        # their running time: their work done is that running time.
        self.old_instance_at('0006', running_s=250.0)
        self.store.upgrade('0007')
        self.assertEqual('0007', self.store.revision())
        self.store.upgrade()
        row = self.store.get_instance('old')
        self.assertEqual((250.0, 250.0), (row.running_s, row.work_s))
        self.add_pending('new')
        self.assertEqual(0.0, self.store.get_instance('new').work_s)

    def test_migration_0008_leaves_stored_instances_undeclared(self):
        self.old_instance_at('0007')
        # To the newest (0008 and after): a MemoryStore reads only that.
        self.store.upgrade()
        self.assertEqual(migration.head_revision(), self.store.revision())
        self.assertIsNone(self.store.get_instance('old').expected_vcpus)

    def test_declared_use_is_kept_with_request_and_instances(self):
        spec = _spec('r', num_instances=2, expected_vcpus=0.5)
        self.store.add_request(spec, T0)
        self.assertEqual(0.5, self.store.get_request('r').request_spec()
                         .expected_vcpus)
        rows = [self.store.get_instance(i) for i in ('r-0', 'r-1')]
        self.assertEqual([0.5, 0.5], [row.expected_vcpus for row in rows])
        # ... and the instance a restarted loop rebuilds declares it too.
        self.assertEqual(0.5, lifecycle.instance_from_row(rows[0])
                         .expected_vcpus)

    # Hosts.

    def test_save_host_inserts_then_updates(self):
        host = objects.Host('h1', 8, 16384, 500, attributes={'gpu': 'no'},
                            availability_zone='az1')
        self.store.save_host(host, T0)
        host.vcpus = 16
        host.enabled = False
        host.attributes = {'gpu': 'yes'}
        row = self.store.save_host(host, T0 + 1)
        self.assertEqual((16, False, {'gpu': 'yes'}, T0 + 1),
                         (row.vcpus, row.enabled, row.attributes,
                          row.updated_at))
        rows = self.store.hosts()
        self.assertEqual(['h1'], [r.name for r in rows])
        self.assertEqual(objects.Host('h1', 16, 16384, 500,
                                      attributes={'gpu': 'yes'},
                                      availability_zone='az1',
                                      enabled=False),
                         rows[0].to_object())

    def test_hosts_are_listed_by_name(self):
        for name in ('h2', 'h1', 'h3'):
            self.store.save_host(objects.Host(name, 8, 16384), T0)
        self.assertEqual(['h1', 'h2', 'h3'],
                         [row.name for row in self.store.hosts()])

    def test_set_host_up(self):
        self.store.save_host(objects.Host('h1', 8, 16384), T0)
        row = self.store.set_host_up('h1', False, T0 + 5)
        self.assertEqual((False, T0 + 5), (row.up, row.updated_at))
        self.assertFalse(self.store.hosts()[0].up)
        self.store.set_host_up('h1', True, T0 + 6)
        self.assertTrue(self.store.hosts()[0].up)
        self.assertRaises(errors.NotFound, self.store.set_host_up, 'nope',
                          True, T0)

    # Requests.

    def test_add_request_creates_its_pending_instances(self):
        spec = _spec('r', preemptible=True, num_instances=3,
                     resources=(1.5, 2048, 20), flavor='small',
                     service_class='gold', priority=2.0, group='g',
                     group_policy='anti-affinity')
        request = self.store.add_request(spec, T0, duration_s=3600.0,
                                         image='cirros')
        self.assertEqual(('pending', 0, T0, T0, 3600.0, 'cirros'),
                         (request.status, request.attempts,
                          request.submitted_at, request.updated_at,
                          request.duration_s, request.image))
        instances = self.store.list_instances(request_id='r')
        self.assertEqual(['r-0', 'r-1', 'r-2'], [i.id for i in instances])
        for instance in instances:
            self.assertEqual(
                ('pending', None, True, (1.5, 2048, 20), 'small', 'gold',
                 'g', 2.0, T0, 0.0, 0.0, 0.0, 0, None, None),
                (instance.state, instance.host, instance.preemptible,
                 tuple(instance.resources), instance.flavor,
                 instance.service_class, instance.group, instance.priority,
                 instance.created_at, instance.running_s,
                 instance.pending_s, instance.overhead_s,
                 instance.preemptions, instance.decision_id,
                 instance.terminated_by))

    def test_instance_ids_come_from_the_spec(self):
        self.store.add_request(_spec('one'), T0)
        self.store.add_request(_spec('two', num_instances=2,
                                     instance_ids=('a', 'b')), T0)
        self.assertEqual(['a', 'b', 'one'],
                         sorted(i.id for i in self.store.list_instances()))

    def test_spec_round_trips_through_json(self):
        spec = objects.RequestSpec(
            id='r', resources=objects.Resources(0.5, 512.0, 1.0),
            preemptible=True, num_instances=2, flavor='tiny',
            constraints={'gpu': 'yes'}, availability_zone='az1', group='g',
            group_policy='affinity', group_hosts=frozenset({'h2', 'h1'}),
            service_class='bronze', priority=-1.0, instance_ids=('x', 'y'))
        self.store.add_request(spec, T0)
        stored = self.store.get_request('r')
        self.assertEqual(['h1', 'h2'], stored.spec['group_hosts'])
        self.assertEqual(spec, stored.request_spec())

    def test_duplicate_request_writes_nothing(self):
        self.add_pending('r')
        before = self.snapshot()
        self.assertRaises(errors.Duplicate, self.store.add_request,
                          _spec('r'), T0)
        # A new request whose instance id is taken: the request row is not
        # written either.
        self.assertRaises(errors.Duplicate, self.store.add_request,
                          _spec('other', instance_ids=('r',)), T0)
        self.assertRaises(errors.Duplicate, self.store.add_request,
                          _spec('twice', num_instances=2,
                                instance_ids=('x', 'x')), T0)
        self.assertEqual(before, self.snapshot())

    def test_duplicate_caught_by_the_database_writes_nothing(self):
        # As if another writer inserted the instance after our check.
        self.add_pending('r')
        before = self.snapshot()
        with mock.patch.object(type(self.store),
                               '_check_new_request'):
            self.assertRaises(errors.Duplicate, self.store.add_request,
                              _spec('other', instance_ids=('r',)), T0)
        self.assertEqual(before, self.snapshot())

    def test_add_request_is_one_transaction(self):
        before = self.snapshot()
        with mock.patch.object(type(self.store), '_new_instance',
                               side_effect=RuntimeError('crash')):
            self.assertRaises(RuntimeError, self.store.add_request,
                              _spec('r', num_instances=2), T0)
        self.assertEqual(before, self.snapshot())

    def test_requests_belong_to_a_project(self):
        self.store.add_request(_spec('a'), T0, project_id='alice')
        self.store.add_request(_spec('d'), T0 + 1)
        with request_store.project_scope('bob'):
            self.store.add_request(_spec('b'), T0 + 2)
            # An explicit project wins over the scope.
            self.store.add_request(_spec('a2'), T0 + 3, project_id='alice')
        self.store.add_request(_spec('d2'), T0 + 4)
        self.assertEqual(
            {'a': 'alice', 'd': 'default', 'b': 'bob', 'a2': 'alice',
             'd2': 'default'},
            {r.id: r.project_id for r in self.store.list_requests()})
        self.assertEqual(['a', 'a2'], [
            r.id for r in self.store.list_requests(project_id='alice')])
        self.store.set_request_status('a2', 'failed', T0 + 5)
        self.assertEqual(['a'], [
            r.id for r in self.store.list_requests(status='pending',
                                                   project_id='alice')])
        self.assertEqual([], self.store.list_requests(project_id='nobody'))

    def test_get_request_not_found(self):
        self.assertRaises(errors.NotFound, self.store.get_request, 'nope')
        self.assertRaises(LookupError, self.store.get_instance, 'nope')
        self.assertRaises(LookupError, self.store.get_decision, 42)

    def test_list_requests_by_status(self):
        self.add_pending('b', at=T0 + 2)
        self.add_pending('a', at=T0 + 1)
        self.add_pending('c', at=T0 + 3)
        self.store.set_request_status('c', 'failed', T0 + 4, reason='full')
        self.assertEqual(['a', 'b', 'c'],
                         [r.id for r in self.store.list_requests()])
        self.assertEqual(['a', 'b'], [r.id for r in
                                      self.store.list_requests('pending')])
        self.assertEqual(['a', 'b', 'c'], [
            r.id for r in self.store.list_requests(('pending', 'failed'))])

    def test_set_request_status(self):
        self.add_pending('r')
        row = self.store.set_request_status('r', 'failed', T0 + 5,
                                            reason='No valid host: über ✓')
        self.assertEqual(('failed', 'No valid host: über ✓', T0 + 5),
                         (row.status, row.reason, row.updated_at))
        self.assertEqual('No valid host: über ✓',
                         self.store.get_request('r').reason)
        self.assertRaises(ValueError, self.store.set_request_status, 'r',
                          'lost', T0)
        self.assertRaises(errors.NotFound, self.store.set_request_status,
                          'nope', 'failed', T0)

    def test_increment_attempts(self):
        self.add_pending('r')
        self.assertEqual(1, self.store.increment_attempts('r'))
        self.assertEqual(2, self.store.increment_attempts('r'))
        self.assertEqual(2, self.store.get_request('r').attempts)

    # Instances.

    def test_update_instance(self):
        self.add_pending('r')
        row = self.store.update_instance('r', running_s=12.5, pending_s=3.0,
                                         overhead_s=0.25, preemptions=2,
                                         reason='why')
        self.assertEqual((12.5, 3.0, 0.25, 2, 'why'),
                         (row.running_s, row.pending_s, row.overhead_s,
                          row.preemptions, row.reason))
        stored = self.store.get_instance('r')
        self.assertEqual((12.5, 2), (stored.running_s, stored.preemptions))

    def test_update_instance_fills_the_times_of_a_state(self):
        self.add_pending('r')
        row = self.store.update_instance('r', at=T0 + 1, state='building',
                                         host='h1')
        self.assertEqual((T0 + 1, None), (row.updated_at, row.started_at))
        row = self.store.update_instance('r', at=T0 + 2, state='running')
        self.assertEqual(T0 + 2, row.started_at)
        row = self.store.update_instance('r', at=T0 + 9, state='ended')
        self.assertEqual((T0 + 2, T0 + 9), (row.started_at, row.ended_at))
        row = self.store.update_instance('r', at=T0 + 10, reason='done',
                                         ended_at=T0 + 3)
        self.assertEqual(T0 + 3, row.ended_at)

    def test_update_instance_enforces_the_state_machine(self):
        # A final state is never left, and no state is skipped: nothing
        # is written when a change is refused.
        self.add_pending('r')
        self.assertRaises(states.IllegalTransition,
                          self.store.update_instance, 'r', at=T0 + 1,
                          state='running')
        self.store.update_instance('r', at=T0 + 1, state='building',
                                   host='h1')
        self.store.update_instance('r', at=T0 + 2, state='running')
        self.store.update_instance('r', at=T0 + 3, state='terminating')
        self.store.update_instance('r', at=T0 + 4, state='terminated')
        before = self.snapshot()
        for state in ('pending', 'building', 'running', 'terminating',
                      'preempted', 'ended', 'error', 'deleted'):
            error = self.assertRaises(
                states.IllegalTransition, self.store.update_instance, 'r',
                at=T0 + 5, state=state, host='h2')
            self.assertIn('cannot go from terminated to %s' % state,
                          str(error))
        self.assertEqual(before, self.snapshot())
        # The same state again is no change, and allowed.
        self.store.update_instance('r', at=T0 + 6, state='terminated')

    def test_update_instance_refuses_unknown_fields_and_states(self):
        self.add_pending('r')
        before = self.snapshot()
        self.assertRaises(ValueError, self.store.update_instance, 'r',
                          colour='red')
        self.assertRaises(ValueError, self.store.update_instance, 'r',
                          id='other')
        self.assertRaises(ValueError, self.store.update_instance, 'r',
                          state='zombie')
        self.assertRaises(errors.NotFound, self.store.update_instance, 'nope',
                          state='running')
        self.assertEqual(before, self.snapshot())

    def test_list_instances_filters(self):
        self.add_running('p', host='h1', num_instances=2)
        self.add_running('n', host='h2', preemptible=False)
        self.add_pending('q', at=T0 + 5)
        self.assertEqual(['n', 'p-0', 'p-1', 'q'],
                         [i.id for i in self.store.list_instances()])
        self.assertEqual(['p-0', 'p-1'], [
            i.id for i in self.store.list_instances(host='h1')])
        self.assertEqual(['q'], [
            i.id for i in self.store.list_instances(states='pending')])
        self.assertEqual(['n'], [i.id for i in self.store.list_instances(
            states=('running', 'building'), host='h2')])
        self.assertEqual(['p-0', 'p-1'], [
            i.id for i in self.store.list_instances(
                states=['running'], host='h1', request_id='p')])
        self.assertEqual([], self.store.list_instances(host='h1',
                                                       request_id='n'))

    def test_rows_are_detached_and_readable(self):
        self.add_pending('r')
        instance = self.store.get_instance('r')
        self.assertTrue(sa.inspect(instance).detached)
        self.assertEqual('r', lifecycle.instance_from_row(instance).id)
        self.assertEqual(T0 + 10, instance.created_at)

    # The journal.

    def test_journal_decision(self):
        self.add_running('p', num_instances=2)
        self.add_pending('new')
        decision_id = self.journal(['p-1', 'p-0'])
        decision = self.store.get_decision(decision_id)
        self.assertEqual(
            ('new', 'new', 'h1', ['p-1', 'p-0'], [], 'journaled', T0 + 20,
             T0 + 20),
            (decision.request_id, decision.instance_id, decision.host,
             decision.victims, decision.confirmed, decision.state,
             decision.created_at, decision.updated_at))
        new = self.store.get_instance('new')
        # Claimed, not spawned: it stays pending until the victims are gone.
        self.assertEqual(('pending', 'h1', decision_id, T0 + 20),
                         (new.state, new.host, new.decision_id,
                          new.scheduled_at))
        for victim in self.store.list_instances(request_id='p'):
            self.assertEqual(('terminating', decision_id),
                             (victim.state, victim.terminated_by))
        events = self.store.list_events('decision.journaled')
        self.assertEqual(1, len(events))
        self.assertEqual(({'decision_id': decision_id,
                           'victims': ['p-1', 'p-0']}, 'new', 'h1', T0 + 20),
                         (events[0].payload, events[0].instance_id,
                          events[0].host, events[0].at))

    def test_journal_without_victims(self):
        self.add_pending('new')
        decision_id = self.journal([])
        self.assertEqual([], self.store.get_decision(decision_id).victims)
        self.assertEqual(decision_id,
                         self.store.get_instance('new').decision_id)

    def test_journal_accepts_a_building_victim(self):
        self.add_pending('p', preemptible=True)
        self.store.update_instance('p', state='building', host='h1')
        self.add_pending('new')
        self.journal(['p'])
        self.assertEqual('terminating', self.store.get_instance('p').state)

    def test_journal_refuses_a_normal_victim(self):
        self.add_running('normal', preemptible=False)
        self.add_pending('new')
        self.assertRefused("victim 'normal' is not preemptible",
                           self.journal, ['normal'])

    def test_journal_refuses_a_victim_on_another_host(self):
        self.add_running('p', host='h2')
        self.add_pending('new')
        self.assertRefused("victim 'p' is on host 'h2', not 'h1'",
                           self.journal, ['p'])

    def test_journal_refuses_a_victim_already_terminating(self):
        self.add_running('p')
        self.add_pending('first')
        self.add_pending('second')
        first = self.journal(['p'], request_id='first')
        self.assertRefused("victim 'p' is terminating",
                           self.journal, ['p'], request_id='second')
        self.assertEqual(first, self.store.get_instance('p').terminated_by)
        self.assertEqual([first], [
            d.id for d in self.store.unfinished_decisions()])

    def test_journal_refuses_a_victim_that_is_gone(self):
        self.add_running('p')
        self.store.update_instance('p', at=T0 + 1, state='ended')
        self.add_pending('new')
        self.assertRefused("victim 'p' is ended", self.journal, ['p'])
        self.assertRefused("victim 'ghost' not found", self.journal,
                           ['ghost'])

    def test_journal_lists_every_reason_and_writes_nothing(self):
        self.add_running('p')
        self.add_running('normal', preemptible=False)
        self.add_running('far', host='h2')
        self.add_pending('new')
        error = self.assertRefused(
            'not preemptible', self.journal,
            ['p', 'normal', 'far', 'p', 'new'])
        self.assertEqual(4, len(error.reasons), error.reasons)
        self.assertEqual('running', self.store.get_instance('p').state)

    def test_journal_refuses_a_claimed_or_unknown_instance(self):
        self.add_pending('new')
        self.add_pending('other')
        decision_id = self.journal([])
        self.assertRefused('already claimed by decision %d' % decision_id,
                           self.journal, [])
        self.assertRefused("instance 'other' belongs to request 'other'",
                           self.store.journal_decision, 'new', 'other',
                           'h1', [], T0)
        self.assertRefused("request 'nope' not found",
                           self.store.journal_decision, 'nope', 'nope',
                           'h1', [], T0)

    def test_journal_refuses_a_request_that_is_not_pending(self):
        self.add_pending('new')
        self.store.set_request_status('new', 'deleted', T0 + 11)
        self.assertRefused("request 'new' is deleted", self.journal, [])

    def test_journal_is_one_transaction(self):
        self.add_running('p')
        self.add_pending('new')
        before = self.snapshot()
        with mock.patch.object(type(self.store), '_add_event',
                               side_effect=RuntimeError('crash')):
            self.assertRaises(RuntimeError, self.journal, ['p'])
        self.assertEqual(before, self.snapshot())

    def test_concurrent_journals_never_share_a_victim(self):
        self.add_running('p')
        contenders = ['new%d' % i for i in range(6)]
        for request_id in contenders:
            self.add_pending(request_id)
        barrier = threading.Barrier(len(contenders))
        results = {}

        def contend(request_id):
            barrier.wait()
            try:
                results[request_id] = self.journal(['p'],
                                                   request_id=request_id)
            except errors.Refused as e:
                results[request_id] = e

        threads = [threading.Thread(target=contend, args=(r,))
                   for r in contenders]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        won = [d for d in results.values() if isinstance(d, int)]
        self.assertEqual(len(contenders), len(results), results)
        self.assertEqual(1, len(won), results)
        self.assertEqual(won[0], self.store.get_instance('p').terminated_by)
        self.assertEqual(won, [d.id for d in
                               self.store.unfinished_decisions()])

    def test_concurrent_writers(self):
        def submit(worker):
            for i in range(5):
                self.add_pending('w%d-%d' % (worker, i))
                self.store.record_event('submitted', T0,
                                        request_id='w%d-%d' % (worker, i))

        threads = [threading.Thread(target=submit, args=(w,))
                   for w in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        self.assertEqual(20, len(self.store.list_requests()))
        self.assertEqual(20, len(self.store.list_events('submitted')))

    def test_confirm_termination(self):
        self.add_running('p', num_instances=2)
        self.add_pending('new')
        decision_id = self.journal(['p-0', 'p-1'])
        decision = self.store.confirm_termination(decision_id, 'p-0',
                                                  T0 + 30)
        self.assertEqual((['p-0'], ['p-1'], T0 + 30),
                         (decision.confirmed, decision.unconfirmed,
                          decision.updated_at))
        victim = self.store.get_instance('p-0')
        self.assertEqual(('terminated', T0 + 30),
                         (victim.state, victim.ended_at))
        self.store.confirm_termination(decision_id, 'p-1', T0 + 31,
                                       final_state='preempted')
        self.assertEqual('preempted', self.store.get_instance('p-1').state)
        self.assertEqual(['p-0', 'p-1'],
                         self.store.get_decision(decision_id).confirmed)
        events = self.store.list_events('decision.termination_confirmed')
        self.assertEqual([('p-0', 'terminated'), ('p-1', 'preempted')],
                         [(e.instance_id, e.payload['state'])
                          for e in events])

    def test_confirm_termination_when_the_host_says_it_went(self):
        # A confirmation settled late (its report lost): the victim ended
        # when its host says, the decision moved when it was confirmed.
        self.add_running('p')
        self.add_pending('new')
        decision_id = self.journal(['p'])
        decision = self.store.confirm_termination(decision_id, 'p', T0 + 90,
                                                  ended_at=T0 + 31)
        self.assertEqual(T0 + 90, decision.updated_at)
        victim = self.store.get_instance('p')
        self.assertEqual(('terminated', T0 + 31),
                         (victim.state, victim.ended_at))

    def test_confirm_termination_is_idempotent(self):
        self.add_running('p')
        self.add_pending('new')
        decision_id = self.journal(['p'])
        self.store.confirm_termination(decision_id, 'p', T0 + 30)
        before = self.snapshot()
        decision = self.store.confirm_termination(decision_id, 'p', T0 + 40)
        self.assertEqual(['p'], decision.confirmed)
        self.assertEqual(before, self.snapshot())
        self.assertEqual(T0 + 30, self.store.get_instance('p').ended_at)

    def test_confirm_keeps_the_state_of_a_victim_that_ended(self):
        self.add_running('p')
        self.add_pending('new')
        decision_id = self.journal(['p'])
        self.store.update_instance('p', at=T0 + 25, state='ended')
        self.store.confirm_termination(decision_id, 'p', T0 + 30)
        victim = self.store.get_instance('p')
        self.assertEqual(('ended', T0 + 25), (victim.state, victim.ended_at))
        self.assertEqual([], self.store.get_decision(decision_id).unconfirmed)

    def test_confirm_termination_refusals(self):
        self.add_running('p')
        self.add_running('bystander')
        self.add_pending('new')
        decision_id = self.journal(['p'])
        self.assertRaises(ValueError, self.store.confirm_termination,
                          decision_id, 'p', T0, final_state='ended')
        self.assertRefused('is not one of its victims',
                           self.store.confirm_termination, decision_id,
                           'bystander', T0)
        self.store.roll_back_decision(decision_id, T0 + 30, 'host down')
        self.assertRefused('the decision is rolled_back',
                           self.store.confirm_termination, decision_id,
                           'p', T0 + 31)
        self.assertRaises(errors.NotFound, self.store.confirm_termination,
                          decision_id + 1, 'p', T0)

    def test_decision_lifecycle(self):
        self.add_running('p')
        self.add_pending('new')
        decision_id = self.journal(['p'])
        self.store.set_decision_state(decision_id, 'terminating', T0 + 21)
        self.assertRefused('terminations not confirmed: p',
                           self.store.set_decision_state, decision_id,
                           'spawning', T0 + 22)
        self.store.confirm_termination(decision_id, 'p', T0 + 23)
        self.store.set_decision_state(decision_id, 'spawning', T0 + 24)
        decision = self.store.set_decision_state(decision_id, 'done',
                                                 T0 + 25, reason='spawned')
        self.assertEqual(('done', 'spawned', T0 + 25),
                         (decision.state, decision.reason,
                          decision.updated_at))
        self.assertEqual([], self.store.unfinished_decisions())
        # Finished is final; saying so again is harmless.
        self.store.set_decision_state(decision_id, 'done', T0 + 26)
        self.assertRefused('the decision is finished',
                           self.store.set_decision_state, decision_id,
                           'spawning', T0 + 27)
        self.assertRefused('the decision is done',
                           self.store.roll_back_decision, decision_id,
                           T0 + 28, 'late')

    def test_set_decision_state_refusals(self):
        self.add_pending('new')
        decision_id = self.journal([])
        self.assertRaises(ValueError, self.store.set_decision_state,
                          decision_id, 'bogus', T0)
        self.assertRaises(ValueError, self.store.set_decision_state,
                          decision_id, 'rolled_back', T0)
        self.assertRaises(errors.NotFound, self.store.set_decision_state,
                          decision_id + 1, 'done', T0)
        self.store.set_decision_state(decision_id, 'failed', T0 + 1,
                                      reason='spawn failed')
        self.assertEqual('failed',
                         self.store.get_decision(decision_id).state)

    def test_unfinished_decisions_oldest_first(self):
        for request_id in ('a', 'b', 'c', 'd'):
            self.add_pending(request_id)
        late = self.journal([], request_id='a', at=T0 + 50)
        early = self.journal([], request_id='b', at=T0 + 40)
        done = self.journal([], request_id='c', at=T0 + 30)
        spawning = self.journal([], request_id='d', at=T0 + 45)
        self.store.set_decision_state(done, 'done', T0 + 60)
        self.store.set_decision_state(spawning, 'spawning', T0 + 60)
        self.assertEqual([early, spawning, late], [
            d.id for d in self.store.unfinished_decisions()])

    def test_roll_back_decision(self):
        self.add_running('p', num_instances=2)
        self.add_pending('new')
        decision_id = self.journal(['p-0', 'p-1'])
        self.store.confirm_termination(decision_id, 'p-0', T0 + 30)
        decision = self.store.roll_back_decision(decision_id, T0 + 40,
                                                 'spawn failed')
        self.assertEqual(('rolled_back', 'spawn failed', T0 + 40),
                         (decision.state, decision.reason,
                          decision.updated_at))
        self.assertEqual([], self.store.unfinished_decisions())
        gone = self.store.get_instance('p-0')
        self.assertEqual(('terminated', decision_id),
                         (gone.state, gone.terminated_by))
        saved = self.store.get_instance('p-1')
        self.assertEqual(('running', None), (saved.state,
                                             saved.terminated_by))
        new = self.store.get_instance('new')
        self.assertEqual(('pending', None, None, None),
                         (new.state, new.host, new.decision_id,
                          new.scheduled_at))
        self.assertEqual('pending', self.store.get_request('new').status)
        [event] = self.store.list_events('decision.rolled_back')
        self.assertEqual({'decision_id': decision_id,
                          'reason': 'spawn failed', 'restored': ['p-1'],
                          'confirmed': ['p-0']}, event.payload)
        # The request can be decided again, and the survivor chosen again.
        again = self.journal(['p-1'], at=T0 + 50)
        self.assertEqual(again, self.store.get_instance('new').decision_id)

    def test_roll_back_is_idempotent_and_keeps_a_deleted_request(self):
        self.add_running('p')
        self.add_pending('new')
        decision_id = self.journal(['p'])
        self.store.set_request_status('new', 'deleted', T0 + 30)
        self.store.roll_back_decision(decision_id, T0 + 40, 'deleted')
        before = self.snapshot()
        self.store.roll_back_decision(decision_id, T0 + 50, 'again')
        self.assertEqual(before, self.snapshot())
        self.assertEqual('deleted', self.store.get_request('new').status)
        self.assertEqual('running', self.store.get_instance('p').state)

    def test_roll_back_never_brings_an_ended_instance_back(self):
        # The decision's instance ended behind its back (another process,
        # a repair): rolled back, the victim runs on, and the instance
        # and its request stay as they are.
        self.add_running('p')
        self.add_pending('new')
        decision_id = self.journal(['p'])
        self.store.update_instance('new', at=T0 + 30, state='error',
                                   reason='repaired')
        self.store.set_request_status('new', 'placed', T0 + 30)
        self.store.roll_back_decision(decision_id, T0 + 40, 'moved on')
        new = self.store.get_instance('new')
        self.assertEqual(('error', 'repaired', decision_id),
                         (new.state, new.reason, new.decision_id))
        self.assertEqual('placed', self.store.get_request('new').status)
        self.assertEqual('running', self.store.get_instance('p').state)

    def test_roll_back_is_one_transaction(self):
        self.add_running('p')
        self.add_pending('new')
        decision_id = self.journal(['p'])
        before = self.snapshot()
        with mock.patch.object(type(self.store), '_add_event',
                               side_effect=RuntimeError('crash')):
            self.assertRaises(RuntimeError, self.store.roll_back_decision,
                              decision_id, T0 + 30, 'crash')
        self.assertEqual(before, self.snapshot())

    # Events.

    def test_record_and_list_events(self):
        first = self.store.record_event('instance.started', T0,
                                        request_id='r', instance_id='r',
                                        host='h1', payload={'boot_s': 4.5})
        self.store.record_event('host.down', T0 + 1, host='h2')
        self.store.record_event('instance.started', T0 + 2,
                                instance_id='s')
        self.assertIsNotNone(first.id)
        events = self.store.list_events()
        self.assertEqual(['instance.started', 'host.down',
                          'instance.started'], [e.kind for e in events])
        self.assertEqual(({'boot_s': 4.5}, 'r', 'h1', T0),
                         (events[0].payload, events[0].request_id,
                          events[0].host, events[0].at))
        self.assertIsNone(events[1].payload)
        self.assertEqual([T0, T0 + 2], [
            e.at for e in self.store.list_events('instance.started')])
        self.assertEqual(['s'], [e.instance_id for e in
                                 self.store.list_events(instance_id='s')])
        self.assertEqual(['r'], [e.request_id for e in
                                 self.store.list_events(request_id='r')])


class ReopenBehaviour:
    """A restarted scheduler (a new store on the same database) finds the
    journal as the crashed one left it.
    """

    def test_restart_finds_the_unfinished_decision(self):
        self.add_running('p', num_instances=2)
        self.add_pending('new')
        decision_id = self.journal(['p-0', 'p-1'])
        self.store.confirm_termination(decision_id, 'p-0', T0 + 30)
        self.store.dispose()

        restarted = self.make_store()
        self.addCleanup(restarted.dispose)
        restarted.upgrade()
        [decision] = restarted.unfinished_decisions()
        self.assertEqual((decision_id, ['p-1']),
                         (decision.id, decision.unconfirmed))
        restarted.confirm_termination(decision_id, 'p-1', T0 + 100)
        restarted.set_decision_state(decision_id, 'spawning', T0 + 101)
        restarted.update_instance('new', at=T0 + 102, state='building')
        restarted.set_decision_state(decision_id, 'done', T0 + 103)
        self.assertEqual([], restarted.unfinished_decisions())


class TestSQLiteInMemory(StoreBehaviour, base.TestCase):

    def make_store(self):
        return api.Store('sqlite://')

    def test_stores_do_not_share_memory(self):
        self.add_pending('r')
        other = api.Store('sqlite://')
        self.addCleanup(other.dispose)
        other.upgrade()
        self.assertEqual([], other.list_requests())

    def test_foreign_keys_are_enforced(self):
        with self.store.engine.connect() as connection:
            self.assertEqual(1, connection.exec_driver_sql(
                'PRAGMA foreign_keys').scalar())
        self.assertRaises(db_exc.DBReferenceError, self._orphan_instance)

    def _orphan_instance(self):
        with self.store.engine.begin() as connection:
            connection.execute(models.Instance.__table__.insert().values(
                id='orphan', request_id='nope', state='pending',
                preemptible=False, vcpus=1, memory_mb=1, disk_gb=0,
                created_at=T0))


class TestSQLiteFile(StoreBehaviour, ReopenBehaviour, base.TestCase):

    def make_store(self):
        if not hasattr(self, 'path'):
            self.path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                                     'state.sqlite')
        return api.Store('sqlite:///' + self.path)


class TestConnectionUrl(base.TestCase):

    def setUp(self):
        super().setUp()
        self.tmp = self.useFixture(fixtures.TempDir()).path

    def test_configured_connection_wins(self):
        url = 'postgresql+psycopg2://postgres@127.0.0.1/test'
        self.flags(group='database', connection=url)
        self.assertEqual(url, database_conf.get_connection_url(base.CONF))

    def test_default_is_sqlite_under_state_path(self):
        state_path = os.path.join(self.tmp, 'a', 'b')
        self.flags(state_path=state_path)
        url = database_conf.get_connection_url(base.CONF)
        self.assertEqual('sqlite:///%s/preemptible-sched.sqlite'
                         % state_path, url)
        self.assertTrue(os.path.isdir(state_path))

    def test_state_path_is_expanded_at_use_time(self):
        self.useFixture(fixtures.EnvironmentVariable('HOME', self.tmp))
        self.assertEqual('~/.local/state/preemptible-sched',
                         base.CONF.state_path)
        self.assertEqual(
            os.path.join(self.tmp, '.local/state/preemptible-sched'),
            database_conf.get_state_path(base.CONF))

    def test_store_from_config(self):
        self.flags(state_path=self.tmp)
        store = api.Store.from_config(base.CONF)
        self.addCleanup(store.dispose)
        store.upgrade()
        store.add_request(_spec('r'), T0)
        self.assertTrue(os.path.exists(
            os.path.join(self.tmp, 'preemptible-sched.sqlite')))
        self.assertNotIn('secret', repr(api.Store(
            'mysql+pymysql://u:secret@127.0.0.1/db')))

    def test_options_are_listed(self):
        listed = {getattr(group, 'name', group): [o.name for o in group_opts]
                  for group, group_opts in opts.list_opts()}
        self.assertIn('state_path', listed['DEFAULT'])
        # The scheduler's own option, then oslo.db's standard ones.
        self.assertEqual('auto_migrate', listed['database'][0])
        for name in ('connection', 'max_pool_size', 'max_overflow',
                     'pool_timeout', 'connection_recycle_time',
                     'max_retries', 'retry_interval', 'db_max_retries',
                     'db_retry_interval', 'mysql_wsrep_sync_wait'):
            self.assertIn(name, listed['database'])
        self.assertEqual(len(set(listed['database'])),
                         len(listed['database']))
        connection, = [opt for opt in database_conf.OSLO_DB_OPTS
                       if opt.name == 'connection']
        self.assertTrue(connection.secret)
