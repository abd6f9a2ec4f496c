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
"""

import array
import time

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


class _Totals:
    __slots__ = ('iterations', 'size', 'wall', 'cpu')

    def __init__(self):
        self.iterations = 0
        self.size = 0
        self.wall = 0.0
        self.cpu = 0.0


class StageStats:
    """Stage times per pass, and the latency of every decision."""

    def __init__(self):
        # One entry per (pass, stage that ran in it), as compact columns:
        # a long simulation makes hundreds of thousands of passes.
        self._columns = (array.array('q'), array.array('d'),
                         array.array('h'), array.array('q'),
                         array.array('q'), array.array('d'),
                         array.array('d'))
        self._stage_codes = [code for code, _, _ in STAGES]
        self._stage_index = {code: index for index, code
                             in enumerate(self._stage_codes)}
        self.decisions = []
        self._current = None
        self._pass_number = 0
        self._pass_time = 0.0

    def begin_pass(self, number, now):
        self._pass_number = number
        self._pass_time = now
        self._current = {}

    def end_pass(self):
        if self._current is None:
            return
        for stage, totals in self._current.items():
            self._append(stage, totals.iterations, totals.size, totals.wall,
                         totals.cpu)
        self._current = None

    def _append(self, stage, iterations, size, wall, cpu):
        index = self._stage_index.get(stage)
        if index is None:
            index = self._stage_index[stage] = len(self._stage_codes)
            self._stage_codes.append(stage)
        numbers, times, stages, iterations_, sizes, walls, cpus = \
            self._columns
        numbers.append(self._pass_number)
        times.append(self._pass_time)
        stages.append(index)
        iterations_.append(iterations)
        sizes.append(size)
        walls.append(wall)
        cpus.append(cpu)

    @property
    def passes(self):
        """(pass, time, stage, iterations, size, wall_s, cpu_s) tuples."""
        numbers, times, stages, iterations, sizes, walls, cpus = \
            self._columns
        codes = self._stage_codes
        return [(numbers[i], times[i], codes[stages[i]], iterations[i],
                 sizes[i], walls[i], cpus[i]) for i in range(len(numbers))]

    def stopwatch(self, stage, size=0):
        """``with stats.stopwatch('R4', len(hosts)): ...`` adds the
        block's time to a stage of the current pass (outside a pass the
        block is timed into a pass of its own).
        """
        return _Lap(self, stage, size)

    def _add(self, stage, size, wall, cpu):
        current = self._current
        if current is None:
            self._append(stage, 1, size, wall, cpu)
            return
        totals = current.get(stage)
        if totals is None:
            totals = current[stage] = _Totals()
        totals.iterations += 1
        totals.size += size
        totals.wall += wall
        totals.cpu += cpu

    def add_decision(self, seconds):
        self.decisions.append(seconds)

    def rows(self):
        """One row per (pass, stage), in milliseconds, for ``stages.csv``."""
        return [(number, at, stage, iterations, size, wall * 1000.0,
                 cpu * 1000.0)
                for number, at, stage, iterations, size, wall, cpu
                in self.passes]

    def summary_ms(self):
        """Per stage: passes it ran in, runs, input size, and wall and CPU
        time in total, per pass (mean) and at most in one pass.
        """
        summary = {}
        for _, _, stage, iterations, size, wall, cpu in self.passes:
            entry = summary.setdefault(stage, {
                'name': STAGE_NAMES.get(stage, stage), 'passes': 0,
                'iterations': 0, 'input_size': 0, 'total_ms': 0.0,
                'cpu_total_ms': 0.0, 'max_ms': 0.0})
            entry['passes'] += 1
            entry['iterations'] += iterations
            entry['input_size'] += size
            entry['total_ms'] += wall * 1000.0
            entry['cpu_total_ms'] += cpu * 1000.0
            entry['max_ms'] = max(entry['max_ms'], wall * 1000.0)
        for entry in summary.values():
            entry['mean_ms'] = entry['total_ms'] / entry['passes']
            entry['cpu_mean_ms'] = entry['cpu_total_ms'] / entry['passes']
        order = [code for code, _, _ in STAGES]
        return {stage: summary[stage] for stage in sorted(
            summary, key=lambda s: (order.index(s) if s in order
                                    else len(order), s))}


class _Lap:
    __slots__ = ('stats', 'stage', 'size', 'wall', 'cpu')

    def __init__(self, stats, stage, size):
        self.stats = stats
        self.stage = stage
        self.size = size

    def __enter__(self):
        self.cpu = time.thread_time()
        self.wall = time.perf_counter()

    def __exit__(self, *exc):
        wall = time.perf_counter() - self.wall
        self.stats._add(self.stage, self.size, wall,
                        time.thread_time() - self.cpu)
