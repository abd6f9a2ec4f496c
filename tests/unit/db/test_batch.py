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

"""Rows written in batches with SQLAlchemy Core."""

from unittest import mock

import sqlalchemy as sa

from preemptible_sched.db import batch
from tests import base


def _enable_foreign_keys(connection, record):
    connection.execute('PRAGMA foreign_keys=ON')


class TestBatchWriter(base.TestCase):

    def setUp(self):
        super().setUp()
        self.engine = sa.create_engine('sqlite://',
                                       poolclass=sa.pool.StaticPool)
        sa.event.listen(self.engine, 'connect', _enable_foreign_keys)
        self.addCleanup(self.engine.dispose)
        metadata = sa.MetaData()
        self.parents = sa.Table(
            'parents', metadata,
            sa.Column('id', sa.String(8), primary_key=True),
            sa.Column('size', sa.Double, nullable=False),
            sa.Column('doc', sa.JSON))
        self.children = sa.Table(
            'children', metadata,
            sa.Column('id', sa.Integer, primary_key=True),
            sa.Column('parent', sa.String(8), sa.ForeignKey('parents.id'),
                      nullable=False))
        metadata.create_all(self.engine)
        raw = sa.MetaData()
        self.tables = [batch.raw_table(self.parents, raw),
                       batch.raw_table(self.children, raw)]

    def writer(self, batch_size=100, **kw):
        return batch.BatchWriter(self.engine, self.tables, batch_size, **kw)

    def rows(self, table):
        with self.engine.connect() as connection:
            return connection.exec_driver_sql(
                'SELECT rowid, * FROM %s ORDER BY rowid' % table).all()

    def test_raw_table_keeps_json_as_text(self):
        parents = self.tables[0]
        self.assertIsInstance(parents.c.doc.type, sa.Text)
        self.assertIsInstance(parents.c.size.type, sa.Double)
        self.assertEqual(['id'], [c.name for c in parents.primary_key])
        writer = self.writer()
        writer.put('parents', 'a', {'id': 'a', 'size': 1.0,
                                    'doc': '{"k": [1, 2]}'})
        writer.flush()
        with self.engine.connect() as connection:
            self.assertEqual({'k': [1, 2]}, connection.scalar(
                sa.select(self.parents.c.doc)))

    def test_rows_wait_until_the_batch_is_full(self):
        writer = self.writer(batch_size=3)
        writer.put('parents', 'a', {'id': 'a', 'size': 1.0, 'doc': None})
        writer.put('parents', 'b', {'id': 'b', 'size': 2.0, 'doc': None})
        writer.flush_if_full()
        self.assertEqual([], self.rows('parents'))
        self.assertEqual(2, writer.waiting)
        writer.put('children', 1, {'id': 1, 'parent': 'a'})
        writer.flush_if_full()
        self.assertEqual([(1, 'a', 1.0, None), (2, 'b', 2.0, None)],
                         self.rows('parents'))
        self.assertEqual([(1, 1, 'a')], self.rows('children'))
        self.assertEqual((0, 1, 3),
                         (writer.waiting, writer.flushes,
                          writer.rows_written))

    def test_a_row_written_twice_waits_once_in_its_last_version(self):
        writer = self.writer(batch_size=2)
        writer.put('parents', 'a', {'id': 'a', 'size': 1.0, 'doc': None})
        writer.put('parents', 'a', {'id': 'a', 'size': 5.0, 'doc': None})
        writer.flush_if_full()
        self.assertEqual(1, writer.waiting)
        self.assertEqual(1, writer.flush())
        self.assertEqual([(1, 'a', 5.0, None)], self.rows('parents'))

    def test_rows_are_inserted_in_the_order_first_written(self):
        writer = self.writer()
        for key in ('c', 'a', 'b'):
            writer.put('parents', key, {'id': key, 'size': 0.0,
                                        'doc': None})
        writer.put('parents', 'c', {'id': 'c', 'size': 9.0, 'doc': None})
        writer.flush()
        self.assertEqual([(1, 'c', 9.0, None), (2, 'a', 0.0, None),
                          (3, 'b', 0.0, None)], self.rows('parents'))

    def test_parents_are_written_before_their_children(self):
        # Children first, in the same batch: the foreign key holds only
        # if the tables are written in the order given.
        writer = self.writer()
        writer.put('children', 1, {'id': 1, 'parent': 'p'})
        writer.put('parents', 'p', {'id': 'p', 'size': 1.0, 'doc': None})
        writer.flush()
        self.assertEqual([(1, 1, 'p')], self.rows('children'))

    def test_a_stored_row_is_updated_in_place(self):
        writer = self.writer()
        writer.put('parents', 'a', {'id': 'a', 'size': 1.0, 'doc': None})
        writer.put('parents', 'b', {'id': 'b', 'size': 1.0, 'doc': None})
        writer.flush()
        writer.put('parents', 'a', {'id': 'a', 'size': 2.0, 'doc': '[]'})
        writer.put('parents', 'c', {'id': 'c', 'size': 3.0, 'doc': None})
        self.assertEqual(2, writer.flush())
        self.assertEqual([(1, 'a', 2.0, '[]'), (2, 'b', 1.0, None),
                          (3, 'c', 3.0, None)], self.rows('parents'))

    def test_an_update_sets_only_the_columns_changed(self):
        writer = self.writer()
        writer.put('parents', 'a', {'id': 'a', 'size': 1.0, 'doc': None})
        writer.put('parents', 'b', {'id': 'b', 'size': 1.0, 'doc': None})
        writer.flush()
        # What the writer is told changed is what it writes: 'doc' of
        # 'a' stays as it was, though the dict has another value.
        writer.put('parents', 'a', {'id': 'a', 'size': 2.0, 'doc': '[1]'},
                   changed=['size'])
        writer.put('parents', 'b', {'id': 'b', 'size': 5.0, 'doc': '[2]'},
                   changed=['size'])
        writer.put('parents', 'b', {'id': 'b', 'size': 6.0, 'doc': '[3]'},
                   changed=['doc'])
        writer.flush()
        self.assertEqual([(1, 'a', 2.0, None), (2, 'b', 6.0, '[3]')],
                         self.rows('parents'))
        # Unknown changes: every column.
        writer.put('parents', 'a', {'id': 'a', 'size': 7.0, 'doc': '[4]'},
                   changed=['size'])
        writer.put('parents', 'a', {'id': 'a', 'size': 7.0, 'doc': '[4]'})
        writer.flush()
        self.assertEqual((1, 'a', 7.0, '[4]'), self.rows('parents')[0])

    def test_rows_the_database_holds_already_are_updated(self):
        with self.engine.begin() as connection:
            connection.execute(self.parents.insert(),
                               [{'id': 'old', 'size': 1.0}])
        writer = self.writer()
        writer.mark_stored('parents', ['old'])
        writer.put('parents', 'old', {'id': 'old', 'size': 4.0,
                                      'doc': None})
        writer.flush()
        self.assertEqual([(1, 'old', 4.0, None)], self.rows('parents'))
        writer.forget()
        writer.put('parents', 'old', {'id': 'old', 'size': 5.0,
                                      'doc': None})
        self.assertRaises(sa.exc.IntegrityError, writer.flush)

    def test_append_only_rows_are_written_once_and_forgotten(self):
        writer = self.writer(append_only=('children',))
        writer.put('parents', 'p', {'id': 'p', 'size': 1.0, 'doc': None})
        writer.put('children', 1, {'id': 1, 'parent': 'p'})
        self.assertRaises(ValueError, writer.put, 'children', 1,
                          {'id': 1, 'parent': 'p'})
        writer.flush()
        writer.put('children', 2, {'id': 2, 'parent': 'p'})
        writer.flush()
        self.assertEqual([(1, 1, 'p'), (2, 2, 'p')], self.rows('children'))
        self.assertNotIn('children', writer._stored)

    def test_a_failed_flush_writes_nothing_and_keeps_the_rows(self):
        writer = self.writer()
        writer.put('parents', 'p', {'id': 'p', 'size': 1.0, 'doc': None})
        writer.put('children', 1, {'id': 1, 'parent': 'p'})

        def broken():
            raise RuntimeError('disk full')

        with mock.patch.object(self.tables[1], 'insert', broken):
            self.assertRaises(RuntimeError, writer.flush)
        self.assertEqual([], self.rows('parents'))
        self.assertEqual((2, 0), (writer.waiting, writer.flushes))
        self.assertEqual(2, writer.flush())
        self.assertEqual([(1, 'p', 1.0, None)], self.rows('parents'))

    def test_nothing_to_write(self):
        writer = self.writer()
        self.assertEqual(0, writer.flush())
        self.assertEqual(0, writer.flushes)

    def test_bad_arguments(self):
        self.assertRaises(ValueError, self.writer, batch_size=0)
        self.assertRaises(ValueError, self.writer, append_only=('nope',))
