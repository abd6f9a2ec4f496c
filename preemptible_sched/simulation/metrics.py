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

"""Metrics of a simulated run (algorithms.md section 10).

Pure functions over the per-request :class:`InstanceRecord` the runner
produces: nothing here reads a clock or does I/O. Every number returned is
a plain Python ``float``/``int`` (or ``None`` where a statistic has no
sample), so the results go straight into ``summary.json``.
"""

import collections
import dataclasses
import typing

import numpy

#: Availabilities this close below the SLO still fulfil it: an instance
#: that ran exactly as long as the SLO asks must not fail on rounding.
SLO_TOLERANCE = 1e-9

#: The ``per_class`` key of records that belong to no service class.
NO_CLASS = 'none'


@dataclasses.dataclass
class InstanceRecord:
    """What happened to one request during a run.

    Times are seconds on the simulation clock. ``end_s`` is None for an
    instance still alive at ``--until``; ``availability`` is ``running_s``
    over the time since submission, measured at the end (or at
    ``--until``), and None when that span is zero.
    """

    id: str
    service_class: typing.Optional[str]
    preemptible: bool
    submit_s: float
    end_s: typing.Optional[float]
    running_s: float
    pending_s: float
    overhead_s: float
    availability: typing.Optional[float]
    preemptions: int
    terminated: bool
    host: typing.Optional[str]
    #: who submitted it, the vCPUs of each instance (a moldable request's
    #: cores), the hosts of an SLA request's copies (';'-separated) and
    #: when it (its first copy) started
    user: typing.Optional[str] = None
    cores: typing.Optional[float] = None
    copies: typing.Optional[str] = None
    start_s: typing.Optional[float] = None
    #: why it ended as it did, or why it still waits for a host (an SLA
    #: request whose reputation category has no host up); None if nothing
    #: was said
    reason: typing.Optional[str] = None


def instance_reason(state, own, request):
    """The ``reason`` of an instance in ``state`` for instances.csv: its
    request's reason (``request``) while it waits for a host, its ``own``
    when it ended otherwise than by running to its end, else None.
    """
    if state == 'pending':
        return request
    return own if state in ('terminated', 'preempted', 'error',
                            'deleted') else None


def gini(values):
    """The Gini coefficient of non-negative ``values``.

    G = sum_i sum_j |x_i - x_j| / (2 n^2 mean), computed in O(n log n)
    from the sorted values x_(1) <= ... <= x_(n) as
    sum_i (2i - n - 1) x_(i) / (n sum x). 0 means every value is equal,
    (n - 1)/n that one value holds everything. 0.0 for no values or a zero
    mean.
    """
    x = numpy.sort(numpy.asarray(values, dtype=float))
    if x.size == 0:
        return 0.0
    if x[0] < 0:
        raise ValueError('gini is defined for non-negative values only')
    total = x.sum()
    if total == 0:
        return 0.0
    n = x.size
    ranks = numpy.arange(1, n + 1)
    return float(numpy.dot(2 * ranks - n - 1, x) / (n * total))


def windowed_gini(spans, window):
    """The Gini coefficient among requests active at about the same time.

    ``spans`` are ``(start, end, availability)`` triples; the run, from
    the earliest start to the latest end, is cut into windows of
    ``window`` seconds (the first starts at the earliest start), and a
    request belongs to every window its span ``[start, end)`` overlaps (a
    zero-length one, to the window of its start). Returns the mean, over
    the windows that hold at least two requests, of the Gini coefficient
    of their availabilities (each measured at the request's end); None
    when no window holds two. Requests far apart in time saw different
    loads, so this says how evenly the scheduler treated the requests that
    competed with each other, where :func:`gini` over the whole run mixes
    them.
    """
    data = numpy.asarray(list(spans), dtype=float).reshape(-1, 3)
    if data.shape[0] < 2:
        return None
    starts, ends, values = data[:, 0], data[:, 1], data[:, 2]
    origin = starts.min()
    first = numpy.floor((starts - origin) / window).astype(numpy.int64)
    last = numpy.maximum(
        first, numpy.ceil((ends - origin) / window).astype(numpy.int64) - 1)
    ginis = []
    for index in range(int(last.max()) + 1):
        active = values[(first <= index) & (index <= last)]
        if active.size >= 2:
            ginis.append(gini(active))
    return float(numpy.mean(ginis)) if ginis else None


def class_summary(records, slos, tolerance=SLO_TOLERANCE, window=None,
                  until=None):
    """Availability statistics per service class.

    ``slos`` maps a class name to its SLO (a float in [0, 1]). Returns a
    dict keyed by class name (``'none'`` for records without a class),
    each value holding:

    - ``count``: requests whose availability was measured, and
      ``unmeasured``: those whose availability is None (zero time between
      submission and end); the latter are left out of every statistic
      below;
    - ``mean_availability``;
    - ``slo``: the class's SLO (None for ``'none'`` and for a class missing
      from ``slos``);
    - ``slo_fulfillment``: the share of requests whose availability is at
      least the SLO minus ``tolerance`` (by default
      :data:`SLO_TOLERANCE`, i.e. exactly the SLO; ``simulate`` passes
      ``[qos] slo_tolerance``), and ``slo_fulfillment_strict``: the share
      whose availability is at least the SLO itself (rounding aside, see
      :data:`SLO_TOLERANCE`), the published definition;
    - ``qos_deficit``: how far the violating requests fall short, on
      average: the mean of ``slo - availability`` over the requests whose
      availability is below the SLO only, 0.0 when none is (so the
      deficit does not shrink when more requests fulfil the SLO);
    - ``gini``: the Gini coefficient of the availabilities, and
      ``gini_windowed``: among requests active at about the same time,
      :func:`windowed_gini` over windows of ``window`` seconds (None
      without ``window``); a request still running counts until ``until``
      (default: the latest time of any record).

    ``slo_fulfillment`` and ``qos_deficit`` are None without an SLO; every
    statistic is None for a class with no measured request.
    """
    if until is None:
        until = max([record.end_s or record.submit_s for record in records],
                    default=0.0)
    by_class = collections.defaultdict(list)
    spans = collections.defaultdict(list)
    unmeasured = collections.Counter()
    for record in records:
        name = record.service_class or NO_CLASS
        if record.availability is None:
            unmeasured[name] += 1
            by_class.setdefault(name, [])
        else:
            by_class[name].append(record.availability)
            spans[name].append((record.submit_s, until if record.end_s is None
                                else record.end_s, record.availability))

    summary = {}
    for name, availabilities in by_class.items():
        slo = slos.get(name) if name != NO_CLASS else None
        entry = {'count': len(availabilities),
                 'unmeasured': unmeasured[name],
                 'slo': slo,
                 'mean_availability': None,
                 'slo_fulfillment': None,
                 'slo_fulfillment_strict': None,
                 'qos_deficit': None,
                 'gini': None,
                 'gini_windowed': None}
        if availabilities:
            values = numpy.asarray(availabilities, dtype=float)
            entry['mean_availability'] = float(values.mean())
            entry['gini'] = gini(values)
            if window is not None:
                entry['gini_windowed'] = windowed_gini(spans[name], window)
            if slo is not None:
                shortfall = slo - values
                violating = shortfall > tolerance
                entry['slo_fulfillment'] = float(1 - violating.mean())
                entry['slo_fulfillment_strict'] = float(
                    (shortfall <= SLO_TOLERANCE).mean())
                entry['qos_deficit'] = (float(shortfall[violating].mean())
                                        if violating.any() else 0.0)
        summary[name] = entry
    return summary


def percentiles_ms(seconds_list):
    """Mean, median and 99th percentile of durations, in milliseconds.

    Percentiles interpolate linearly between samples (numpy's default).
    All three are None when there is no sample.
    """
    ms = numpy.asarray(seconds_list, dtype=float) * 1000.0
    if ms.size == 0:
        return {'mean': None, 'p50': None, 'p99': None}
    p50, p99 = numpy.percentile(ms, [50, 99])
    return {'mean': float(ms.mean()), 'p50': float(p50), 'p99': float(p99)}


def utilisation_fractions(samples):
    """The used share of each resource at each sample, for plotting.

    ``samples`` are ``(t, used_vcpus, capacity_vcpus, used_memory,
    capacity_memory)`` tuples; returns ``(t, cpu_fraction,
    memory_fraction)`` tuples (a fraction is 0.0 at zero capacity).
    """
    def share(used, capacity):
        return used / capacity if capacity else 0.0

    return [(t, share(cpu, cpu_cap), share(mem, mem_cap))
            for t, cpu, cpu_cap, mem, mem_cap in samples]


def utilisation_series(samples, end=None):
    """Time-weighted mean utilisation of CPU and memory over a run.

    ``samples`` are ``(t, used_vcpus, capacity_vcpus, used_memory,
    capacity_memory)`` tuples in time order; each holds until the next one,
    and the last until ``end`` (default: its own time, so it weighs
    nothing). Utilisation is the resource-time used over the resource-time
    offered, so hosts joining or leaving weigh by how long they were there.
    Returns ``{'cpu': ..., 'memory': ...}``, None where nothing was
    offered.
    """
    data = numpy.asarray(samples, dtype=float).reshape(-1, 5)
    if data.shape[0] == 0:
        return {'cpu': None, 'memory': None}
    times = data[:, 0]
    if end is None:
        end = times[-1]
    durations = numpy.diff(numpy.append(times, end))
    if (durations < 0).any():
        raise ValueError('utilisation samples must be in time order and '
                         'end no earlier than the last one')

    def mean(used, capacity):
        offered = numpy.dot(durations, capacity)
        return float(numpy.dot(durations, used) / offered) if offered else None

    return {'cpu': mean(data[:, 1], data[:, 2]),
            'memory': mean(data[:, 3], data[:, 4])}
