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

"""The events of hosts: a host down, unreachable, added or back up.

Part of the instance lifecycle (:mod:`.lifecycle`): the compute driver
reports them to its ``events`` receiver, the
:class:`~preemptible_sched.loop.lifecycle.Lifecycle`, like the events of
instances. A host that goes down loses its instances (the copies of an SLA
request are queued again, see :meth:`HostEvents.copy_lost`); one that
stops answering keeps them until it is back, when it is reconciled
(:mod:`.reconciliation`); a host added while the loop runs is scheduled on.
"""


class HostEvents:
    """The events of hosts, mixed into the loop's
    :class:`~preemptible_sched.loop.lifecycle.Lifecycle`, whose journal
    (``store``), host manager (``hosts``) and ports it uses.
    """

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
