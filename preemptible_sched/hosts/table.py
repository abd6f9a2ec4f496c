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
victims are rows of a :class:`VictimTable`, so that termination bounds are
computed for every host at once.

Nothing else is kept per empty host: its
:class:`~preemptible_sched.hosts.state.HostState` is built on demand.
"""

import collections

import numpy

from preemptible_sched.conf import CONF

#: Columns of resources, in this order everywhere.
VCPUS, MEMORY_MB, DISK_GB = 0, 1, 2
#: Resources are compared on integers scaled by this factor when the exact
#: termination selector must agree with a vectorised bound.
RESOURCE_SCALE = 10 ** 9
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


def _grown(array, size):
    """``array`` with room for ``size`` rows (along its last axis)."""
    grown = numpy.zeros(array.shape[:-1] + (size,), dtype=array.dtype)
    grown[..., :array.shape[-1]] = array
    return grown


class VictimTable:
    """The preemptible instances that may still be chosen as victims.

    One row each: the host slot, the size (as floats and as the integers
    the exact selector compares; 3 x rows, one dimension per line), the
    start time and the priority, which the built-in termination costs read
    as columns. A row is added when a
    preemptible instance is consumed, and removed when it is released or
    its termination starts.

    ``layout`` lays the rows out by host as well: column ``slot`` lists
    the rows of that host's victims from the top (``rank`` is a row's
    place in it), -1 below them; ``count`` is how many each host has. Kept
    as rows come and go, so that a pass reads every host's victims side
    by side without sorting them by host first.
    """

    _COLUMNS = (('host', numpy.int32, ()), ('size', numpy.float64, (3,)),
                ('size_q', numpy.int64, (3,)),
                ('started', numpy.float64, ()),
                ('priority', numpy.float64, ()),
                ('rank', numpy.int32, ()))

    def __init__(self):
        for name, dtype, shape in self._COLUMNS:
            setattr(self, name, numpy.zeros(shape + (0,), dtype=dtype))
        self.instances = []
        self.row_of = {}
        self.layout = numpy.full((0, 0), -1, dtype=numpy.intp)
        self.count = numpy.zeros(0, dtype=numpy.int32)

    def __len__(self):
        return len(self.row_of)

    def add(self, slot, instance):
        row = len(self.instances)
        if row == len(self.host):
            size = max(64, 2 * row)
            for name, _, _ in self._COLUMNS:
                setattr(self, name, _grown(getattr(self, name), size))
        if slot >= len(self.count):
            self.count = _grown(self.count, max(16, 2 * slot + 1))
            self._widen(len(self.layout), len(self.count))
        rank = int(self.count[slot])
        if rank == len(self.layout):
            self._widen(max(4, 2 * rank), self.layout.shape[1])
        resources = instance.resources
        self.instances.append(instance)
        self.row_of[instance.id] = row
        self.host[row] = slot
        self.size[:, row] = resources
        self.size_q[:, row] = [int(round(value * RESOURCE_SCALE))
                               for value in resources]
        self.started[row] = instance.started_at
        self.priority[row] = instance.priority
        self.rank[row] = rank
        self.layout[rank, slot] = row
        self.count[slot] = rank + 1

    def _widen(self, width, hosts):
        layout = numpy.full((width, hosts), -1, dtype=numpy.intp)
        layout[:self.layout.shape[0], :self.layout.shape[1]] = self.layout
        self.layout = layout

    def remove(self, instance_id):
        """Forget ``instance_id``'s row; False if it has none.

        The last row moves into the hole: the rows in use are always the
        first ``len(self)``, so that columns are read as slices. In its
        host's column of ``layout``, the host's last victim moves into its
        place.
        """
        row = self.row_of.pop(instance_id, None)
        if row is None:
            return False
        slot = int(self.host[row])
        rank = int(self.rank[row])
        below = int(self.count[slot]) - 1
        if rank != below:
            other = self.layout[below, slot]
            self.layout[rank, slot] = other
            self.rank[other] = rank
        self.layout[below, slot] = -1
        self.count[slot] = below
        last = len(self.instances) - 1
        moved = self.instances.pop()
        if row != last:
            self.instances[row] = moved
            self.row_of[moved.id] = row
            for name, _, _ in self._COLUMNS:
                column = getattr(self, name)
                column[..., row] = column[..., last]
            self.layout[self.rank[row], self.host[row]] = row
        return True

    def set_started(self, instance_id, at):
        row = self.row_of.get(instance_id)
        if row is not None:
            self.started[row] = at

    def column(self, name):
        """The column ``name`` over the rows in use (a view)."""
        return getattr(self, name)[..., :len(self.instances)]

    def counts(self, hosts):
        """How many victims each of the first ``hosts`` slots has."""
        self._cover(hosts)
        return self.count[:hosts]

    def _cover(self, hosts):
        """``count`` and ``layout`` over at least ``hosts`` slots."""
        if hosts > len(self.count):     # hosts without victims so far
            self.count = _grown(self.count, hosts)
            self._widen(len(self.layout), hosts)

    def rows_of(self, slots, hosts):
        """``(layout, count)`` over ``slots`` (slots, or None: the first
        ``hosts`` slots): the rows of each host's victims one column a
        host, -1 below them, and how many each has.
        """
        self._cover(hosts if slots is None else (
            int(slots.max()) + 1 if len(slots) else 0))
        if slots is None:
            return self.layout[:, :hosts], self.count[:hosts]
        return self.layout.take(slots, axis=1), self.count[slots]


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
        #: the LoadSnapshot of the pass, for the load-aware plugins (set
        #: by whoever runs the pass; see preemptible_sched.hosts.load)
        self.load = None
        self.victims = VictimTable()
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
                        _grown(getattr(self, '_' + name), grown))
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
