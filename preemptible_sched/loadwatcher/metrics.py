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


"""Prometheus metrics of the load watcher.

:func:`of` gives the one :class:`WatcherMetrics` of a
:class:`~preemptible_sched.loadwatcher.watcher.LoadWatcher`: it wraps the
watcher's source to count the collections (``ok`` or ``failed``) and the
samples the watcher ignores as unusable (missing values are not counted:
a source may have no memory figure), by host and resource; the rest is
read from the watcher at scrape time: whether it is healthy, how many
hosts it has windows for, how old its windows are and how old each
host's newest sample is (seconds of the watcher's clock).

The watcher's HTTP API serves them on ``GET /metrics``
(:mod:`.api`); the scheduler service adds them to its own endpoint when
the watcher runs inside it.
"""

import threading
import weakref

import prometheus_client
from prometheus_client import core

from preemptible_sched.loadwatcher import watcher as watcher_mod

RESOURCES = ('cpu', 'memory')
#: The content type of what :meth:`WatcherMetrics.text` writes
#: (Prometheus' text format 0.0.4).
CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8'

_OF = weakref.WeakKeyDictionary()
_OF_LOCK = threading.Lock()


def of(watcher, now=None):
    """The :class:`WatcherMetrics` of ``watcher``, made at the first call
    (``now`` as for :class:`WatcherMetrics`; later calls keep the first).
    """
    with _OF_LOCK:
        metrics = _OF.get(watcher)
        if metrics is None:
            metrics = _OF[watcher] = WatcherMetrics(watcher, now)
        return metrics


class _CountingSource:
    """A load source whose collections are counted; the rest of the
    source (its name, deadline, window aggregates) shows through.
    """

    def __init__(self, source, collections, bad):
        self._source = source
        self._collections = collections
        self._bad = bad

    def __getattr__(self, name):
        return getattr(self._source, name)

    def __setattr__(self, name, value):
        if name.startswith('_'):
            super().__setattr__(name, value)
        else:
            setattr(self._source, name, value)

    def collect(self, now):
        try:
            collected = self._source.collect(now)
        except Exception:
            self._collections.labels('failed').inc()
            raise
        self._collections.labels('ok').inc()
        try:
            for host, values in collected.items():
                for resource, value in zip(RESOURCES, values):
                    # The watcher's own rule (it ignores these values).
                    if value is not None and \
                            watcher_mod._clean(value) is None:
                        self._bad.labels(str(host), resource).inc()
        except (AttributeError, TypeError, ValueError):
            pass    # not a mapping of pairs: the watcher says so
        return collected


class _Collector:
    """Every metric of one watcher, for any registry."""

    def __init__(self, watcher, now, counters):
        self._watcher = watcher
        self._now = now
        self._counters = counters

    def _clock_now(self):
        if self._now is not None:
            return self._now()
        return self._watcher.now()

    def collect(self):
        for counter in self._counters:
            yield from counter.collect()
        watcher = self._watcher
        healthy = core.GaugeMetricFamily(
            'psched_watcher_healthy', 'Whether the load watcher is '
            'healthy (1) or not (0), as GET /watcher/health says.')
        healthy.add_metric([], 1.0 if watcher.health()[0] else 0.0)
        yield healthy
        windows = dict(watcher.windows)
        hosts = core.GaugeMetricFamily(
            'psched_watcher_hosts', 'Hosts the load watcher has windows '
            'for.')
        hosts.add_metric([], len(windows))
        yield hosts
        now = self._clock_now()
        computed_at = watcher.computed_at
        age = core.GaugeMetricFamily(
            'psched_watcher_window_age_seconds', 'Seconds (of the '
            'watcher\'s clock) since the windows were last computed.')
        if now is not None and computed_at is not None:
            age.add_metric([], max(0.0, now - computed_at))
        yield age
        sample_age = core.GaugeMetricFamily(
            'psched_watcher_sample_age_seconds', 'Seconds (of the '
            'watcher\'s clock) since the newest sample of each host in '
            'its windows.', labels=['host'])
        if now is not None:
            for host, at in sorted(dict(watcher.sampled_at).items()):
                sample_age.add_metric([host], max(0.0, now - at))
        yield sample_age


class WatcherMetrics:
    """The metrics of ``watcher`` (see the module), in :attr:`registry`
    (a registry of their own) and :attr:`collector` (to add to another
    registry). ``now`` is the watcher's clock (default: the clock it was
    started on, :meth:`LoadWatcher.now`).
    """

    def __init__(self, watcher, now=None):
        self.collections = prometheus_client.Counter(
            'psched_watcher_collections', 'Collections from the load '
            'source, by outcome (ok, failed).', ['outcome'], registry=None)
        for outcome in ('ok', 'failed'):
            self.collections.labels(outcome)
        self.bad_samples = prometheus_client.Counter(
            'psched_watcher_bad_samples', 'Sample values the load watcher '
            'ignored as unusable (not a number, negative, infinite or '
            'absurd), by host and resource.', ['host', 'resource'],
            registry=None)
        watcher.source = _CountingSource(watcher.source, self.collections,
                                         self.bad_samples)
        self.collector = _Collector(
            watcher, now, (self.collections, self.bad_samples))
        self.registry = prometheus_client.CollectorRegistry()
        self.registry.register(self.collector)

    def text(self):
        """The metrics in Prometheus' text format (bytes)."""
        return prometheus_client.generate_latest(self.registry)
