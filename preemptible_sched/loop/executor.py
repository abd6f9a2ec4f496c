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

A scheduler that restarts finishes or rolls back every decision the
journal shows unfinished (see :mod:`preemptible_sched.loop.recovery`).
Nothing is spawned on a host before every victim there is gone, so no host
holds more than its capacity.
"""

import logging

from preemptible_sched.conf import CONF

LOG = logging.getLogger(__name__)

#: Points at which tests may inject a crash (see ``crash_hook``).
CRASH_POINTS = ('after_journal', 'after_notice', 'after_termination',
                'before_spawn', 'after_spawn')

TERMINATION_RETRIES = 3


class SimulatedCrash(Exception):
    """Raised by a crash hook: the scheduler process 'dies' here."""


class DecisionExecutor:
    """Runs the journal → notice → terminate → spawn protocol."""

    def __init__(self, loop):
        self.loop = loop
        #: decision id → set of victim ids still to be confirmed
        self.waiting = {}
        self.termination_attempts = {}
        #: called with a point name from CRASH_POINTS; tests make it raise
        self.crash_hook = None

    # -- helpers ---------------------------------------------------------

    @property
    def store(self):
        return self.loop.store

    @property
    def driver(self):
        return self.loop.driver

    def _now(self):
        return self.loop.clock.now()

    def _crash(self, point, **context):
        if self.crash_hook is not None:
            self.crash_hook(point, **context)

    # -- the protocol ----------------------------------------------------

    def execute(self, pending, selection):
        """Journal and start carrying out one placed instance."""
        now = self._now()
        victims = selection.terminate
        decision_id = self.store.journal_decision(
            pending.id, selection.instance.id, selection.host, victims, now,
            spot=self.loop.scheduler.strategy.spot,
            strategy=self.loop.scheduler.strategy.name,
            explanation=selection.explanation())
        self.loop.lifecycle.on_journaled(pending, selection, decision_id)
        self._crash('after_journal', decision_id=decision_id)
        if not victims:
            self.spawn(decision_id)
            return decision_id
        # The victims keep their room until they are confirmed gone: it is
        # reserved for this request, and no other decision may take it or
        # choose them again meanwhile.
        for victim in selection.plan.victims:
            self.loop.host_manager.hold_victim(selection.host, victim,
                                               pending.id)
        for victim_id in victims:
            self.loop.notify('instance.termination_notice', {
                'instance_id': victim_id, 'host': selection.host,
                'decision_id': decision_id,
                'terminate_at': now +
                CONF.preemptible.termination_grace_seconds})
        self._crash('after_notice', decision_id=decision_id)
        self.waiting[decision_id] = set(victims)
        self.loop.call_later(CONF.preemptible.termination_grace_seconds,
                             self.terminate, decision_id)
        return decision_id

    def terminate(self, decision_id):
        """Ask the compute side to terminate the victims still there."""
        decision = self.store.get_decision(decision_id)
        if decision.state in ('done', 'rolled_back', 'failed'):
            return
        self.store.set_decision_state(decision_id, 'terminating',
                                      self._now())
        for victim_id in sorted(self.waiting.get(decision_id, ())):
            self.driver.terminate(decision.host, victim_id)

    def on_terminated(self, host, instance_id):
        """A victim is gone: confirm it; spawn once all are gone.

        Returns False when ``instance_id`` was no victim of ours.
        """
        for decision_id, waiting in self.waiting.items():
            if instance_id in waiting:
                break
        else:
            return False
        waiting.discard(instance_id)
        self.confirm(decision_id, instance_id)
        self.loop.notify('instance.terminated', {
            'instance_id': instance_id, 'host': host,
            'decision_id': decision_id})
        self._crash('after_termination', decision_id=decision_id,
                    instance_id=instance_id)
        if not waiting:
            del self.waiting[decision_id]
            self.spawn(decision_id)
        return True

    def on_termination_failed(self, host, instance_id, reason):
        """Try again a few times, then give the decision up."""
        for decision_id, waiting in self.waiting.items():
            if instance_id in waiting:
                break
        else:
            return False
        key = (decision_id, instance_id)
        self.termination_attempts[key] = \
            self.termination_attempts.get(key, 0) + 1
        if self.termination_attempts[key] < TERMINATION_RETRIES:
            LOG.warning('Termination of %s on %s failed (%s); retrying',
                        instance_id, host, reason)
            self.driver.terminate(host, instance_id)
        else:
            self.roll_back(decision_id, 'termination of %s on %s failed: %s'
                           % (instance_id, host, reason))
        return True

    def forget(self, decision_id):
        """Stop waiting for a decision that ended otherwise (failed)."""
        self.waiting.pop(decision_id, None)

    def confirm(self, decision_id, victim_id):
        """Record that a victim is gone (never terminate it again)."""
        now = self._now()
        self.store.confirm_termination(
            decision_id, victim_id, now,
            final_state=self.loop.lifecycle.victim_final_state())
        self.loop.lifecycle.on_victim_gone(victim_id, now)

    def spawn(self, decision_id):
        """Spawn the decision's instance (its victims are all gone).

        A requeued instance of a request with a duration runs only what is
        left of it: the duration less the running time it accumulated.
        """
        decision = self.store.get_decision(decision_id)
        if decision.state in ('done', 'rolled_back', 'failed'):
            return      # given up meanwhile (request deleted, host down)
        self._crash('before_spawn', decision_id=decision_id)
        now = self._now()
        self.store.set_decision_state(decision_id, 'spawning', now)
        self.store.update_instance(decision.instance_id, at=now,
                                   state='building')
        request = self.store.get_request(decision.request_id)
        instance = self.loop.lifecycle.instance_object(decision.instance_id)
        duration = request.duration_s
        if duration is not None:
            duration = max(0.0, duration - instance.running_s)
        self.driver.spawn(decision.host, instance, image=request.image,
                          duration=duration)
        self._crash('after_spawn', decision_id=decision_id)

    def roll_back(self, decision_id, reason):
        """Undo a decision whose victims could not all be terminated."""
        LOG.warning('Rolling back decision %s: %s', decision_id, reason)
        self.loop.lifecycle.abandon(self.store.get_decision(decision_id),
                                    reason)
