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
import logging

from preemptible_sched.loop import lifecycle

LOG = logging.getLogger(__name__)


def load_hosts(loop, now):
    for host in loop.driver.host_specs():
        loop.store.save_host(host, now)
        if host.name not in loop.host_manager.host_states:
            loop.host_manager.add_host(host)


def load_instances(loop, now):
    """Every active instance the journal places on a host, back on it."""
    store = loop.store
    hosts = loop.host_manager
    open_spawns = {decision.instance_id
                   for decision in store.unfinished_decisions()}
    reports = {}
    for row in store.list_instances(states=lifecycle.ACTIVE_STATES):
        if row.host is None:
            continue
        if row.host not in hosts.host_states:
            store.update_instance(row.id, at=now, state='error',
                                  reason='host %s is unknown' % row.host)
            continue
        if row.state in ('building', 'running') and \
                row.id not in open_spawns:
            if row.host not in reports:
                reports[row.host] = loop.instances_on(row.host) or {}
            if row.id not in reports[row.host]:
                loop.lifecycle.finish(
                    row.id, 'error', now,
                    reason='lost while the scheduler was down',
                    release=False)
                continue
        instance = lifecycle.instance_from_row(row)
        if row.state == 'terminating' and row.terminated_by is not None:
            # A victim whose termination the crash interrupted: its room
            # stays reserved until recovery confirms it gone.
            decision = store.get_decision(row.terminated_by)
            hosts.hold_victim(row.host, instance, decision.request_id)
            continue
        hosts.add_instance(row.host, instance)


def load_pending(loop):
    """Every instance still waiting for a host, back in the queue.

    Preempted instances wait alone, with their own accounts; the fresh
    instances of a request wait together (all or nothing).
    """
    store = loop.store
    for request in store.list_requests(status='pending'):
        rows = [row for row in store.list_instances(
            states=('pending',), request_id=request.id)
            if row.host is None]
        spec = request.request_spec()
        fresh = [row.id for row in rows if not row.preemptions]
        for row in rows:
            if row.preemptions:
                loop.queue.add(dataclasses.replace(
                    spec, num_instances=1, instance_ids=(row.id,)),
                    request.submitted_at, request.duration_s, request.image,
                    request.attempts, row.running_s, row.overhead_s,
                    preempted=True)
        if fresh:
            loop.queue.add(dataclasses.replace(
                spec, num_instances=len(fresh), instance_ids=tuple(fresh)),
                request.submitted_at, request.duration_s, request.image,
                request.attempts)


def recover_decisions(loop):
    """Complete or roll back every decision the journal left open."""
    store = loop.store
    executor = loop.executor
    for decision in store.unfinished_decisions():
        present = loop.instances_on(decision.host)
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
            else:
                # Terminated before the crash; only the confirmation was
                # lost. Record it, never terminate again.
                executor.confirm(decision.id, victim_id)
        LOG.info('Recovering decision %s (%s): %d victim(s) left',
                 decision.id, decision.state, len(remaining))
        if remaining:
            executor.waiting[decision.id] = remaining
            executor.terminate(decision.id)
        elif decision.instance_id in present:
            store.set_decision_state(decision.id, 'spawning',
                                     loop.clock.now())
            loop.lifecycle.on_recovered_spawn(
                decision, present[decision.instance_id])
        else:
            executor.spawn(decision.id)
