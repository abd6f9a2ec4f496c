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

"""Carrying out a decision without ever losing or repeating a step.

For every placed instance:

1. **journal** the decision in the database (the new instance claims its
   host, the victims are marked ``terminating``) before anything happens;
2. emit a termination notice for each victim and wait
   ``[preemptible] termination_grace_seconds``;
3. ask the compute side to **terminate** the victims, and record each
   confirmation as it arrives;
4. once every victim is confirmed gone, **spawn** the new instance;
5. the decision is **done** when the instance runs.

Every ``terminate`` and ``spawn`` has a deadline (``[scheduler]
compute_deadline``): a request or an answer lost on the way is settled by
asking the host what it runs (``list_instances``) once the deadline has
passed: a victim that is gone is confirmed, one still there is asked
again; a spawned instance that runs is started, one that never arrived is
placed again (:mod:`.deadline_checks`). A scheduler that restarts
finishes or rolls back every decision the journal shows unfinished (see
:mod:`preemptible_sched.loop.recovery`). Nothing is spawned on a host
before every victim there is gone, so no host holds more than its
capacity; nothing is spawned for an instance that is no longer the
decision's to spawn (displaced, deleted, failed meanwhile).
"""

import logging

from preemptible_sched.conf import CONF
from preemptible_sched.loop import deadline_checks

LOG = logging.getLogger(__name__)

#: Points at which tests may inject a crash (see ``crash_hook``).
CRASH_POINTS = ('after_journal', 'after_notice', 'after_termination',
                'before_spawn', 'after_spawn')

TERMINATION_RETRIES = 3


class DecisionExecutor(deadline_checks.DeadlineChecks):
    """Runs the journal → notice → terminate → spawn protocol."""

    def __init__(self, store, hosts, strategy, compute, events, scheduling,
                 lifecycle):
        """The journal (``store``), the host manager (``hosts``), the
        preemption ``strategy`` (journaled with each decision) and the
        ports of :mod:`.ports`; ``lifecycle`` is the loop's
        :class:`~.lifecycle.Lifecycle`, which keeps the instance states.
        """
        self.store = store
        self.hosts = hosts
        self.strategy = strategy
        self.compute = compute
        self.events = events
        self.scheduling = scheduling
        self.lifecycle = lifecycle
        #: decision id → set of victim ids still to be confirmed
        self.waiting = {}
        #: decision id → victims of another decision of the same request
        #: on the same host whose room this one was placed in: it spawns
        #: only once they are gone too (they are not its to terminate)
        self.borrowed = {}
        self.termination_attempts = {}
        #: (kind, key) → clock handle of a deadline: ('victims', decision
        #: id), ('spawn', instance id), ('delete', instance id),
        #: ('released', instance id)
        self.deadlines = {}
        #: called with a point name from CRASH_POINTS; tests make it raise
        self.crash_hook = None

    # -- helpers ---------------------------------------------------------

    def _now(self):
        return self.scheduling.now()

    def _crash(self, point):
        if self.crash_hook is not None:
            self.crash_hook(point)

    # -- deadlines -------------------------------------------------------

    def _arm(self, kind, key, check):
        """Call ``check(key)`` once ``[scheduler] compute_deadline`` has
        passed, unless :meth:`_disarm` ed first.
        """
        self._disarm(kind, key)
        self.deadlines[kind, key] = self.scheduling.call_later(
            CONF.scheduler.compute_deadline, self._expired, kind, key, check)

    def _disarm(self, kind, key):
        handle = self.deadlines.pop((kind, key), None)
        if handle is not None:
            handle.cancel()

    def _expired(self, kind, key, check):
        self.deadlines.pop((kind, key), None)
        check(key)

    def settled(self, instance_id):
        """The compute side answered about ``instance_id``."""
        self._disarm('spawn', instance_id)
        self._disarm('delete', instance_id)

    def started(self, instance_id):
        """``instance_id`` started: its spawn is settled; a deletion of it
        is not (it is terminated yet).
        """
        self._disarm('spawn', instance_id)

    # -- the protocol ----------------------------------------------------

    def execute(self, pending, selection):
        """Journal and start carrying out one placed instance."""
        now = self._now()
        victims = selection.terminate
        decision_id = self.store.journal_decision(
            pending.id, selection.instance.id, selection.host, victims, now,
            spot=self.strategy.spot,
            strategy=self.strategy.name,
            explanation=selection.explanation())
        self.lifecycle.on_journaled(pending, selection, decision_id)
        self._crash('after_journal')
        self.borrow(decision_id, selection.host, pending.id, victims)
        if not victims:
            if decision_id not in self.borrowed:
                self.spawn(decision_id)
            return decision_id
        # The victims keep their room until they are confirmed gone: it is
        # reserved for this request, and no other decision may take it or
        # choose them again meanwhile. A victim still building is no
        # longer spawned (its own decision was closed by the journal).
        for victim in selection.plan.victims:
            self._disarm('spawn', victim.id)
            self.hosts.hold_victim(selection.host, victim,
                                   pending.id)
        for victim_id in victims:
            self.events.notify('instance.termination_notice', {
                'instance_id': victim_id, 'host': selection.host,
                'decision_id': decision_id,
                'terminate_at': now +
                CONF.preemptible.termination_grace_seconds})
        self._crash('after_notice')
        self.waiting[decision_id] = set(victims)
        self.scheduling.call_later(CONF.preemptible.termination_grace_seconds,
                                   self.terminate, decision_id)
        return decision_id

    def borrow(self, decision_id, host, request_id, own_victims=()):
        """Make the decision wait for the victims terminated on ``host``
        for the same request by an earlier decision (the room they free
        is where it was placed too).
        """
        state = self.hosts.host_states.get(host)
        if state is None or not state.terminating:
            return
        in_flight = set().union(*self.waiting.values()) \
            if self.waiting else set()
        borrowed = {victim_id for victim_id, for_request
                    in state.terminating.items()
                    if for_request == request_id and
                    victim_id in in_flight} - set(own_victims)
        if borrowed:
            self.borrowed[decision_id] = borrowed

    def borrowers_of(self, victim_ids):
        """Decisions waiting for any of ``victim_ids`` to be gone."""
        return sorted(decision_id for decision_id, borrowed
                      in self.borrowed.items() if borrowed & set(victim_ids))

    def terminate(self, decision_id):
        """Ask the compute side to terminate the victims still there."""
        decision = self.store.get_decision(decision_id)
        if decision.state in ('done', 'rolled_back', 'failed'):
            return
        self.store.set_decision_state(decision_id, 'terminating',
                                      self._now())
        for victim_id in sorted(self.waiting.get(decision_id, ())):
            self.compute.terminate(decision.host, victim_id)
        if self.waiting.get(decision_id):
            self._arm('victims', decision_id, self._check_victims)

    def victim_gone(self, host, instance_id, at=None):
        """A victim is gone (at ``at``, when its host says): confirm it;
        spawn once all are gone.

        Returns False when ``instance_id`` was no victim we wait for.
        """
        for decision_id, waiting in self.waiting.items():
            if instance_id in waiting:
                break
        else:
            return False
        waiting.discard(instance_id)
        self.confirm(decision_id, instance_id, at)
        self.events.notify('instance.terminated', {
            'instance_id': instance_id, 'host': host,
            'decision_id': decision_id})
        self._crash('after_termination')
        ready = []
        if not waiting:
            del self.waiting[decision_id]
            self._disarm('victims', decision_id)
            ready.append(decision_id)
        for other in self.borrowers_of([instance_id]):
            self.borrowed[other].discard(instance_id)
            if not self.borrowed[other]:
                del self.borrowed[other]
                if other not in self.waiting:
                    ready.append(other)
        for ready_id in sorted(ready):
            if ready_id not in self.borrowed:
                self.spawn(ready_id)
        return True

    def on_termination_failed(self, host, instance_id, reason):
        """Try again a few times, then give the decision up."""
        for decision_id, waiting in self.waiting.items():
            if instance_id in waiting:
                break
        else:
            return False
        self._retry_termination(decision_id, host, instance_id, reason)
        return True

    def _retry_termination(self, decision_id, host, instance_id, reason):
        key = (decision_id, instance_id)
        self.termination_attempts[key] = \
            self.termination_attempts.get(key, 0) + 1
        if self.termination_attempts[key] < TERMINATION_RETRIES:
            LOG.warning('Termination of %s on %s failed (%s); retrying',
                        instance_id, host, reason)
            self.compute.terminate(host, instance_id)
            self._arm('victims', decision_id, self._check_victims)
        else:
            self.roll_back(decision_id, 'termination of %s on %s failed: %s'
                           % (instance_id, host, reason))

    def forget(self, decision_id):
        """Stop waiting for a decision that ended otherwise (failed or
        rolled back); returns the victims it still waited for.

        Their terminations may have been asked for already: each is
        looked for on its host by the deadline (:meth:`_check_released`),
        so that one that went all the same, its report lost, does not stay
        running in the database.
        """
        self.borrowed.pop(decision_id, None)
        self._disarm('victims', decision_id)
        unconfirmed = self.waiting.pop(decision_id, set())
        for victim_id in unconfirmed:
            self._arm('released', victim_id, self._check_released)
        return unconfirmed

    def confirm(self, decision_id, victim_id, ended_at=None):
        """Record that a victim is gone (never terminate it again).

        ``ended_at`` is when its host says it went (a report settled late,
        by a deadline or on recovery); its run is accounted up to then, not
        up to its confirmation. None, or a time after now: now.
        """
        now = self._now()
        ended = now if ended_at is None else min(ended_at, now)
        self.store.confirm_termination(
            decision_id, victim_id, now,
            final_state=self.lifecycle.victim_final_state(), ended_at=ended)
        self.lifecycle.on_victim_gone(victim_id, ended)

    def spawn(self, decision_id):
        """Spawn the decision's instance (its victims are all gone).

        Nothing is spawned unless the instance is still the decision's,
        waiting to be spawned: a decision given up meanwhile (request
        deleted, host down, instance displaced or failed) spawns nothing.
        A requeued instance of a request with a duration runs only what is
        left of it: the duration less the work its runs did (``work_s``,
        in reference seconds as the duration, whatever the speed of the
        hosts it ran on).
        """
        decision = self.store.get_decision(decision_id)
        if decision.state in ('done', 'rolled_back', 'failed', 'spawning'):
            # Finished, or its spawn already sent: a decision's spawn is
            # sent once (a second one would boot the instance twice).
            return
        row = self.store.get_instance(decision.instance_id)
        if row.decision_id != decision.id or \
                row.state not in ('pending', 'building'):
            self.store.set_decision_state(
                decision_id, 'failed', self._now(),
                reason='instance %s is %s, no longer this decision\'s to '
                       'spawn' % (row.id, row.state))
            return
        self._crash('before_spawn')
        now = self._now()
        self.store.set_decision_state(decision_id, 'spawning', now)
        self.store.update_instance(decision.instance_id, at=now,
                                   state='building')
        request = self.store.get_request(decision.request_id)
        instance = self.lifecycle.instance_object(decision.instance_id)
        instance.boot = decision.id
        duration = request.duration_s
        if duration is not None:
            # What is left of it, in its unit (reference seconds): the
            # work done, not the host seconds run (see run_account).
            duration = max(0.0, duration - row.work_s)
        self._arm('spawn', decision.instance_id, self._check_spawn)
        self.compute.spawn(decision.host, instance, image=request.image,
                           duration=duration)
        self._crash('after_spawn')

    def terminate_own(self, host, instance_id, final_state, reason=None):
        """Terminate an instance for its own request (deleted, or failed
        as a whole); it ends in ``final_state``.
        """
        self.lifecycle.deleting[instance_id] = (final_state, reason)
        self._disarm('spawn', instance_id)
        self._arm('delete', instance_id, self._check_deletion)
        self.compute.terminate(host, instance_id)

    def roll_back(self, decision_id, reason):
        """Undo a decision whose victims could not all be terminated."""
        LOG.warning('Rolling back decision %s: %s', decision_id, reason)
        self.lifecycle.abandon(self.store.get_decision(decision_id),
                               reason)
