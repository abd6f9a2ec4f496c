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

"""The load of every host as columns, kept from one pass to the next.

:func:`.load.build` computes every host's
:class:`~.load_metrics.HostLoad` and lays them out as columns, which is
what ``decide`` and the tests need once. A scheduler asks for a snapshot
before every pass, while the metrics change once a window refresh: a
:class:`LoadColumns` keeps one row per slot of the host table and, at each
:meth:`~LoadColumns.update`, recomputes only the hosts whose input
changed: a new metrics reading for the host (another object than the one
it was computed from), the host starting or ceasing to carry instances, or
its window growing older than :data:`.load_metrics.MAX_AGE_S`; those
checks are array comparisons. The sums of the instances placed since a
host's window (:meth:`.load.LoadSnapshot.recent`) are kept as well, and
recomputed when the host's table row or its window's end changes.

The snapshot it answers reads the columns in place: it is valid until the
next update. The rows, the fallback and the problems counted are those
:func:`.load.build` gives from the same inputs
(``tests/unit/hosts/test_load_columns.py`` compares both on random
metrics). Nothing here reads a clock, a file or the network.
"""

import collections
import math

import numpy

from preemptible_sched.hosts import load
from preemptible_sched.hosts import load_metrics

#: The float columns, NaN where a metric is unusable.
FLOATS = ('cpu_avg', 'cpu_std', 'memory_avg', 'memory_std',
          'physical_cores', 'physical_memory_mb', 'window_end')


_DTYPE = {field: bool for field in ('new',) + load.DERIVED
          if field == 'new' or field.endswith('_known')}
_FILL = {field: (False if field in _DTYPE else 0.0)
         for field in ('new',) + load.DERIVED}


def _extended(array, size, fill):
    grown = numpy.full(size, fill, dtype=array.dtype)
    grown[:len(array)] = array
    return grown


class LoadColumns:
    """Every host's load, one row per slot of a host table.

    One lives as long as its scheduler (the
    :class:`~preemptible_sched.loadwatcher.provider.LoadProvider` keeps
    it); ``loads`` maps the host names to their current
    :class:`~.load_metrics.HostLoad`.
    """

    def __init__(self):
        self.size = 0
        self.loads = {}
        #: the snapshot's columns (:data:`.load.BASE` and
        #: :data:`.load.DERIVED`)
        self._columns = {
            field: numpy.zeros(0, dtype=_DTYPE.get(field, float))
            for field in load.BASE + load.DERIVED}
        #: carried instances when its load was computed
        self._busy = numpy.zeros(0, dtype=bool)
        #: usable and not new: a window the weighers can read
        self._known = numpy.zeros(0, dtype=bool)
        #: the load must be computed again after this time
        self._expiry = numpy.zeros(0)
        #: per slot: the metrics object and size its load was computed from
        self._metrics = []
        self._sizes = []
        #: reason -> hosts whose current load shows it
        self._totals = collections.Counter()
        self._windows = None
        self._multiplier = None
        self._recent = (numpy.zeros(0, dtype=numpy.int64), numpy.zeros(0),
                        numpy.zeros(0))

    def _grow(self, size):
        for field, column in self._columns.items():
            self._columns[field] = _extended(column, size,
                                             _FILL.get(field, numpy.nan))
        self._busy = _extended(self._busy, size, False)
        self._known = _extended(self._known, size, False)
        # New rows are computed at once.
        self._expiry = _extended(self._expiry, size, -math.inf)
        self._metrics.extend([None] * (size - self.size))
        generation, cores, memory = self._recent
        self._recent = (_extended(generation, size, -1),
                        _extended(cores, size, 0.0),
                        _extended(memory, size, 0.0))
        self.size = size

    def _dirty(self, now, table, windows, sizes, busy):
        """The mask of the rows whose load must be computed again."""
        if len(table) > self.size:
            self._grow(len(table))
            # New hosts: every size is read again, as the driver tells.
            known = sizes(table.names)
            changed = [slot for slot, size in enumerate(known)
                       if slot >= len(self._sizes) or
                       size != self._sizes[slot]]
            self._sizes = known
            self._expiry[changed] = -math.inf
        dirty = (busy != self._busy) | (now > self._expiry)
        if windows is not self._windows:
            # A reading arrived: the hosts it changed.
            get = windows.get
            metrics = self._metrics
            dirty[[slot for slot, name in enumerate(table.names)
                   if get(name) is not metrics[slot]]] = True
            self._windows = windows
        return dirty

    def update(self, now, table, windows, sizes, source_problem=None,
               multiplier=1.5, health=None):
        """The :class:`.load.LoadSnapshot` of ``table`` at ``now``.

        ``windows``: host name -> its latest metrics, the same object as
        long as they do not change (see :func:`.load.build`);
        ``sizes(names)``: ``(physical cores, physical memory MB)`` of each
        host, asked when hosts register; ``source_problem``, ``health``:
        as :func:`.load.build` takes them.
        """
        health = health if health is not None else load.MetricsHealth()
        busy = table.full_count > 0
        dirty = self._dirty(now, table, windows, sizes, busy)
        if multiplier != self._multiplier:
            self._recent[0][:] = -1
            self._multiplier = multiplier
        names = table.names
        rows = numpy.flatnonzero(dirty)
        for slot in rows.tolist():
            self._compute(slot, names[slot], windows.get(names[slot]), now,
                          bool(busy[slot]), health)
        if len(rows):
            columns = self._columns
            derived = load.derive({field: columns[field][rows]
                                   for field in load.BASE})
            for field, values in derived.items():
                columns[field][rows] = values
        self._busy = busy.copy()
        health.count(self._totals)
        fallback = None
        if source_problem:
            fallback = '%s: %s' % (load.SOURCE_DOWN, source_problem)
        elif busy.any() and not self._known.any():
            fallback = ('%s: no host has a usable window newer than %.0f s'
                        % (load.SOURCE_STALE, load_metrics.MAX_AGE_S))
        health.fallback(fallback)
        return load.LoadSnapshot.on_table(now, self.loads, fallback,
                                          multiplier, table,
                                          dict(self._columns), self._recent)

    def _compute(self, slot, name, metrics, now, busy, health):
        cores, memory_mb = self._sizes[slot]
        fresh = load_metrics.host_load(name, cores, memory_mb, metrics, now,
                                       busy)
        old = self.loads.get(name)
        totals = self._totals
        if old is not None:
            for reason, _ in old.problems:
                totals[reason] -= 1
        for reason, _ in fresh.problems:
            totals[reason] += 1
        if old is None or old.window_end != fresh.window_end:
            # The instances its window cannot show are others now.
            self._recent[0][slot] = -1
        self.loads[name] = fresh
        columns = self._columns
        for field in FLOATS:
            columns[field][slot] = getattr(fresh, field)
        columns['new'][slot] = fresh.new
        self._known[slot] = not fresh.new and (
            fresh.cpu_avg == fresh.cpu_avg or
            fresh.memory_avg == fresh.memory_avg)     # not NaN: usable
        self._expiry[slot] = (
            fresh.window_end + load_metrics.MAX_AGE_S
            if math.isfinite(fresh.window_end) else math.inf)
        self._metrics[slot] = metrics
        if fresh.problems:
            for reason, text in fresh.problems:
                health.seen(name, reason, text)
        else:
            health.healthy(name)
