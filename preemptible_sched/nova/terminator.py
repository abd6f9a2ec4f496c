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

"""Acting on journaled decisions, without ever sleeping (Nova-free).

The scheduler never waits for a grace period: by the time a decision is
``acting`` its room is the request's already (claimed in Placement). The
scheduler that made it deletes or shelves the victims at once when there is
no grace (:meth:`Terminator.act`); everything else is done by
:meth:`Terminator.run_due`, which the manager's periodic task calls every
``termination_poll_interval`` seconds, and, at start, by
:meth:`Terminator.recover`:

* a victim whose deletion Nova accepted is ``requested``, and ``done``
  only once the server is gone (or shelved and offloaded); a deletion that
  failed on the compute host is asked for again, up to
  ``[preemptible_sched] victim_attempts`` times, then the victim is
  ``failed`` and reported;
* a decision is finished only while its request is alive (one of its
  servers lives in a cell): if the request died first (its boot failed, it
  was deleted, or the scheduler that made it died before it replied), the
  victims not yet acted on are spared and given their room back, and the
  dead request's claim is freed; while nobody can tell yet (the conductor
  may still be waiting for the reply), nothing is done;
* each victim is taken in the journal atomically before it is acted on,
  so two schedulers never act on the same one; a victim taken by a
  scheduler that died before recording the outcome is taken again once
  :data:`LEASE` seconds have passed, and so is a decision left
  ``decided`` that long.

What the terminator asks of Nova goes through ``cloud`` (the manager's
:class:`preemptible_sched.nova.victims.Victims`): ``act(victim)``,
``outcome(victim)``, ``request(decision)``, ``give_up(decision,
victims)`` and ``failed(decision, victim)``.
"""

import logging

from preemptible_sched.nova import journal as journal_mod

LOG = logging.getLogger(__name__)


#: Seconds after which a victim that a scheduler took, and recorded no
#: outcome for, is taken again by another (the first is taken for dead),
#: and after which a decision left ``decided`` is finished or rolled back
#: by another: acting on one server, or deciding, is one call of Nova's
#: API or a few statements, well under this. The schedulers' clocks must
#: agree to well within it.
LEASE = 60.0
#: Seconds after which a request nobody can tell alive or dead (its
#: servers not yet in any cell) is taken for dead: well beyond any
#: ``rpc_response_timeout`` a conductor waits for the scheduler's reply.
UNKNOWN_FOR = 600.0

#: What :meth:`request` of the cloud answers.
ALIVE = 'alive'
DEAD = 'dead'
UNKNOWN = 'unknown'
#: What :meth:`outcome` of the cloud answers for a requested victim.
DONE = 'done'
PENDING = 'pending'
FAILED = 'failed'


class Gone(Exception):
    """The server is not there any more."""


class Changed(Gone):
    """The server is not the one the decision named any more (moved to
    another host, or resized to another flavor, since): it is left alone.
    """


class Terminator:
    """Acts on the decisions of ``journal`` through ``cloud``.

    ``attempts`` is how many times a victim's deletion (or shelving) is
    asked for before the victim is ``failed``.
    """

    def __init__(self, journal, cloud, lease=LEASE, attempts=3):
        self.journal = journal
        self.cloud = cloud
        self.lease = lease
        self.attempts = attempts

    def act(self, decision, now):
        """The scheduler that made ``decision`` (``acting``), in the call
        that made it: act on its victims at once if they are due.
        """
        if decision.terminate_at <= now:
            self._act(decision, now)

    def run_due(self, now):
        """Confirm the victims asked for, act on those due (while their
        request lives), retry failed deletions, take over what a dead
        scheduler left a lease ago. Returns how many victims were acted
        on.
        """
        return self._sweep(now, recovering=False)

    def recover(self, now):
        """At start: as :meth:`run_due`, and every decision left
        ``decided`` is finished (its request alive and claimed) or rolled
        back (its request dead), whatever its age. Returns ``(finished,
        rolled_back)`` decision ids.
        """
        finished, rolled_back = [], []
        for decision in self.journal.open_decisions():
            if decision.state == 'decided':
                self._resume(decision, now)
            if decision.state == 'rolled_back':
                rolled_back.append(decision.id)
            elif decision.state == 'acting':
                self._progress(decision, now)
                finished.append(decision.id)
        return finished, rolled_back

    def _sweep(self, now, recovering):
        count = 0
        for decision in self.journal.open_decisions():
            if decision.state == 'decided':
                if not recovering and decision.created_at > now - self.lease:
                    continue    # its scheduler is still making it
                self._resume(decision, now)
            if decision.state == 'acting':
                count += self._progress(decision, now)
        return count

    def _request(self, decision, now):
        state, claimed = self.cloud.request(decision)
        if state == UNKNOWN and now - decision.created_at > UNKNOWN_FOR:
            LOG.warning('Request %s of decision %s is still in no cell %d s '
                        'after the decision: taken for dead.',
                        decision.request, decision.id, UNKNOWN_FOR)
            state = DEAD
        return state, claimed

    def _resume(self, decision, now):
        """A decision left ``decided`` (its scheduler died between the
        journal and the claim, or before it replied): it goes on while its
        request is alive and its room claimed; it is rolled back, the
        victims given their room back and the dead request's claim freed,
        once its request is dead.
        """
        state, claimed = self._request(decision, now)
        if state == UNKNOWN:
            return
        try:
            if state == ALIVE and claimed:
                self.journal.move(decision.id, 'acting')
                decision.state = 'acting'
                return
            if claimed:
                self.cloud.give_up(decision, decision.victims)
            self.journal.move(decision.id, 'rolled_back')
        except journal_mod.JournalError:
            return          # another scheduler moved it first
        decision.state = 'rolled_back'
        LOG.info('Rolled back decision %s: its request %s is %s, none of '
                 '%s was touched.', decision.id, decision.request,
                 'dead' if state == DEAD else 'not claimed',
                 [victim.id for victim in decision.victims])

    def _progress(self, decision, now):
        count = self._confirm(decision, now)
        due = decision.terminate_at <= now and any(
            victim.state in ('pending', 'acting')
            for victim in decision.victims)
        if due:
            state, _claimed = self._request(decision, now)
            if state == DEAD:
                self._spare(decision)
            elif state == ALIVE:
                count += self._act(decision, now)
        self._finish(decision, now)
        return count

    def _spare(self, decision):
        spared = set(self.journal.spare(decision.id))
        victims = []
        for victim in decision.victims:
            if victim.id in spared:
                victim.state = 'spared'
                victims.append(victim)
        if victims:
            self.cloud.give_up(decision, victims)
            LOG.info('Spared victims %s of decision %s: its request %s '
                     'died first.', sorted(spared), decision.id,
                     decision.request)

    def _act(self, decision, now):
        count = 0
        for victim in decision.victims:
            if victim.state not in ('pending', 'acting'):
                continue
            if not self.journal.take(decision.id, victim.id, now,
                                     stale_before=now - self.lease):
                continue        # another scheduler has it
            if victim.state == 'acting':
                LOG.warning('Victim %s of decision %s was taken over %s s '
                            'ago and never settled: acting on it again.',
                            victim.id, decision.id, self.lease)
            self._ask(decision, victim)
            count += 1
        return count

    def _ask(self, decision, victim):
        """Ask Nova to delete or shelve a victim taken (``acting``)."""
        try:
            self.cloud.act(victim)
        except Changed as change:
            state = 'gone'
            LOG.warning('Victim %s of decision %s is left alone: %s',
                        victim.id, decision.id, change)
        except Gone:
            state = 'gone'
            LOG.info('Victim %s of decision %s is already gone.',
                     victim.id, decision.id)
        except Exception as error:   # noqa: B902 (any failure)
            state = 'requested'
            LOG.warning('Could not %s victim %s of decision %s (attempt '
                        '%d of %d): %s', victim.action, victim.id,
                        decision.id, victim.attempts + 1, self.attempts,
                        error)
        else:
            state = 'requested'
        self._settle(decision, victim, state)

    def _confirm(self, decision, now):
        """Victims asked for: done once gone; asked for again when the
        deletion failed, until ``attempts``; then failed and reported.
        """
        count = 0
        for victim in decision.victims:
            if victim.state != 'requested':
                continue
            outcome = self.cloud.outcome(victim)
            if outcome == DONE:
                self._settle(decision, victim, 'done')
            elif outcome == FAILED:
                if victim.attempts >= self.attempts:
                    LOG.error('Gave up on victim %s of decision %s: %d '
                              'attempts to %s it failed.', victim.id,
                              decision.id, victim.attempts, victim.action)
                    self._settle(decision, victim, 'failed')
                    self.cloud.failed(decision, victim)
                elif self.journal.take(decision.id, victim.id, now,
                                       again=True):
                    victim.state = 'acting'
                    self._ask(decision, victim)
                    count += 1
        return count

    def _settle(self, decision, victim, state):
        try:
            self.journal.settle(decision.id, victim.id, state)
        except journal_mod.JournalError as error:
            # Slower than the lease: another scheduler took it again.
            LOG.warning('Victim %s of decision %s (%s here) was settled by '
                        'another scheduler meanwhile: %s', victim.id,
                        decision.id, state, error)
            return
        if state == 'requested':
            victim.attempts += 1
        victim.state = state

    def _finish(self, decision, now=None):
        """Close a decision with no open victim left, once its request is
        known: a dead one (its scheduler died before it replied, the
        victims gone already) has its claim freed first.
        """
        if any(victim.state in journal_mod.OPEN_VICTIMS
               for victim in decision.victims):
            return
        spared = any(victim.state == 'spared' for victim in decision.victims)
        if now is not None and not spared:
            state, _claimed = self._request(decision, now)
            if state == UNKNOWN:
                return
            if state == DEAD:
                self.cloud.give_up(decision, ())
        final = 'abandoned' if spared else 'done'
        try:
            self.journal.move(decision.id, final)
        except journal_mod.JournalError:
            return          # another scheduler finished it first
        decision.state = final
