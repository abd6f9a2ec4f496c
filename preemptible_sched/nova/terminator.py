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
``acting`` its room is the request's already (claimed in Placement), so
:meth:`Terminator.act` deletes or shelves the victims at once when there
is no grace, and otherwise leaves them to :meth:`Terminator.run_due`, which
the manager's periodic task calls every ``termination_poll_interval``
seconds. Each victim is taken in the journal atomically before it is acted
on, so two schedulers never act on the same one; a victim taken by a
scheduler that died before recording the outcome is taken again once
:data:`LEASE` seconds have passed, by the next start or the periodic task.
:meth:`Terminator.recover` finishes, at start, what a scheduler that died
left behind.
"""

import logging

from preemptible_sched.nova import journal as journal_mod

LOG = logging.getLogger(__name__)


#: Seconds after which a victim that a scheduler took, and recorded no
#: outcome for, is taken again by another (the first is taken for dead):
#: acting on one server is one call of Nova's API, well under this. The
#: schedulers' clocks must agree to well within it.
LEASE = 60.0


class Gone(Exception):
    """The server is not there any more."""


class Terminator:
    """Acts on the decisions of ``journal`` through ``action(victim)``,
    which deletes or shelves one :class:`~.journal.Victim` and raises
    :class:`Gone` when the server no longer exists.
    """

    def __init__(self, journal, action, lease=LEASE):
        self.journal = journal
        self.action = action
        self.lease = lease

    def act(self, decision, now):
        """``decision`` is ``acting``: act on its victims if they are due."""
        if decision.terminate_at <= now:
            self._run(decision, now)

    def run_due(self, now):
        """Act on every victim due by ``now``, and on those another
        scheduler took over a lease ago without recording what became of
        them. Returns how many.
        """
        count = 0
        for decision in self.journal.open_decisions():
            if decision.state == 'acting' and decision.terminate_at <= now:
                count += self._run(decision, now)
        return count

    def recover(self, now, claimed):
        """Finish what a dead scheduler left: a ``decided`` decision whose
        room was claimed (``claimed(decision)``) goes on, one whose room
        was not is rolled back (nothing was touched); the due victims of
        ``acting`` ones are acted on (those a scheduler took and left
        half-acted once their lease is over, here or by :meth:`run_due`).
        Returns ``(finished, rolled_back)`` decision ids.
        """
        finished, rolled_back = [], []
        for decision in self.journal.open_decisions():
            if decision.state == 'decided':
                if not claimed(decision):
                    self.journal.move(decision.id, 'rolled_back')
                    LOG.info('Rolled back decision %s: its room was never '
                             'claimed, none of %s was touched.', decision.id,
                             [v.id for v in decision.victims])
                    rolled_back.append(decision.id)
                    continue
                self.journal.move(decision.id, 'acting')
                decision.state = 'acting'
            if decision.terminate_at <= now:
                self._run(decision, now)
                finished.append(decision.id)
        return finished, rolled_back

    def _run(self, decision, now):
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
            try:
                self.action(victim)
            except Gone:
                state = 'gone'
                LOG.info('Victim %s of decision %s is already gone.',
                         victim.id, decision.id)
            except Exception as error:   # noqa: B902 (any failure)
                state = 'failed'
                LOG.warning('Could not %s victim %s of decision %s: %s',
                            victim.action, victim.id, decision.id, error)
            else:
                state = 'done'
            try:
                self.journal.settle(decision.id, victim.id, state)
            except journal_mod.JournalError as error:
                # Slower than the lease: another scheduler took it again.
                LOG.warning('Victim %s of decision %s (%s here) was settled '
                            'by another scheduler meanwhile: %s', victim.id,
                            decision.id, state, error)
            victim.state = state
            count += 1
        if all(v.state not in ('pending', 'acting')
               for v in decision.victims):
            try:
                self.journal.move(decision.id, 'done')
            except journal_mod.JournalError:
                pass            # another scheduler finished it first
        return count
