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

"""The columns of every host: capacity, usage of both views, flags.

The host manager keeps one :class:`HostTable`; each host owns one row (its
*slot*, in registration order). Consuming or releasing an instance updates
its row in O(1), and filters and weighers read whole columns at once (see
:mod:`preemptible_sched.hosts.batch`). What hosts share (attributes,
aggregates, availability zone) is stored once per distinct
:class:`HostProfile`; the preemptible instances that may still be chosen as
victims are rows of a
:class:`~preemptible_sched.hosts.victims.VictimTable`, so that termination
bounds are computed for every host at once.

Nothing else is kept per empty host: its
:class:`~preemptible_sched.hosts.state.HostState` is built on demand.
"""

import collections

import numpy

from preemptible_sched.conf import CONF
from preemptible_sched.hosts import victims as victims_mod

#: Columns of resources, in this order everywhere.
VCPUS, MEMORY_MB, DISK_GB = 0, 1, 2
#: Tolerance of resource comparisons: fractional vCPUs summed over many
#: consume/release steps must not turn "exactly full" into "overcommitted".
EPSILON = 1e-6
#: Distinct request sizes whose :meth:`HostTable.holds` answer is kept.
_HOLDS_MEMO = 4096


def _default(value, option):
    return getattr(CONF.compute, option) if value is None else value


def capacity_of(host):
    """Schedulable (vCPUs, RAM, disk) of ``host``: allocation ratios and
    reserved amounts applied (the ``[compute]`` defaults where unset).
    """
    return (
        (host.vcpus - _default(host.reserved_vcpus, 'reserved_host_cpus')) *
        _default(host.cpu_allocation_ratio, 'cpu_allocation_ratio'),
        (host.memory_mb - _default(host.reserved_memory_mb,
                                   'reserved_host_memory_mb')) *
        _default(host.ram_allocation_ratio, 'ram_allocation_ratio'),
        (host.disk_gb - _default(host.reserved_disk_gb,
                                 'reserved_host_disk_gb')) *
        _default(host.disk_allocation_ratio, 'disk_allocation_ratio'))


class HostProfile:
    """The static facts a host shares with its like: attributes,
    aggregates (and their metadata, merged) and availability zone.

    Filters that read them are evaluated once per profile, not per host.
    """

    __slots__ = ('attributes', 'aggregates', 'aggregate_metadata',
                 'availability_zone')

    def __init__(self, host):
        self.attributes = dict(host.attributes)
        self.aggregates = tuple(host.aggregates)
        metadata = collections.defaultdict(set)
        for aggregate in self.aggregates:
            for key, value in aggregate.metadata.items():
                metadata[key].add(value)
        self.aggregate_metadata = metadata
        zones = metadata.get('availability_zone')
        self.availability_zone = (host.availability_zone or
                                  (min(zones) if zones else None) or
                                  CONF.compute.default_availability_zone)

    @staticmethod
    def key(host):
        """What makes two hosts share a profile."""
        return (tuple(sorted((key, repr(value)) for key, value in
                             host.attributes.items())),
                tuple((aggregate.name, tuple(sorted(
                    (key, repr(value))
                    for key, value in aggregate.metadata.items())))
                      for aggregate in host.aggregates),
                host.availability_zone)


class HostTable:
    """One row per host: what filters and weighers read, as columns.

    ``planner`` answers termination plans and bounds for the host states
    of this table (the scheduler driver provides it). With ``keep_hosts``
    the registered :class:`~preemptible_sched.objects.Host` objects are
    kept (``hosts``), for adapters that read their raw figures; the host
    manager does not keep them.
    """

    # Resources are stored one dimension per row (3 x hosts), so that a
    # column of one resource is contiguous.
    _COLUMNS = (('capacity', numpy.float64, (3,)),
                ('full_used', numpy.float64, (3,)),
                ('normal_used', numpy.float64, (3,)),
                ('full_count', numpy.int32, ()),
                ('normal_count', numpy.int32, ()),
                ('enabled', bool, ()), ('up', bool, ()),
                ('profile', numpy.int32, ()),
                ('generation', numpy.int64, ()))

    def __init__(self, planner=None, keep_hosts=False):
        self.planner = planner
        self.hosts = {} if keep_hosts else None
        self.size = 0
        for name, dtype, shape in self._COLUMNS:
            setattr(self, '_' + name, numpy.zeros(shape + (0,), dtype=dtype))
        self.names = []
        #: name -> slot
        self.slot_of = {}
        #: slot -> HostState, for the hosts that have one (built on demand)
        self.states = {}
        #: server group -> {host name: members}, when a manager keeps it
        self.group_hosts = None
        self.profiles = []
        self._profile_of = {}
        #: slot -> metrics, for the hosts that report any
        self.metrics = {}
        self.victims = victims_mod.VictimTable()
        #: resources -> whether some registered host holds them when empty
        self._holds = {}
        #: sizes :meth:`holds` refused since the memo was last cleared
        self.refused = 0

    def __len__(self):
        return self.size

    def register(self, host):
        """Give ``host`` the next slot; returns it."""
        if host.name in self.slot_of:
            raise ValueError('host %s is already known' % host.name)
        slot = self.size
        if slot == self._capacity.shape[1]:
            grown = max(16, slot + slot // 2)
            for name, _, _ in self._COLUMNS:
                setattr(self, '_' + name,
                        victims_mod.grown(getattr(self, '_' + name), grown))
        key = HostProfile.key(host)
        profile = self._profile_of.get(key)
        if profile is None:
            profile = self._profile_of[key] = len(self.profiles)
            self.profiles.append(HostProfile(host))
        self._capacity[:, slot] = capacity_of(host)
        self._enabled[slot] = host.enabled
        self._up[slot] = host.up
        self._profile[slot] = profile
        if host.metrics:
            self.metrics[slot] = dict(host.metrics)
        self.names.append(host.name)
        self.slot_of[host.name] = slot
        if self.hosts is not None:
            self.hosts[slot] = host
        self.size = slot + 1
        self._holds.clear()
        self.refused = 0
        return slot

    def holds(self, resources):
        """Whether some registered host could hold ``resources`` at all
        (when empty, whatever its state).

        False means no view of any host can fit them, with or without
        victims, until a larger host registers: the driver answers such a
        request at once, and the loop leaves it out of its watch for time
        changes. The margin (twice the comparisons' tolerance) keeps that
        answer right when a host's usage drifts from 0 by rounding.
        """
        held = self._holds.get(resources)
        if held is None:
            if len(self._holds) >= _HOLDS_MEMO:
                self._holds.clear()
                self.refused = 0
            need = numpy.array(resources, dtype=numpy.float64)[:, None]
            held = self._holds[resources] = bool(
                (need <= self.capacity + 2 * EPSILON).all(axis=0).any())
            self.refused += not held
        return held

    # Columns over the registered hosts (views, not copies).
    capacity = property(lambda self: self._capacity[:, :self.size])
    full_used = property(lambda self: self._full_used[:, :self.size])
    normal_used = property(lambda self: self._normal_used[:, :self.size])
    full_count = property(lambda self: self._full_count[:self.size])
    normal_count = property(lambda self: self._normal_count[:self.size])
    #: How many victims each host has (the victim table counts them).
    candidates = property(lambda self: self.victims.counts(self.size))
    enabled = property(lambda self: self._enabled[:self.size])
    up = property(lambda self: self._up[:self.size])
    profile = property(lambda self: self._profile[:self.size])
    generation = property(lambda self: self._generation[:self.size])

    def usage(self, full):
        """The used-resources and instance-count columns of one view."""
        if full:
            return self.full_used, self.full_count
        return self.normal_used, self.normal_count

    def add(self, slot, instance):
        """Count ``instance`` on ``slot``: O(1)."""
        vcpus, memory_mb, disk_gb = instance.resources
        used = self._full_used
        used[VCPUS, slot] += vcpus
        used[MEMORY_MB, slot] += memory_mb
        used[DISK_GB, slot] += disk_gb
        self._full_count[slot] += 1
        if instance.preemptible:
            self.victims.add(slot, instance)
        else:
            used = self._normal_used
            used[VCPUS, slot] += vcpus
            used[MEMORY_MB, slot] += memory_mb
            used[DISK_GB, slot] += disk_gb
            self._normal_count[slot] += 1
        self._generation[slot] += 1

    def remove(self, slot, instance):
        """Stop counting ``instance`` on ``slot``: O(1)."""
        vcpus, memory_mb, disk_gb = instance.resources
        used = self._full_used
        used[VCPUS, slot] -= vcpus
        used[MEMORY_MB, slot] -= memory_mb
        used[DISK_GB, slot] -= disk_gb
        self._full_count[slot] -= 1
        if instance.preemptible:
            self.withdraw(slot, instance.id)
        else:
            used = self._normal_used
            used[VCPUS, slot] -= vcpus
            used[MEMORY_MB, slot] -= memory_mb
            used[DISK_GB, slot] -= disk_gb
            self._normal_count[slot] -= 1
        self._generation[slot] += 1

    def withdraw(self, slot, instance_id):
        """``instance_id`` may no longer be chosen as a victim."""
        self.victims.remove(instance_id)
        self._generation[slot] += 1

    def offer(self, slot, instance):
        """``instance`` may be chosen as a victim again."""
        if instance.id not in self.victims.row_of:
            self.victims.add(slot, instance)
        self._generation[slot] += 1

    def touch(self, slot):
        self._generation[slot] += 1
