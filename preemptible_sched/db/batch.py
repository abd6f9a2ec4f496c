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

"""Rows written to the database in batches, with SQLAlchemy Core.

A :class:`BatchWriter` keeps the rows written since its last flush, the
newest version of each, and writes them all in one transaction
(:meth:`BatchWriter.flush`): table by table, parents before children
(the order they are given in), one ``executemany`` INSERT of the rows
the database does not hold yet, in the order they were first written,
then the others: one ``executemany`` UPDATE per set of columns changed
(setting only those: an UPDATE of every column costs about ten times as
much, indexes and foreign keys included). A row changed several times
between two flushes is written once. It flushes by itself once
``batch_size`` rows wait (:meth:`BatchWriter.flush_if_full`).

A row is the dict of its column values as the database stores them,
JSON columns as their text: :func:`raw_table` is the table to write such
rows to (and to read them from). The writer does not copy it: a row
given to :meth:`BatchWriter.put` must not change afterwards (put a new
dict instead).
"""

import contextlib

import sqlalchemy as sa

#: Rows that wait before the writer flushes by itself.
BATCH_SIZE = 10000

#: The name of the bound parameter of the primary key in UPDATEs (a
#: column's own name is taken by its SET).
KEY = 'b_key'


def raw_table(table, metadata):
    """``table`` in ``metadata``, its JSON columns as text: what the
    database stores, written and read as it is (no JSON encoding).
    """
    return sa.Table(table.name, metadata, *[
        sa.Column(column.name, sa.Text if isinstance(column.type, sa.JSON)
                  else column.type, key=column.key,
                  primary_key=column.primary_key)
        for column in table.columns])


class BatchWriter:
    """Rows of ``tables`` (from :func:`raw_table`, parents first) to write
    to ``engine`` in batches of ``batch_size``.

    Rows of the tables named in ``append_only`` are inserted once and
    never updated (events): the writer forgets them once written. ``lock``
    (a context manager) is held while a batch is written.
    """

    def __init__(self, engine, tables, batch_size=BATCH_SIZE,
                 append_only=(), lock=None):
        if batch_size < 1:
            raise ValueError('batch size must be >= 1, got %r' % batch_size)
        self.engine = engine
        self.batch_size = batch_size
        self._lock = lock if lock is not None else contextlib.nullcontext()
        #: {name: table}, in the order they are written
        self.tables = {table.name: table for table in tables}
        self._append_only = frozenset(append_only)
        unknown = self._append_only - set(self.tables)
        if unknown:
            raise ValueError('unknown tables: %s' % ', '.join(sorted(unknown)))
        # {(table, columns): the UPDATE of those columns}
        self._updates = {}
        # {statement key: (its SQL for the engine's dialect, the names of
        # its positional parameters or None)}
        self._compiled = {}
        #: {table: {key: row}} waiting, in the order first written
        self._pending = {name: {} for name in self.tables}
        #: {table: keys the database holds} (not for append-only tables)
        self._stored = {name: set() for name in self.tables
                        if name not in self._append_only}
        #: {table: {key: columns changed since the last flush, or None
        #: for every column}} of the rows waiting
        self._changed = {name: {} for name in self._stored}
        self.waiting = 0
        #: batches written, and rows in them (for tests and benchmarks)
        self.flushes = 0
        self.rows_written = 0

    def _update(self, name, columns):
        """The UPDATE of ``columns`` (a frozenset) of table ``name``, by
        key.
        """
        statement = self._updates.get((name, columns))
        if statement is None:
            table = self.tables[name]
            [key] = table.primary_key.columns
            statement = self._updates[name, columns] = table.update().where(
                key == sa.bindparam(KEY)).values({
                    column.key: sa.bindparam(column.key)
                    for column in table.columns if column.key in columns})
        return statement

    def mark_stored(self, table, keys):
        """The database holds the rows ``keys`` of ``table`` already: the
        next write of one is an UPDATE.
        """
        self._stored[table].update(keys)

    def forget(self):
        """Drop every row waiting, and what the database holds."""
        for pending in self._pending.values():
            pending.clear()
        for stored in self._stored.values():
            stored.clear()
        for changed in self._changed.values():
            changed.clear()
        self.waiting = 0

    def put(self, table, key, row, changed=None):
        """Write ``row`` (a dict of every column), the row ``key`` of
        ``table``, with the next batch; it replaces a version of the same
        row still waiting. ``changed`` names the columns that differ from
        the version put before (None: any may differ).
        """
        pending = self._pending[table]
        if key in pending:
            if table in self._append_only:
                raise ValueError('%s %r is written twice' % (table, key))
        else:
            self.waiting += 1
        pending[key] = row
        if table in self._changed:
            changes = self._changed[table]
            if changed is None:
                changes[key] = None
            elif key not in changes:
                changes[key] = set(changed)
            elif changes[key] is not None:
                changes[key].update(changed)

    def flush_if_full(self):
        if self.waiting >= self.batch_size:
            self.flush()

    def flush(self):
        """Write every row waiting, in one transaction; returns how many.

        If it fails, nothing is written and every row still waits.
        """
        if not self.waiting:
            return 0
        written = 0
        with self._lock, self.engine.begin() as connection:
            for name, table in self.tables.items():
                pending = self._pending[name]
                if not pending:
                    continue
                stored = self._stored.get(name, ())
                inserts = [row for key, row in pending.items()
                           if key not in stored]
                if inserts:
                    self._execute(connection, ('insert', name),
                                  table.insert(), inserts)
                for columns, updates in self._updates_of(name).items():
                    self._execute(connection, ('update', name, columns),
                                  self._update(name, columns), updates)
                written += len(pending)
        for name, pending in self._pending.items():
            if name in self._stored:
                self._stored[name].update(pending)
                self._changed[name].clear()
            pending.clear()
        self.waiting = 0
        self.flushes += 1
        self.rows_written += written
        return written

    def _execute(self, connection, key, statement, rows):
        """``statement`` once for each of ``rows`` (dicts by bound
        name), as one ``executemany`` of the driver. The rows hold what
        the database stores (floats, ints, booleans, text: see
        :func:`raw_table`), so SQLAlchemy's processing of every row's
        parameters, most of the cost of a batch, is left out; the
        statement is compiled once.
        """
        compiled = self._compiled.get(key)
        if compiled is None:
            done = statement.compile(dialect=self.engine.dialect)
            compiled = self._compiled[key] = (
                done.string, done.positiontup if done.positional else None)
        sql, order = compiled
        if order is not None:
            rows = [tuple([row[name] for name in order]) for row in rows]
        connection.exec_driver_sql(sql, rows)

    def _updates_of(self, name):
        """The parameters of the UPDATEs of the rows of ``name`` the
        database holds, by the columns they set.
        """
        if name not in self._stored:
            return {}
        stored = self._stored[name]
        changed = self._changed[name]
        table = self.tables[name]
        every = frozenset(column.key for column in table.columns
                          if not column.primary_key)
        updates = {}
        for key, row in self._pending[name].items():
            if key not in stored:
                continue
            columns = changed.get(key)
            columns = every if columns is None else frozenset(columns)
            if not columns:
                continue
            values = {column: row[column] for column in columns}
            values[KEY] = key
            updates.setdefault(columns, []).append(values)
        return updates
