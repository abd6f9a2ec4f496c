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

"""Decisions given up, and instances sent back to the queue.

Part of the instance lifecycle (:mod:`.lifecycle`). A decision given up
(its victims not all terminated, its host gone or unreachable, its request
deleted or failed) is rolled back: its instance leaves the host it
claimed and waits again, victims not confirmed gone run on. A victim whose
termination is confirmed adds its run to its account and, with
``on_victim = requeue``, waits in the queue again. An instance goes back
to the queue with its account (running time, overhead) as the journal
holds it.
"""

import dataclasses


class Rollback:
    """Rolling back and requeueing, mixed into the loop's
    :class:`~preemptible_sched.loop.lifecycle.Lifecycle`, whose journal
    (``store``), host manager (``hosts``), executor and ports it uses.
    """

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
            request.submitted_at, request.duration_s, attempts,
            row.running_s, row.overhead_s, reason, preempted,
            work_s=row.work_s)

    # -- decisions given up and victims gone ---------------------------------

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
        # The journal unclaims the instance only if it still waited for
        # this decision (pending or building); one that moved on (ended
        # behind the decision's back) keeps it, and is not queued again.
        unclaimed = self.store.get_instance(
            decision.instance_id).decision_id is None
        self.on_rolled_back(decision, reason, requeue and unclaimed)
        # Decisions of the same request placed in the room these victims
        # would have freed: it stays taken.
        for other in self.executor.borrowers_of(unconfirmed):
            self.abandon(self.store.get_decision(other),
                         'the room it waited for on %s stays taken (%s)'
                         % (decision.host, reason), requeue)

    def on_rolled_back(self, decision, reason, requeue=True):
        """The decision is undone in the store: mirror it in memory, and
        queue its instance again if ``requeue``.
        """
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
