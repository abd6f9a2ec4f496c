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

"""The journal of decisions: what the database is kept for.

The database is the scheduler's **journal**. A decision (place this
instance on that host, after terminating those preemptible victims) is
written by :meth:`~DecisionJournalMixin.journal_decision` *before* the
first termination or spawn is issued, in one transaction that also claims
the host for the new instance and marks every victim ``terminating``.
From then on each step is recorded as it completes:
:meth:`~DecisionJournalMixin.confirm_termination` for every victim the
compute side confirmed gone,
:meth:`~DecisionJournalMixin.set_decision_state` when spawning starts and
when it is done. A scheduler restarted after a crash reads
:meth:`~DecisionJournalMixin.unfinished_decisions` and, for each, either
completes it (terminates the victims not yet confirmed, then spawns) or
undoes it with :meth:`~DecisionJournalMixin.roll_back_decision` (the
unconfirmed victims run on, the request is pending again). Hence no
request is lost and no instance is terminated twice; and because the
journal refuses a victim that is normal, on another host, or already being
terminated, a bug upstream cannot make it kill what must not die.

:class:`DecisionJournalMixin` holds these methods of
:class:`~preemptible_sched.db.api.Store`. They write through the store's
hooks (``_changes``, ``_edit``, ``_find``, ``_insert``, ``_add_event``;
and ``_journal_rows`` and ``_decision_rows``, which lock the rows of a
decision, defined here), so the simulator's
:class:`~preemptible_sched.db.memory.MemoryStore` runs them as they are.
Each move is one transaction that locks the rows it changes and checks
their states again, so a move the database aborted as a deadlock is run
again whole (:func:`~preemptible_sched.db.deadlock.retried`): it is made
once, or refused if another writer made it meanwhile.
"""

import sqlalchemy as sa

from preemptible_sched.db import deadlock
from preemptible_sched.db import errors
from preemptible_sched.db import models


class DecisionJournalMixin:
    """The journal of decisions of a
    :class:`~preemptible_sched.db.api.Store` (a base class of it: its
    methods run in the store's transactions, through its hooks).
    """

    # Decisions: the journal.

    @deadlock.retried
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

    def _journal_rows(self, session, request_id, instance_ids):
        """The request (None if missing) and ``{id: row}`` of the
        instances that exist, to journal a decision.
        """
        request = self._lock_rows(
            session, models.Request, [request_id]).get(request_id)
        return request, self._lock_rows(session, models.Instance,
                                        instance_ids)

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

    @deadlock.retried
    def confirm_termination(self, decision_id, victim_id, at,
                            final_state='terminated', ended_at=None):
        """Record that the compute side confirmed ``victim_id`` gone.

        In one transaction: the victim joins the decision's ``confirmed``
        list, its state becomes ``final_state`` (``terminated``, or
        ``preempted`` when its request may run it again) with
        ``ended_at`` (when the host says it went; ``at`` if not given),
        and an event ``decision.termination_confirmed`` is
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
                victim.ended_at = at if ended_at is None else ended_at
                victim.updated_at = at
                victim.displaced_by = decision.id
            self._add_event(unit, 'decision.termination_confirmed', at,
                            request_id=decision.request_id,
                            instance_id=victim_id, host=decision.host,
                            payload={'decision_id': decision.id,
                                     'state': victim.state})
        return decision

    @deadlock.retried
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

    @deadlock.retried
    def roll_back_decision(self, decision_id, at, reason):
        """Undo an unfinished decision; returns it.

        In one transaction: the decision becomes ``rolled_back``; the
        victims whose termination is not confirmed run on (``running``,
        ``terminated_by`` cleared); the new instance, if still pending or
        building for it, is unclaimed (``pending``, no host, no decision)
        and its request is pending again (unless it was deleted or failed
        meanwhile); an instance that moved on (ended behind the
        decision's back) stays as it is. An event ``decision.rolled_back``
        is recorded. Rolling back twice changes nothing; a decision that is
        done or failed is refused.
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
            if instance.decision_id == decision.id and \
                    instance.state in ('pending', 'building'):
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
