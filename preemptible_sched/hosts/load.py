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

"""The host load one scheduling pass reads: what the load-aware plugins see.

A :class:`LoadSnapshot` holds, per host, the latest 15-minute window of
CPU and memory utilisation (average and standard deviation, in % of the
host's physical capacity) after the bad-metrics rules have been applied,
and the physical size of the host. The loop (or ``decide``) has one per
pass (:func:`build`, or the columns the load provider keeps up to date)
and carries it in the pass's
:class:`~preemptible_sched.objects.PassContext` (``context.load``): the
weighers read it there, the filters on the batch they are given
(``batch.load``). Nothing here reads a clock, a file or the network.

What the metrics cannot show yet is added from the scheduler's own
knowledge: the instances placed on a host after its window ended, or less
than :data:`RECENT_MARGIN_S` before, count with their predicted CPU
(:func:`predicted_cores`) on top of the measured utilisation. Those sums
are recomputed only for the hosts whose table row changed, so a burst of
instances placed in one pass moves the next one elsewhere.

Bad metrics (each logged once per host, counted in :class:`MetricsHealth`,
and listed by :meth:`LoadSnapshot.explain`):

* a host's metrics missing, stale or corrupt: see :mod:`.load_metrics`;
* the whole source down, or no host with a usable window while some carry
  instances: :attr:`LoadSnapshot.fallback` says why, and the weighers rank
  by best fit on allocations until metrics return.
"""

import collections
import logging
import math

import numpy

from preemptible_sched.hosts import load_metrics

LOG = logging.getLogger(__name__)

#: Instances placed less than this before a window's end may not show in
#: it yet (a scrape interval and a window refresh).
RECENT_MARGIN_S = 60.0

#: The fallback reasons (a host's own: :mod:`.load_metrics`).
SOURCE_DOWN = 'source down'
SOURCE_STALE = 'no fresh metrics'


def predicted_cores(vcpus, expected, multiplier):
    """The CPU (in cores) an instance is expected to use.

    A VM's vCPUs are a hard cap: ``min(vcpus, expected * multiplier)``
    when an expected usage is declared, else ``vcpus``.
    """
    if expected is None:
        return float(vcpus)
    return min(float(vcpus), float(expected) * multiplier)


def instance_cores(instance, multiplier):
    return predicted_cores(instance.resources.vcpus,
                           getattr(instance, 'expected_vcpus', None),
                           multiplier)


def placed_at(instance):
    """When ``instance`` was placed (its start when that is unknown)."""
    placed = getattr(instance, 'placed_at', None)
    return instance.started_at if placed is None else placed


class MetricsHealth:
    """Counts the bad-metrics cases and logs each once per host.

    One lives as long as the scheduler (or one ``decide``): a problem is
    logged the first time a host shows it, and again only after the host
    was seen healthy in between.
    """

    def __init__(self):
        self.counts = collections.Counter()
        #: host -> the reasons logged since it was last healthy
        self._logged = {}
        self._fallback_logged = None

    def note(self, host, reason, detail):
        self.counts[reason] += 1
        self.seen(host, reason, detail)

    def seen(self, host, reason, detail):
        """Log ``host``'s problem unless it was logged since the host was
        last healthy; counts nothing (see :meth:`note`).
        """
        logged = self._logged.setdefault(host, set())
        if reason not in logged:
            logged.add(reason)
            LOG.warning('Load metrics of host %s: %s', host, detail)

    def count(self, totals):
        """Count the problems of one pass: reason -> hosts showing it."""
        self.counts.update({reason: number for reason, number
                            in totals.items() if number})

    def healthy(self, host):
        self._logged.pop(host, None)

    def healthy_slots(self, slot_of, mask):
        """:meth:`healthy` for each host whose slot (``slot_of``: name ->
        slot) is set in ``mask``; costs the hosts logged, not the mask.
        """
        if self._logged:
            size = len(mask)
            for host in list(self._logged):
                slot = slot_of.get(host)
                if slot is not None and slot < size and mask[slot]:
                    del self._logged[host]

    def fallback(self, reason):
        if reason is not None:
            self.counts[reason] += 1
        if reason != self._fallback_logged:
            if reason is None:
                LOG.warning('Load metrics are back: load-aware weighing '
                            'resumes')
            else:
                LOG.warning('Load metrics unusable (%s): ranking by best '
                            'fit on allocations until they return', reason)
            self._fallback_logged = reason


#: The columns of the metrics as read (NaN where a metric is unusable).
BASE = ('cpu_avg', 'cpu_std', 'memory_avg', 'memory_std', 'physical_cores',
        'physical_memory_mb', 'window_end', 'new')
#: Per resource, derived from them and what the weighers read: ``_known``
#: (a window, or a new host), ``_load`` (its average in %, 0 where
#: unknown), ``_mu`` and ``_sigma`` (average and deviation as fractions,
#: 0 where unknown).
DERIVED = tuple('%s_%s' % (resource, part)
                for resource in load_metrics.RESOURCES
                for part in ('known', 'load', 'mu', 'sigma'))
#: What a host the snapshot does not know reads.
_UNKNOWN = dict({'new': False}, **{
    field: (False if field.endswith('_known') else 0.0)
    for field in DERIVED})


def derive(columns):
    """The :data:`DERIVED` columns of the :data:`BASE` ``columns``."""
    new = columns['new']
    derived = {}
    for resource in load_metrics.RESOURCES:
        avg = numpy.where(new, 0.0, columns[resource + '_avg'])
        std = numpy.where(new, 0.0, columns[resource + '_std'])
        known = ~numpy.isnan(avg)
        used = numpy.where(known, avg, 0.0)
        derived[resource + '_known'] = known
        derived[resource + '_load'] = used
        derived[resource + '_mu'] = used / 100.0
        derived[resource + '_sigma'] = numpy.where(known, std, 0.0) / 100.0
    return derived


class Stamps:
    """Per slot of a host table, when its load last changed, and the
    weights computed from it, kept across passes.

    ``at[slot]`` is the value of ``clock`` when the slot's columns or
    recent-placement sums last changed (:meth:`touch`); ``memo`` maps a
    key (a weigher and what else it reads: the request, its options) to
    ``(clock, weights)``: the weights of every slot as they were at that
    clock, valid where no slot was touched since (:meth:`since`).
    """

    #: weights kept for at most this many keys (request shapes, options)
    KEYS = 16
    #: touches remembered one by one (older ones: ``at`` is scanned)
    LOG = 64

    def __init__(self):
        self.clock = 0
        self.at = numpy.zeros(0, dtype=numpy.int64)
        self.memo = {}
        #: the slots of the latest touches, oldest first: (clock, slots)
        self._log = []

    def grow(self, size):
        grown = numpy.zeros(size, dtype=numpy.int64)
        grown[:len(self.at)] = self.at
        self.at = grown
        self.memo.clear()
        self._log = []

    def touch(self, slots):
        """The load of ``slots`` (an array of distinct slots) changed."""
        if len(slots):
            self.clock += 1
            if len(slots) == len(self.at):
                self.at[:] = self.clock
                self._log = []
                return
            self.at[slots] = self.clock
            self._log.append((self.clock, slots))
            if len(self._log) > self.LOG:
                del self._log[0]

    def since(self, clock):
        """The slots touched after ``clock``, as a sorted array."""
        if clock == self.clock:
            return ()
        log = self._log
        if log and log[0][0] <= clock + 1:
            # Every touch since is in the log.
            found = [slots for at, slots in log if at > clock]
            return found[0] if len(found) == 1 else numpy.unique(
                numpy.concatenate(found))
        return numpy.flatnonzero(self.at > clock)

    def keep(self, key, weights):
        memo = self.memo
        memo.pop(key, None)
        if len(memo) >= self.KEYS:
            del memo[next(iter(memo))]
        memo[key] = (self.clock, weights)


class LoadSnapshot:
    """The load of every host, as one pass reads it.

    ``hosts`` maps host names to :class:`.load_metrics.HostLoad`;
    ``fallback`` is None, or why the metrics cannot be used at all (the
    weighers then rank by best fit on allocations). ``multiplier`` scales
    declared expected usages (``[target_load_packing] default_multiplier``).
    """

    def __init__(self, now, hosts, fallback=None, multiplier=1.5):
        self.now = now
        self.hosts = hosts
        self.fallback = fallback
        self.multiplier = multiplier
        names = list(hosts)
        self._index = {name: i for i, name in enumerate(names)}
        loads = [hosts[name] for name in names]

        def column(field):
            return numpy.array([getattr(load, field) for load in loads],
                               dtype=float)
        self._columns = {field: column(field) for field in (
            'cpu_avg', 'cpu_std', 'memory_avg', 'memory_std',
            'physical_cores', 'physical_memory_mb', 'window_end')}
        self._columns['new'] = numpy.array([load.new for load in loads],
                                           dtype=bool)
        self._columns.update(derive(self._columns))
        self._size = len(names)
        self._table = None
        self._table_rows = None
        self._by_slot = {}
        self._stamps = None

    @classmethod
    def on_table(cls, now, hosts, fallback, multiplier, table, columns,
                 recent, stamps=None, rows=None):
        """A snapshot whose ``columns`` are already one row per slot of
        ``table`` (see :class:`.load_columns.LoadColumns`), and whose
        ``recent`` arrays (table generation, cores, memory MB per slot)
        are kept across passes: nothing is rebuilt per pass. ``stamps``
        (a :class:`Stamps`, kept with the columns) tells the slots whose
        load changed, so that :meth:`weights` computes only those again;
        ``rows``: ``numpy.arange`` of the table's size, if at hand.
        """
        snapshot = cls.__new__(cls)
        snapshot.now = now
        snapshot.hosts = hosts
        snapshot.fallback = fallback
        snapshot.multiplier = multiplier
        snapshot._index = table.slot_of
        snapshot._columns = columns
        snapshot._size = size = len(columns['new'])
        snapshot._table = table
        snapshot._table_rows = numpy.arange(size) if rows is None else rows
        (snapshot._generation, snapshot._recent_cores,
         snapshot._recent_memory, snapshot._newest) = recent
        snapshot._by_slot = dict(columns)
        snapshot._stamps = stamps
        return snapshot

    def _indices(self, names):
        rows = numpy.fromiter((self._index.get(name, -1) for name in names),
                              dtype=numpy.int64, count=len(names))
        # A host registered after the snapshot was taken has no row yet.
        rows[rows >= self._size] = -1
        return rows

    def _rows(self, batch):
        """The snapshot's row of every host of ``batch`` (-1: unknown)."""
        table = batch.table
        if table is None:
            return self._indices(batch.names)
        self._align(table)
        # (``batch.slots`` would make a whole batch a partial one.)
        return (self._table_rows if batch.whole
                else self._table_rows[batch.slots])

    def _align(self, table):
        """Align the snapshot with the slots of ``table``, once."""
        if self._table is not table or len(self._table_rows) != len(table):
            self._table = table
            self._table_rows = self._indices(table.names)
            size = len(table)
            # Recent-placement sums per slot, and the table generation
            # of the slot they were computed at (-1: not yet).
            self._generation = numpy.full(size, -1, dtype=numpy.int64)
            self._recent_cores = numpy.zeros(size)
            self._recent_memory = numpy.zeros(size)
            self._newest = numpy.full(size, -math.inf)
            self._by_slot = {}
            # Those arrays are no longer the ones the stamps follow.
            self._stamps = None

    def _aligned(self, index, fields):
        known = index >= 0
        out = {}
        for field in fields:
            values = self._columns[field]
            picked = numpy.full(len(index), _UNKNOWN.get(field, numpy.nan),
                                dtype=values.dtype)
            picked[known] = values[index[known]]
            out[field] = picked
        return out

    def columns(self, batch, fields=None):
        """The snapshot's columns (``fields``: of :data:`BASE` and
        :data:`DERIVED`, default :data:`BASE`) for the hosts of
        ``batch``; hosts it does not know get NaN metrics and no capacity,
        and are not known.
        """
        fields = tuple(fields or BASE)
        if batch.table is None:
            return self._aligned(self._rows(batch), fields)
        self._align(batch.table)
        # Aligned with the table's slots once per snapshot, then taken.
        missing = [f for f in fields if f not in self._by_slot]
        if missing:
            self._by_slot.update(self._aligned(self._table_rows, missing))
        if batch.whole:
            return {field: self._by_slot[field] for field in fields}
        slots = batch.slots
        return {field: self._by_slot[field][slots] for field in fields}

    def recent(self, batch):
        """Per host of ``batch``: (cores, memory MB) of the instances its
        metrics cannot show yet, with their predicted CPU.

        On a table, the sums are kept per host and recomputed only for
        the hosts whose row changed since (an instance placed, released
        or started): a pass over many hosts pays for the few it changed.
        """
        if batch.table is None:
            cores = numpy.zeros(len(batch))
            memory = numpy.zeros(len(batch))
            rows = self._rows(batch).tolist()
            for position, view in enumerate(batch.views()):
                cores[position], memory[position] = self._sums(
                    rows[position], view.host.instances.values())
            return cores, memory
        table = batch.table
        self._align(table)
        if batch.whole:
            self._refresh(table, None)
            return self._recent_cores.copy(), self._recent_memory.copy()
        slots = batch.slots
        self._refresh(table, slots)
        return self._recent_cores[slots], self._recent_memory[slots]

    def _refresh(self, table, slots):
        """Compute the recent sums again where the table's row changed
        (``slots``: of these slots only; None: every slot).
        """
        if slots is None:
            stale = numpy.flatnonzero(self._generation != table.generation)
            changed = stale
        else:
            current = table.generation[slots]
            stale = numpy.flatnonzero(self._generation[slots] != current)
            changed = slots[stale]
        if not len(stale):
            return
        states = table.states
        rows = self._table_rows
        generation = table.generation
        for slot in changed.tolist():
            state = states.get(slot)
            if state is None or not state.instances:
                sums = (0.0, 0.0)
                newest = -math.inf
            else:
                instances = state.instances.values()
                sums = self._sums(int(rows[slot]), instances)
                newest = max(placed_at(instance) for instance in instances)
            self._recent_cores[slot], self._recent_memory[slot] = sums
            # Kept for LoadColumns: while no instance was placed after
            # both window ends (less the margin), the sums hold.
            self._newest[slot] = newest
            self._generation[slot] = generation[slot]
        if self._stamps is not None:
            self._stamps.touch(changed)

    #: at most this many hosts changed: their weights are computed one
    #: by one (``one``), cheaper than numpy on a few values
    FEW = 8

    def weights(self, batch, key, fields, compute, one=None):
        """``compute(columns, recent cores, recent memory MB)``: weights
        host by host (each host's from its own row only) for the hosts of
        ``batch``, with ``columns`` the ``fields`` as :meth:`columns`
        gives them; ``one(row, recent cores, recent memory MB)``, if
        given, the same for one host (``row``: field -> Python scalar),
        to the bit.

        On the table the snapshot was taken on, the weights of every slot
        are kept under ``key`` (which must hold all else ``compute``
        reads: the weigher, the request, its options) from one pass to
        the next, and computed again only for the slots whose load or
        recent placements changed since: a pass pays for the hosts it
        changed. The array answered may be read-only.
        """
        table = batch.table
        stamps = self._stamps
        if stamps is None or table is None or table is not self._table or \
                len(table) != self._size:
            columns = self.columns(batch, fields)
            cores, memory = self.recent(batch)
            return compute(columns, cores, memory)
        self._refresh(table, None)
        by_slot = self._by_slot
        kept = stamps.memo.get(key)
        if kept is not None and len(kept[1]) == self._size:
            clock, weights = kept
            changed = stamps.since(clock)
            if len(changed):
                weights = weights.copy()
                if one is not None and len(changed) <= self.FEW:
                    cores, memory = self._recent_cores, self._recent_memory
                    for slot in changed.tolist():
                        weights[slot] = one(
                            {field: by_slot[field].item(slot)
                             for field in fields},
                            cores.item(slot), memory.item(slot))
                else:
                    weights[changed] = compute(
                        {field: by_slot[field][changed] for field in fields},
                        self._recent_cores[changed],
                        self._recent_memory[changed])
                weights.flags.writeable = False
        else:
            weights = numpy.array(compute(
                {field: by_slot[field] for field in fields},
                self._recent_cores, self._recent_memory), dtype=float)
            weights.flags.writeable = False
        stamps.keep(key, weights)
        return weights if batch.whole else weights[batch.slots]

    def _sums(self, row, instances):
        """The sums of the ``instances`` of the host at ``row`` (-1: one
        the snapshot does not know) that its window cannot show.
        """
        cutoff = -math.inf if row < 0 else (
            float(self._columns['window_end'][row]) - RECENT_MARGIN_S)
        cores = memory = 0.0
        for instance in instances:
            if placed_at(instance) > cutoff:
                cores += instance_cores(instance, self.multiplier)
                memory += instance.resources.memory_mb
        return cores, memory

    def explain(self, batch=None):
        """What ``decide`` shows: the fallback and each host's load; with
        ``batch`` (the hosts before the decision), also the predicted
        cores of the instances their windows cannot show yet.
        """
        recent = {}
        if batch is not None:
            cores, _ = self.recent(batch)
            recent = dict(zip(batch.names, cores.tolist()))
        hosts = {}
        for name, load in self.hosts.items():
            hosts[name] = {
                'status': 'new' if load.new else (
                    'ok' if load.usable() else 'no usable metrics'),
                'cpu': None if not load.has('cpu') else {
                    'avg': load.cpu_avg, 'std': load.cpu_std},
                'memory': None if not load.has('memory') else {
                    'avg': load.memory_avg, 'std': load.memory_std},
                'problems': [text for _, text in load.problems],
            }
            if name in recent:
                hosts[name]['recent_vcpus'] = recent[name]
        return {'fallback': self.fallback, 'hosts': hosts}


def build(now, hosts, windows, occupied, source_problem=None,
          multiplier=1.5, health=None, memo=None):
    """A :class:`LoadSnapshot` at ``now``.

    ``hosts``: ``(name, physical cores, physical memory MB)`` of every
    host; ``windows``: host name -> its latest metrics (see
    :func:`.load_metrics.host_load`); ``occupied``: the names of the
    hosts that carry instances; ``source_problem``: why the source failed,
    if it did. ``health`` (a :class:`MetricsHealth`) counts and logs the
    problems. ``memo`` (a dict kept by the caller across passes) reuses a
    host's :class:`.load_metrics.HostLoad` while its metrics object, size
    and occupancy are the same and its window has not aged past
    :data:`.load_metrics.MAX_AGE_S`: the windows change once a refresh,
    the passes far more often.
    """
    health = health if health is not None else MetricsHealth()
    loads = {}
    for name, cores, memory_mb in hosts:
        metrics = windows.get(name)
        busy = name in occupied
        known = None if memo is None else memo.get(name)
        if known is not None and known[0] is metrics and \
                known[1] == (cores, memory_mb, busy) and now <= known[2]:
            load = known[3]
        else:
            load = load_metrics.host_load(name, cores, memory_mb, metrics,
                                          now, busy)
            if memo is not None:
                fresh = math.isfinite(load.window_end)
                memo[name] = (metrics, (cores, memory_mb, busy),
                              load.window_end + load_metrics.MAX_AGE_S if fresh
                              else math.inf, load)
        loads[name] = load
        if load.problems:
            for reason, text in load.problems:
                health.note(name, reason, text)
        else:
            health.healthy(name)
    fallback = None
    if source_problem:
        fallback = '%s: %s' % (SOURCE_DOWN, source_problem)
    elif occupied and not any(load.usable() and not load.new
                              for load in loads.values()):
        fallback = ('%s: no host has a usable window newer than %.0f s'
                    % (SOURCE_STALE, load_metrics.MAX_AGE_S))
    health.fallback(fallback)
    return LoadSnapshot(now, loads, fallback, multiplier)


def shares(added, capacity):
    """``added / capacity``, +inf where the capacity is not positive."""
    if (capacity > 0).all():
        return added / capacity
    share = numpy.full(len(capacity), math.inf)
    numpy.divide(added, capacity, out=share, where=capacity > 0)
    return share


#: The columns :func:`utilisation_of` reads.
UTILISATION_FIELDS = ('cpu_load', 'cpu_known', 'physical_cores')


def request_cores(spec, multiplier):
    """The CPU (in cores) ``spec`` is expected to use."""
    return predicted_cores(spec.resources.vcpus,
                           getattr(spec, 'expected_vcpus', None), multiplier)


def utilisation_of(columns, recent_cores, request):
    """:func:`utilisation` of hosts given their :data:`UTILISATION_FIELDS`
    ``columns``, the cores of their recent placements and the request's.
    """
    added = shares(100.0 * (recent_cores + request),
                   columns['physical_cores'])
    return columns['cpu_load'] + added, ~columns['cpu_known']


def one_utilisation(row, recent_cores, request):
    """:func:`utilisation_of` of one host (``row``: its
    :data:`UTILISATION_FIELDS` as Python scalars), to the bit: the
    predicted CPU %, or None when its load is unknown.
    """
    if not row['cpu_known']:
        return None
    added = 100.0 * (recent_cores + request)
    cores = row['physical_cores']
    return row['cpu_load'] + (added / cores if cores > 0 else math.inf)


def utilisation(batch, spec, snapshot):
    """Per host of ``batch``: the predicted CPU % with ``spec`` placed,
    and a mask of the hosts whose load is unknown (not new, no metric).
    """
    columns = snapshot.columns(batch, UTILISATION_FIELDS)
    recent_cores, _ = snapshot.recent(batch)
    return utilisation_of(columns, recent_cores,
                          request_cores(spec, snapshot.multiplier))


def best_fit(batch, spec):
    """Fallback score 0-100: the share of the host's vCPUs in use after
    ``spec`` is placed where it fits (fullest first), 0 where it does not.
    """
    capacity = batch.capacity[0]
    after = batch.used[0] + spec.resources.vcpus
    score = numpy.zeros(len(batch))
    numpy.divide(100.0 * after, capacity, out=score, where=capacity > 0)
    return numpy.where(batch.fits(spec.resources),
                       numpy.minimum(score, 100.0), 0.0)
