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


"""Samples of utilisation and the statistics of a time window over them."""

import collections

import numpy

from preemptible_sched import loadwatcher

RESOURCES = ('cpu', 'memory')


def window_stats(times, values, now, duration):
    """``(average, standard deviation, latest)`` of the samples whose time
    lies in ``[now - duration, now]``, or None when there is none.

    The standard deviation is the population one (the samples are the
    whole window, not a draw from it).
    """
    times = numpy.asarray(times, dtype=float)
    values = numpy.asarray(values, dtype=float)
    inside = (times >= now - duration) & (times <= now)
    if not inside.any():
        return None
    picked = values[inside]
    return (float(picked.mean()), float(picked.std()),
            float(values[numpy.flatnonzero(inside)[-1]]))


class HostSamples:
    """The samples of one host kept for the longest window."""

    def __init__(self, keep=max(d for _, d in loadwatcher.WINDOWS)):
        self.keep = keep
        self.samples = collections.deque()

    def add(self, at, cpu, memory):
        self.samples.append((float(at), cpu, memory))
        while self.samples and self.samples[0][0] < at - self.keep:
            self.samples.popleft()

    def newest(self):
        """The time of the newest sample (None: none kept)."""
        return self.samples[-1][0] if self.samples else None

    def windows(self, now):
        """``{window: {resource: (avg, std, latest)}}`` at ``now``."""
        result = {}
        if not self.samples:
            return result
        times = [sample[0] for sample in self.samples]
        for name, duration in loadwatcher.WINDOWS:
            stats = {}
            for column, resource in enumerate(RESOURCES, start=1):
                kept = [(t, sample[column]) for t, sample
                        in zip(times, self.samples)
                        if sample[column] is not None]
                if not kept:
                    continue
                found = window_stats([t for t, _ in kept],
                                     [v for _, v in kept], now, duration)
                if found is not None:
                    stats[resource] = found
            if stats:
                result[name] = stats
        return result
