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

"""The host manager: every host's state, and where each instance lives.

It keeps the in-memory truth the scheduler decides on. Adding or removing
one instance updates both views of its host in O(1).
"""

import collections

from preemptible_sched import host_state


class HostManager:
    """Host states by name, plus the instance and server-group indexes."""

    def __init__(self, planner):
        self.planner = planner
        self.host_states = {}
        self.instance_hosts = {}
        self.group_hosts = collections.defaultdict(collections.Counter)
        #: Bumped on every change of any host (instances, hosts, up/down):
        #: a pass may skip its work when this and the queue are unchanged.
        self.generation = 0

    def add_host(self, host):
        if host.name in self.host_states:
            raise ValueError('host %s is already known' % host.name)
        state = host_state.HostState(host, planner=self.planner)
        self.host_states[host.name] = state
        self.generation += 1
        return state

    def set_up(self, host_name, up):
        """Mark a host up or down; False if the host is unknown."""
        state = self.host_states.get(host_name)
        if state is None:
            return False
        state.up = up
        state.generation += 1
        self.generation += 1
        return True

    def get_all_host_states(self):
        return list(self.host_states.values())

    def add_instance(self, host_name, instance):
        if instance.id in self.instance_hosts:
            raise ValueError('instance %s is already on host %s' % (
                instance.id, self.instance_hosts[instance.id]))
        self.host_states[host_name].consume(instance)
        self.generation += 1
        self.instance_hosts[instance.id] = host_name
        if instance.group:
            self.group_hosts[instance.group][host_name] += 1

    def remove_instance(self, instance_id):
        """Forget an instance wherever it runs; returns (host, instance)."""
        host_name = self.instance_hosts.pop(instance_id)
        instance = self.host_states[host_name].release(instance_id)
        self.generation += 1
        if instance.group:
            hosts = self.group_hosts[instance.group]
            hosts[host_name] -= 1
            if not hosts[host_name]:
                del hosts[host_name]
        return host_name, instance

    def hold_victim(self, host_name, victim, request_id):
        """Keep ``victim`` on its host while its termination is under way.

        The room it frees is reserved for ``request_id``, which the
        decision already placed there: until the termination is confirmed
        every other request sees the host with the victim still on it (so
        nothing lands in a room being emptied) and nobody may choose it as
        a victim again. Idempotent.
        """
        if victim.id not in self.instance_hosts:
            self.add_instance(host_name, victim)
        self.host_states[self.instance_hosts[victim.id]].mark_terminating(
            victim.id, request_id)
        self.generation += 1

    def release_hold(self, instance_id):
        """A held victim's termination was given up: an ordinary instance
        again. False if it is not held.
        """
        host_name = self.instance_hosts.get(instance_id)
        if host_name is None:
            return False
        state = self.host_states[host_name]
        if instance_id not in state.terminating:
            return False
        state.unmark_terminating(instance_id)
        self.generation += 1
        return True

    def mark_started(self, instance_id, at, overhead_s=None):
        """The instance began running at ``at`` (run times count from it).

        ``overhead_s`` is its allocation overhead accumulated up to now.
        """
        state = self.host_states[self.instance_hosts[instance_id]]
        instance = state.instances[instance_id]
        instance.started_at = at
        instance.running_since = at
        if overhead_s is not None:
            instance.overhead_s = overhead_s
        state.generation += 1
        self.generation += 1

    def hosts_of_group(self, group):
        return frozenset(self.group_hosts.get(group, ()))
