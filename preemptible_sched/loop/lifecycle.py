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

Lifecycle of an instance (its ``state`` in the database)::

    pending --journal--> pending on a host --spawn--> building --> running
    running --> ended | terminated | preempted | error | deleted
    preempted --requeue--> pending (same instance, its QoS account kept)

An instance displaced for another request is ``terminated`` for good or
``preempted`` and queued again, as the preemption strategy's ``on_victim``
says; a requeued instance keeps its admission time, running time and
allocation overhead, counts one more preemption and, when its request has
a duration (simulation, the fake driver), runs only what is left of it.
"""

import dataclasses
import logging

from preemptible_sched.db import api as db_api
from preemptible_sched import objects

LOG = logging.getLogger(__name__)

ACTIVE_STATES = ('pending', 'building', 'running', 'terminating')


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
        admitted_at=row.created_at, running_s=row.running_s,
        overhead_s=row.overhead_s,
        running_since=row.started_at if row.state in (
            'running', 'terminating') else None)


class Lifecycle:
    """Compute events and the bookkeeping of instance states.

    It is the compute driver's ``events`` receiver for ``loop`` (a
    :class:`~preemptible_sched.loop.scheduler_loop.SchedulerLoop`); it
    changes hosts only through the loop's host manager.
    """

    def __init__(self, loop):
        self.loop = loop
        self.deleting = set()

    @property
    def store(self):
        return self.loop.store

    @property
    def hosts(self):
        return self.loop.host_manager

    def _now(self):
        return self.loop.clock.now()

    def row(self, instance_id):
        """The instance's row, or None if the store never heard of it."""
        try:
            return self.store.get_instance(instance_id)
        except db_api.NotFound:
            return None

    @property
    def requeue_victims(self):
        return self.loop.scheduler.strategy.on_victim == 'requeue'

    def victim_final_state(self):
        return 'preempted' if self.requeue_victims else 'terminated'

    # -- back to the queue -------------------------------------------------

    def requeue(self, instance_id, at, attempts, reason=None,
                preempted=False):
        """Queue one instance of its request again (after a preemption, a
        failed spawn or a rolled-back decision); the next pass admits it,
        or fails it past ``[scheduler] max_attempts``. Its account (running
        time, overhead) is the one the store holds.
        """
        row = self.store.get_instance(instance_id)
        request = self.store.get_request(row.request_id)
        spec = request.request_spec()
        entry = self.loop.queue.add(
            dataclasses.replace(spec, num_instances=1,
                                instance_ids=(instance_id,)),
            request.submitted_at, request.duration_s, request.image,
            attempts, row.running_s, row.overhead_s, reason, preempted)
        self.loop.request_pass()
        return entry

    # -- hooks of the executor -------------------------------------------

    def on_journaled(self, entry, selection, decision_id):
        row = self.store.get_instance(selection.instance.id)
        now = self._now()
        self.store.update_instance(
            row.id, at=now,
            pending_s=max(0.0, now - row.created_at - row.running_s -
                          row.overhead_s))
        self.loop.notify('instance.placement', {
            'request_id': entry.id, 'instance_id': selection.instance.id,
            'host': selection.host, 'terminate': selection.terminate,
            'decision_id': decision_id})

    def abandon(self, decision, reason, requeue=True):
        """Give up an unfinished decision; unconfirmed victims keep running.

        A victim whose termination was already requested may still go: its
        ``instance_terminated`` then finishes it like any other.
        """
        if decision.state not in ('journaled', 'terminating', 'spawning'):
            return
        self.loop.executor.forget(decision.id)
        self.store.roll_back_decision(decision.id, self._now(), reason)
        self.on_rolled_back(decision, reason, requeue)

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
        if self.store.get_request(decision.request_id).status == 'deleted':
            # Rolled back while its deletion was under way: it is deleted,
            # not waiting for a host.
            self.finish(decision.instance_id, 'deleted', now, release=False)
            return
        self.requeue(decision.instance_id, now, attempts, reason)

    def on_victim_gone(self, instance_id, at):
        """A victim's termination is confirmed (live or on recovery).

        Its run so far is added to its running time and it counts one more
        preemption; with ``on_victim = requeue`` it waits in the queue
        again (same instance, same request, its account kept).
        """
        if instance_id in self.hosts.instance_hosts:
            self.hosts.remove_instance(instance_id)     # its room is free
        row = self.store.get_instance(instance_id)
        running = row.running_s
        if row.started_at is not None:
            running += max(0.0, at - row.started_at)
        if row.state != self.victim_final_state():
            # It ended by itself before the termination was confirmed.
            return
        if not self.requeue_victims:
            self.store.update_instance(instance_id, at=at, running_s=running,
                                       preemptions=row.preemptions + 1)
            return
        self.store.update_instance(
            instance_id, at=at, state='pending', host=None,
            decision_id=None, terminated_by=None, scheduled_at=None,
            started_at=None, ended_at=None, running_s=running,
            preemptions=row.preemptions + 1)
        self.store.set_request_status(row.request_id, 'pending', at)
        request = self.store.get_request(row.request_id)
        self.requeue(instance_id, at, request.attempts, preempted=True)
        self.loop.notify('instance.preempted', {
            'instance_id': instance_id, 'request_id': row.request_id,
            'host': row.host})

    def on_recovered_spawn(self, decision, report):
        if report.state == 'running':
            self.instance_started(decision.host, decision.instance_id,
                                  report.started_at or self._now())

    def instance_object(self, instance_id):
        return instance_from_row(self.store.get_instance(instance_id))

    # -- compute events ----------------------------------------------------

    def instance_started(self, host, instance_id, at):
        row = self.row(instance_id)
        if row is None or row.state not in ('building', 'pending'):
            return
        overhead = max(0.0, at - (at if row.scheduled_at is None
                                  else row.scheduled_at))
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
        self.loop.mark_placed_if_complete(row.request_id, at)
        self.loop.notify('instance.started', {'instance_id': instance_id,
                                              'host': host,
                                              'request_id': row.request_id})
        self.loop.request_pass()

    def instance_ended(self, host, instance_id, at):
        self.finish(instance_id, 'ended', at)
        self.loop.request_pass()

    def instance_terminated(self, host, instance_id, at):
        if self.loop.executor.on_terminated(host, instance_id):
            pass
        elif instance_id in self.deleting:
            self.deleting.discard(instance_id)
            self.finish(instance_id, 'deleted', at)
        else:
            # A victim of a decision given up after its termination was
            # requested: it is gone all the same.
            self.finish(instance_id, 'terminated', at)
        self.loop.request_pass()

    def termination_failed(self, host, instance_id, at, reason):
        if not self.loop.executor.on_termination_failed(host, instance_id,
                                                        reason):
            self.deleting.discard(instance_id)
            LOG.warning('Termination of %s on %s failed: %s', instance_id,
                        host, reason)

    def instance_failed(self, host, instance_id, at, reason):
        row = self.row(instance_id)
        if row is None:
            return
        self.loop.notify('instance.failed', {
            'instance_id': instance_id, 'host': host, 'reason': reason,
            'request_id': row.request_id})
        if row.decision_id is not None and row.state in ('building',
                                                         'pending'):
            self.store.set_decision_state(row.decision_id, 'failed', at,
                                          reason=reason)
        attempts = self.store.increment_attempts(row.request_id)
        if row.state != 'building':
            self.finish(instance_id, 'error', at, reason=reason)
            self.loop.request_pass()
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
        self.store.set_request_status(row.request_id, 'pending', at)
        self.requeue(instance_id, at, attempts, reason)

    def host_down(self, host, at):
        if not self.hosts.set_up(host, False):
            return
        state = self.hosts.host_states[host]
        self.store.set_host_up(host, False, at)
        self.loop.notify('host.down', {'host': host})
        for decision in self.store.unfinished_decisions():
            if decision.host == host:
                self.abandon(decision, 'host %s went down' % host)
        for instance_id in list(state.instances):
            self.finish(instance_id, 'error', at,
                        reason='host %s went down' % host)
        self.loop.request_pass()

    def host_added(self, host, at):
        """A compute host joined while the loop runs: schedule on it."""
        if host.name in self.hosts.host_states:
            return
        self.store.save_host(host, at)
        self.hosts.add_host(host)
        self.loop.request_pass()

    def host_up(self, host, at):
        if not self.hosts.set_up(host, True):
            return
        self.store.set_host_up(host, True, at)
        self.loop.notify('host.up', {'host': host})
        self.loop.request_pass()

    # -- bookkeeping -------------------------------------------------------

    def finish(self, instance_id, state, at, reason=None, release=True):
        """Move an active instance to a final ``state``."""
        row = self.row(instance_id)
        if row is None or row.state not in ACTIVE_STATES:
            return
        fields = {'state': state, 'ended_at': at}
        if row.state in ('running', 'terminating') and \
                row.started_at is not None:
            fields['running_s'] = row.running_s + max(0.0,
                                                      at - row.started_at)
        if reason:
            fields['reason'] = reason
        self.store.update_instance(instance_id, at=at, **fields)
        if release and instance_id in self.hosts.instance_hosts:
            self.hosts.remove_instance(instance_id)
        if state in ('ended', 'deleted'):
            self.loop.notify('instance.%s' % state, {
                'instance_id': instance_id, 'host': row.host,
                'request_id': row.request_id})
        if row.decision_id is not None:
            decision = self.store.get_decision(row.decision_id)
            if decision is not None and decision.state in ('journaled',
                                                           'terminating',
                                                           'spawning'):
                self.store.set_decision_state(decision.id, 'failed', at,
                                              reason=reason or state)
                self.loop.executor.forget(decision.id)
