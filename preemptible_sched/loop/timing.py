"""Per-stage timing of scheduling passes.

Stage names follow the datacenter-scheduling reference architecture:
``J3`` sorting the pending queue, ``R4`` filtering, ``R5`` weighing and
choosing the host, ``T10`` choosing the termination set on it, ``T4``
journaling the decision and handing it to the compute driver. Each
``select_destinations`` call is also recorded whole, as the scheduling
latency of one decision.

This measures the scheduler's own computing time, so it reads a
performance counter even under a virtual clock: it is what the simulator
reports as scheduling latency. Nothing here decides anything.
"""

import collections
import time


class StageStats:
    """Count, total and maximum seconds spent in each stage."""

    def __init__(self):
        self.count = collections.Counter()
        self.total = collections.Counter()
        self.maximum = {}
        self.decisions = []

    def add(self, stage, seconds):
        self.count[stage] += 1
        self.total[stage] += seconds
        self.maximum[stage] = max(self.maximum.get(stage, 0.0), seconds)

    def add_decision(self, seconds):
        self.decisions.append(seconds)

    def summary_ms(self):
        return {stage: {'count': self.count[stage],
                        'total_ms': self.total[stage] * 1000.0,
                        'mean_ms': self.total[stage] * 1000.0 /
                        self.count[stage],
                        'max_ms': self.maximum[stage] * 1000.0}
                for stage in sorted(self.count)}


class Stopwatch:
    """``with stopwatch('R4'): ...`` adds the block's time to a stage."""

    def __init__(self, stats):
        self.stats = stats

    def __call__(self, stage):
        return _Lap(self.stats, stage)


class _Lap:
    __slots__ = ('stats', 'stage', 'start')

    def __init__(self, stats, stage):
        self.stats = stats
        self.stage = stage

    def __enter__(self):
        self.start = time.perf_counter()

    def __exit__(self, *exc):
        self.stats.add(self.stage, time.perf_counter() - self.start)
