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

"""Start-up: rebuild the in-memory state from the journal and finish what a
crash left open.

The store is the durable truth; the host manager is rebuilt from it. An
instance the journal shows building or running whose host does not report
it is lost; a decision the journal shows unfinished is completed or rolled
back after asking the compute side what really happened: a victim that is
gone is confirmed (never terminated again), one still there is terminated,
an instance already spawned is not spawned twice.
"""

import dataclasses
import functools
import logging

from preemptible_sched import clock as clock_mod
from preemptible_sched.loop import lifecycle

LOG = logging.getLogger(__name__)


class Recovery:
    """Rebuilds the loop's state from the journal at start-up.

    It reads and writes the journal (``store``), fills the host manager
    (``hosts``) and the pending ``queue``, asks the hosts through
    ``compute``, and finishes open decisions through the loop's
    ``lifecycle`` and ``executor``; ``scheduling`` and ``requests`` are the
    ports of :mod:`.ports`. :meth:`run` does it all, in order.
    """

    def __init__(self, store, hosts, queue, compute, scheduling, requests,
                 lifecycle, executor):
        self.store = store
        self.hosts = hosts
        self.queue = queue
        self.compute = compute
        self.scheduling = scheduling
        self.requests = requests
        self.lifecycle = lifecycle
        self.executor = executor

    def run(self):
        """Load the durable state and recover what a crash left open."""
        now = self.scheduling.now()
        self.load_hosts(now)
        unaccounted = self.load_instances(now)
        self.load_pending()
        self.recover_decisions()
        self.mark_placed(now)
        self.resume_deletions()
        # After the reports held while the loop was down (the rpc driver
        # delivers them as soon as the loop runs): an instance that ended
        # meanwhile is ended, not lost.
        self.scheduling.call_later(0, self.settle_unaccounted, unaccounted,
                                   priority=clock_mod.LATE)

    def load_hosts(self, now):
        for host in self.compute.host_specs():
            self.store.save_host(host, now)
            if host.name not in self.hosts.host_states:
                self.hosts.add_host(host)

    def load_instances(self, now):
        """Every active instance the journal places on a host, back on it.

        Returns the ids of the instances the journal shows building or
        running that their host, asked, does not report: they ended or were
        lost while the scheduler was down (see :meth:`settle_unaccounted`).
        The instances of a host that cannot be asked (down, its agent not
        registered yet) are kept as they are: the host is reconciled when it
        comes back.
        """
        store = self.store
        hosts = self.hosts
        open_spawns = {decision.instance_id
                       for decision in store.unfinished_decisions()}
        reports = {}
        unaccounted = []
        for row in store.list_instances(states=lifecycle.ACTIVE_STATES):
            if row.host is None:
                continue
            if row.host not in hosts.host_states:
                self.lifecycle.finish(row.id, 'error', now,
                                      reason='host %s is unknown' % row.host,
                                      release=False)
                continue
            if row.state in ('building', 'running') and \
                    row.id not in open_spawns:
                if row.host not in reports:
                    reports[row.host] = self.compute.instances_on(row.host)
                present = reports[row.host]
                if present is not None and row.id not in present:
                    unaccounted.append(row.id)
            instance = lifecycle.instance_from_row(row)
            if row.state == 'terminating' and row.terminated_by is not None:
                # A victim whose termination the crash interrupted: its room
                # stays reserved until recovery confirms it gone.
                decision = store.get_decision(row.terminated_by)
                hosts.hold_victim(row.host, instance, decision.request_id)
                continue
            hosts.add_instance(row.host, instance)
        return unaccounted

    def settle_unaccounted(self, instance_ids):
        """Instances their host did not report at start-up, and that no report
        since has ended: lost while the scheduler was down.
        """
        now = self.scheduling.now()
        for instance_id in instance_ids:
            row = self.lifecycle.row(instance_id)
            if row is None or row.state not in ('building', 'running'):
                continue
            present = self.compute.instances_on(row.host)
            if present is not None and instance_id in present:
                continue
            self.lifecycle.gone(row.host, instance_id, functools.partial(
                self.lifecycle.finish, instance_id, 'error', now,
                reason='lost while the scheduler was down'))
        self.scheduling.request_pass()

    def resume_deletions(self):
        """Terminate again what a deleted or failed request still runs (the
        termination a crash interrupted).
        """
        final = {}
        for row in self.store.list_instances(states=('building', 'running')):
            if row.request_id not in final:
                final[row.request_id] = self.store.get_request(
                    row.request_id).status
            status = final[row.request_id]
            if status == 'deleted':
                self.executor.terminate_own(row.host, row.id, 'deleted')
            elif status == 'failed':
                self.executor.terminate_own(
                    row.host, row.id, 'error',
                    'request %s failed' % row.request_id)

    def load_pending(self):
        """Every instance still waiting for a host, back in the queue.

        Preempted instances wait alone, with their own accounts; the fresh
        instances of a request wait together (all or nothing). An instance of
        a request whose other instances are placed (its spawn failed, say)
        waits too.
        """
        store = self.store
        waiting = {}
        for row in store.list_instances(states=('pending',)):
            if row.host is None:
                waiting.setdefault(row.request_id, []).append(row)
        for request_id, rows in waiting.items():
            request = store.get_request(request_id)
            if request.status not in ('pending', 'placed'):
                continue
            spec = request.request_spec()
            fresh = [row.id for row in rows if not row.preemptions]
            for row in rows:
                if row.preemptions:
                    self.queue.add(dataclasses.replace(
                        spec, num_instances=1, instance_ids=(row.id,)),
                        request.submitted_at, request.duration_s,
                        request.attempts, row.running_s,
                        row.overhead_s, preempted=True, work_s=row.work_s)
            if fresh:
                self.queue.add(dataclasses.replace(
                    spec, num_instances=len(fresh), instance_ids=tuple(fresh)),
                    request.submitted_at, request.duration_s,
                    request.attempts)

    def mark_placed(self, now):
        """Requests none of whose instances waits for a host are placed (a
        crash right after the journal may have left one pending).
        """
        for request in self.store.list_requests(status='pending'):
            self.requests.mark_placed_if_complete(request.id, now)

    def recover_decisions(self):
        """Complete or roll back every decision the journal left open."""
        store = self.store
        executor = self.executor
        for decision in store.unfinished_decisions():
            row = store.get_instance(decision.instance_id)
            if row.decision_id != decision.id or \
                    row.state not in ('pending', 'building'):
                # Its instance moved on (displaced while building, say): the
                # decision has nothing left to do; its victims run on.
                reason = 'instance %s is %s' % (row.id, row.state)
                if decision.unconfirmed:
                    self.lifecycle.abandon(decision, reason, requeue=False)
                else:
                    store.set_decision_state(decision.id, 'failed',
                                             self.scheduling.now(),
                                             reason=reason)
                continue
            present = self.compute.instances_on(decision.host)
            if present is None and decision.state == 'spawning' and \
                    decision.host in self.hosts.host_states:
                # Spawned on a host that cannot be asked now: its deadline
                # asks again, and the host is reconciled when it is back.
                executor.watch_spawn(decision.instance_id)
                continue
            if present is None:
                executor.roll_back(decision.id,
                                   'host %s is gone' % decision.host)
                continue
            confirmed = set(decision.confirmed or ())
            remaining = set()
            for victim_id in decision.victims:
                if victim_id in confirmed:
                    continue
                if victim_id in present:
                    remaining.add(victim_id)
                    continue
                record = self.lifecycle.finished_record(decision.host,
                                                        victim_id)
                if record is not None and record.state != 'terminated':
                    # It ended (or crashed) on its own before its termination:
                    # so it is recorded, and it is not run again.
                    self.lifecycle.finish(
                        victim_id, 'ended' if record.state == 'ended'
                        else 'error', record.ended_at, reason=record.reason,
                        release=False)
                # Terminated before the crash, or ended by itself; only the
                # report was lost. Record it, never terminate again.
                executor.confirm(decision.id, victim_id,
                                 None if record is None else record.ended_at)
            LOG.info('Recovering decision %s (%s): %d victim(s) left',
                     decision.id, decision.state, len(remaining))
            if remaining:
                executor.waiting[decision.id] = remaining
            executor.borrow(decision.id, decision.host, decision.request_id,
                            decision.victims)
            if remaining:
                executor.terminate(decision.id)
            elif decision.instance_id in present:
                store.set_decision_state(decision.id, 'spawning',
                                         self.scheduling.now())
                self.lifecycle.on_recovered_spawn(
                    decision, present[decision.instance_id])
            elif decision.id in executor.borrowed:
                pass        # spawned once the room it shares is free
            elif decision.state == 'spawning':
                # Spawned before the crash and not on its host: it failed, or
                # ran and ended meanwhile, or its spawn is still on its way.
                # The reports held while the loop was down, then the host's
                # memory, say which; else its deadline settles it (placed
                # again if it never ran), never spawned twice blindly.
                self.scheduling.call_later(
                    0, executor.settle_spawn, decision.instance_id,
                    priority=clock_mod.LATE)
            else:
                executor.spawn(decision.id)
