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
"""

import dataclasses
import logging

from preemptible_sched.db import api as db_api
from preemptible_sched.db import states
from preemptible_sched import objects

LOG = logging.getLogger(__name__)

ACTIVE_STATES = states.ACTIVE_STATES

#: States in which an instance is expected to exist on its host.
ON_HOST_STATES = ('building', 'running', 'terminating')


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


def reported_time(row, when, default, boot):
    """A time a host reported about the instance (``when``, or
    ``default`` if it gave none), on our clock.

    Times in a host's answers are moved from its clock to ours by an offset
    measured over a call (its latency and the clocks' speed-up make it
    approximate), so one can land before the placement it is about. When
    the answer names the instance's current boot, that already tells it is
    about this placement: the time is taken as no earlier than the
    placement (else it would look stale and be ignored).
    """
    if when is None:
        when = default
    if row is not None and boot is not None and boot == row.decision_id \
            and row.scheduled_at is not None:
        when = max(when, row.scheduled_at)
    return when


class Lifecycle:
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
        except db_api.NotFound:
            return None

    @property
    def requeue_victims(self):
        return self.strategy.on_victim == 'requeue'

    def victim_final_state(self):
        return 'preempted' if self.requeue_victims else 'terminated'

    # -- reports that do not apply -----------------------------------------

    def _placed_row(self, event, host, instance_id, at, boot,
                    states_=ON_HOST_STATES):
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

    def ignore(self, event, host, instance_id, row, why=None):
        """Record a late, duplicate or misrouted report; change nothing."""
        where = 'unknown' if row is None else '%s on %s' % (row.state,
                                                            row.host)
        LOG.info('Ignoring %s of instance %s on %s: %s', event, instance_id,
                 host, why or 'it is %s' % where)
        self.events.notify('instance.report_ignored', {
            'instance_id': instance_id, 'host': host, 'event': event,
            'state': None if row is None else row.state,
            'placed_on': None if row is None else row.host,
            'request_id': None if row is None else row.request_id,
            'why': why})

    def stray(self, host, instance_id, row):
        """``host`` runs an instance the scheduler does not expect there:
        terminate it (its answer is then a report that does not apply).
        """
        LOG.warning('Host %s runs instance %s, which is %s: terminating '
                    'it', host, instance_id,
                    'unknown' if row is None else '%s on %s' % (row.state,
                                                                row.host))
        self.events.notify('instance.stray', {
            'instance_id': instance_id, 'host': host,
            'state': None if row is None else row.state,
            'placed_on': None if row is None else row.host,
            'request_id': None if row is None else row.request_id})
        self.compute.terminate(host, instance_id)

    # -- back to the queue -------------------------------------------------

    def requeue(self, instance_id, at, attempts, reason=None,
                preempted=False):
        """Queue one instance of its request again (after a preemption, a
        failed spawn or a rolled-back decision); the next pass admits it,
        or fails it past ``[scheduler] max_attempts``. Its account (running
        time, overhead) is the one the store holds. An instance of a
        request deleted or failed meanwhile ends instead (None).
        """
        row = self.store.get_instance(instance_id)
        request = self.store.get_request(row.request_id)
        if request.status in ('deleted', 'failed'):
            self.finish(instance_id, 'deleted' if request.status ==
                        'deleted' else 'error', at,
                        reason=request.reason, release=False)
            return None
        spec = request.request_spec()
        return self._requeue.add(
            dataclasses.replace(spec, num_instances=1,
                                instance_ids=(instance_id,)),
            request.submitted_at, request.duration_s, request.image,
            attempts, row.running_s, row.overhead_s, reason, preempted,
            work_s=row.work_s)

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

    def abandon(self, decision, reason, requeue=True):
        """Give up an unfinished decision; unconfirmed victims keep running.

        A victim whose termination was already requested may still go: its
        ``instance_terminated`` then finishes it like any other.
        """
        # As it is now: ``decision`` may be a snapshot taken before another
        # abandon (of a decision borrowing from it, say) closed it.
        decision = self.store.get_decision(decision.id)
        if decision.state not in ('journaled', 'terminating', 'spawning'):
            return
        unconfirmed = self.executor.forget(decision.id)
        self.store.roll_back_decision(decision.id, self._now(), reason)
        self.on_rolled_back(decision, reason, requeue)
        # Decisions of the same request placed in the room these victims
        # would have freed: it stays taken.
        for other in self.executor.borrowers_of(unconfirmed):
            self.abandon(self.store.get_decision(other),
                         'the room it waited for on %s stays taken (%s)'
                         % (decision.host, reason), requeue)

    def on_rolled_back(self, decision, reason, requeue=True):
        """The decision is undone in the store: mirror it in memory."""
        now = self._now()
        confirmed = set(self.store.get_decision(decision.id).confirmed or ())
        if decision.instance_id in self.hosts.instance_hosts:
            self.hosts.remove_instance(decision.instance_id)
        host = self.hosts.host_states.get(decision.host)
        for victim_id in decision.victims:
            if victim_id in confirmed or self.hosts.release_hold(victim_id) \
                    or victim_id in self.hosts.instance_hosts:
                continue
            if host is None or not host.up:
                self.finish(victim_id, 'error', now, release=False,
                            reason='host %s is gone' % decision.host)
            else:
                self.hosts.add_instance(
                    decision.host, self.instance_object(victim_id))
        if not requeue:
            return
        attempts = self.store.increment_attempts(decision.request_id)
        self.requeue(decision.instance_id, now, attempts, reason)

    def on_victim_gone(self, instance_id, at):
        """A victim's termination is confirmed (live or on recovery).

        Its run so far is added to its running time and it counts one more
        preemption; with ``on_victim = requeue`` it waits in the queue
        again (same instance, same request, its account kept), unless its
        request was deleted or failed meanwhile.
        """
        if instance_id in self.hosts.instance_hosts:
            self.hosts.remove_instance(instance_id)     # its room is free
        row = self.store.get_instance(instance_id)
        if row.state != self.victim_final_state():
            # It ended by itself before the termination was confirmed.
            return
        account = self.run_account(row, at)
        if not self.requeue_victims:
            self.store.update_instance(instance_id, at=at,
                                       preemptions=row.preemptions + 1,
                                       **account)
            return
        request = self.store.get_request(row.request_id)
        if request.status in ('deleted', 'failed'):
            self.store.update_instance(
                instance_id, at=at, preemptions=row.preemptions + 1,
                state='deleted' if request.status == 'deleted' else 'error',
                reason=request.reason, **account)
            return
        self.store.update_instance(
            instance_id, at=at, state='pending', host=None,
            decision_id=None, terminated_by=None, scheduled_at=None,
            started_at=None, ended_at=None,
            preemptions=row.preemptions + 1, **account)
        self.store.set_request_status(row.request_id, 'pending', at)
        self.requeue(instance_id, at, request.attempts, preempted=True)
        self.events.notify('instance.preempted', {
            'instance_id': instance_id, 'request_id': row.request_id,
            'host': row.host})

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

    # -- instances gone from their host -------------------------------------

    def finished_record(self, host, instance_id, records=None):
        """How ``host`` remembers the instance's current placement there
        finishing (an :class:`~preemptible_sched.objects.InstanceReport`),
        or None: asked when the instance is expected on ``host`` but not
        there, and its report was lost or is late. ``records``, when
        given, is what the host was just asked (``compute.finished_on``).
        """
        row = self.row(instance_id)
        if row is None or row.host != host:
            return None
        if records is None:
            records = self.compute.finished_on(host)
        record = records.get(instance_id)
        if record is None or record.boot is not None and \
                row.decision_id is not None and \
                record.boot != row.decision_id:
            return None         # an earlier boot's
        return record

    def replay(self, host, record):
        """Apply a finished instance's record as the reports it stands for
        (start, then end, failure or termination), through the same checks
        as live reports.
        """
        row = self.row(record.id)
        LOG.info('Instance %s is no longer on %s; it %s at %s (its report '
                 'was lost or is late)', record.id, host, record.state,
                 record.ended_at)
        ended = reported_time(row, record.ended_at, self._now(), record.boot)
        if record.started_at is not None and row is not None and (
                row.state == 'building' or row.state == 'terminating' and
                row.started_at is None):
            self.instance_started(
                host, record.id,
                min(reported_time(row, record.started_at, ended,
                                  record.boot), ended),
                boot=record.boot)
        if record.state == 'ended':
            self.instance_ended(host, record.id, ended, boot=record.boot)
        elif record.state == 'failed':
            self.instance_failed(host, record.id, ended,
                                 record.reason or 'failed on %s' % host,
                                 boot=record.boot)
        else:
            self.instance_terminated(host, record.id, ended,
                                     boot=record.boot)

    def gone(self, host, instance_id, otherwise):
        """The instance is expected on ``host`` and is not there: replay
        how the host remembers it finishing, or else call ``otherwise()``.
        """
        record = self.finished_record(host, instance_id)
        if record is None:
            otherwise()
        else:
            self.replay(host, record)

    def on_recovered_spawn(self, decision, report):
        """Recovery found the decision's instance on its host."""
        if report.state == 'running':
            self.instance_started(
                decision.host, decision.instance_id, reported_time(
                    self.row(decision.instance_id), report.started_at,
                    self._now(), report.boot))
        else:
            self.executor.watch_spawn(decision.instance_id)

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
                row.state not in ON_HOST_STATES:
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
            self.executor.victim_gone(host, instance_id)
        self.scheduling.request_pass()

    def instance_terminated(self, host, instance_id, at, boot=None):
        row = self._placed_row('instance_terminated', host, instance_id, at,
                               boot)
        if row is None:
            return
        if row.state == 'terminating' and \
                self.executor.victim_gone(host, instance_id):
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
            self.executor.victim_gone(host, instance_id)
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

    def host_down(self, host, at):
        """The host failed: its instances are lost."""
        if not self.hosts.set_up(host, False):
            return
        state = self.hosts.host_states[host]
        self.store.set_host_up(host, False, at)
        self.events.notify('host.down', {'host': host})
        for decision in self.store.unfinished_decisions():
            if decision.host == host:
                self.abandon(decision, 'host %s went down' % host)
        for instance_id in list(state.instances):
            if self.deleting.pop(instance_id, None) is None and \
                    self.copy_lost(host, instance_id, at):
                continue
            self.finish(instance_id, 'error', at,
                        reason='host %s went down' % host)
        self.scheduling.request_pass()

    def copy_lost(self, host, instance_id, at):
        """A copy of an SLA request was lost with ``host``: report it
        (``instance.copy_lost``) and queue it again, to be re-created on
        another host of its category, distinct from its other copies, with
        the cores it had; its request is served meanwhile by the copies
        still running. False (nothing done) for any other instance.
        """
        row = self.row(instance_id)
        if row is None or row.state not in ('building', 'running'):
            return False
        request = self.store.get_request(row.request_id)
        if request.status not in ('pending', 'placed') or \
                request.request_spec().sla is None:
            return False
        reason = 'copy lost: host %s went down' % host
        # Through ``preempted``, the way back to the queue the instance
        # state machine allows; its run so far stays in its account.
        self.finish(instance_id, 'preempted', at, reason=reason)
        self.store.update_instance(
            instance_id, at=at, state='pending', host=None,
            decision_id=None, scheduled_at=None, started_at=None,
            ended_at=None)
        self.store.set_request_status(row.request_id, 'pending', at)
        self.requeue(instance_id, at, request.attempts, reason=reason,
                     preempted=True)
        self.events.notify('instance.copy_lost', {
            'instance_id': instance_id, 'request_id': row.request_id,
            'host': host})
        return True

    def host_unreachable(self, host, at):
        """The host's agent stopped answering: no new instances there,
        decisions not spawned yet are rolled back (their victims are asked
        about when it is back); its instances are kept as they are.
        """
        state = self.hosts.host_states.get(host)
        if state is None or not state.up:
            return
        self.hosts.set_up(host, False)
        self.store.set_host_up(host, False, at)
        self.events.notify('host.unreachable', {'host': host})
        for decision in self.store.unfinished_decisions():
            if decision.host == host and decision.state != 'spawning':
                self.abandon(decision, 'host %s is unreachable' % host)
        self.scheduling.request_pass()

    def host_added(self, host, at):
        """A compute host joined while the loop runs: schedule on it."""
        if host.name in self.hosts.host_states:
            return
        self.store.save_host(host, at)
        self.hosts.add_host(host)
        self.scheduling.request_pass()

    def host_up(self, host, at):
        """The host is back: reconcile what it runs, then schedule on it."""
        state = self.hosts.host_states.get(host)
        if state is None or state.up:
            return
        self.hosts.set_up(host, True)
        self.store.set_host_up(host, True, at)
        self.events.notify('host.up', {'host': host})
        self.reconcile(host, at)
        self.scheduling.request_pass()

    def reconcile(self, host, at):
        """Make the store agree with what ``host`` runs now.

        What runs and is expected there runs on (a building instance that
        runs is started); what is expected but gone ends (a victim is
        confirmed, a deleted instance deleted, a spawn never done is
        placed again, anything else is lost); what runs but is not
        expected there is terminated.
        """
        present = self.compute.instances_on(host)
        if present is None:
            return
        records = None
        for row in self.store.list_instances(host=host,
                                             states=ON_HOST_STATES):
            report = present.pop(row.id, None)
            if report is not None:
                if row.state == 'building' and report.state == 'running':
                    self.instance_started(host, row.id, reported_time(
                        row, report.started_at, at, report.boot))
                continue
            if records is None:
                records = self.compute.finished_on(host)    # asked once
            record = self.finished_record(host, row.id, records)
            if record is not None:
                self.replay(host, record)
            elif row.state == 'terminating' and \
                    self.executor.victim_gone(host, row.id):
                continue
            elif row.id in self.deleting or row.state == 'terminating':
                self.instance_terminated(host, row.id, at)
            elif row.state == 'building':
                self.instance_failed(host, row.id, at,
                                     'not on host %s when it was asked'
                                     % host)
            else:
                self.finish(row.id, 'error', at,
                            reason='gone from host %s while it was '
                                   'unreachable' % host)
        for instance_id in sorted(present):
            self.stray(host, instance_id, self.row(instance_id))

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
