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

"""The preemptible instances that may still be chosen as victims, as
columns: one row each, laid out by host as well, so that the termination
bounds of every host are computed at once
(:mod:`preemptible_sched.scheduler.termination_bounds`).
"""

import numpy

#: Resources are compared on integers scaled by this factor when the exact
#: termination selector must agree with a vectorised bound.
RESOURCE_SCALE = 10 ** 9


def grown(array, size):
    """``array`` with room for ``size`` rows (along its last axis)."""
    bigger = numpy.zeros(array.shape[:-1] + (size,), dtype=array.dtype)
    bigger[..., :array.shape[-1]] = array
    return bigger


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

    _COLUMNS = (('host', numpy.intp, ()), ('size', numpy.float64, (3,)),
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
                setattr(self, name, grown(getattr(self, name), size))
        if slot >= len(self.count):
            self.count = grown(self.count, max(16, 2 * slot + 1))
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
            self.count = grown(self.count, hosts)
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
