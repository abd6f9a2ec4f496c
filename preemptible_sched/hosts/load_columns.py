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

A reading from the watcher or its HTTP client is a
:class:`~.load_reading.Reading`: the hosts in the plain form (a float
average and deviation for CPU and memory, a float window end, nothing
else) as rows of one array, which are judged at once, with no Python
object per host: where every value lies in [0, 100] and the window is
fresh, the host's load is those values with no problem, as
:func:`.load_metrics.host_load` finds it, and its
:class:`~.load_metrics.HostLoad` is only made if someone asks
(``loads``). Every host of the array is taken again at a new reading (it
costs an array operation); the reading's other hosts, and the hosts of
a reading given as one mapping per host, are taken again when their
metrics object changed. Plain mappings are read into arrays and judged
the same way; the other hosts go through
:func:`.load_metrics.host_load`, one at a time, and so reject bad metrics
with the same problems whatever form they came in.

The rows whose load changed are stamped (:class:`.load.Stamps`), so that
the load-aware weighers keep their weights from one pass to the next and
compute only those rows again (:meth:`.load.LoadSnapshot.weights`).

The snapshot it answers reads the columns in place: it is valid until the
next update. The rows, the fallback and the problems counted are those
:func:`.load.build` gives from the same inputs
(``tests/unit/hosts/test_load_columns.py`` compares both on random
metrics). Nothing here reads a clock, a file or the network.
"""

import collections
from collections import abc
import math

import numpy

from preemptible_sched.hosts import load
from preemptible_sched.hosts import load_metrics
from preemptible_sched.hosts import load_reading

#: The float columns, NaN where a metric is unusable.
FLOATS = ('cpu_avg', 'cpu_std', 'memory_avg', 'memory_std',
          'physical_cores', 'physical_memory_mb', 'window_end')


_DTYPE = {field: bool for field in ('new',) + load.DERIVED
          if field == 'new' or field.endswith('_known')}
_FILL = {field: (False if field in _DTYPE else 0.0)
         for field in ('new',) + load.DERIVED}


_NONE = numpy.zeros(0, dtype=numpy.int64)


def _extended(array, size, fill):
    grown = numpy.full(size, fill, dtype=array.dtype)
    grown[:len(array)] = array
    return grown


class _Loads(abc.Mapping):
    """Host name -> :class:`~.load_metrics.HostLoad`, made from the columns
    for the hosts read in the plain form, when asked.
    """

    def __init__(self, owner):
        self._owner = owner
        #: the loads made so far, by name
        self.made = {}

    def __getitem__(self, name):
        load_ = self.made.get(name)
        if load_ is None:
            load_ = self.made[name] = self._owner.made(name)
        return load_

    def __iter__(self):
        return iter(self._owner.names)

    def __len__(self):
        return len(self._owner.names)


class LoadColumns:
    """Every host's load, one row per slot of a host table.

    One lives as long as its scheduler (the
    :class:`~preemptible_sched.loadwatcher.provider.LoadProvider` keeps
    it); ``loads`` maps the host names to their current
    :class:`~.load_metrics.HostLoad`.
    """

    def __init__(self):
        self.size = 0
        #: the host of each row
        self.names = []
        self._slot_of = {}
        self.loads = _Loads(self)
        #: the rows whose HostLoad is in ``loads.made``, and those whose
        #: load shows problems (``_problems``: slot -> reasons)
        self._made = numpy.zeros(0, dtype=bool)
        self._troubled = numpy.zeros(0, dtype=bool)
        self._problems = {}
        #: the snapshot's columns (:data:`.load.BASE` and
        #: :data:`.load.DERIVED`)
        self._columns = {
            field: numpy.zeros(0, dtype=_DTYPE.get(field, float))
            for field in load.BASE + load.DERIVED}
        #: carried instances when its load was computed
        self._busy = numpy.zeros(0, dtype=bool)
        #: usable and not new: a window the weighers can read
        self._known = numpy.zeros(0, dtype=bool)
        #: the load must be computed again after this time (the earliest:
        #: ``_next_expiry``)
        self._expiry = numpy.zeros(0)
        self._next_expiry = math.inf
        #: per slot: the metrics object and size its load was computed from
        #: (a reading's row: ``_arrayed``; no metrics: ``_none``)
        self._metrics = []
        self._arrayed = numpy.zeros(0, dtype=bool)
        self._none = numpy.zeros(0, dtype=bool)
        #: of the current :class:`.load_reading.Reading`: its names, the
        #: table size, and each slot's row in its array (-1: none)
        #: and whether those rows are the slots, in order
        self._rows_of = (None, 0, numpy.zeros(0, dtype=numpy.int64), False)
        self._sizes = []
        #: some host's size was not known: ask again at the next update
        self._unsized = False
        #: reason -> hosts whose current load shows it
        self._totals = collections.Counter()
        #: when each row's load changed, and the weights kept
        self.stamps = load.Stamps()
        self._arange = numpy.zeros(0, dtype=numpy.int64)
        #: some host has a usable window (``_known.any()``)
        self._any_known = False
        self._windows = None
        self._multiplier = None
        #: the recent-placement sums: the table generation they were
        #: computed at (-1: to compute), cores, memory MB, and the newest
        #: placement among the host's instances then
        self._recent = (numpy.zeros(0, dtype=numpy.int64), numpy.zeros(0),
                        numpy.zeros(0), numpy.zeros(0))

    def _grow(self, size):
        for field, column in self._columns.items():
            self._columns[field] = _extended(column, size,
                                             _FILL.get(field, numpy.nan))
        self._busy = _extended(self._busy, size, False)
        self._known = _extended(self._known, size, False)
        self._made = _extended(self._made, size, False)
        self._troubled = _extended(self._troubled, size, False)
        # New rows are computed at once.
        self._expiry = _extended(self._expiry, size, -math.inf)
        self._next_expiry = -math.inf
        self._metrics.extend([None] * (size - self.size))
        self._arrayed = _extended(self._arrayed, size, False)
        self._none = _extended(self._none, size, False)
        generation, cores, memory, newest = self._recent
        self._recent = (_extended(generation, size, -1),
                        _extended(cores, size, 0.0),
                        _extended(memory, size, 0.0),
                        _extended(newest, size, -math.inf))
        self.stamps.grow(size)
        self._arange = numpy.arange(size)
        self.size = size

    def _dirty(self, now, table, windows, sizes, busy):
        """The mask of the rows whose load must be computed again."""
        if len(table) > self.size or self._unsized:
            if len(table) > self.size:
                self._grow(len(table))
                self.names = list(table.names[:self.size])
                self._slot_of = table.slot_of
            # New hosts, or some the driver did not know: every size is
            # read again, as the driver tells.
            known = sizes(table.names)
            self._unsized = any(size is None for size in known)
            known = [(0.0, 0.0) if size is None else size for size in known]
            changed = [slot for slot, size in enumerate(known)
                       if slot >= len(self._sizes) or
                       size != self._sizes[slot]]
            self._sizes = known
            self._expiry[changed] = -math.inf
            if changed:
                self._next_expiry = -math.inf
            self._columns['physical_cores'][:] = [
                float(cores) for cores, _ in known]
            self._columns['physical_memory_mb'][:] = [
                float(memory_mb) for _, memory_mb in known]
        dirty = busy != self._busy
        if now > self._next_expiry:
            dirty |= now > self._expiry
        if windows is not self._windows:
            # A reading arrived: the hosts it changed.
            if isinstance(windows, load_reading.Reading):
                self._arrived(windows, table, dirty)
            else:
                get = windows.get
                metrics = self._metrics
                dirty[[slot for slot, name in enumerate(table.names)
                       if get(name) is not metrics[slot]]] = True
                dirty |= self._arrayed
            self._windows = windows
        return dirty

    def _row_of(self, reading, table):
        """Per slot, its row in the array of ``reading`` (-1: none)."""
        names, size, rows, _ = self._rows_of
        if names is not reading.names or size != self.size:
            slot_of = table.slot_of
            names = reading.names
            slots = numpy.fromiter((slot_of.get(name, -1) for name in names),
                                   dtype=numpy.int64, count=len(names))
            inside = (slots >= 0) & (slots < self.size)
            rows = numpy.full(self.size, -1, dtype=numpy.int64)
            rows[slots[inside]] = numpy.flatnonzero(inside)
            in_order = len(names) == self.size and bool(
                (rows == self._arange).all())
            self._rows_of = (names, self.size, rows, in_order)
        return rows

    def _arrived(self, reading, table, dirty):
        """Mark in ``dirty`` the rows a new ``reading`` changes: every host
        of its array (judged at once), the others whose metrics object
        changed, the hosts it lacks that had metrics.
        """
        rows = self._row_of(reading, table)
        covered = rows >= 0
        dirty |= covered
        if reading.others:
            slot_of = table.slot_of
            metrics = self._metrics
            arrayed = self._arrayed
            for name, found in reading.others.items():
                slot = slot_of.get(name)
                if slot is None or slot >= self.size:
                    continue
                covered[slot] = True
                if arrayed[slot] or found is not metrics[slot]:
                    dirty[slot] = True
        dirty |= ~covered & ~self._none

    def update(self, now, table, windows, sizes, source_problem=None,
               multiplier=1.5, health=None):
        """The :class:`.load.LoadSnapshot` of ``table`` at ``now``.

        ``windows``: host name -> its latest metrics, the same object as
        long as they do not change (see :func:`.load.build`);
        ``sizes(names)``: ``(physical cores, physical memory MB)`` of each
        host (None: not known yet, 0 until it is), asked when hosts
        register or while one is not known; ``source_problem``, ``health``:
        as :func:`.load.build` takes them.
        """
        health = health if health is not None else load.MetricsHealth()
        busy = table.full_count > 0
        dirty = self._dirty(now, table, windows, sizes, busy)
        if multiplier != self._multiplier:
            self._recent[0][:] = -1
            self._multiplier = multiplier
        names = self.names
        rows = numpy.flatnonzero(dirty) if dirty.any() else _NONE
        if isinstance(windows, load_reading.Reading):
            self._row_of(windows, table)
            others = self._read_rows(rows, windows, now, health)
        else:
            others = self._read_plain(rows, windows, now, health)
        for slot, metrics in others:
            self._compute(slot, names[slot], metrics, now, bool(busy[slot]),
                          health)
        if len(rows):
            columns = self._columns
            if len(rows) == self.size:
                for field, values in load.derive(columns).items():
                    columns[field][:] = values
            else:
                derived = load.derive({field: columns[field][rows]
                                       for field in load.BASE})
                for field, values in derived.items():
                    columns[field][rows] = values
            self.stamps.touch(rows)
            self._any_known = bool(self._known.any())
            self._next_expiry = self._expiry.min()
        self._busy = busy
        if self._problems:
            # (Else every count is 0.)
            health.count(self._totals)
        fallback = None
        if source_problem:
            fallback = '%s: %s' % (load.SOURCE_DOWN, source_problem)
        elif not self._any_known and busy.any():
            fallback = ('%s: no host has a usable window newer than %.0f s'
                        % (load.SOURCE_STALE, load_metrics.MAX_AGE_S))
        health.fallback(fallback)
        return load.LoadSnapshot.on_table(now, self.loads, fallback,
                                          multiplier, table,
                                          dict(self._columns), self._recent,
                                          self.stamps, self._arange)

    def made(self, name):
        """The :class:`~.load_metrics.HostLoad` of a host read in the plain
        form, from its row.
        """
        slot = self._slot_of[name]
        if slot >= self.size:
            raise KeyError(name)
        values = {field: float(self._columns[field][slot])
                  for field in FLOATS}
        self._made[slot] = True
        return load_metrics.HostLoad(name, **values)

    def _forget(self, rows):
        """Drop what the load of ``rows`` (an array; None: every row)
        counted and made.
        """
        totals = self._totals
        troubled = (numpy.flatnonzero(self._troubled) if rows is None
                    else rows[self._troubled[rows]])
        for slot in troubled.tolist():
            for reason in self._problems.pop(slot):
                totals[reason] -= 1
        index = slice(None) if rows is None else rows
        self._troubled[index] = False
        made = self.loads.made
        if rows is None:
            made.clear()
        else:
            for slot in rows[self._made[rows]].tolist():
                made.pop(self.names[slot], None)
        self._made[index] = False

    def _moved(self, rows, before, after):
        """The windows of ``rows`` (an array; None: every row) now end
        ``after`` instead of ``before``: the recent sums are computed
        again where an instance was placed after either end (less the
        margin), as it may count in one and not in the other.
        """
        newest = self._recent[3] if rows is None else self._recent[3][rows]
        with numpy.errstate(invalid='ignore'):
            changed = (before != after) & (
                newest > numpy.minimum(before, after) - load.RECENT_MARGIN_S)
        self._recent[0][numpy.flatnonzero(changed) if rows is None
                        else rows[changed]] = -1

    def _good(self, found, now):
        """Which rows of ``found`` (:data:`.load_reading.COLUMNS`) are
        good: every value in [0, 100], the window end finite and fresh.
        """
        ends = found[:, 4]
        with numpy.errstate(invalid='ignore'):
            good = numpy.isfinite(ends)
            good &= now - ends <= load_metrics.MAX_AGE_S
            for position in range(4):
                values = found[:, position]
                good &= values >= 0.0
                good &= values <= 100.0
        return good

    def _set(self, fast, found, health):
        """Set the ``fast`` rows (an array; None: every row) from their
        good values.
        """
        self._forget(fast)
        index = slice(None) if fast is None else fast
        columns = self._columns
        ends = found[:, 4]
        self._moved(fast, columns['window_end'][index], ends)
        for position, field in enumerate(load_reading.COLUMNS):
            columns[field][index] = found[:, position]
        columns['new'][index] = False
        self._known[index] = True
        self._none[index] = False
        self._expiry[index] = ends + load_metrics.MAX_AGE_S
        mask = numpy.zeros(self.size, dtype=bool)
        mask[index] = True
        health.healthy_slots(self._slot_of, mask)

    def _read_rows(self, rows, reading, now, health):
        """Set the ``rows`` the array of ``reading`` holds good at once;
        the others, as a list of (slot, metrics).
        """
        if not len(rows):
            return []
        _, _, at, in_order = self._rows_of
        if in_order and len(rows) == self.size:
            # The common case: every host, in the table's order.
            good = self._good(reading.values, now)
            if good.all():
                self._set(None, reading.values, health)
                self._arrayed[:] = True
                return []
        at = at[rows]
        inside = at >= 0
        candidates = rows[inside]
        found = reading.values[at[inside]]
        good = self._good(found, now)
        fast = candidates[good]
        if len(fast):
            self._set(fast, found[good], health)
            self._arrayed[fast] = True
        names = self.names
        others = reading.others
        slow = [(slot, others.get(names[slot]))
                for slot in rows[~inside].tolist()]
        slow.extend((slot, reading.metrics(row)) for slot, row in zip(
            candidates[~good].tolist(), at[inside][~good].tolist()))
        return slow

    def _read_plain(self, rows, windows, now, health):
        """Set the ``rows`` whose metrics are plain and good at once; the
        others, as a list of (slot, metrics).
        """
        if not len(rows):
            return []
        names = self.names
        get = windows.get
        given = [get(names[slot]) for slot in rows.tolist()]
        values = [load_reading.plain(metrics) for metrics in given]
        plain = numpy.array([value is not None for value in values])
        good = numpy.zeros(len(rows), dtype=bool)
        if plain.any():
            found = numpy.array([value for value in values
                                 if value is not None])
            fine = self._good(found, now)
            good[numpy.flatnonzero(plain)[fine]] = True
            fast = rows[good]
            if len(fast):
                self._set(fast, found[fine], health)
                self._arrayed[fast] = False
                metrics = self._metrics
                for slot, position in zip(fast.tolist(),
                                          numpy.flatnonzero(good).tolist()):
                    metrics[slot] = given[position]
        return [(slot, given[position]) for position, slot
                in enumerate(rows.tolist()) if not good[position]]

    def _compute(self, slot, name, metrics, now, busy, health):
        cores, memory_mb = self._sizes[slot]
        fresh = load_metrics.host_load(name, cores, memory_mb, metrics, now,
                                       busy)
        columns = self._columns
        self._moved(numpy.array([slot]), columns['window_end'][slot:slot + 1],
                    numpy.array([fresh.window_end]))
        self._forget(numpy.array([slot]))
        if fresh.problems:
            reasons = [reason for reason, _ in fresh.problems]
            self._problems[slot] = reasons
            self._troubled[slot] = True
            for reason in reasons:
                self._totals[reason] += 1
        self.loads.made[name] = fresh
        self._made[slot] = True
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
        self._arrayed[slot] = isinstance(self._windows,
                                         load_reading.Reading) and \
            self._rows_of[2][slot] >= 0
        self._none[slot] = metrics is None
        if fresh.problems:
            for reason, text in fresh.problems:
                health.seen(name, reason, text)
        else:
            health.healthy(name)
