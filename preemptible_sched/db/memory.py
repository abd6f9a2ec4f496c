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

"""The simulator's store: the state in memory, the journal in batches.

:class:`MemoryStore` has the interface and the behaviour of
:class:`~preemptible_sched.db.api.Store`: every write is the Store's own
method (the same checks and refusals: :class:`~.errors.Refused`,
:class:`~.errors.Duplicate`, :class:`~.errors.NotFound`, the instance state
machine), made through the hooks this store provides, and the database
ends up with the same rows. But it keeps the hosts, requests, instances and
decisions in memory, where every read finds them, and writes what changed
to the database in batches (:mod:`.batch`): once ``batch_size`` rows wait
(by the next change), when something reads the database itself
(:meth:`MemoryStore.list_events`, :meth:`MemoryStore.latest_time`), on
:meth:`MemoryStore.flush` and on :meth:`MemoryStore.dispose`. Between two
flushes the database lags behind: **it is not crash-safe**, and it is
meant for the simulator, where the ORM's transaction per call was most of
the run time. The service keeps the synchronous
:class:`~preemptible_sched.db.api.Store`.

Rows are plain objects holding their columns as the database stores them,
with the methods of the SQLAlchemy rows (:mod:`.memory_rows`). They are
read-only: each change is made on a copy, installed with the other rows
of the same call once all its checks passed, so a row a caller holds
never changes under it and a refused or failed call changes nothing.
Decision and event ids are counted as SQLite and MySQL count them (the
largest plus one; a PostgreSQL sequence is not advanced by them).

Events are written, never read back from memory: :meth:`list_events`
flushes and asks the database. A store reads the database once its schema
is the newest (:meth:`upgrade`, :meth:`require_head`); rows written to
the database behind its back afterwards are not seen.

Without a database (``url`` None, what a simulation uses unless asked for
its journal) the store is the state in memory only: the same checks,
refusals and rows, nothing written, and no events kept
(:meth:`list_events` raises :class:`~.errors.NoJournal`).
"""

import contextlib
import threading

import sqlalchemy as sa

from preemptible_sched.db import api
from preemptible_sched.db import batch
from preemptible_sched.db import errors
from preemptible_sched.db import memory_rows
from preemptible_sched.db import models
from preemptible_sched.db import request_store

#: Tables whose rows are kept in memory (events are only written).
STATE_TABLES = ('hosts', 'requests', 'instances', 'decisions')


def _instance_order(row):
    return row.created_at, row.id


def _request_order(row):
    return row.submitted_at, row.id


def _decision_order(row):
    return row.created_at, row.id


class _Changes:
    """The rows one call of a :class:`MemoryStore` changes or adds:
    copies, installed together once the call succeeded.
    """

    def __init__(self, store):
        self.store = store
        self.rows = {}
        self.events = []

    def __enter__(self):
        self.store._guard.acquire()
        return self

    def __exit__(self, exc_type, exc, traceback):
        try:
            if exc_type is None:
                self.store._install(self)
        finally:
            self.store._guard.release()

    def edit(self, table, key):
        """The copy of row ``key`` of ``table`` to change (NotFound)."""
        row = self.rows.get((table, key))
        if row is None:
            row = self.store._row(table, key).edit()
            self.rows[table, key] = row
        return row

    def find(self, table, key):
        """:meth:`edit`, or None if there is no such row."""
        if (table, key) in self.rows or key in self.store._tables[table]:
            return self.edit(table, key)
        return None

    def insert(self, row):
        """Add the new ``row`` (:meth:`~.memory_rows.Row.new`); Duplicate
        if its key is taken.
        """
        key = vars(row)[row.key]
        if (row.table, key) in self.rows or \
                key in self.store._tables[row.table]:
            raise errors.Duplicate('%s %r exists already'
                                   % (row.table[:-1], key))
        self.rows[row.table, key] = row
        return row


class MemoryStore(api.Store):
    """:class:`~preemptible_sched.db.api.Store`'s state in memory, written
    to the database at ``url`` in batches of ``batch_size`` rows (``url``
    None: no database, no journal, no events).

    Thread-safe: writes hold the store's lock, reads see whole calls.
    """

    def __init__(self, url=None, batch_size=batch.BATCH_SIZE, **engine_kw):
        self._writer = None
        if url is None:
            self.url = self.engine = None
            self.is_sqlite = False
            self._lock = contextlib.nullcontext()
        else:
            super().__init__(url, **engine_kw)
            metadata = sa.MetaData()
            self._writer = batch.BatchWriter(
                self.engine,
                [batch.raw_table(models.Base.metadata.tables[name], metadata)
                 for name in memory_rows.ROWS],
                batch_size, append_only=('events',), lock=self._lock)
        # In memory nothing deadlocks (the journal has its own batches).
        self.deadlock_retry = None
        self._guard = threading.RLock()
        self._clear()

    def __repr__(self):
        return '<MemoryStore %s>' % ('without a database' if self.url is None
                                     else self.url.render_as_string(
                                         hide_password=True))

    @property
    def journaled(self):
        """Whether the store writes its journal to a database."""
        return self._writer is not None

    def _clear(self):
        self._tables = {name: {} for name in STATE_TABLES}
        self._hosts = self._tables['hosts']
        self._requests = self._tables['requests']
        self._instances = self._tables['instances']
        # {request id: [instance ids]}, and the unfinished decisions.
        self._by_request = {}
        self._open = {}
        self._next_id = {'decisions': 1, 'events': 1}

    # The database.

    @property
    def waiting(self):
        """Rows changed in memory, not written yet."""
        return 0 if self._writer is None else self._writer.waiting

    def flush(self):
        """Write every change not written yet, in one transaction;
        returns how many rows.
        """
        if self._writer is None:
            return 0
        with self._guard:
            return self._writer.flush()

    def upgrade(self, revision='head'):
        """:meth:`Store.upgrade`, after a flush; then read the database
        (if its schema is the newest). Without a database: empty.
        """
        with self._guard:
            if self._writer is None:
                self._clear()
                return
            self._writer.flush()
            super().upgrade(revision)
            self._load()

    def require_head(self):
        """:meth:`Store.require_head`; then read the database."""
        if self._writer is None:
            return
        super().require_head()
        with self._guard:
            self._load()

    def dispose(self):
        """Flush, then close every pooled connection."""
        if self._writer is None:
            return
        self.flush()
        super().dispose()

    def _load(self):
        """Read every row of the database into memory (none if its schema
        is not the newest: it cannot be used).
        """
        self._clear()
        self._writer.forget()
        from preemptible_sched.db import migration  # alembic: see upgrade
        if self.revision() != migration.head_revision():
            return
        with self._lock, self.engine.connect() as connection:
            for name in STATE_TABLES:
                table = self._writer.tables[name]
                cls = memory_rows.ROWS[name]
                rows = self._tables[name]
                for values in connection.execute(table.select().order_by(
                        *table.primary_key.columns)).mappings():
                    row = object.__new__(cls)
                    vars(row).update(values)
                    key = values[cls.key]
                    self._index(name, key, row, None)
                    rows[key] = row
                self._writer.mark_stored(name, rows)
            for name in self._next_id:
                column = self._writer.tables[name].c.id
                self._next_id[name] = 1 + (connection.scalar(
                    sa.select(sa.func.max(column))) or 0)

    def _journal(self, what):     # flush, or NoJournal without a database
        if self._writer is None:
            raise errors.NoJournal(
                '%r keeps no journal: no %s to read' % (self, what))
        self.flush()

    def list_events(self, kind=None, request_id=None, instance_id=None):
        self._journal('events')
        return super().list_events(kind, request_id, instance_id)

    def latest_time(self):
        self._journal('clock readings')
        return super().latest_time()

    def record_event(self, kind, at, request_id=None, instance_id=None,
                     host=None, payload=None):
        if self._writer is None:
            return None     # events are the journal's alone
        return super().record_event(kind, at, request_id, instance_id,
                                    host, payload)

    # The hooks of the writes of Store: copies, installed all at once.

    def _changes(self):
        return _Changes(self)

    def _edit(self, changes, model, key):
        return changes.edit(model.__tablename__, key)

    def _find(self, changes, model, key):
        return changes.find(model.__tablename__, key)

    def _insert(self, changes, model, columns):
        cls = memory_rows.ROWS[model.__tablename__]
        if columns.get(cls.key, 0) is None:
            columns = dict(columns)
            columns[cls.key] = self._next_id[cls.table]
        return changes.insert(cls.new(columns))

    def _journal_rows(self, changes, request_id, instance_ids):
        rows = {}
        for key in instance_ids:
            row = changes.find('instances', key)
            if row is not None:
                rows[key] = row
        return changes.find('requests', request_id), rows

    def _decision_rows(self, changes, decision_id):
        decision = changes.edit('decisions', decision_id)
        request = changes.edit('requests', decision.request_id)
        rows = {key: changes.edit('instances', key)
                for key in [decision.instance_id] + decision.victims}
        return decision, request, rows

    def _add_event(self, changes, kind, at, request_id=None,
                   instance_id=None, host=None, payload=None):
        if self._writer is None:
            return None
        event = memory_rows.ROWS['events'].new(dict(
            kind=kind, at=at, request_id=request_id,
            instance_id=instance_id, host=host, payload=payload))
        changes.events.append(event)
        return event

    def _check_new_request(self, changes, request_id, instance_ids):
        request_store.refuse_duplicates(
            request_id, request_id in self._requests,
            sorted(key for key in instance_ids if key in self._instances))

    def _row(self, table, key):
        row = self._tables[table].get(key)
        if row is None:
            raise errors.NotFound(table[:-1], key)
        return row

    def _install(self, changes):
        writer = self._writer
        # A full batch is written first: if that fails, the call fails
        # having changed nothing.
        if writer is not None:
            writer.flush_if_full()
        for (table, key), row in changes.rows.items():
            row.freeze(memory_rows.ROWS[table])
            rows = self._tables[table]
            old = rows.get(key)
            values = vars(row)
            changed = None
            if old is not None and writer is not None:
                before = vars(old)
                changed = [name for name, value in values.items()
                           if before[name] != value]
                if not changed:
                    continue
            rows[key] = row
            self._index(table, key, row, old)
            if writer is not None:
                writer.put(table, key, values, changed)
            if table == 'decisions' and old is None:
                self._next_id['decisions'] = key + 1
        for event in changes.events:
            vars(event)['id'] = self._next_id['events']
            self._next_id['events'] += 1
            event.freeze(memory_rows.ROWS['events'])
            writer.put('events', event.id, vars(event))

    def _index(self, table, key, row, old):
        if table == 'instances' and old is None:
            self._by_request.setdefault(row.request_id, []).append(key)
        elif table == 'decisions':
            if row.state in models.UNFINISHED_DECISION_STATES:
                self._open[key] = row
            else:
                self._open.pop(key, None)

    # Reads: from memory.

    def hosts(self):
        with self._guard:
            return sorted(self._hosts.values(), key=lambda row: row.name)

    def get_request(self, request_id):
        return self._row('requests', request_id)

    def list_requests(self, status=None, project_id=None):
        statuses = None if status is None else request_store.as_tuple(status)
        with self._guard:
            return sorted(
                (row for row in self._requests.values()
                 if (statuses is None or row.status in statuses) and
                 (project_id is None or row.project_id == project_id)),
                key=_request_order)

    def get_instance(self, instance_id):
        return self._row('instances', instance_id)

    def list_instances(self, states=None, host=None, request_id=None):
        states = None if states is None else request_store.as_tuple(states)
        with self._guard:
            if request_id is None:
                rows = self._instances.values()
            else:
                rows = [self._instances[key]
                        for key in self._by_request.get(request_id, ())]
            return sorted(
                (row for row in rows
                 if (states is None or row.state in states) and
                 (host is None or row.host == host)),
                key=_instance_order)

    def get_decision(self, decision_id):
        return self._row('decisions', decision_id)

    def unfinished_decisions(self):
        with self._guard:
            return sorted(self._open.values(), key=_decision_order)
