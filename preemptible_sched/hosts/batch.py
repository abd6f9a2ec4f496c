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

"""Hosts seen through one view, as columns: what filters and weighers read.

A :class:`HostBatch` is a set of hosts (the candidates of one filter or
weigher call) with, per host, the usage of the view the request is judged
on, the capacity, the instance counts, the flags and the profile. Built-in
filters answer a whole batch with one boolean mask and weighers with one
weight vector (``filter_all``/``weigh_all``); a plugin that only judges one
host at a time gets :meth:`HostBatch.views`, the per-host view objects, at
its own cost.

A batch is made from the host table (the rows of the hosts, no per-host
object) or from a list of view objects (the class-based strategies' views
of hosts without their victims, the Nova adapter's host states).
"""

import functools

import numpy

from preemptible_sched.hosts import state as host_state


class HostBatch:
    """Hosts seen through one view (``is_full``), one column per host.

    ``used`` (3 x n: vCPUs, RAM, disk) and ``count`` are the view's usage;
    ``slots`` are the hosts' rows in ``table`` (None: every host of the
    table, in order). ``load`` is the pass's load snapshot, handed to the
    filters with the batch (:meth:`.FilterHandler.filter_batch` sets it
    from the pass context); the hosts cut from a batch keep it.
    """

    load = None

    def __init__(self, used, count, is_full, table=None, slots=None,
                 views=None, columns=None):
        self.used = used
        self.count = count
        self.is_full = is_full
        self.table = table
        self._slots = slots
        self._views = views
        self._fits = None
        if columns:
            self.__dict__.update(columns)

    @classmethod
    def of_table(cls, table, is_full, slots=None):
        """Every host of ``table`` (or those at ``slots``) on one view."""
        used, count = table.usage(is_full)
        if slots is not None:
            used, count = used[:, slots], count[slots]
        return cls(used, count, is_full, table=table, slots=slots)

    @classmethod
    def of_views(cls, views, load=None):
        """The hosts of ``views`` (any view objects), as they show them;
        ``load``: the pass's load snapshot, if any.
        """
        views = list(views)
        states = [view.host for view in views]
        n = len(views)
        used = numpy.array([tuple(view.used) for view in views],
                           dtype=float).reshape(n, 3).T.copy()
        count = numpy.array([view.num_instances for view in views],
                            dtype=numpy.int64)
        columns = {
            'capacity': numpy.array([tuple(state.capacity)
                                     for state in states],
                                    dtype=float).reshape(n, 3).T.copy(),
            'full_count': numpy.array([state.full.num_instances
                                       for state in states],
                                      dtype=numpy.int64),
            'usable': numpy.array([bool(state.enabled and state.up)
                                   for state in states], dtype=bool),
            'profiles': [state.profile for state in states],
            'profile': numpy.arange(n),
            'names': [view.name for view in views],
        }
        is_full = all(view.is_full for view in views)
        batch = cls(used, count, is_full, views=views, columns=columns)
        batch.load = load
        return batch

    def __len__(self):
        return len(self.count)

    @property
    def whole(self):
        """True when the batch is every host of its table, in order."""
        return self.table is not None and self._slots is None

    @property
    def slots(self):
        if self._slots is None:
            self._slots = numpy.arange(len(self.count))
        return self._slots

    def take(self, positions):
        """The hosts at ``positions`` (indices or a mask) of this batch."""
        positions = numpy.asarray(positions)
        if positions.dtype == bool:
            positions = numpy.flatnonzero(positions)
        columns = {}
        for name in ('full_count', 'usable', 'profile'):
            if name in self.__dict__:
                columns[name] = self.__dict__[name][positions]
        if 'capacity' in self.__dict__:
            columns['capacity'] = self.capacity[:, positions]
        if self.table is None:
            columns['profiles'] = self.profiles
            columns['names'] = [self.names[i] for i in positions]
        views = (None if self._views is None
                 else [self._views[i] for i in positions])
        batch = HostBatch(self.used[:, positions], self.count[positions],
                          self.is_full, self.table,
                          None if self.table is None
                          else self.slots[positions], views, columns)
        batch.load = self.load
        return batch

    def on_view(self, is_full):
        """The same hosts on the other view."""
        if self.table is None:
            return HostBatch.of_views((view.host.view(not is_full)
                                       for view in self.views()), self.load)
        batch = HostBatch.of_table(self.table, is_full, self._slots)
        batch.load = self.load
        for name in ('capacity', 'full_count', 'usable', 'profile'):
            if name in self.__dict__:
                batch.__dict__[name] = self.__dict__[name]
        # Where the two views carry the same usage (no preemptible
        # instance on these hosts), the fit mask is the same.
        if self._fits is not None and numpy.array_equal(batch.used,
                                                        self.used):
            batch._fits = self._fits
        return batch

    def _column(self, column):
        return column if self._slots is None else column[..., self._slots]

    # Columns read from the table on first use (and kept).
    @functools.cached_property
    def capacity(self):
        return self._column(self.table.capacity)

    @functools.cached_property
    def full_count(self):
        return self._column(self.table.full_count)

    @functools.cached_property
    def usable(self):
        table = self.table
        return self._column(table.enabled) & self._column(table.up)

    @functools.cached_property
    def profile(self):
        return self._column(self.table.profile)

    @functools.cached_property
    def profiles(self):
        return self.table.profiles

    @functools.cached_property
    def names(self):
        names = self.table.names
        if self._slots is None:
            return list(names)
        return [names[slot] for slot in self._slots.tolist()]

    @functools.cached_property
    def free(self):
        return self.capacity - self.used

    def views(self):
        """The per-host view objects, for plugins without a batch form."""
        if self._views is None:
            table = self.table
            of = host_state.HostState.of
            self._views = [of(table, slot).view(not self.is_full)
                           for slot in self.slots.tolist()]
        return self._views

    def name(self, position):
        """The name of the host at ``position``."""
        if self.table is None or 'names' in self.__dict__:
            return self.names[position]
        slot = position if self._slots is None else self._slots[position]
        return self.table.names[int(slot)]

    def view(self, position):
        """The view object of the host at ``position``."""
        if self._views is not None:
            return self._views[position]
        state = host_state.HostState.of(self.table,
                                        int(self.slots[position]))
        return state.view(not self.is_full)

    def requested(self, resources):
        """Per host, as Python floats: (vCPU capacity, vCPUs used with
        ``resources`` added, RAM capacity, RAM used with them added), for
        scalar formulas on a few hosts.
        """
        capacity = self.capacity
        used = self.used
        return zip(capacity[0].tolist(),
                   (used[0] + resources.vcpus).tolist(),
                   capacity[1].tolist(),
                   (used[1] + resources.memory_mb).tolist())

    def fits(self, resources):
        """Mask of the hosts where ``resources`` fit this view (kept for
        the last ``resources`` asked about).
        """
        if self._fits is not None and self._fits[0] == resources:
            return self._fits[1]
        capacity = self.capacity
        used = self.used
        epsilon = host_state.EPSILON
        fits = used[0] + resources.vcpus <= capacity[0] + epsilon
        fits &= used[1] + resources.memory_mb <= capacity[1] + epsilon
        fits &= used[2] + resources.disk_gb <= capacity[2] + epsilon
        self._fits = (resources, fits)
        return fits

    def per_profile(self, predicate):
        """Mask of the hosts whose profile satisfies ``predicate``,
        evaluated once per distinct profile.
        """
        profiles = self.profiles
        if len(profiles) == 1:
            return numpy.full(len(self), bool(predicate(profiles[0])))
        values = numpy.fromiter((bool(predicate(profile))
                                 for profile in profiles), dtype=bool,
                                count=len(profiles))
        return values[self.profile]

    def named(self, names):
        """Mask of the hosts called one of ``names``."""
        if not names:
            return numpy.zeros(len(self), dtype=bool)
        if self.table is not None:
            slot_of = self.table.slot_of
            wanted = [slot_of[name] for name in names if name in slot_of]
            return numpy.isin(self.slots, wanted)
        names = set(names)
        return numpy.array([name in names for name in self.names],
                           dtype=bool)

    def with_group(self, group):
        """Mask of the hosts that run a member of server group ``group``."""
        if self.table is not None and self.table.group_hosts is not None:
            return self.named(self.table.group_hosts.get(group, ()))
        return numpy.array([bool(view.host.groups.get(group))
                            for view in self.views()], dtype=bool)
