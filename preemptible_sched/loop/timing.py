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

"""Per-stage timing of scheduling passes.

Every pass of the loop is a sequence of the reference architecture's
stages (see :data:`STAGES`). For each stage and pass this records the wall
and CPU time spent, the input size (requests, hosts or candidates the
stage looked at, summed over its runs) and the iterations (how many times
the stage ran in the pass: once per request or per instance for the
per-request stages). ``simulate`` writes the rows to ``stages.csv``.

This measures the scheduler's own computing time, so it reads performance
counters even under a virtual clock. Nothing here decides anything.

What a lap costs, and why it is measured so
-------------------------------------------
A simulation makes tens of thousands of laps (every request a pass asks
about is timed in R1, R4, R5 and T10), so the stopwatch must cost little
next to what it times. The thread's CPU clock is a system call (about
0.8 µs a reading on the reference machine, against about 0.1 µs for the
performance counter, which Linux answers without entering the kernel);
reading it at both ends of every lap made the laps cost about 3 µs each.
So:

* a lap reads only the performance counter, in integer nanoseconds, at
  its two ends: entering subtracts the reading from the stage's wall
  total for the pass and leaving adds it (exact, and right for nested
  laps too);
* a stage's lap object is made on its first lap in a pass and handed out
  again for its other laps there, which count themselves (iterations,
  input size) when the stopwatch is asked for them: no object and no
  dictionary of totals per lap;
* the thread's CPU clock is read once when a pass begins and once when it
  ends, and the pass's CPU time is shared among its stages in proportion
  to their wall time: a stage's ``cpu`` is its wall time times the pass's
  CPU-to-wall ratio (at most 1).

A lap then costs about 0.6 µs of CPU time and the start and end of a
pass about 2.8 µs, measured on their own (``doc/source/performance.rst``
says what whole replays measured). The CPU share is exact for the pass as a
whole, and for a stage it assumes what the thread lost to other processes
(the difference between wall and CPU time in the simulator, which never
waits) fell on the stages in proportion to their length: true on average
over passes, so per-stage means and totals (``summary_ms``, sums over
``stages.csv``) keep their meaning, while one pass's row is an estimate.
Under a real clock, a stage that waits (T4 on the database) lowers the
ratio of its whole pass instead of its own CPU time alone: compare its wall
time across passes for waits. A lap outside a pass is a row of its own and
still reads the CPU clock at both ends (it has no pass to share).
``benchmarks/stage_timing_overhead.py`` measures what the stopwatch costs
the simulator.
"""

import struct
import time

import numpy

#: (code, name, what its input size counts), in the order of a pass.
STAGES = (
    ('J2', 'admission', 'requests arrived or returned'),
    ('T2', 'queue order (J3/T2)', 'pending requests'),
    ('T1', 'eligibility', 'requests considered'),
    ('R1', 'hosts', 'hosts'),
    ('R4', 'filtering (R2-R4)', 'host views filtered'),
    ('R5', 'weighing and selection', 'hosts weighed'),
    ('T10', 'preemption', 'candidate hosts'),
    ('T4', 'submission', 'instances handed to the compute driver'),
)
STAGE_NAMES = {code: name for code, name, _ in STAGES}

#: Columns of :meth:`StageStats.rows` (and of ``stages.csv``).
COLUMNS = ('pass', 'time_s', 'stage', 'iterations', 'input_size',
           'wall_ms', 'cpu_ms')

#: One record: pass, its (simulated) time, the stage's index in
#: ``_stage_codes``, iterations, input size, wall and CPU seconds.
_RECORD = struct.Struct('<qdhqqdd')
_RECORD_DTYPE = numpy.dtype([('pass', '<i8'), ('time', '<f8'),
                             ('stage', '<i2'), ('iterations', '<i8'),
                             ('size', '<i8'), ('wall', '<f8'),
                             ('cpu', '<f8')])

# The counters, in nanoseconds (module names, so a lap looks them up once).
_wall_ns = time.perf_counter_ns
_cpu_ns = time.thread_time_ns


class StageStats:
    """Stage times per pass, and the latency of every decision."""

    def __init__(self):
        # One record per (pass, stage that ran in it), packed in one buffer
        # (:data:`_RECORD`, 50 bytes): a long simulation makes hundreds of
        # thousands of passes, and one ``+=`` of a whole record is both the
        # cheapest way to keep them and atomic for a reader in another
        # thread.
        self._records = bytearray()
        self._stage_codes = [code for code, _, _ in STAGES]
        self._stage_index = {code: index for index, code
                             in enumerate(self._stage_codes)}
        self.decisions = []
        # The laps of the current pass by stage, in the order the stages
        # first ran; always empty outside a pass. Their objects are kept
        # from pass to pass (:attr:`_spare`): a pass allocates nothing the
        # garbage collector tracks, so the stopwatch does not bring its
        # collections, which walk the whole heap, sooner.
        self._laps = {}
        self._spare = {}
        self._in_pass = False
        self._pass_number = 0
        self._pass_time = 0.0
        self._pass_wall = 0
        self._pass_cpu = 0

    def begin_pass(self, number, now):
        self._pass_number = number
        self._pass_time = now
        self._laps.clear()
        self._in_pass = True
        self._pass_wall = _wall_ns()
        self._pass_cpu = _cpu_ns()

    def end_pass(self):
        if not self._in_pass:
            return
        cpu = _cpu_ns() - self._pass_cpu
        wall = _wall_ns() - self._pass_wall
        # The pass's CPU time shared by wall time (see the module's notes).
        ratio = min(1.0, cpu / wall) if wall > 0 else 1.0
        # One record per stage that ran, written here rather than through
        # _append: this runs for every pass.
        records, pack = self._records, _RECORD.pack
        number, at = self._pass_number, self._pass_time
        index_of = self._stage_index
        for stage, lap in self._laps.items():
            index = index_of.get(stage)
            if index is None:
                index = self._new_stage(stage)
            records += pack(number, at, index, lap.iterations, lap.size,
                            lap.wall / 1e9, lap.wall * ratio / 1e9)
        self._laps.clear()
        self._in_pass = False

    def _new_stage(self, stage):
        """The index of a stage not in :data:`STAGES`, made on its first
        record.
        """
        index = self._stage_index[stage] = len(self._stage_codes)
        self._stage_codes.append(stage)
        return index

    def _append(self, stage, iterations, size, wall, cpu):
        index = self._stage_index.get(stage)
        if index is None:
            index = self._new_stage(stage)
        self._records += _RECORD.pack(self._pass_number, self._pass_time,
                                      index, iterations, size, wall, cpu)

    def _unpacked(self, start=0):
        """The records from the ``start``-th, unpacked, and the number of
        records in all: a copy of the buffer taken at once, so a record
        being appended by another thread is wholly in or out.
        """
        data = self._records[start * _RECORD.size:]
        count = len(data) // _RECORD.size
        return start + count, _RECORD.iter_unpack(
            memoryview(data)[:count * _RECORD.size])

    @property
    def passes(self):
        """(pass, time, stage, iterations, size, wall_s, cpu_s) tuples."""
        codes = self._stage_codes
        _, records = self._unpacked()
        return [(number, at, codes[index], iterations, size, wall, cpu)
                for number, at, index, iterations, size, wall, cpu
                in records]

    def stage_walls_since(self, start):
        """``(end, [(stage, wall_s), ...])`` of the records from the
        ``start``-th to the ``end``-th: what a reader in another thread
        (the metrics endpoint) has not seen yet, at the cost of those
        records alone.
        """
        codes = self._stage_codes
        end, records = self._unpacked(start)
        return end, [(codes[record[2]], record[5]) for record in records]

    def stopwatch(self, stage, size=0):
        """``with stats.stopwatch('R4', len(hosts)): ...`` adds the
        block's time to a stage of the current pass (outside a pass the
        block is timed into a pass of its own).
        """
        lap = self._laps.get(stage)
        if lap is None:
            return self._first_lap(stage, size)
        lap.iterations += 1
        lap.size += size
        return lap

    def _first_lap(self, stage, size):
        if not self._in_pass:
            return _LoneLap(self, stage, size)
        lap = self._spare.get(stage)
        if lap is None:
            lap = self._spare[stage] = _Laps()
        lap.iterations = 1
        lap.size = size
        lap.wall = 0
        self._laps[stage] = lap
        return lap

    def add_decision(self, seconds):
        self.decisions.append(seconds)

    def rows(self):
        """One row per (pass, stage), in milliseconds, for ``stages.csv``."""
        codes = self._stage_codes
        _, records = self._unpacked()
        return [(number, at, codes[index], iterations, size, wall * 1000.0,
                 cpu * 1000.0)
                for number, at, index, iterations, size, wall, cpu
                in records]

    def summary_ms(self):
        """Per stage: passes it ran in, runs, input size, and wall and CPU
        time in total, per pass (mean) and at most in one pass.
        """
        # A copy: a view would keep the buffer from growing.
        data = bytes(self._records)
        records = numpy.frombuffer(data, dtype=_RECORD_DTYPE,
                                   count=len(data) // _RECORD.size)
        codes = self._stage_codes
        # Per stage index, over the records at once (no Python object per
        # record); sums in record order, as a loop over them would add.
        index = records['stage'].astype(numpy.intp)
        wall_ms = records['wall'] * 1e3
        cpu_ms = records['cpu'] * 1e3
        bins = len(codes)
        passes = numpy.bincount(index, minlength=bins)
        totals = [numpy.zeros(bins, dtype=numpy.int64) for _ in range(2)]
        for total, column in zip(totals, ('iterations', 'size')):
            # Contiguous, for ufunc.at's fast path.
            numpy.add.at(total, index,
                         numpy.ascontiguousarray(records[column]))
        wall_total = numpy.bincount(index, weights=wall_ms, minlength=bins)
        cpu_total = numpy.bincount(index, weights=cpu_ms, minlength=bins)
        most = numpy.zeros(bins)
        numpy.maximum.at(most, index, wall_ms)
        summary = {}
        for at in numpy.flatnonzero(passes).tolist():
            stage = codes[at]
            summary[stage] = {
                'name': STAGE_NAMES.get(stage, stage),
                'passes': int(passes[at]),
                'iterations': int(totals[0][at]),
                'input_size': int(totals[1][at]),
                'total_ms': float(wall_total[at]),
                'cpu_total_ms': float(cpu_total[at]),
                'max_ms': float(most[at])}
        for entry in summary.values():
            entry['mean_ms'] = entry['total_ms'] / entry['passes']
            entry['cpu_mean_ms'] = entry['cpu_total_ms'] / entry['passes']
        order = [code for code, _, _ in STAGES]
        return {stage: summary[stage] for stage in sorted(
            summary, key=lambda s: (order.index(s) if s in order
                                    else len(order), s))}


class _Laps:
    """One stage's laps in the current pass: the runs and input size the
    stopwatch counted, and their wall time in nanoseconds.
    """

    __slots__ = ('iterations', 'size', 'wall')

    def __init__(self):
        self.iterations = 1
        self.size = 0
        self.wall = 0

    def __enter__(self):
        self.wall -= _wall_ns()

    def __exit__(self, kind, value, traceback):
        self.wall += _wall_ns()


class _LoneLap:
    """A lap outside a pass: a row of its own, with its own CPU time."""

    __slots__ = ('stats', 'stage', 'size', 'wall', 'cpu')

    def __init__(self, stats, stage, size):
        self.stats = stats
        self.stage = stage
        self.size = size

    def __enter__(self):
        self.wall = _wall_ns()
        self.cpu = _cpu_ns()

    def __exit__(self, kind, value, traceback):
        cpu = _cpu_ns() - self.cpu
        wall = _wall_ns() - self.wall
        self.stats._append(self.stage, 1, self.size, wall / 1e9, cpu / 1e9)
