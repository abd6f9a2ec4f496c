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

"""One host's load metrics under the bad-metrics rules: its :class:`HostLoad`.

:func:`host_load` turns the latest window of a host (``{"cpu": {"avg",
"std"}, "memory": {"avg", "std"}, "window_end": ...}``) into the usable
load a :class:`~preemptible_sched.hosts.load.LoadSnapshot` holds, listing
each problem with its reason (:data:`MISSING`, :data:`STALE`,
:data:`CORRUPT`, :data:`CLIPPED`), which the snapshot's
:class:`~preemptible_sched.hosts.load.MetricsHealth` counts and logs:

* a host or one of its metrics missing, or metrics older than
  :data:`MAX_AGE_S` (``window_end``: the end of the window read over HTTP,
  or the host's own newest sample in process): the host has no usable
  load and scores 0, unless it carries no instance (a new host, whose
  utilisation is 0); a missing standard deviation is 0, not a problem
  (a source of latest values only has none);
* a corrupt value: an average slightly above 100 % is clipped to 100, a
  NaN, negative, non-numeric or absurd one is ignored (the metric is then
  missing); types other than CPU and memory are passed through untouched.
"""

import dataclasses
import math
import typing

#: A window older than this (now - its end) is no longer used.
MAX_AGE_S = 300.0
#: How far above 100 % an average may be and still be clipped, not
#: rejected: sampling jitter, a rounding of the source.
CLIP_SLACK = 5.0
#: The resources the weighers read, by the key of a host's metrics.
RESOURCES = ('cpu', 'memory')

#: Reasons a host has no usable load.
MISSING = 'missing'
STALE = 'stale'
CORRUPT = 'corrupt'
CLIPPED = 'clipped'


@dataclasses.dataclass
class HostLoad:
    """The usable load of one host (NaN: the metric is unusable)."""

    name: str
    physical_cores: float
    physical_memory_mb: float
    cpu_avg: float = math.nan
    cpu_std: float = math.nan
    memory_avg: float = math.nan
    memory_std: float = math.nan
    #: end of the window, on the scheduler's clock (-inf: none)
    window_end: float = -math.inf
    #: carries no instance and has no usable metric: utilisation 0
    new: bool = False
    #: why a metric was clipped, ignored or missing
    problems: typing.List[str] = dataclasses.field(default_factory=list)
    #: other metric types, passed through untouched
    extra: typing.Dict[str, typing.Any] = dataclasses.field(
        default_factory=dict)

    def has(self, resource):
        return not math.isnan(getattr(self, resource + '_avg'))

    def usable(self):
        return self.new or any(self.has(r) for r in RESOURCES)


def _value(metrics, resource, key):
    entry = metrics.get(resource)
    if not isinstance(entry, dict):
        return None
    return entry.get(key)


def _clean(value, resource, key, problems):
    """The usable value of one metric (NaN if none), noting problems."""
    label = '%s %s' % (resource, key)
    if value is None:
        problems.append((MISSING, '%s missing' % label))
        return math.nan
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        problems.append((CORRUPT, '%s is not a number (%s), ignored'
                         % (label, type(value).__name__)))
        return math.nan
    value = float(value)
    if math.isnan(value) or math.isinf(value) or value < 0:
        problems.append((CORRUPT, '%s = %s, ignored' % (label, value)))
        return math.nan
    if value > 100.0 + CLIP_SLACK:
        problems.append((CORRUPT, '%s = %g %%, absurd, ignored'
                         % (label, value)))
        return math.nan
    if value > 100.0:
        problems.append((CLIPPED, '%s = %g %% clipped to 100' % (label,
                                                                 value)))
        return 100.0
    return value


def host_load(name, cores, memory_mb, metrics, now, occupied):
    """The :class:`HostLoad` of one host from its ``metrics``.

    ``metrics``: ``{"cpu": {"avg", "std"}, "memory": {"avg", "std"},
    "window_end": <absolute s>}`` (None: the host is missing);
    ``occupied``: it carries instances now.
    """
    load = HostLoad(name, float(cores), float(memory_mb))
    problems = []
    if not metrics:
        problems.append((MISSING, 'no metrics for this host'))
        metrics = {}
    elif not isinstance(metrics, dict):
        problems.append((CORRUPT, 'metrics are not a mapping, ignored'))
        metrics = {}
    else:
        end = metrics.get('window_end', now)
        if isinstance(end, bool) or not isinstance(end, (int, float)) or \
                not math.isfinite(end):
            problems.append((CORRUPT, 'window_end %r, ignored' % (end,)))
            metrics = {}
        elif now - end > MAX_AGE_S:
            problems.append((STALE, 'window ended %.0f s ago (more than '
                             '%.0f s)' % (
                                 math.ceil(now - end), MAX_AGE_S)))
            metrics = {}
        else:
            load.window_end = float(end)
    if metrics:
        for resource in RESOURCES:
            if resource not in metrics:
                problems.append((MISSING, '%s missing' % resource))
                continue
            avg = _clean(_value(metrics, resource, 'avg'), resource, 'avg',
                         problems)
            std = _value(metrics, resource, 'std')
            # No deviation is no problem: a source of latest values only
            # (metrics-server) has none, and the released plugins read 0.
            std = 0.0 if std is None else _clean(std, resource, 'std',
                                                 problems)
            if not math.isnan(avg):
                setattr(load, resource + '_avg', avg)
                # A window without its deviation is still an average.
                setattr(load, resource + '_std',
                        0.0 if math.isnan(std) else std)
        load.extra = {key: value for key, value in metrics.items()
                      if key not in RESOURCES and key != 'window_end'}
    if not load.usable() and not occupied:
        # A host without instances and without metrics is a new host.
        load.new = True
        problems = [(reason, text) for reason, text in problems
                    if reason != MISSING]
    load.problems = problems
    return load
