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

It keeps the in-memory truth the scheduler decides on: a
:class:`~preemptible_sched.hosts.table.HostTable` (one row per host, both
views, updated in O(1) per instance) and the instance and server-group
indexes. :meth:`HostManager.batch` gives filters and weighers every host
at once; ``host_states`` gives one host as an object, built on first use.
"""

import collections
import collections.abc

from preemptible_sched.hosts import batch as host_batch
from preemptible_sched.hosts import state as host_state
from preemptible_sched.hosts import table as host_table


class _HostStates(collections.abc.Mapping):
    """Host name -> :class:`HostState`, built on first access."""

    def __init__(self, table):
        self._table = table

    def __getitem__(self, name):
        return host_state.HostState.of(self._table, self._table.slot_of[name])

    def __iter__(self):
        return iter(self._table.names)

    def __len__(self):
        return len(self._table)

    def __contains__(self, name):
        return name in self._table.slot_of


class HostManager:
    """Host states by name, plus the instance and server-group indexes."""

    def __init__(self, planner):
        self.planner = planner
        self.table = host_table.HostTable(planner)
        self.host_states = _HostStates(self.table)
        self.instance_hosts = {}
        self.group_hosts = collections.defaultdict(collections.Counter)
        self.table.group_hosts = self.group_hosts
        #: Bumped on every change of any host (instances, hosts, up/down):
        #: a pass may skip its work when this and the queue are unchanged.
        self.generation = 0

    def add_host(self, host):
        """Register ``host`` (its state is built when first asked for)."""
        self.table.register(host)
        self.generation += 1

    def set_up(self, host_name, up):
        """Mark a host up or down; False if the host is unknown."""
        slot = self.table.slot_of.get(host_name)
        if slot is None:
            return False
        self.table.up[slot] = up
        self.table.touch(slot)
        self.generation += 1
        return True

    def batch(self, normal=False):
        """Every host, on the normal or the full view, as columns."""
        return host_batch.HostBatch.of_table(self.table, not normal)

    def get_all_host_states(self):
        return [self.host_states[name] for name in self.table.names]

    def occupied_host_states(self):
        """The states of the hosts that carry at least one instance."""
        return [state for state in self.table.states.values()
                if state.instances]

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
        state.mark_started(instance_id, at)
        if overhead_s is not None:
            state.instances[instance_id].overhead_s = overhead_s
        self.generation += 1

    def hosts_of_group(self, group):
        return frozenset(self.group_hosts.get(group, ()))
