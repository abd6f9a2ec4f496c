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

"""The journal of the Nova scheduler manager's decisions (Nova-free).

Every decision that terminates servers is written here before the first of
them is touched, in a database of our own (``[preemptible_sched]
journal_connection``; the tables ``nova_decisions`` and ``nova_victims`` of
the project's schema, created by its alembic migrations), as the records
of :mod:`.journal_records`. The states, and the only moves between them:

decision
    ``decided`` (written; the room may not be claimed yet) -> ``acting``
    (the room is the request's: its victims must go) -> ``done`` (every
    victim dealt with) or ``abandoned`` (the request died before some of
    its victims were acted on: those are spared); or ``decided`` ->
    ``rolled_back`` (nothing was touched, or what was is given back).
victim
    ``pending`` -> ``acting`` (one scheduler took it, atomically) ->
    ``requested`` (Nova accepted the deletion or the shelving) -> ``done``
    (the server is gone, or shelved and offloaded); ``acting`` -> ``gone``
    (it was not there any more) | ``failed`` (Nova refused, too often);
    ``requested`` -> ``acting`` (the deletion failed on the compute host:
    asked again) | ``failed``; ``pending`` -> ``spared`` (its decision was
    given up). A victim left ``acting`` by a scheduler taken for dead (it
    took the victim a lease ago and recorded no outcome) is taken again.

A server is an *open victim* while its decision may still act on it or
wait for it to go (``pending``, ``acting``, ``requested``); the database
refuses a second open decision naming it (:class:`VictimTaken`), so two
schedulers never journal the same server twice, lock or no lock, and no
decision names a server whose deletion is under way. Every move is one
conditional UPDATE (from the states it may come from), so of two
schedulers making moves at once, lock or no lock, one wins and the other
is refused; a victim is taken only while its decision is ``acting``.

The engine is oslo.db's, and every move is run again when the database
aborts it as a deadlock (Galera's certification conflicts among them,
:mod:`preemptible_sched.db.deadlock`): the transaction was rolled back, and
its conditional UPDATEs, run again, move once or are refused.
"""

import threading

from oslo_db import exception as db_exc
import sqlalchemy as sa
from sqlalchemy import exc as sa_exc
from sqlalchemy import orm

from preemptible_sched.db import deadlock
from preemptible_sched.db import engine_setup
from preemptible_sched.db import migration
from preemptible_sched.db import models
from preemptible_sched.nova import journal_records

DECISION_MOVES = {'decided': ('acting', 'rolled_back'),
                  'acting': ('done', 'abandoned'), 'done': (),
                  'rolled_back': (), 'abandoned': ()}
VICTIM_MOVES = {'pending': ('acting', 'spared'),
                'acting': ('acting', 'requested', 'done', 'gone', 'failed'),
                'requested': ('acting', 'done', 'gone', 'failed'),
                'done': (), 'gone': (), 'failed': (), 'spared': ()}
OPEN_DECISIONS = ('decided', 'acting')
#: The states of a victim its decision is not finished with.
OPEN_VICTIMS = ('pending', 'acting', 'requested')
ACTIONS = ('delete', 'shelve')


class JournalError(Exception):
    """A move the state machines do not allow."""


class VictimTaken(JournalError):
    """Another open decision names this server already."""

    def __init__(self, victims):
        self.victims = sorted(victims)
        super().__init__('server(s) %s are victims of another open decision'
                         % ', '.join(self.victims))


class Journal:
    """The journal in the database at ``url`` (a SQLAlchemy URL); the
    schema is brought to the newest revision on first use. A move the
    database aborts as a deadlock is run again as ``deadlock_retry`` (a
    :class:`~preemptible_sched.db.deadlock.Policy`) says.
    """

    def __init__(self, url, deadlock_retry=None):
        self.engine = engine_setup.create_engine(url)
        self.deadlock_retry = deadlock_retry or deadlock.Policy()
        self._sessions = orm.sessionmaker(self.engine,
                                          expire_on_commit=False)
        self._ready = False
        self._guard = threading.Lock()

    def _session(self):
        with self._guard:
            if not self._ready:
                migration.upgrade(self.engine)
                self._ready = True
        return self._sessions.begin()

    # -- writing --------------------------------------------------------

    @deadlock.retried
    def record(self, decision):
        """Write ``decision`` (``decided``) and its victims (``pending``).

        Raises :class:`VictimTaken` naming the servers another open
        decision has already; nothing is written then.
        """
        for victim in decision.victims:
            if victim.action not in ACTIONS:
                raise JournalError('unknown action %r for victim %s'
                                   % (victim.action, victim.id))
        try:
            with self._session() as session:
                session.add(models.NovaDecision(
                    id=decision.id, scheduler=decision.scheduler,
                    reason=decision.reason, request=list(decision.request),
                    created_at=decision.created_at,
                    terminate_at=decision.terminate_at, state='decided'))
                session.flush()
                for victim in decision.victims:
                    session.add(models.NovaVictim(
                        decision_id=decision.id, victim=victim.id,
                        host=victim.host, action=victim.action,
                        state='pending', open_victim=victim.id,
                        consumer=victim.consumer, attempts=0))
        except (sa_exc.IntegrityError, db_exc.DBDuplicateEntry):
            taken = self._open_victims({v.id for v in decision.victims})
            raise VictimTaken(taken or [v.id for v in decision.victims])

    def _open_victims(self, uuids):
        with self._session() as session:
            return [row.victim for row in session.scalars(
                sa.select(models.NovaVictim).where(
                    models.NovaVictim.open_victim.in_(sorted(uuids))))]

    def open_victims(self, deleted_since=None):
        """``{server uuid: host}`` of every victim an open decision may
        still act on (or is acting on): none of them may be chosen again,
        and their room is the request's that displaced them.

        With ``deleted_since`` (s since the epoch), also the victims deleted
        by a decision made since then: Nova shows such a server deleted
        before its row in the cell database is, and a decision that read
        its node before the deletion still counts its room (issue 25: in
        the one-pass mode a burst named such victims again, and two normal
        servers took the room of one).
        """
        victims, decisions = models.NovaVictim, models.NovaDecision
        with self._session() as session:
            found = dict(session.execute(
                sa.select(victims.victim, victims.host)
                .where(victims.open_victim.is_not(None))).all())
            if deleted_since is not None:
                found.update(session.execute(
                    sa.select(victims.victim, victims.host)
                    .join(decisions, decisions.id == victims.decision_id)
                    .where(victims.state == 'done',
                           victims.action == 'delete',
                           decisions.created_at >= deleted_since)).all())
            return found

    @deadlock.retried
    def move(self, decision_id, state):
        """Move a decision to ``state``; rolling back closes its victims.

        One conditional UPDATE (from a state that may move to ``state``;
        to ``done`` or ``abandoned`` only with no open victim left), so
        that of two schedulers moving the same decision at once, on any of
        the backends, one wins and the other gets :class:`JournalError`.
        (A ``decided`` decision has only ``pending`` victims: :meth:`take`
        wants ``acting``.)
        """
        decisions, victims = models.NovaDecision, models.NovaVictim
        sources = [source for source, targets in DECISION_MOVES.items()
                   if state in targets]
        condition = [decisions.id == decision_id,
                     decisions.state.in_(sources)]
        if state in ('done', 'abandoned'):
            condition.append(~sa.exists().where(
                victims.decision_id == decision_id,
                victims.state.in_(OPEN_VICTIMS)))
        with self._session() as session:
            moved = session.execute(
                sa.update(decisions).where(*condition).values(state=state)
                .execution_options(synchronize_session=False)).rowcount
            if moved != 1:
                raise self._refused(session, decision_id, state)
            if state == 'rolled_back':
                session.execute(
                    sa.update(victims)
                    .where(victims.decision_id == decision_id)
                    .values(open_victim=None)
                    .execution_options(synchronize_session=False))

    @staticmethod
    def _refused(session, decision_id, state):
        """The error for a move the conditional UPDATE did not make."""
        row = session.get(models.NovaDecision, decision_id)
        if row is None:
            return JournalError('no decision %s' % decision_id)
        if state not in DECISION_MOVES[row.state]:
            return JournalError('decision %s cannot go from %s to %s'
                                % (decision_id, row.state, state))
        left = session.scalars(
            sa.select(models.NovaVictim.victim)
            .where(models.NovaVictim.decision_id == decision_id,
                   models.NovaVictim.state.in_(OPEN_VICTIMS))
            .order_by(models.NovaVictim.victim)).all()
        return JournalError('decision %s has victim(s) left: %s'
                            % (decision_id, ', '.join(left)))

    @deadlock.retried
    def take(self, decision_id, victim, now=None, stale_before=None,
             again=False):
        """Atomically take a victim of an ``acting`` decision to act on it,
        at ``now`` (s since the epoch): a ``pending`` one, or one left
        ``acting`` by a scheduler taken for dead (taken before
        ``stale_before``, or at an unknown time); with ``again``, a
        ``requested`` one whose deletion failed (its attempts counted).
        False when another scheduler has it, it is dealt with, or its
        decision is not ``acting``.
        """
        decisions, victims = models.NovaDecision, models.NovaVictim
        if again:
            states = victims.state == 'requested'
        else:
            states = victims.state == 'pending'
            if stale_before is not None:
                states = sa.or_(states, sa.and_(
                    victims.state == 'acting',
                    sa.or_(victims.taken_at.is_(None),
                           victims.taken_at < stale_before)))
        with self._session() as session:
            result = session.execute(
                sa.update(victims)
                .where(victims.decision_id == decision_id,
                       victims.victim == victim, states,
                       sa.exists().where(decisions.id == decision_id,
                                         decisions.state == 'acting'))
                .values(state='acting', taken_at=now)
                .execution_options(synchronize_session=False))
            return result.rowcount == 1

    @deadlock.retried
    def settle(self, decision_id, victim, state):
        """What became of a victim: from ``acting``, ``requested`` (Nova
        took the request; the victim stays open until it is ``done``),
        ``done``, ``gone`` or ``failed``; from ``requested``, ``done`` or
        ``failed``. One conditional UPDATE, so it settles once.
        """
        sources = [source for source, targets in VICTIM_MOVES.items()
                   if state in targets and source != 'pending']
        if state == 'acting' or not sources:
            raise JournalError('victim %s cannot be settled as %s'
                               % (victim, state))
        victims = models.NovaVictim
        values = {'state': state}
        if state == 'requested':
            values['attempts'] = victims.attempts + 1
        else:
            values['open_victim'] = None
        with self._session() as session:
            settled = session.execute(
                sa.update(victims)
                .where(victims.decision_id == decision_id,
                       victims.victim == victim,
                       victims.state.in_(sources))
                .values(**values)
                .execution_options(synchronize_session=False)).rowcount
            if settled == 1:
                return
            row = session.get(victims, (decision_id, victim))
            if row is None:
                raise JournalError('no victim %s in decision %s'
                                   % (victim, decision_id))
            raise JournalError('victim %s cannot go from %s to %s'
                               % (victim, row.state, state))

    @deadlock.retried
    def spare(self, decision_id):
        """The request of an ``acting`` decision died: its ``pending``
        victims are spared (closed, never acted on). Returns their ids.
        """
        decisions, victims = models.NovaDecision, models.NovaVictim
        with self._session() as session:
            pending = session.scalars(
                sa.select(victims.victim)
                .where(victims.decision_id == decision_id,
                       victims.state == 'pending',
                       sa.exists().where(decisions.id == decision_id,
                                         decisions.state == 'acting'))
            ).all()
            spared = []
            for victim in pending:
                if session.execute(
                        sa.update(victims)
                        .where(victims.decision_id == decision_id,
                               victims.victim == victim,
                               victims.state == 'pending')
                        .values(state='spared', open_victim=None)
                        .execution_options(synchronize_session=False)
                ).rowcount == 1:
                    spared.append(victim)
            return spared

    # -- reading --------------------------------------------------------

    def open_decisions(self):
        """Every decision still ``decided`` or ``acting``, oldest first."""
        with self._session() as session:
            rows = session.scalars(
                sa.select(models.NovaDecision)
                .where(models.NovaDecision.state.in_(OPEN_DECISIONS))
                .order_by(models.NovaDecision.created_at,
                          models.NovaDecision.id)).all()
            return [journal_records.from_row(session, row) for row in rows]

    def get(self, decision_id):
        with self._session() as session:
            row = session.get(models.NovaDecision, decision_id)
            if row is None:
                raise JournalError('no decision %s' % decision_id)
            return journal_records.from_row(session, row)

    # -- operations (preemptible-sched-manage journal) ------------------

    def revision(self):
        """The schema revision of the journal's database (None: empty);
        unlike the methods above, it creates nothing.
        """
        return migration.current_revision(self.engine)

    def decisions(self, state=None, limit=None):
        """Decisions (with their victims), open ones first, each part
        newest first; only those in ``state`` when given, at most
        ``limit`` when given.
        """
        decisions = models.NovaDecision
        query = sa.select(decisions).order_by(
            sa.case((decisions.state.in_(OPEN_DECISIONS), 0), else_=1),
            decisions.created_at.desc(), decisions.id)
        if state is not None:
            query = query.where(decisions.state == state)
        if limit is not None:
            query = query.limit(limit)
        with self._sessions.begin() as session:
            return [journal_records.from_row(session, row)
                    for row in session.scalars(query).all()]

    def purge(self, before, dry_run=False):
        """Delete the closed decisions (:data:`CLOSED_DECISIONS`) created
        before ``before`` (s since the epoch), with their victims; never an
        open one. ``(decisions, victims)`` deleted, or that would be with
        ``dry_run``.
        """
        decisions, victims = models.NovaDecision, models.NovaVictim
        closed = [decisions.state.in_(CLOSED_DECISIONS),
                  decisions.created_at < before]
        with self._sessions.begin() as session:
            ids = session.scalars(sa.select(decisions.id)
                                  .where(*closed)).all()
            count = 0
            for start in range(0, len(ids), PURGE_BATCH):
                batch = ids[start:start + PURGE_BATCH]
                count += session.scalar(
                    sa.select(sa.func.count()).select_from(victims)
                    .where(victims.decision_id.in_(batch)))
                if dry_run:
                    continue
                session.execute(
                    sa.delete(victims).where(victims.decision_id.in_(batch))
                    .execution_options(synchronize_session=False))
                session.execute(
                    sa.delete(decisions).where(decisions.id.in_(batch),
                                               *closed)
                    .execution_options(synchronize_session=False))
            return len(ids), count


#: A decision in one of these states will never move again.
CLOSED_DECISIONS = tuple(state for state, moves in DECISION_MOVES.items()
                         if not moves)
#: Decisions deleted per statement by :meth:`Journal.purge`.
PURGE_BATCH = 500
