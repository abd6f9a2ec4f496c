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

"""What the executor asks a host once a deadline has passed unanswered.

Every ``terminate`` and ``spawn`` the decision executor (:mod:`.executor`)
sends has a deadline (``[scheduler] compute_deadline``), armed by the
executor. A request or an answer lost on the way is settled here by
asking the host what it runs (``list_instances``) once the deadline has
passed: a victim that is gone is confirmed, one still there is asked
again; a victim of a decision given up that went all the same is
terminated in the journal too; an instance deleted that is gone ends; a
spawned instance that runs is started, one that never arrived is placed
again. A host that cannot be asked now is asked again by a new deadline.
"""

import functools
import logging

from preemptible_sched.conf import CONF
from preemptible_sched.loop import reconciliation

LOG = logging.getLogger(__name__)


class DeadlineChecks:
    """The checks of deadlines, mixed into the loop's
    :class:`~preemptible_sched.loop.executor.DecisionExecutor`, whose
    journal (``store``), ports, deadlines and lifecycle they use.
    """

    # -- terminations ------------------------------------------------------

    def _check_victims(self, decision_id):
        """The deadline of a decision's terminations passed: ask."""
        decision = self.store.get_decision(decision_id)
        if decision.state not in ('journaled', 'terminating') or \
                not self.waiting.get(decision_id):
            return
        present = self.compute.instances_on(decision.host)
        if present is None:
            self._arm('victims', decision_id, self._check_victims)
            return
        for victim_id in sorted(self.waiting[decision_id]):
            if victim_id not in present:
                LOG.info('Victim %s of decision %d is gone from %s; its '
                         'confirmation was lost', victim_id, decision_id,
                         decision.host)
                self.lifecycle.gone(
                    decision.host, victim_id, functools.partial(
                        self.lifecycle.instance_terminated,
                        decision.host, victim_id, self._now()))
            else:
                self._retry_termination(
                    decision_id, decision.host, victim_id,
                    'no answer within %g s' % CONF.scheduler.compute_deadline)
            if decision_id not in self.waiting or \
                    self.store.get_decision(decision_id).state not in (
                        'journaled', 'terminating'):
                return

    def _check_released(self, instance_id):
        """A victim of a decision given up runs on unless its termination,
        asked for before, went through: ask its host.
        """
        row = self.store.get_instance(instance_id)
        if row.state != 'running':
            return          # ended, or another decision's victim now
        present = self.compute.instances_on(row.host)
        if present is None:
            self._arm('released', instance_id, self._check_released)
        elif instance_id not in present:
            self.lifecycle.gone(
                row.host, instance_id, functools.partial(
                    self.lifecycle.instance_terminated, row.host,
                    instance_id, self._now()))

    def _check_deletion(self, instance_id):
        """The deadline of a deletion passed: ask, and ask again."""
        if instance_id not in self.lifecycle.deleting:
            return
        row = self.store.get_instance(instance_id)
        present = self.compute.instances_on(row.host)
        if present is not None and instance_id not in present:
            self.lifecycle.gone(
                row.host, instance_id, functools.partial(
                    self.lifecycle.instance_terminated, row.host,
                    instance_id, self._now()))
            return
        if present is not None:
            self.compute.terminate(row.host, instance_id)
        self._arm('delete', instance_id, self._check_deletion)

    # -- spawns --------------------------------------------------------------

    def watch_spawn(self, instance_id):
        """Settle a spawn already asked for (before a restart) by its
        deadline.
        """
        self._arm('spawn', instance_id, self._check_spawn)

    def settle_spawn(self, instance_id):
        """Settle a spawn the crashed scheduler sent (recovery, once the
        held reports are in): now if its host knows the instance (running,
        or how it finished); else by its deadline, as its spawn may still
        be on its way to the host, and placing it again now would boot it
        twice.
        """
        self._disarm('spawn', instance_id)
        self._check_spawn(instance_id, unknown=self.watch_spawn)

    def _check_spawn(self, instance_id, unknown=None):
        """The deadline of a spawn passed without an answer: ask.

        An instance its host does not know is placed again, or handed to
        ``unknown`` when given.
        """
        row = self.store.get_instance(instance_id)
        if row.state != 'building':
            return
        present = self.compute.instances_on(row.host)
        if present is None:
            self._arm('spawn', instance_id, self._check_spawn)
            return
        report = present.get(instance_id)
        if report is None:
            self.lifecycle.gone(
                row.host, instance_id, functools.partial(
                    self.lifecycle.instance_failed, row.host,
                    instance_id, self._now(),
                    'no answer to its spawn within %g s, and not on host '
                    '%s' % (CONF.scheduler.compute_deadline, row.host))
                if unknown is None else functools.partial(unknown,
                                                          instance_id))
        elif report.state == 'running':
            self.lifecycle.instance_started(
                row.host, instance_id, reconciliation.reported_time(
                    row, report.started_at, self._now(), report.boot))
        else:
            self._arm('spawn', instance_id, self._check_spawn)
