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

The database is the scheduler's **journal**. A decision (place this
instance on that host, after terminating those preemptible victims) is
written by :meth:`Store.journal_decision` *before* the first termination
or spawn is issued, in one transaction that also claims the host for the
new instance and marks every victim ``terminating``. From then on each step
is recorded as it completes: :meth:`Store.confirm_termination` for every
victim the compute side confirmed gone, :meth:`Store.set_decision_state`
when spawning starts and when it is done. A scheduler restarted after a
crash reads :meth:`Store.unfinished_decisions` and, for each, either
completes it (terminates the victims not yet confirmed, then spawns) or
undoes it with :meth:`Store.roll_back_decision` (the unconfirmed victims
run on, the request is pending again). Hence no request is lost and no
instance is terminated twice; and because the journal refuses a victim that
is normal, on another host, or already being terminated, a bug upstream
cannot make it kill what must not die.

Every public method of :class:`Store` is one transaction of its own, so a
store may be shared by several threads. Rows are returned detached from
their session, with every column loaded: read them freely, but change the
state only through the store. Times are the caller's clock readings.

The simulator's store (:class:`~preemptible_sched.db.memory.MemoryStore`)
keeps the state in memory and writes the journal in batches. Every write
here is made through a few hooks (``_changes``, ``_edit``, ``_find``,
``_insert``, ``_journal_rows``, ``_decision_rows``, ``_add_event``,
``_check_new_request``) that it provides on its rows, so both stores check,
refuse and write alike.
"""

import contextlib

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc
from sqlalchemy import orm
from sqlalchemy import pool

from preemptible_sched.conf import database as database_conf
from preemptible_sched.db import engine_setup
from preemptible_sched.db import errors
from preemptible_sched.db import migration
from preemptible_sched.db import models
from preemptible_sched.db import request_store


class Store(request_store.RequestStoreMixin):
    """The scheduler's state in the database at ``url``.

    ``url`` is a SQLAlchemy URL; see ``[database] connection``. Call
    :meth:`upgrade` once before use to create or migrate the schema.
    ``engine_kw`` go to :func:`sqlalchemy.create_engine`.
    """

    def __init__(self, url, **engine_kw):
        self.url = sa.engine.make_url(url)
        self.is_sqlite = self.url.get_backend_name() == 'sqlite'
        if self.is_sqlite:
            connect_args = dict(engine_kw.pop('connect_args', {}))
            # Sessions run on many threads, one at a time (the lock).
            connect_args.setdefault('check_same_thread', False)
            engine_kw['connect_args'] = connect_args
            if self.url.database in (None, '', ':memory:'):
                # One connection, or every session would see its own
                # empty in-memory database.
                engine_kw.setdefault('poolclass', pool.StaticPool)
            self._lock = engine_setup.sqlite_lock(self.url)
        else:
            engine_kw.setdefault('pool_pre_ping', True)
            self._lock = contextlib.nullcontext()
        self.engine = sa.create_engine(self.url, **engine_kw)
        if self.is_sqlite:
            sa.event.listen(self.engine, 'connect',
                            engine_setup.enable_sqlite_foreign_keys)
        self._sessionmaker = orm.sessionmaker(self.engine,
                                              expire_on_commit=False)

    @classmethod
    def from_config(cls, conf, **engine_kw):
        """The store ``[database] connection`` names (SQLite by default)."""
        return cls(database_conf.get_connection_url(conf), **engine_kw)

    def __repr__(self):
        return '<Store %s>' % self.url.render_as_string(hide_password=True)

    def upgrade(self, revision='head'):
        """Create or migrate the schema to ``revision`` (the newest).

        Idempotent: a database at that revision is left unchanged.
        """
        with self._lock:
            migration.upgrade(self.engine, revision)

    @property
    def is_in_memory(self):
        return self.is_sqlite and self.url.database in (None, '', ':memory:')

    def revision(self):
        """The schema revision of the database (None when it is empty)."""
        with self._lock:
            return migration.current_revision(self.engine)

    def require_head(self):
        """Raise :class:`~.errors.SchemaOutOfDate` unless the schema is
        the newest.
        """
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

    def _changes(self):
        return self._transaction()

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

    def _journal_rows(self, session, request_id, instance_ids):
        """The request (None if missing) and ``{id: row}`` of the
        instances that exist, to journal a decision.
        """
        request = self._lock_rows(
            session, models.Request, [request_id]).get(request_id)
        return request, self._lock_rows(session, models.Instance,
                                        instance_ids)

    @staticmethod
    def _add_event(session, kind, at, request_id=None, instance_id=None,
                   host=None, payload=None):
        event = models.Event(kind=kind, at=at, request_id=request_id,
                             instance_id=instance_id, host=host,
                             payload=payload)
        session.add(event)
        return event

    # Hosts.

    def save_host(self, host, at):
        """Insert or update the row of :class:`objects.Host` ``host``."""
        try:
            return self._save_host(host, at)
        except sa_exc.IntegrityError:
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

    # Decisions: the journal.

    def journal_decision(self, request_id, instance_id, host, victims, at,
                         spot=True, strategy=None, explanation=None):
        """Journal the decision to place ``instance_id`` on ``host`` after
        terminating ``victims``; returns the decision id.

        In one transaction: the decision is inserted (``journaled``); the
        instance is claimed (``host``, ``scheduled_at`` and ``decision_id``
        set; it stays ``pending`` until spawned); every victim becomes
        ``terminating``, ``terminated_by`` the decision (a victim still
        building has its own decision failed: it is never spawned again);
        an event ``decision.journaled`` is recorded.

        Raises :class:`~.errors.Refused`, with nothing written, unless the
        request is pending, the instance is an unclaimed pending instance of
        it, and every victim is a preemptible instance ``running`` or
        ``building`` on ``host``: a normal instance is never terminated,
        nor one twice. With ``spot=False`` (the class-based preemption
        policies, where the service class and not the preemptible flag
        says who may be displaced) victims need not be flagged
        preemptible; every other check stays. ``strategy`` and
        ``explanation`` (a JSON-able dict) are stored with the decision.
        """
        victims = list(victims)
        with self._changes() as unit:
            request, rows = self._journal_rows(unit, request_id,
                                               [instance_id] + victims)
            reasons = self._journal_problems(
                request_id, request, instance_id, host, victims, rows, spot)
            if reasons:
                raise errors.Refused('decision for instance %r on host %r'
                                     % (instance_id, host), reasons)
            decision = self._insert(unit, models.Decision, dict(
                id=None, request_id=request_id, instance_id=instance_id,
                host=host, victims=victims, confirmed=[], state='journaled',
                created_at=at, updated_at=at, reason=None,
                strategy=strategy, explanation=explanation))
            instance = rows[instance_id]
            instance.host = host
            instance.scheduled_at = at
            instance.decision_id = decision.id
            instance.updated_at = at
            for victim_id in victims:
                victim = rows[victim_id]
                victim.state = 'terminating'
                victim.terminated_by = decision.id
                victim.updated_at = at
                own = None if victim.decision_id is None else self._find(
                    unit, models.Decision, victim.decision_id)
                if own is not None and \
                        own.state in models.UNFINISHED_DECISION_STATES:
                    # Displaced while building: never spawn it again.
                    own.state = 'failed'
                    own.reason = 'displaced by decision %d before it ' \
                        'started' % decision.id
                    own.updated_at = at
            self._add_event(unit, 'decision.journaled', at,
                            request_id=request_id, instance_id=instance_id,
                            host=host, payload={'decision_id': decision.id,
                                                'victims': victims})
        return decision.id

    @staticmethod
    def _journal_problems(request_id, request, instance_id, host, victims,
                          rows, spot=True):
        reasons = []
        if request is None:
            reasons.append('request %r not found' % request_id)
        elif request.status not in ('pending', 'placed'):
            # 'placed': another instance of a multi-instance request is
            # placed again (its spawn failed, it was preempted).
            reasons.append('request %r is %s, not pending'
                           % (request_id, request.status))
        instance = rows.get(instance_id)
        if instance is None:
            reasons.append('instance %r not found' % instance_id)
        elif instance.request_id != request_id:
            reasons.append('instance %r belongs to request %r'
                           % (instance_id, instance.request_id))
        elif instance.state != 'pending':
            reasons.append('instance %r is %s, not pending'
                           % (instance_id, instance.state))
        elif instance.decision_id is not None:
            reasons.append('instance %r is already claimed by decision %d'
                           % (instance_id, instance.decision_id))
        if len(set(victims)) != len(victims):
            reasons.append('a victim is listed twice: %s'
                           % ', '.join(victims))
        for victim_id in dict.fromkeys(victims):
            victim = rows.get(victim_id)
            if victim_id == instance_id:
                reasons.append('instance %r cannot be its own victim'
                               % victim_id)
            elif victim is None:
                reasons.append('victim %r not found' % victim_id)
            elif spot and not victim.preemptible:
                reasons.append('victim %r is not preemptible' % victim_id)
            elif victim.state not in models.VICTIM_STATES:
                reasons.append('victim %r is %s, not running or building'
                               % (victim_id, victim.state))
            elif victim.host != host:
                reasons.append('victim %r is on host %r, not %r'
                               % (victim_id, victim.host, host))
        return reasons

    def _decision_rows(self, session, decision_id, extra_instances=()):
        """Lock a decision with its request and instances, in lock order.

        A decision's request, instance and victims never change once
        journaled, so reading them before taking the locks is safe.
        """
        decision = self._get(session, models.Decision, decision_id)
        request = self._lock_row(session, models.Request,
                                 decision.request_id)
        rows = self._lock_rows(
            session, models.Instance,
            [decision.instance_id] + list(decision.victims) +
            list(extra_instances))
        decision = self._lock_row(session, models.Decision, decision_id)
        return decision, request, rows

    def confirm_termination(self, decision_id, victim_id, at,
                            final_state='terminated'):
        """Record that the compute side confirmed ``victim_id`` gone.

        In one transaction: the victim joins the decision's ``confirmed``
        list, its state becomes ``final_state`` (``terminated``, or
        ``preempted`` when its request may run it again) with
        ``ended_at``, and an event ``decision.termination_confirmed`` is
        recorded. A victim that left ``terminating`` by itself meanwhile
        (it ended) keeps its state. Confirming twice changes nothing.
        Returns the decision.
        """
        if final_state not in models.TERMINATION_STATES:
            raise ValueError('final state %r is not one of %s' % (
                final_state, ', '.join(models.TERMINATION_STATES)))
        with self._changes() as unit:
            decision, request, rows = self._decision_rows(unit, decision_id)
            if victim_id not in decision.victims:
                raise errors.Refused(
                    'confirmation of decision %d' % decision_id,
                    ['%r is not one of its victims (%s)' % (
                        victim_id, ', '.join(decision.victims))])
            if victim_id in decision.confirmed:
                return decision
            if decision.state not in models.UNFINISHED_DECISION_STATES:
                raise errors.Refused(
                    'confirmation of decision %d' % decision_id,
                    ['the decision is %s' % decision.state])
            decision.confirmed = list(decision.confirmed) + [victim_id]
            decision.updated_at = at
            victim = rows[victim_id]
            if (victim.state == 'terminating' and
                    victim.terminated_by == decision.id):
                victim.state = final_state
                victim.ended_at = at
                victim.updated_at = at
                victim.displaced_by = decision.id
            self._add_event(unit, 'decision.termination_confirmed', at,
                            request_id=decision.request_id,
                            instance_id=victim_id, host=decision.host,
                            payload={'decision_id': decision.id,
                                     'state': victim.state})
        return decision

    def set_decision_state(self, decision_id, state, at, reason=None):
        """Move an unfinished decision to ``state``; returns it.

        ``spawning`` and ``done`` need every victim confirmed: the new
        instance never starts on a host that may still run a victim.
        ``rolled_back`` goes through :meth:`roll_back_decision`. A
        finished decision keeps its state (setting the same state again
        is allowed and changes nothing but ``reason``).
        """
        if state not in models.DECISION_STATES:
            raise ValueError('unknown decision state %r (valid: %s)'
                             % (state, ', '.join(models.DECISION_STATES)))
        if state == 'rolled_back':
            raise ValueError('use roll_back_decision() to roll back '
                             'decision %d' % decision_id)
        with self._changes() as unit:
            decision = self._edit(unit, models.Decision, decision_id)
            what = 'decision %d: %s -> %s' % (decision_id, decision.state,
                                              state)
            if (decision.state != state and decision.state
                    not in models.UNFINISHED_DECISION_STATES):
                raise errors.Refused(what, ['the decision is finished'])
            if state in ('spawning', 'done') and decision.unconfirmed:
                raise errors.Refused(what, [
                    'terminations not confirmed: %s'
                    % ', '.join(decision.unconfirmed)])
            decision.state = state
            decision.updated_at = at
            if reason is not None:
                decision.reason = reason
        return decision

    def get_decision(self, decision_id):
        with self._transaction() as session:
            return self._get(session, models.Decision, decision_id)

    def unfinished_decisions(self):
        """Decisions a restarted scheduler must complete or roll back,
        oldest first.
        """
        query = (sa.select(models.Decision)
                 .where(models.Decision.state.in_(
                     models.UNFINISHED_DECISION_STATES))
                 .order_by(models.Decision.created_at, models.Decision.id))
        with self._transaction() as session:
            return list(session.scalars(query))

    def roll_back_decision(self, decision_id, at, reason):
        """Undo an unfinished decision; returns it.

        In one transaction: the decision becomes ``rolled_back``; the
        victims whose termination is not confirmed run on (``running``,
        ``terminated_by`` cleared); the new instance is unclaimed
        (``pending``, no host, no decision); the request is pending again
        (unless it was deleted or failed meanwhile); an event
        ``decision.rolled_back`` is recorded. Rolling back twice changes
        nothing; a decision that is done or failed is refused.
        """
        with self._changes() as unit:
            decision, request, rows = self._decision_rows(unit, decision_id)
            if decision.state == 'rolled_back':
                return decision
            if decision.state not in models.UNFINISHED_DECISION_STATES:
                raise errors.Refused(
                    'roll back of decision %d' % decision_id,
                    ['the decision is %s' % decision.state])
            restored = []
            for victim_id in decision.unconfirmed:
                victim = rows[victim_id]
                if (victim.state == 'terminating' and
                        victim.terminated_by == decision.id):
                    victim.state = 'running'
                    victim.terminated_by = None
                    victim.updated_at = at
                    restored.append(victim_id)
            instance = rows[decision.instance_id]
            if instance.decision_id == decision.id:
                instance.host = None
                instance.decision_id = None
                instance.scheduled_at = None
                instance.state = 'pending'
                instance.updated_at = at
            if request.status not in ('deleted', 'failed'):
                request.status = 'pending'
                request.updated_at = at
            decision.state = 'rolled_back'
            decision.reason = reason
            decision.updated_at = at
            self._add_event(unit, 'decision.rolled_back', at,
                            request_id=decision.request_id,
                            instance_id=decision.instance_id,
                            host=decision.host,
                            payload={'decision_id': decision.id,
                                     'reason': reason,
                                     'restored': restored,
                                     'confirmed': list(decision.confirmed)})
        return decision

    # Events.

    def latest_time(self):
        """The latest clock reading the store recorded, or None."""
        columns = (models.Event.at, models.Instance.updated_at,
                   models.Request.updated_at, models.Decision.updated_at)
        with self.engine.connect() as connection:
            readings = [connection.scalar(sa.select(sa.func.max(column)))
                        for column in columns]
        return max((r for r in readings if r is not None), default=None)

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
