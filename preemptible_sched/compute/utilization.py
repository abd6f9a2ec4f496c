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

"""CPU utilisation models of the fake compute driver.

A model hands every instance a *track* when it starts running; the track
answers the instance's CPU utilisation (share of its vCPUs, 0..1) as a
function of its running time only. Reading a track never draws from the
driver's random generator, so looking at utilisation cannot change the
boot times or any other event of a run.

* :class:`ConstantUtilization`: every instance uses the same share.
* :class:`RandomWalkUtilization`: a seeded random walk per instance.
* :class:`TraceUtilization`: replay of a Bitbrains (GWA-T-12) trace, each
  instance from its own seeded starting sample.
* :class:`PooledTraceUtilization`: replay of many VMs (a Bitbrains
  directory in the OpenDC layout), each instance replaying one of them.
"""

import bisect
import math
import os
import random

from preemptible_sched import exception
from preemptible_sched import extras

# Only the Bitbrains directories (the OpenDC layout) need them.
pyarrow = extras.optional_module('pyarrow')
parquet = extras.optional_module('pyarrow.parquet')

# Columns of the Bitbrains GWA-T-12 ("fastStorage", "Rnd") per-VM files.
TIMESTAMP = 'Timestamp [ms]'
CAPACITY = 'CPU capacity provisioned [MHZ]'
USAGE = 'CPU usage [MHZ]'
# Their positions when a file has no header.
_POSITIONS = {TIMESTAMP: 0, CAPACITY: 2, USAGE: 3}


def _clamp(share):
    return min(1.0, max(0.0, share))


class ConstantUtilization:
    """Every instance uses ``share`` of its vCPUs, all the time."""

    def __init__(self, share):
        self.share = _clamp(share)

    def start(self, rng):
        return self

    def at(self, runtime):
        return self.share


class _Walk:
    """One instance's walk; steps are drawn lazily and remembered."""

    def __init__(self, seed, start, step, interval):
        self._rng = random.Random(seed)
        self._step = step
        self._interval = interval
        self._values = [start]

    def at(self, runtime):
        index = int(max(0.0, runtime) // self._interval)
        while len(self._values) <= index:
            move = self._rng.uniform(-self._step, self._step)
            self._values.append(_clamp(self._values[-1] + move))
        return self._values[index]


class RandomWalkUtilization:
    """A random walk per instance, bounded to [0, 1].

    The walk starts at ``start``; every ``interval`` seconds of running time
    it moves by a value drawn uniformly from ``[-step, step]`` and is
    clamped to [0, 1]. Each instance's walk has its own generator, seeded
    from the driver's when the instance starts.
    """

    def __init__(self, start, step, interval):
        if interval <= 0:
            raise ValueError('interval must be > 0, got %r' % interval)
        self.start_share = _clamp(start)
        self.step = step
        self.interval = interval

    def start(self, rng):
        return _Walk(rng.getrandbits(64), self.start_share, self.step,
                     self.interval)


class _Replay:
    def __init__(self, trace, offset):
        self._trace = trace
        self._offset = offset

    def at(self, runtime):
        return self._trace.share(self._offset, runtime)


class TraceUtilization:
    """Replay of a utilisation trace, by the instance's running time.

    ``times`` are the sample times relative to the first sample and
    ``shares`` the utilisation of each sample; a sample holds until the next
    one, the last one for the median sampling interval, and then the trace
    starts over. An instance starts at a sample drawn from the driver's
    generator (its *offset*).
    """

    def __init__(self, times, shares, source='trace'):
        if not times or len(times) != len(shares):
            raise ValueError('a trace needs as many times as shares, and '
                             'at least one')
        self.source = source
        self.times = [when - times[0] for when in times]
        self.shares = [_clamp(share) for share in shares]
        steps = sorted(b - a for a, b in zip(self.times, self.times[1:]))
        last_step = steps[(len(steps) - 1) // 2] if steps else 1.0
        self.period = self.times[-1] + last_step

    @classmethod
    def from_file(cls, path):
        """Read a Bitbrains GWA-T-12 CSV; :class:`InvalidInput` if bad."""
        times, shares = _read_gwa_t12(path)
        return cls(times, shares, source=path)

    def start(self, rng):
        return _Replay(self, rng.randrange(len(self.times)))

    def share(self, offset, runtime):
        """Utilisation ``runtime`` seconds after sample ``offset``."""
        position = (self.times[offset] + max(0.0, runtime)) % self.period
        return self.shares[bisect.bisect_right(self.times, position) - 1]


def _number(path, line_number, column, text):
    try:
        value = float(text)
    except ValueError:
        value = None
    if value is None or not math.isfinite(value):
        raise exception.InvalidInput(
            path, 'line %d' % line_number,
            '%s %r is not a number' % (column, text))
    return value


def _read_gwa_t12(path):
    """Return ``(times, shares)`` of a GWA-T-12 file, times from 0."""
    try:
        with open(path, encoding='utf-8') as trace:
            lines = trace.read().splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise exception.InvalidInput(path, None,
                                     'cannot read the utilisation trace: '
                                     '%s' % error) from None
    columns = _POSITIONS
    times, shares = [], []
    first = None
    header_allowed = True
    for line_number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        fields = [field.strip() for field in line.split(';')]
        if header_allowed:
            # Only the first non-blank line may be the header.
            header_allowed = False
            if not _is_number(fields[0]):
                columns = _header_columns(path, line_number, fields)
                continue
        needed = max(columns.values()) + 1
        if len(fields) < needed:
            raise exception.InvalidInput(
                path, 'line %d' % line_number,
                'expected at least %d ";"-separated fields, found %d'
                % (needed, len(fields)))
        when = _number(path, line_number, TIMESTAMP,
                       fields[columns[TIMESTAMP]])
        capacity = _number(path, line_number, CAPACITY,
                           fields[columns[CAPACITY]])
        usage = _number(path, line_number, USAGE, fields[columns[USAGE]])
        if capacity <= 0:
            raise exception.InvalidInput(
                path, 'line %d' % line_number,
                '%s must be > 0, got %r' % (CAPACITY, capacity))
        if usage < 0:
            raise exception.InvalidInput(
                path, 'line %d' % line_number,
                '%s must be >= 0, got %r' % (USAGE, usage))
        if first is None:
            first = when
        elif when - first <= times[-1]:
            raise exception.InvalidInput(
                path, 'line %d' % line_number,
                '%s %r is not after the previous sample'
                % (TIMESTAMP, fields[columns[TIMESTAMP]]))
        times.append(when - first)
        shares.append(usage / capacity)
    if not times:
        raise exception.InvalidInput(path, None,
                                     'the utilisation trace has no samples')
    return times, shares


def _is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def _header_columns(path, line_number, fields):
    names = {name.lower(): index for index, name in enumerate(fields)}
    columns = {}
    for column in _POSITIONS:
        if column.lower() not in names:
            raise exception.InvalidInput(
                path, 'line %d' % line_number,
                'header has no %r column (a Bitbrains GWA-T-12 file starts '
                '"%s; CPU cores; %s; %s; ...")'
                % (column, TIMESTAMP, CAPACITY, USAGE))
        columns[column] = names[column.lower()]
    return columns


class PooledTraceUtilization:
    """Replay of many VMs' utilisation: each instance replays one of
    ``traces`` (drawn from the driver's generator), from its own seeded
    starting sample.
    """

    def __init__(self, traces, source='traces'):
        if not traces:
            raise ValueError('a pool needs at least one trace')
        self.traces = list(traces)
        self.source = source

    @classmethod
    def from_directory(cls, path):
        """Read a Bitbrains directory in the OpenDC layout
        (``tasks.parquet``, ``fragments.parquet``); :class:`InvalidInput`
        if bad.
        """
        return cls(read_bitbrains_directory(path), source=path)

    def start(self, rng):
        return self.traces[rng.randrange(len(self.traces))].start(rng)


def read_bitbrains_directory(path):
    """One :class:`TraceUtilization` per VM of a Bitbrains trace stored
    the OpenDC way: ``tasks.parquet`` (``id``, ``cpu_capacity`` in MHz)
    and ``fragments.parquet`` (``id``, ``duration`` in ms, ``cpu_usage``
    in MHz), five-minute samples in order. Utilisation = usage /
    capacity, clamped to [0, 1].
    """
    files = {}
    for name in ('tasks', 'fragments'):
        file_path = os.path.join(path, '%s.parquet' % name)
        try:
            files[name] = parquet.read_table(file_path).to_pydict()
        except (OSError, pyarrow.ArrowException) as error:
            raise exception.InvalidInput(
                file_path, None, 'cannot read the Bitbrains trace: %s'
                % str(error).splitlines()[0]) from None
    tasks, fragments = files['tasks'], files['fragments']
    for name, table, columns in (
            ('tasks', tasks, ('id', 'cpu_capacity')),
            ('fragments', fragments, ('id', 'duration', 'cpu_usage'))):
        missing = [column for column in columns if column not in table]
        if missing:
            raise exception.InvalidInput(
                os.path.join(path, '%s.parquet' % name), None,
                'no column %s' % ', '.join(missing))
    capacity = dict(zip(tasks['id'], tasks['cpu_capacity']))
    series = {}
    for vm, duration, usage in zip(fragments['id'], fragments['duration'],
                                   fragments['cpu_usage']):
        cap = capacity.get(vm)
        if not cap or cap <= 0 or not math.isfinite(usage) or \
                duration <= 0:
            continue        # a sample that cannot be a utilisation
        times, shares, clock = series.setdefault(vm, ([], [], [0.0]))
        times.append(clock[0])
        shares.append(usage / cap)
        clock[0] += duration / 1000.0
    if not series:
        raise exception.InvalidInput(
            os.path.join(path, 'fragments.parquet'), None,
            'no usable utilisation sample')
    return [TraceUtilization(times, shares, source='%s#%s' % (path, vm))
            for vm, (times, shares, _) in sorted(series.items())]
