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


"""The load watcher: collect, keep, recompute the windows, answer."""

import logging
import math
import threading

import numpy

from preemptible_sched.hosts import load_metrics
from preemptible_sched.hosts import load_reading
from preemptible_sched import loadwatcher
from preemptible_sched.loadwatcher import load_sources as sources
from preemptible_sched.loadwatcher import payload as payload_mod
from preemptible_sched.loadwatcher import windows as windows_mod

LOG = logging.getLogger(__name__)

_KEEP = max(duration for _, duration in loadwatcher.WINDOWS)
_DURATION = dict(loadwatcher.WINDOWS)
#: A utilisation above this (in %) is a broken sample, not a busy host.
ABSURD_PERCENT = 1000.0
#: Scrape intervals without a successful collection after which the
#: watcher reports itself stale (plus the source's own deadline).
STALE_INTERVALS = 3


def _clean(value):
    """A sample value the windows may use, or None."""
    if value is None or isinstance(value, bool):
        return None
    try:
        value = float(value)
    except (TypeError, ValueError):
        return None
    if not math.isfinite(value) or value < 0 or value > ABSURD_PERCENT:
        return None
    return value


def _pair(given, own):
    """The source's (average, deviation) when both are usable, else
    ``own``.
    """
    if given is None or any(_clean(value) is None for value in given):
        return tuple(own)
    return tuple(float(value) for value in given)


class LoadWatcher:
    """Collects from ``source`` every ``scrape_interval`` seconds and
    recomputes the windows every ``window_refresh`` seconds, on the times
    it is given (:meth:`tick`, or :meth:`start` on a clock).

    ``store`` (a :class:`~preemptible_sched.loadwatcher.store.WatcherStore`)
    keeps samples and windows across restarts: a new watcher on the same
    store answers at once with the windows the old one had. Safe to read
    from other threads (the HTTP server) while it collects.
    """

    def __init__(self, source, store=None, scrape_interval=60.0,
                 window_refresh=60.0):
        self.source = source
        self.store = store
        self.scrape_interval = float(scrape_interval)
        self.window_refresh = float(window_refresh)
        self._lock = threading.Lock()
        self._samples = {}
        self.windows = {}
        #: per host, the time of its newest sample when the windows were
        #: computed: how old its metrics are, whatever the refresh time
        self.sampled_at = {}
        #: when the windows were last computed (None: never)
        self.computed_at = None
        self.last_scrape = None
        #: why the last collection failed, or None
        self.source_error = None
        #: why the source's window aggregates failed last, or None
        self.aggregates_error = None
        self._bad_logged = set()
        self._handle = None
        self._latest = None
        self._clock = None
        self._stopped = False
        if store is not None:
            for host, at, cpu, memory in store.samples():
                self._host(host).add(at, cpu, memory)
            self.computed_at, self.windows = store.windows()
            self.sampled_at = self._newest()
            self.sampled_at.update(store.newest())

    def _host(self, host):
        samples = self._samples.get(host)
        if samples is None:
            samples = self._samples[host] = windows_mod.HostSamples(_KEEP)
        return samples

    def _newest(self):
        return {host: samples.newest()
                for host, samples in self._samples.items()
                if samples.newest() is not None}

    # -- collecting --------------------------------------------------------

    def _why(self, error):
        """Why the source failed, in one line."""
        if isinstance(error, sources.SourceError):
            why = str(error)
        else:
            # A source's own bug: said in one line (the traceback at
            # debug level), and the watcher goes on serving.
            LOG.debug('Load source %s failed', self.source.name,
                      exc_info=True)
            why = '%s: %s' % (type(error).__name__, error)
        return ' '.join(why.split())[:300]

    def _failed(self, error):
        """Say once that the source fails (one line), and remember why."""
        why = self._why(error)
        with self._lock:
            if self.source_error is None:
                LOG.warning('Load source %s failed: %s',
                            self.source.name, why)
            self.source_error = why

    def scrape(self, now):
        """Collect one sample of every host; False if the source failed
        (the windows are kept, and :meth:`healthy` says so).
        """
        try:
            collected = self.source.collect(now)
        except Exception as error:
            self._failed(error)
            return False
        samples = {}
        for host, (cpu, memory) in collected.items():
            cleaned = (_clean(cpu), _clean(memory))
            if cleaned != (cpu, memory) and host not in self._bad_logged:
                self._bad_logged.add(host)
                LOG.warning('Load source %s gave host %s unusable values '
                            '(cpu %r, memory %r): ignored', self.source.name,
                            host, cpu, memory)
            if cleaned != (None, None):
                samples[host] = cleaned
        with self._lock:
            if self._stopped:
                return False    # the store may be closed already
            if self.source_error is not None:
                LOG.warning('Load source %s is back', self.source.name)
            self.source_error = None
            self.last_scrape = now
            for host, (cpu, memory) in samples.items():
                self._host(host).add(now, cpu, memory)
            if self.store is not None:
                self.store.add_samples(now, samples, now - _KEEP)
        return True

    def _aggregates(self, now):
        """The windows a source computes itself (``window_stats``, as
        Prometheus does), or None: a source without them, or failing
        (said once, until they are back: the windows of the watcher's own
        samples are served meanwhile).
        """
        window_stats = getattr(self.source, 'window_stats', None)
        if window_stats is None:
            return None
        try:
            found, why = window_stats(now), None
        except Exception as error:
            found, why = None, self._why(error)
        with self._lock:
            if why is not None and self.aggregates_error is None:
                LOG.warning('Load source %s: window aggregates failed (%s): '
                            'the windows of the samples are served',
                            self.source.name, why)
            elif why is None and self.aggregates_error is not None:
                LOG.warning('Load source %s: window aggregates are back',
                            self.source.name)
            self.aggregates_error = why
        return found

    @staticmethod
    def _merge(own, aggregates):
        """``own`` windows with each (average, deviation) the source
        computed in place of ours; the latest value stays our sample's.
        """
        merged = {}
        for window, by_resource in own.items():
            given = aggregates.get(window, {})
            merged[window] = {
                resource: _pair(given.get(resource), stats[:2]) + (stats[2],)
                for resource, stats in by_resource.items()}
        return merged

    def refresh(self, now):
        """Recompute every host's windows ([now - d, now]) and save them;
        with a source that computes windows itself (``window_stats``), its
        averages and deviations replace ours.
        """
        aggregates = self._aggregates(now)
        with self._lock:
            if self._stopped:
                return
            windows = {host: found for host, found in (
                (host, samples.windows(now))
                for host, samples in self._samples.items()) if found}
            if aggregates is not None:
                windows = {host: self._merge(found, aggregates.get(host, {}))
                           for host, found in windows.items()}
            self.windows = windows
            self.sampled_at = self._newest()
            self.computed_at = now
            if self.store is not None:
                self.store.save_windows(now, self.windows, self.sampled_at)

    def tick(self, now):
        """Scrape and refresh when they are due at ``now``."""
        if self.last_scrape is None or \
                now - self.last_scrape >= self.scrape_interval:
            self.scrape(now)
        if self.computed_at is None or \
                now - self.computed_at >= self.window_refresh:
            self.refresh(now)

    def start(self, clock):
        """Tick now and then as often as the shorter of the two intervals
        on ``clock`` (real or virtual), until :meth:`stop`.
        """
        period = min(self.scrape_interval, self.window_refresh)
        self._clock = clock

        def run():
            self.tick(clock.now())
            self._handle = clock.call_later(period, run)
        run()

    def stop(self):
        """Stop ticking; a collection still under way (another thread)
        is then dropped, so the store can be closed.
        """
        with self._lock:
            self._stopped = True
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def now(self):
        """The time of the clock given to :meth:`start`; None before."""
        clock = self._clock
        return None if clock is None else clock.now()

    # -- answering ---------------------------------------------------------

    def healthy(self):
        """Whether the last collection succeeded (or none failed yet)."""
        return self.source_error is None

    def health(self, now=None):
        """``(True, 'ok')``, or ``(False, why)``: the last collection
        failed, the source's last window aggregates failed (the windows
        of the samples are then served), none has succeeded yet, or the
        last success is older than
        :data:`STALE_INTERVALS` scrape intervals plus the source's
        deadline (``now``: the time of the clock given to :meth:`start`;
        without either, staleness is not judged).
        """
        with self._lock:
            error, last = self.source_error, self.last_scrape
            aggregates = self.aggregates_error
        if error is not None:
            return False, 'source failing: %s' % error
        if aggregates is not None:
            return False, 'window aggregates failing: %s' % aggregates
        if now is None and self._clock is not None:
            now = self._clock.now()
        if last is None:
            return False, 'no collection yet'
        stale_after = (STALE_INTERVALS * self.scrape_interval +
                       float(getattr(self.source, 'timeout', 0) or 0))
        if now is not None and now - last > stale_after:
            return False, ('collection stale: the last one succeeded '
                           '%.0f s ago (more than %.0f s)'
                           % (now - last, stale_after))
        return True, 'ok'

    def _fresh(self, host):
        """Whether ``host`` had a sample within :data:`.load_metrics.MAX_AGE_S`
        of the computation (the staleness rule of the weighers).
        """
        at = self.sampled_at.get(host, self.computed_at)
        return self.computed_at - at <= load_metrics.MAX_AGE_S

    def payload(self, host=None, window=loadwatcher.LATEST):
        """The wire payload of ``window`` (all hosts, or ``host``); None
        when there is nothing to answer (no windows yet, unknown host).

        A host whose ``window`` is empty is served its next shorter one
        (:func:`.loadwatcher.fallbacks`, said by each metric's
        ``rollup``); a host without a sample for more than
        :data:`.load_metrics.MAX_AGE_S` is left out, so that every reader,
        which cannot see a host's own time in this format, takes it as
        missing.
        """
        with self._lock:
            if self.computed_at is None:
                return None
            served = {name: by_window for name, by_window
                      in self.windows.items() if self._fresh(name)}
            if host is not None and not payload_mod.pick(
                    served.get(host, {}), window)[1]:
                return None
            end = self.computed_at
            return payload_mod.build(
                end, window, window, end - _DURATION[window], end,
                self.source.name or 'unknown', served,
                None if host is None else [host])

    def latest(self, window=loadwatcher.LATEST):
        """``{host: metrics}`` of ``window`` (or of the next shorter one
        where it is empty) for :func:`preemptible_sched.hosts.load.build`; each
        host's ``window_end`` is the time of its newest sample, so that a
        host gone silent ages while the others stay fresh.

        It is a :class:`~preemptible_sched.hosts.load_reading.Reading`:
        the hosts with a float average and deviation of both CPU and
        memory are rows of one array, which the scheduler's load columns
        read at once; its names are the same object from one refresh to
        the next while those hosts stay the same.
        """
        with self._lock:
            # The same object until the next refresh, so that the pass
            # snapshots built from it can reuse what they computed.
            if self._latest is not None and \
                    self._latest[0] == (self.computed_at, window):
                return self._latest[1]
            names, rows, others = [], [], {}
            for host, by_window in self.windows.items():
                stats = payload_mod.pick(by_window, window)[1]
                if not stats:
                    continue
                end = self.sampled_at.get(host, self.computed_at)
                cpu, memory = stats.get('cpu'), stats.get('memory')
                if len(stats) == 2 and cpu is not None and \
                        memory is not None and type(end) is float and \
                        type(cpu[0]) is float and type(cpu[1]) is float and \
                        type(memory[0]) is float and \
                        type(memory[1]) is float:
                    names.append(host)
                    rows.append((cpu[0], cpu[1], memory[0], memory[1], end))
                    continue
                metrics = {'window_end': end}
                for resource, (avg, std, _) in stats.items():
                    metrics[resource] = {'avg': avg, 'std': std}
                others[host] = metrics
            before = self._latest[1].names if self._latest else None
            if before is not None and before == names:
                names = before
            found = load_reading.Reading(
                names, numpy.array(rows, dtype=float).reshape(
                    len(rows), len(load_reading.COLUMNS)), others)
            self._latest = ((self.computed_at, window), found)
            return found
