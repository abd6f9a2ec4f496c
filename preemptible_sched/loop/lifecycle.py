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

"""The instance lifecycle: what the loop does when the compute side reports.

Lifecycle of an instance (its ``state`` in the database; the transitions
are those of :mod:`preemptible_sched.db.states`, which the store
enforces)::

    pending --journal--> pending on a host --spawn--> building --> running
    running --> ended | terminated | preempted | error | deleted
    preempted --requeue--> pending (same instance, its QoS account kept)

An instance displaced for another request is ``terminated`` for good or
``preempted`` and queued again, as the preemption strategy's ``on_victim``
says; a requeued instance keeps its admission time, running time and
allocation overhead, counts one more preemption and, when its request has
a duration (simulation, the fake driver), runs only what is left of it.

Reports are checked against where the instance is now. A report about an
instance on a host it is not (or no longer) placed on, or in a state the
report cannot apply to (a failure after its termination was confirmed, a
second ``instance_terminated``, a start after it ended), is recorded as
an ``instance.report_ignored`` event and changes nothing. A host that
reports running an instance the scheduler does not expect there (a
``spawn`` that arrived after it was given up, say) is asked to terminate
it: a terminated instance never runs again.

A multi-instance request is all or nothing: its instances are placed
together, a refused spawn is retried for that instance alone, and if one
of them gives up (``[scheduler] max_attempts``, or no host with
``on_no_valid_host = fail``) the whole request fails and the instances it
still runs are terminated.

Three modules hold the rest of :class:`Lifecycle`, mixed into it: the
events of hosts (:mod:`.host_events`), reports that disagree with the
journal and hosts set against it (:mod:`.reconciliation`), decisions
given up and instances sent back to the queue (:mod:`.rollback`).
"""

import logging

from preemptible_sched.db import errors as db_errors
from preemptible_sched.db import states
from preemptible_sched.loop import host_events
from preemptible_sched.loop import reconciliation
from preemptible_sched.loop import rollback
from preemptible_sched import objects

LOG = logging.getLogger(__name__)

ACTIVE_STATES = states.ACTIVE_STATES


def instance_from_row(row):
    """The in-memory :class:`~preemptible_sched.objects.Instance` of a row."""
    return objects.Instance(
        id=row.id,
        resources=objects.Resources(row.vcpus, row.memory_mb, row.disk_gb),
        preemptible=row.preemptible,
        started_at=row.started_at if row.started_at is not None
        else row.created_at,
        flavor=row.flavor, service_class=row.service_class,
        priority=row.priority or 0.0, group=row.group,
        expected_vcpus=row.expected_vcpus,
        admitted_at=row.created_at, running_s=row.running_s,
        overhead_s=row.overhead_s,
        running_since=row.started_at if row.state in (
            'running', 'terminating') else None)


def _stale(at, boot, row):
    """Why a report made at ``at`` about ``boot`` is about an earlier
    placement of the instance on the same host (a late report of an
    earlier boot): another boot, or made before the current placement;
    None if it is not.
    """
    if boot is not None and row.decision_id is not None and \
            boot != row.decision_id:
        return 'it is about boot %s, the instance is now boot %s' % (
            boot, row.decision_id)
    if row.scheduled_at is not None and at < row.scheduled_at:
        return 'it was made at %.3f, before the instance was placed at ' \
            '%.3f' % (at, row.scheduled_at)
    return None


class Lifecycle(host_events.HostEvents, reconciliation.Reconciliation,
                rollback.Rollback):
    """Compute events and the bookkeeping of instance states.

    It is the compute driver's ``events`` receiver. It reaches the rest
    through narrow ports (see :mod:`.ports`): the journal (``store``), the
    host manager (``hosts``, which it changes), the preemption
    ``strategy`` (what becomes of a victim), ``compute``, ``events``,
    ``scheduling``, ``requeue`` and ``requests``. The executor it hands
    spawns and confirmations to is set with :meth:`attach`.
    """

    def __init__(self, store, hosts, strategy, compute, events, scheduling,
                 requeue, requests):
        self.store = store
        self.hosts = hosts
        self.strategy = strategy
        self.compute = compute
        self.events = events
        self.scheduling = scheduling
        self._requeue = requeue
        self.requests = requests
        self.executor = None
        #: instance id -> (final state, reason) of the instances whose
        #: termination the loop asked for on its own account (request
        #: deleted, or failed as a whole)
        self.deleting = {}

    def attach(self, executor):
        """The :class:`~.executor.DecisionExecutor` of the same loop."""
        self.executor = executor

    def _now(self):
        return self.scheduling.now()

    def row(self, instance_id):
        """The instance's row, or None if the store never heard of it."""
        try:
            return self.store.get_instance(instance_id)
        except db_errors.NotFound:
            return None

    @property
    def requeue_victims(self):
        return self.strategy.on_victim == 'requeue'

    def victim_final_state(self):
        return 'preempted' if self.requeue_victims else 'terminated'

    # -- reports that do not apply -----------------------------------------

    def _placed_row(self, event, host, instance_id, at, boot,
                    states_=reconciliation.ON_HOST_STATES):
        """The instance's row if a report of ``event`` on ``host`` at
        ``at`` about ``boot`` applies to it now (it is placed there, in one
        of ``states_``, by that boot, before ``at``); else None, the report
        recorded as ignored.
        """
        row = self.row(instance_id)
        stale = None
        if row is not None and row.host == host and row.state in states_:
            stale = _stale(at, boot, row)
            if stale is None:
                return row
        self.ignore(event, host, instance_id, row, stale)
        return None

    # -- hooks of the executor -------------------------------------------

    def on_journaled(self, entry, selection, decision_id):
        row = self.store.get_instance(selection.instance.id)
        now = self._now()
        self.store.update_instance(
            row.id, at=now,
            pending_s=max(0.0, now - row.created_at - row.running_s -
                          row.overhead_s))
        self.events.notify('instance.placement', {
            'request_id': entry.id, 'instance_id': selection.instance.id,
            'host': selection.host, 'terminate': selection.terminate,
            'decision_id': decision_id})

    def run_account(self, row, at):
        """``running_s`` and ``work_s`` of an instance whose current run
        (since ``started_at``, on ``host``) stops at ``at``.

        ``running_s`` adds the run's host seconds; ``work_s`` the work
        they did in reference seconds, the unit of a request's duration,
        as the driver converts them (``work_done``: the fake driver scales
        by the host's ``cpu_mhz`` over ``[fake_driver] reference_cpu_mhz``);
        a driver that does not, or an unknown speed: the host seconds.
        """
        if row.started_at is None:
            return {'running_s': row.running_s, 'work_s': row.work_s}
        seconds = max(0.0, at - row.started_at)
        work = self.compute.work_done(row.host, seconds)
        return {'running_s': row.running_s + seconds,
                'work_s': row.work_s + work}

    def instance_object(self, instance_id):
        return instance_from_row(self.store.get_instance(instance_id))

    # -- compute events ----------------------------------------------------

    def instance_started(self, host, instance_id, at, boot=None):
        row = self.row(instance_id)
        stale = None if row is None or row.host != host else \
            _stale(at, boot, row)
        if stale:
            # A boot of an earlier placement on the same host, reported
            # late: the compute side has moved on, so have we.
            self.ignore('instance_started', host, instance_id, row, stale)
            return
        if row is None or row.host != host or \
                row.state not in reconciliation.ON_HOST_STATES:
            self.stray(host, instance_id, row)
            return
        if row.state == 'running' or row.started_at is not None and \
                row.state == 'terminating':
            self.ignore('instance_started', host, instance_id, row)
            return
        self.executor.started(instance_id)
        overhead = max(0.0, at - (at if row.scheduled_at is None
                                  else row.scheduled_at))
        if row.state == 'terminating':
            # Chosen as a victim while it was building: it runs until its
            # termination is done, and that run counts.
            self.store.update_instance(instance_id, at=at, started_at=at,
                                       overhead_s=row.overhead_s + overhead)
            if instance_id in self.hosts.instance_hosts:
                self.hosts.mark_started(instance_id, at,
                                        row.overhead_s + overhead)
            return
        # Decision first: whoever sees the instance running (another
        # thread of the service) then sees its decision done.
        if row.decision_id is not None:
            self.store.set_decision_state(row.decision_id, 'done', at)
        self.store.update_instance(instance_id, at=at, state='running',
                                   started_at=at,
                                   overhead_s=row.overhead_s + overhead)
        if instance_id in self.hosts.instance_hosts:
            self.hosts.mark_started(instance_id, at,
                                    row.overhead_s + overhead)
        self.requests.mark_placed_if_complete(row.request_id, at)
        self.events.notify('instance.started', {'instance_id': instance_id,
                                                'host': host,
                                                'request_id': row.request_id})
        self.scheduling.request_pass()

    def instance_ended(self, host, instance_id, at, boot=None):
        row = self._placed_row('instance_ended', host, instance_id, at, boot)
        if row is None:
            return
        self.executor.settled(instance_id)
        self.deleting.pop(instance_id, None)
        self.finish(instance_id, 'ended', at)
        if row.state == 'terminating':
            # A victim that ended on its own before its termination: gone
            # all the same.
            self.executor.victim_gone(host, instance_id, at)
        self.scheduling.request_pass()

    def instance_terminated(self, host, instance_id, at, boot=None):
        row = self._placed_row('instance_terminated', host, instance_id, at,
                               boot)
        if row is None:
            return
        if row.state == 'terminating' and \
                self.executor.victim_gone(host, instance_id, at):
            pass
        elif instance_id in self.deleting:
            self.executor.settled(instance_id)
            state, reason = self.deleting.pop(instance_id)
            self.finish(instance_id, state, at, reason=reason)
        elif self.requeue_victims and row.state in ('building', 'running'):
            # A victim of a decision given up after its termination was
            # requested: it is gone all the same, and (on_victim =
            # requeue) it waits in the queue again like any victim.
            self.store.update_instance(instance_id, at=at,
                                       state='preempted', ended_at=at)
            self.on_victim_gone(instance_id, at)
        else:
            # The same, for good.
            self.finish(instance_id, 'terminated', at)
        self.scheduling.request_pass()

    def termination_failed(self, host, instance_id, at, reason, boot=None):
        row = self._placed_row('termination_failed', host, instance_id, at,
                               boot)
        if row is None:
            return
        if row.state == 'terminating' and \
                self.executor.on_termination_failed(host, instance_id,
                                                    reason):
            return
        # The deletion's deadline asks the host again later.
        LOG.warning('Termination of %s on %s failed: %s', instance_id,
                    host, reason)

    def instance_failed(self, host, instance_id, at, reason, boot=None):
        row = self._placed_row('instance_failed', host, instance_id, at,
                               boot)
        if row is None:
            return
        self.executor.settled(instance_id)
        self.events.notify('instance.failed', {
            'instance_id': instance_id, 'host': host, 'reason': reason,
            'request_id': row.request_id})
        if row.state == 'terminating':
            # A victim that crashed: gone all the same.
            self.finish(instance_id, 'error', at, reason=reason)
            self.executor.victim_gone(host, instance_id, at)
            self.scheduling.request_pass()
            return
        if row.decision_id is not None and row.state == 'building':
            self.store.set_decision_state(row.decision_id, 'failed', at,
                                          reason=reason)
        attempts = self.store.increment_attempts(row.request_id)
        if row.state != 'building' or instance_id in self.deleting:
            state, own_reason = self.deleting.pop(instance_id,
                                                  ('error', None))
            self.finish(instance_id, state, at, reason=own_reason or reason)
            self.scheduling.request_pass()
            return
        # Spawn failed: try another placement (J2 gives up past
        # max_attempts).
        if instance_id in self.hosts.instance_hosts:
            self.hosts.remove_instance(instance_id)
        overhead = row.overhead_s + max(
            0.0, at - (at if row.scheduled_at is None else row.scheduled_at))
        self.store.update_instance(instance_id, at=at, state='pending',
                                   host=None, decision_id=None,
                                   overhead_s=overhead)
        if self.store.get_request(row.request_id).status == 'placed':
            self.store.set_request_status(row.request_id, 'pending', at)
        self.requeue(instance_id, at, attempts, reason)

    # -- bookkeeping -------------------------------------------------------

    def finish(self, instance_id, state, at, reason=None, release=True):
        """Move an active instance to a final ``state``."""
        row = self.row(instance_id)
        if row is None or row.state not in ACTIVE_STATES:
            return
        if row.state == 'pending' and row.decision_id is not None:
            # Claimed, its victims not all gone: they run on.
            self.abandon(self.store.get_decision(row.decision_id),
                         reason or state, requeue=False)
            row = self.store.get_instance(instance_id)
        fields = {'state': state, 'ended_at': at}
        if row.state in ('running', 'terminating'):
            fields.update(self.run_account(row, at))
        if reason:
            fields['reason'] = reason
        self.store.update_instance(instance_id, at=at, **fields)
        if release and instance_id in self.hosts.instance_hosts:
            self.hosts.remove_instance(instance_id)
        self.requests.instance_finished(row.request_id, state)
        if state in ('ended', 'deleted'):
            self.events.notify('instance.%s' % state, {
                'instance_id': instance_id, 'host': row.host,
                'request_id': row.request_id})
        if row.decision_id is not None:
            decision = self.store.get_decision(row.decision_id)
            if decision is not None and decision.state in ('journaled',
                                                           'terminating',
                                                           'spawning'):
                self.store.set_decision_state(decision.id, 'failed', at,
                                              reason=reason or state)
                self.executor.forget(decision.id)
