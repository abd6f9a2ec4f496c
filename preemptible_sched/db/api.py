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

"""The durable state: the only way the scheduler reads and writes it.

The database is the scheduler's **journal**: each decision is written
before the first termination or spawn it causes, so that a scheduler
restarted after a crash completes it or rolls it back
(:mod:`~preemptible_sched.db.decision_journal`). :class:`Store` holds the
hosts and the events; its methods on requests and instances come from
:class:`~.request_store.RequestStoreMixin`, those of the journal from
:class:`~.decision_journal.DecisionJournalMixin`, its two bases. What it
raises is in :mod:`~preemptible_sched.db.errors`, how its engine is set
up (by oslo.db, with the ``[database]`` options) in
:mod:`~preemptible_sched.db.engine_setup`. Every write is run again when
the database aborts it as a deadlock
(:mod:`~preemptible_sched.db.deadlock`).

Every public method of :class:`Store` is one transaction of its own, so a
store may be shared by several threads. Rows are returned detached from
their session, with every column loaded: read them freely, but change the
state only through the store. Times are the caller's clock readings.

The simulator's store (:class:`~preemptible_sched.db.memory.MemoryStore`)
keeps the state in memory and writes the journal in batches. Every write
here is made through a few hooks (``_changes``, ``_edit``, ``_find``,
``_insert``, ``_add_event`` here; ``_check_new_request`` with the requests,
``_journal_rows`` and ``_decision_rows`` with the journal) that it provides
on its rows, so both stores check, refuse and write alike.
"""

import contextlib

from oslo_db import exception as db_exc
import sqlalchemy as sa
from sqlalchemy import exc as sa_exc
from sqlalchemy import orm

from preemptible_sched.conf import database as database_conf
from preemptible_sched.db import deadlock
from preemptible_sched.db import decision_journal
from preemptible_sched.db import engine_setup
from preemptible_sched.db import errors
from preemptible_sched.db import models
from preemptible_sched.db import request_store
from preemptible_sched import exception


class Store(request_store.RequestStoreMixin,
            decision_journal.DecisionJournalMixin):
    """The scheduler's state in the database at ``url``.

    ``url`` is a SQLAlchemy URL; see ``[database] connection``. Call
    :meth:`upgrade` once before use to create or migrate the schema.
    ``conf`` (its ``[database]`` options) sets up the engine and the
    deadlock retries; without it, oslo.db's defaults. ``engine_kw`` go to
    :func:`~.engine_setup.create_engine`.
    """

    def __init__(self, url, conf=None, **engine_kw):
        self.url = sa.engine.make_url(url)
        self.is_sqlite = self.url.get_backend_name() == 'sqlite'
        if self.is_sqlite:
            self._lock = engine_setup.sqlite_lock(self.url)
        else:
            self._lock = contextlib.nullcontext()
        self.engine = engine_setup.create_engine(self.url, conf, **engine_kw)
        self.deadlock_retry = deadlock.Policy() if conf is None \
            else deadlock.policy(conf)
        self._sessionmaker = orm.sessionmaker(self.engine,
                                              expire_on_commit=False)
        #: (topic, epoch) of the term this store writes for; None: no
        #: fencing (see :meth:`begin_term`)
        self._term = None
        self._deposed = None

    @classmethod
    def from_config(cls, conf, **engine_kw):
        """The store ``[database] connection`` names (SQLite by default),
        set up by the other ``[database]`` options.
        """
        return cls(database_conf.get_connection_url(conf), conf=conf,
                   **engine_kw)

    def __repr__(self):
        return '<Store %s>' % self.url.render_as_string(hide_password=True)

    def upgrade(self, revision='head'):
        """Create or migrate the schema to ``revision`` (the newest).

        Idempotent: a database at that revision is left unchanged.
        """
        # Imported where used: alembic's import costs a simulation or a
        # command that never migrates some 0.1 s of CPU.
        from preemptible_sched.db import migration
        with self._lock:
            migration.upgrade(self.engine, revision)

    @property
    def is_in_memory(self):
        return self.is_sqlite and self.url.database in (None, '', ':memory:')

    def revision(self):
        """The schema revision of the database (None when it is empty)."""
        from preemptible_sched.db import migration
        with self._lock:
            return migration.current_revision(self.engine)

    def require_head(self):
        """Raise :class:`~.errors.SchemaOutOfDate` unless the schema is
        the newest.
        """
        from preemptible_sched.db import migration
        current = self.revision()
        head = migration.head_revision()
        if current != head:
            raise errors.SchemaOutOfDate(self, current, head)

    def dispose(self):
        """Close every pooled connection."""
        self.engine.dispose()

    def flush(self):
        """Write what is not written yet: nothing here, as every call is a
        transaction of its own (the simulator's
        :class:`~preemptible_sched.db.memory.MemoryStore` writes in
        batches). Returns how many rows it wrote.
        """
        return 0

    @contextlib.contextmanager
    def _transaction(self):
        with self._lock:
            with self._sessionmaker() as session, session.begin():
                yield session

    # Rows are locked with SELECT ... FOR UPDATE (SQLite has the process
    # lock instead), always in the order requests, instances, decisions,
    # each by ascending key, so two transactions never wait on each other.

    @staticmethod
    def _lock_rows(session, model, keys):
        key = sa.inspect(model).primary_key[0]
        query = (sa.select(model).where(key.in_(sorted(set(keys))))
                 .order_by(key).with_for_update()
                 .execution_options(populate_existing=True))
        return {getattr(row, key.key): row for row in session.scalars(query)}

    def _lock_row(self, session, model, key):
        row = self._lock_rows(session, model, [key]).get(key)
        if row is None:
            raise errors.NotFound(model.__tablename__[:-1], key)
        return row

    @staticmethod
    def _get(session, model, key):
        row = session.get(model, key)
        if row is None:
            raise errors.NotFound(model.__tablename__[:-1], key)
        return row

    # The hooks every write goes through: a unit of changes (here the
    # session of a transaction), the rows it changes, locked.

    @contextlib.contextmanager
    def _changes(self):
        with self._transaction() as session:
            if self._term is not None:
                self._check_term(session)
            yield session

    # The term of a leading scheduler: its writes fenced by the epoch.

    def begin_term(self, topic, holder, at):
        """Begin a term as the leader of ``topic`` (call it holding the
        lock of :mod:`~preemptible_sched.db.leadership`): its epoch, one
        more than the last leader's. From now on every write of this
        store checks, in its own transaction, that no later term began,
        and raises :class:`~preemptible_sched.exception.Deposed` if one
        did: a leader that lost the lock cannot write after its successor
        took over.
        """
        with self._transaction() as session:
            row = self._lock_rows(session, models.Leadership,
                                  [topic]).get(topic)
            if row is None:
                row = self._insert(session, models.Leadership, {
                    'topic': topic, 'epoch': 1, 'holder': holder,
                    'since': at})
            else:
                row.epoch += 1
                row.holder = holder
                row.since = at
            epoch = row.epoch
        self._term = (topic, epoch)
        self._deposed = None
        return epoch

    def leader(self, topic):
        """``(epoch, holder, since)`` of the last term of ``topic``, or
        None (none yet, or a schema without terms).
        """
        try:
            with self._transaction() as session:
                row = session.get(models.Leadership, topic)
                return None if row is None else (row.epoch, row.holder,
                                                 row.since)
        except (sa_exc.SQLAlchemyError, db_exc.DBError):
            return None

    def depose(self, why):
        """Refuse every write from now on (this scheduler lost the
        lead): they raise :class:`~preemptible_sched.exception.Deposed`.
        """
        if self._deposed is None:
            self._deposed = why

    def _check_term(self, session):
        if self._deposed is None:
            topic, epoch = self._term
            # Locking the row orders this write with a takeover: it
            # commits before the successor's term begins, or sees it.
            row = self._lock_rows(session, models.Leadership,
                                  [topic]).get(topic)
            current = None if row is None else row.epoch
            if current != epoch:
                self.depose('epoch %s of topic %s began (this scheduler '
                            'led epoch %d)' % (current, topic, epoch))
        if self._deposed is not None:
            raise exception.Deposed(self._deposed)

    def _edit(self, session, model, key):
        """The row ``key`` of ``model`` to change (NotFound)."""
        return self._lock_row(session, model, key)

    def _find(self, session, model, key):
        """:meth:`_edit`, or None if there is no such row."""
        return self._lock_rows(session, model, [key]).get(key)

    @staticmethod
    def _insert(session, model, columns):
        """A new row of ``model`` (with its id, if the database gives it)."""
        row = model(**columns)
        session.add(row)
        session.flush()
        return row

    @staticmethod
    def _add_event(session, kind, at, request_id=None, instance_id=None,
                   host=None, payload=None):
        event = models.Event(kind=kind, at=at, request_id=request_id,
                             instance_id=instance_id, host=host,
                             payload=payload)
        session.add(event)
        return event

    # Hosts.

    @deadlock.retried
    def save_host(self, host, at):
        """Insert or update the row of :class:`objects.Host` ``host``."""
        try:
            return self._save_host(host, at)
        except (sa_exc.IntegrityError, db_exc.DBDuplicateEntry):
            # Another writer inserted it between our read and our insert:
            # it exists now, so this time it is an update.
            return self._save_host(host, at)

    def _save_host(self, host, at):
        columns = dict(
            vcpus=host.vcpus, memory_mb=host.memory_mb,
            disk_gb=host.disk_gb, attributes=dict(host.attributes),
            availability_zone=host.availability_zone,
            enabled=bool(host.enabled), up=bool(host.up), updated_at=at)
        with self._changes() as unit:
            row = self._find(unit, models.Host, host.name)
            if row is None:
                return self._insert(unit, models.Host,
                                    dict(columns, name=host.name))
            for name, value in columns.items():
                setattr(row, name, value)
        return row

    @deadlock.retried
    def set_host_up(self, name, up, at):
        """Record that host ``name`` went up or down."""
        with self._changes() as unit:
            row = self._edit(unit, models.Host, name)
            row.up = bool(up)
            row.updated_at = at
        return row

    def hosts(self):
        """Every host, by name."""
        with self._transaction() as session:
            return list(session.scalars(
                sa.select(models.Host).order_by(models.Host.name)))

    # Events.

    def latest_time(self):
        """The latest clock reading the store recorded, or None."""
        columns = (models.Event.at, models.Instance.updated_at,
                   models.Request.updated_at, models.Decision.updated_at)
        with self.engine.connect() as connection:
            readings = [connection.scalar(sa.select(sa.func.max(column)))
                        for column in columns]
        return max((r for r in readings if r is not None), default=None)

    @deadlock.retried
    def record_event(self, kind, at, request_id=None, instance_id=None,
                     host=None, payload=None):
        with self._changes() as unit:
            event = self._add_event(unit, kind, at,
                                    request_id=request_id,
                                    instance_id=instance_id, host=host,
                                    payload=payload)
        return event

    def list_events(self, kind=None, request_id=None, instance_id=None):
        """Events in the order they were recorded, filtered by every
        argument given.
        """
        query = sa.select(models.Event).order_by(models.Event.id)
        if kind is not None:
            query = query.where(models.Event.kind == kind)
        if request_id is not None:
            query = query.where(models.Event.request_id == request_id)
        if instance_id is not None:
            query = query.where(models.Event.instance_id == instance_id)
        with self._transaction() as session:
            return list(session.scalars(query))
