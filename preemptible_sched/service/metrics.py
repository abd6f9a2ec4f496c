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


"""Prometheus metrics of the scheduler service.

Nothing here runs in a plugin, and little in the loop: the numbers come
from what the service sees anyway.

* the loop's events (the notifier, ``info(event_type, payload)``):
  :meth:`SchedulerMetrics.observe_notifier` wraps it and counts every
  event, the placement decisions by strategy and outcome (``placed``, or
  ``preempting`` when the decision terminates victims) and the
  preemptions by the class of each victim;
* the journal: :meth:`SchedulerMetrics.instrument_journal` wraps the
  store's four journal writes, counted and timed by operation;
* the agents' reports: :meth:`SchedulerMetrics.observe_reports` wraps the
  reports' check and notes, per host, when its last accepted report (a
  heartbeat or an instance event) arrived;
* at scrape time only: the pending queue by class and the stage times of
  the passes since the last scrape (the records of
  :class:`~preemptible_sched.loop.timing.StageStats`).

A request's class is its service class when it has one, else
``preemptible`` or ``normal``. Every metric is in a registry of the
service's own (never prometheus_client's global one), served by
:func:`serve`.
"""

import logging
import threading
import time

import prometheus_client
from prometheus_client import core

from preemptible_sched.conf import metrics as metrics_conf
from preemptible_sched.loadwatcher import api as watcher_api
from preemptible_sched.loadwatcher import metrics as watcher_metrics

LOG = logging.getLogger(__name__)

#: Upper bounds (seconds) of the stage-time buckets: a stage of a pass
#: takes tens of microseconds to some seconds.
STAGE_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
                 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
#: Upper bounds (seconds) of the journal-write buckets: one transaction.
JOURNAL_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                   0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
#: The store's journal writes (:mod:`preemptible_sched.db.decision_journal`).
JOURNAL_WRITES = ('journal_decision', 'confirm_termination',
                  'set_decision_state', 'roll_back_decision')
#: Outcomes of a placement decision.
OUTCOMES = ('placed', 'preempting')
#: Threads answering scrapes (one Prometheus server scrapes at a time).
HTTP_WORKERS = 2


def class_of(item):
    """The class of a request spec or an instance: its service class, or
    ``preemptible`` or ``normal``.
    """
    if item.service_class:
        return item.service_class
    return 'preemptible' if item.preemptible else 'normal'


class _ObservingNotifier:
    """The loop's notifier, with every event counted first."""

    def __init__(self, notifier, observe):
        self._notifier = notifier
        self._observe = observe

    def info(self, event_type, payload):
        try:
            self._observe(event_type, payload)
        except Exception:   # noqa: B902 never into the loop
            LOG.debug('Metrics of event %s failed', event_type,
                      exc_info=True)
        if self._notifier is not None:
            self._notifier.info(event_type, payload)


class _PendingCollector:
    """``psched_pending_requests{class}``, read from the queue at scrape
    time; a class seen once stays, at 0 when it has nothing waiting.
    """

    def __init__(self, queue):
        self._queue = queue
        self._seen = set()

    def collect(self):
        counts = dict.fromkeys(self._seen, 0)
        # Each list is copied by one C call: the loop's thread cannot
        # change it half-way.
        for entry in self._queue.values():
            name = class_of(entry.spec)
            counts[name] = counts.get(name, 0) + 1
        self._seen.update(counts)
        family = core.GaugeMetricFamily(
            'psched_pending_requests', 'Requests waiting in the pending '
            'queue (arrived, queued or waiting for dependencies), by '
            'class.', labels=['class'])
        for name in sorted(counts):
            family.add_metric([name], counts[name])
        yield family


class _StageCollector:
    """``psched_stage_seconds{stage}``: the wall time of each stage in
    each pass, from the records the loop keeps, read at scrape time.
    """

    def __init__(self, stats):
        self._stats = stats
        self._read = 0
        self._lock = threading.Lock()
        self._histogram = prometheus_client.Histogram(
            'psched_stage_seconds', 'Wall time of one stage of the '
            'reference architecture in one scheduling pass (J2 admission, '
            'T2 queue order, T1 eligibility, R1 hosts, R4 filtering, R5 '
            'weighing, T10 preemption, T4 submission).', ['stage'],
            buckets=STAGE_BUCKETS, registry=None)

    def catch_up(self):
        """Observe the records added since the last call (those alone:
        a scrape costs what the passes since the last one recorded).
        """
        with self._lock:
            self._read, walls = self._stats.stage_walls_since(self._read)
            for stage, wall in walls:
                self._histogram.labels(stage).observe(wall)

    def collect(self):
        self.catch_up()
        return self._histogram.collect()


class _ReportAgeCollector:
    """``psched_compute_report_age_seconds{host}``: wall seconds since
    each host's last accepted report.
    """

    def __init__(self, last_reports, now):
        self._last = last_reports
        self._now = now

    def collect(self):
        now = self._now()
        family = core.GaugeMetricFamily(
            'psched_compute_report_age_seconds', 'Wall seconds since the '
            'last report (registration, heartbeat or instance event) '
            'accepted from the agent of each host.', labels=['host'])
        for host, at in sorted(dict(self._last).items()):
            family.add_metric([host], max(0.0, now - at))
        yield family


class SchedulerMetrics:
    """The registry of one scheduler service and what feeds it.

    ``strategy`` names the preemption strategy (a label of the decisions);
    ``queue`` is the loop's pending queue and ``stats`` its
    :class:`~preemptible_sched.loop.timing.StageStats`;
    ``find_instance(host, instance_id)`` returns the instance a host state
    holds (or None), for the class of a victim. ``now`` is the wall clock
    of the report ages (``time.time``).
    """

    def __init__(self, strategy, queue=None, stats=None,
                 find_instance=None, now=time.time):
        self.registry = prometheus_client.CollectorRegistry()
        self.strategy = strategy
        self._find_instance = find_instance
        self._now = now
        self.last_reports = {}
        registry = self.registry
        self.leader_epoch = prometheus_client.Gauge(
            'psched_leader_epoch', 'The term (epoch) of this scheduler, the '
            'leader of its topic: one more at each takeover.', ['topic'],
            registry=self.registry)
        self.events = prometheus_client.Counter(
            'psched_events', 'Events of the scheduler loop, by type (as '
            'the notifications).', ['event'], registry=registry)
        self.decisions = prometheus_client.Counter(
            'psched_decisions', 'Placement decisions journaled, by '
            'preemption strategy and outcome (placed: no victim; '
            'preempting: victims terminated for it).',
            ['strategy', 'outcome'], registry=registry)
        for outcome in OUTCOMES:
            self.decisions.labels(strategy, outcome)
        self.preemptions = prometheus_client.Counter(
            'psched_preemptions', 'Instances chosen as victims (a '
            'termination notice sent), by their class.', ['class'],
            registry=registry)
        self.journal_writes = prometheus_client.Counter(
            'psched_journal_writes', 'Writes to the decision journal, by '
            'operation (failed ones included).', ['operation'],
            registry=registry)
        self.journal_seconds = prometheus_client.Histogram(
            'psched_journal_write_seconds', 'Wall time of one write to '
            'the decision journal (one transaction), by operation.',
            ['operation'], buckets=JOURNAL_BUCKETS, registry=registry)
        for operation in JOURNAL_WRITES:
            self.journal_writes.labels(operation)
            self.journal_seconds.labels(operation)
        if queue is not None:
            registry.register(_PendingCollector(queue))
        self.stages = None
        if stats is not None:
            self.stages = _StageCollector(stats)
            registry.register(self.stages)
        registry.register(_ReportAgeCollector(self.last_reports, now))

    @classmethod
    def of_loop(cls, loop):
        """The metrics of a :class:`~preemptible_sched.loop.
        scheduler_loop.SchedulerLoop`.
        """
        states = loop.host_manager.host_states

        def find_instance(host, instance_id):
            state = states.get(host)
            return None if state is None else \
                state.instances.get(instance_id)

        return cls(loop.scheduler.strategy.name, loop.queue, loop.stats,
                   find_instance)

    # -- the loop's events -----------------------------------------------

    def observe(self, event_type, payload):
        """Count one event of the loop."""
        self.events.labels(event_type).inc()
        if event_type == 'instance.placement':
            outcome = 'preempting' if payload.get('terminate') else 'placed'
            self.decisions.labels(self.strategy, outcome).inc()
        elif event_type == 'instance.termination_notice':
            instance = None
            if self._find_instance is not None:
                instance = self._find_instance(payload.get('host'),
                                               payload.get('instance_id'))
            self.preemptions.labels(
                'unknown' if instance is None else class_of(instance)).inc()

    def observe_notifier(self, notifier):
        """``notifier`` (or None) with every event counted first; what the
        loop is given.
        """
        return _ObservingNotifier(notifier, self.observe)

    # -- the journal -------------------------------------------------------

    def _timed(self, operation, write):
        count = self.journal_writes.labels(operation).inc
        observe = self.journal_seconds.labels(operation).observe
        clock = time.perf_counter

        def timed(*args, **kwargs):
            start = clock()
            try:
                return write(*args, **kwargs)
            finally:
                observe(clock() - start)
                count()
        timed.__doc__ = write.__doc__
        return timed

    def instrument_journal(self, store):
        """Count and time ``store``'s journal writes (on this object
        only: the class is left alone).
        """
        for operation in JOURNAL_WRITES:
            setattr(store, operation,
                    self._timed(operation, getattr(store, operation)))
        return store

    # -- the agents' reports -----------------------------------------------

    def observe_reports(self, check=None):
        """A report check (``check(method, kwargs)``, returning the
        checked arguments) that also notes when each host's report came;
        refused reports are not noted.
        """
        last, now = self.last_reports, self._now

        def checked(method, kwargs):
            if check is not None:
                kwargs = check(method, kwargs)
            host = kwargs.get('host')
            if isinstance(host, dict):
                host = host.get('name')
            if isinstance(host, str):
                last[host] = now()
            return kwargs
        return checked

    # -- the endpoint --------------------------------------------------------

    def text(self):
        """The metrics in Prometheus' text format (bytes)."""
        return prometheus_client.generate_latest(self.registry)


def wsgi_app(registry):
    """A WSGI application answering ``GET /metrics`` from ``registry``;
    404 elsewhere.
    """
    metrics = prometheus_client.make_wsgi_app(registry)

    def app(environ, start_response):
        if environ.get('PATH_INFO') != '/metrics':
            start_response('404 Not Found',
                           [('Content-Type', 'text/plain; charset=utf-8')])
            return [b'no such resource: only /metrics\n']
        return metrics(environ, start_response)
    return app


def attach(service):
    """The :class:`SchedulerMetrics` of a scheduler ``service``, fed by
    its loop's events and its store's journal writes (and with its
    in-process load watcher's metrics, if it has one).
    """
    metrics = SchedulerMetrics.of_loop(service.loop)
    events = service.loop.events
    events.notifier = metrics.observe_notifier(events.notifier)
    metrics.instrument_journal(service.store)
    metrics.leader_epoch.labels(service.conf.service.scheduler_topic).set(
        service.epoch)
    if service.load_watcher is not None:
        metrics.registry.register(
            watcher_metrics.of(service.load_watcher).collector)
    return metrics


def serve(service):
    """Serve ``service.metrics`` on ``[metrics] bind`` until the service
    shuts down; the server, or None (no ``bind``, or it cannot listen
    there: logged, and the service runs without it).
    """
    bind = service.conf.metrics.bind
    if not bind:
        return None
    host, port = metrics_conf.parse_bind(bind)
    try:
        server = watcher_api.serve_in_thread(
            wsgi_app(service.metrics.registry), host, port,
            workers=HTTP_WORKERS)
    except OSError as error:
        LOG.error('Metrics not served: cannot listen on %s: %s', bind,
                  error.strerror or error)
        return None
    service.on_shutdown(server.server_close)
    service.on_shutdown(server.shutdown)
    LOG.info('Metrics on http://%s:%d/metrics', host, server.server_port)
    return server
