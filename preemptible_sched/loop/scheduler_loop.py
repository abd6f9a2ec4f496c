"""The scheduler loop: a pending queue, passes, and the instance lifecycle.

Requests wait in a queue ordered by the configured queue policy. A pass
considers them in that order and asks the filter scheduler for each; placed
instances are handed to the :class:`DecisionExecutor`. Passes run on every
event (request submitted or deleted, instance started, ended or failed,
termination done, host up or down) and at least every
``[scheduler] watchdog_interval`` seconds.

Lifecycle of an instance (its ``state`` in the database)::

    pending --journal--> pending on a host --spawn--> building --> running
    running --> ended | terminated | preempted | error | deleted
    preempted --requeue--> pending (same instance, its QoS account kept)

An instance displaced for another request is ``terminated`` for good
(``[preemptible] on_preempt = terminate``, spot semantics) or ``preempted``
and queued again (``requeue``, the QoS model), keeping its admission time,
running time and allocation overhead, and counting one more preemption.

The loop knows nothing of real time: it runs on the clock it is given, so
the service (real clock) and the simulator (virtual clock) share it.
"""

import dataclasses
import itertools
import logging
import math
import time

from preemptible_sched import clock as clock_mod
from preemptible_sched.conf import CONF
from preemptible_sched import compute
from preemptible_sched.db import api as db_api
from preemptible_sched.driver import scheduler as scheduler_mod
from preemptible_sched.loop import executor as executor_mod
from preemptible_sched.loop import timing
from preemptible_sched import objects
from preemptible_sched import policies
from preemptible_sched import qos

LOG = logging.getLogger(__name__)

ACTIVE_STATES = ('pending', 'building', 'running', 'terminating')


def _instance_from_row(row):
    return objects.Instance(
        id=row.id,
        resources=objects.Resources(row.vcpus, row.memory_mb, row.disk_gb),
        preemptible=row.preemptible,
        started_at=row.started_at if row.started_at is not None
        else row.created_at,
        flavor=row.flavor, service_class=row.service_class,
        priority=row.priority or 0.0, group=row.group,
        admitted_at=row.created_at, running_s=row.running_s,
        overhead_s=row.overhead_s,
        running_since=row.started_at if row.state in (
            'running', 'terminating') else None)


def _kind(spec):
    """What, besides size, decides whether a request can be placed; None
    when its placement depends on more (constraints, zones, groups)."""
    if spec.constraints or spec.availability_zone or spec.group or \
            spec.num_instances != 1:
        return None
    return (spec.preemptible, spec.service_class, spec.priority)


def _remember_failure(entry, failed):
    kind = _kind(entry.spec)
    if kind is not None:
        failed.setdefault(kind, []).append(entry.spec.resources)


def _dominated(entry, failed):
    """Whether a request of the same kind, no larger, already failed in
    this pass.

    Such a request came earlier in the queue order, so it could displace
    at least the instances this one could (policies only narrow the
    candidates further down the queue): if it found no host, neither will
    this one. Skipping it keeps a pass over a long queue on a full cloud
    cheap.
    """
    kind = _kind(entry.spec)
    if kind is None or kind not in failed:
        return False
    size = entry.spec.resources
    return any(smaller.vcpus <= size.vcpus and
               smaller.memory_mb <= size.memory_mb and
               smaller.disk_gb <= size.disk_gb for smaller in failed[kind])


class SchedulerLoop(compute.ComputeEvents):
    """Queue, passes and lifecycle over one store, driver and clock.

    ``store`` is a :class:`preemptible_sched.db.api.Store`; ``driver`` a
    compute driver (its events are redirected to this loop); ``notifier``,
    if given, has ``info(event_type, payload)`` (oslo.messaging's does).
    """

    def __init__(self, clock, driver, store, scheduler=None,
                 queue_policy=None, notifier=None):
        self.clock = clock
        self.driver = driver
        driver.events = self
        self.store = store
        self.scheduler = scheduler or scheduler_mod.FilterScheduler()
        self.host_manager = self.scheduler.host_manager
        self.queue_policy = queue_policy or policies.load(
            CONF.scheduler.queue_policy)
        self.notifier = notifier
        self.classes = qos.Classes()
        self.executor = executor_mod.DecisionExecutor(self)
        self.stats = timing.StageStats()
        self.scheduler.stopwatch = timing.Stopwatch(self.stats)
        self.pending = {}
        self._sequence = itertools.count()
        self._pass_handle = None
        self._watchdog_handle = None
        self._deleting = set()
        self.alive = False
        self.passes = 0
        # (host generation, queue) after the last pass that placed
        # nothing, and until when time alone cannot change its outcome.
        self._last_pass = None
        self._quiet_until = None
        #: called with (pending request, decision, now) for every placed
        #: decision, before it is carried out (testbed, simulator, tests)
        self.decision_observers = []

    # -- plumbing ----------------------------------------------------------

    def call_later(self, delay, callback, *args, priority=None):
        """Schedule a callback that dies with this loop (see :meth:`stop`)."""
        def guarded(*a):
            if self.alive:
                callback(*a)
        return self.clock.call_later(
            delay, guarded, *args,
            priority=clock_mod.NORMAL if priority is None else priority)

    def notify(self, event_type, payload):
        self.store.record_event(event_type, self.clock.now(),
                                request_id=payload.get('request_id'),
                                instance_id=payload.get('instance_id'),
                                host=payload.get('host'), payload=payload)
        if self.notifier is not None:
            self.notifier.info(event_type, payload)

    @property
    def requeue_victims(self):
        return CONF.preemptible.on_preempt == 'requeue'

    def victim_final_state(self):
        return 'preempted' if self.requeue_victims else 'terminated'

    def instance_object(self, instance_id):
        return _instance_from_row(self.store.get_instance(instance_id))

    def _row(self, instance_id):
        """The instance's row, or None if the store never heard of it."""
        try:
            return self.store.get_instance(instance_id)
        except db_api.NotFound:
            return None

    def instances_on(self, host):
        """``{id: InstanceReport}`` on ``host``; None if it is gone."""
        state = self.host_manager.host_states.get(host)
        if state is None or not state.up:
            return None
        return {report.id: report
                for report in self.driver.list_instances(host)}

    # -- start and stop ----------------------------------------------------

    def start(self):
        """Load the durable state, recover open decisions, start passing."""
        self.alive = True
        now = self.clock.now()
        for host in self.driver.host_specs():
            self.store.save_host(host, now)
            if host.name not in self.host_manager.host_states:
                self.host_manager.add_host(host)
        self._load_instances()
        self._load_pending()
        self.executor.recover()
        self._arm_watchdog()
        self.request_pass()

    def stop(self):
        """Stop reacting: every callback of this loop becomes a no-op."""
        self.alive = False
        for handle in (self._pass_handle, self._watchdog_handle):
            if handle is not None:
                handle.cancel()
        self._pass_handle = self._watchdog_handle = None

    def _load_instances(self):
        open_spawns = {decision.instance_id
                       for decision in self.store.unfinished_decisions()}
        reports = {}
        for row in self.store.list_instances(states=ACTIVE_STATES):
            if row.host is None or row.state == 'terminating':
                continue
            if row.host not in self.host_manager.host_states:
                self.store.update_instance(row.id, at=self.clock.now(),
                                           state='error',
                                           reason='host %s is unknown'
                                           % row.host)
                continue
            if row.state in ('building', 'running') and \
                    row.id not in open_spawns:
                if row.host not in reports:
                    reports[row.host] = self.instances_on(row.host) or {}
                if row.id not in reports[row.host]:
                    self._finish(row.id, 'error', self.clock.now(),
                                 reason='lost while the scheduler was down',
                                 release=False)
                    continue
            self.host_manager.add_instance(row.host, _instance_from_row(row))

    def _load_pending(self):
        for request in self.store.list_requests(status='pending'):
            rows = [row for row in self.store.list_instances(
                states=('pending',), request_id=request.id)
                if row.host is None]
            spec = request.request_spec()
            # Preempted instances wait alone, with their own accounts.
            fresh = [row.id for row in rows if not row.preemptions]
            for row in rows:
                if row.preemptions:
                    self._enqueue(dataclasses.replace(
                        spec, num_instances=1, instance_ids=(row.id,)),
                        request.submitted_at, request.duration_s,
                        request.image, request.attempts, row.running_s,
                        row.overhead_s)
            if fresh:
                self._enqueue(dataclasses.replace(
                    spec, num_instances=len(fresh),
                    instance_ids=tuple(fresh)), request.submitted_at,
                    request.duration_s, request.image, request.attempts)

    # -- requests --------------------------------------------------------

    def _enqueue(self, spec, submitted_at, duration, image, attempts=0,
                 running_s=0.0, overhead_s=0.0):
        entry = policies.PendingRequest(spec, submitted_at,
                                        next(self._sequence), duration,
                                        image, attempts, running_s,
                                        overhead_s)
        self.pending[entry.sequence] = entry
        if self.alive and self._watchdog_handle is None:
            self._arm_watchdog()
        return entry

    def submit(self, spec, duration=None, image=None):
        """Queue a request; it is considered in the next pass.

        A request of a service class without a priority of its own takes
        its class's priority. An unknown class is InvalidInput.
        """
        now = self.clock.now()
        self.classes.require(spec.service_class, 'request %s' % spec.id,
                             'service_class')
        if spec.service_class is not None:
            if not spec.priority:
                spec = dataclasses.replace(
                    spec, priority=self.classes.get(
                        spec.service_class).priority)
        spec = dataclasses.replace(spec, instance_ids=tuple(
            spec.instance_id(i) for i in range(spec.num_instances)))
        self.store.add_request(spec, now, duration_s=duration, image=image)
        self._enqueue(spec, now, duration, image)
        self.notify('request.submitted', {'request_id': spec.id})
        self.request_pass()
        return spec.id

    def delete(self, request_id):
        """Withdraw a pending request or terminate its instances."""
        now = self.clock.now()
        for key, entry in list(self.pending.items()):
            if entry.id == request_id:
                del self.pending[key]
        # First, so that rolling back its decisions leaves it deleted.
        self.store.set_request_status(request_id, 'deleted', now)
        for row in self.store.list_instances(request_id=request_id,
                                             states=ACTIVE_STATES):
            if row.state == 'pending' and row.decision_id is not None:
                # Claimed, waiting for its victims: they keep running.
                self.abandon(self.store.get_decision(row.decision_id),
                              'request deleted', requeue=False)
                row = self.store.get_instance(row.id)
            if row.state == 'pending':
                self._finish(row.id, 'deleted', now)
            elif row.state in ('building', 'running'):
                self._deleting.add(row.id)
                self.driver.terminate(row.host, row.id)
        self.request_pass()

    # -- passes ----------------------------------------------------------

    def request_pass(self):
        """Run a pass soon (several requests in a row make one pass)."""
        if self.alive and self._pass_handle is None:
            self._pass_handle = self.call_later(
                0, self._pass, priority=clock_mod.LATE)

    def _arm_watchdog(self):
        """Wake up in ``watchdog_interval``, or when the preemption
        policy says time alone may change the last (quiet) pass's
        outcome, if that is later."""
        if self._watchdog_handle is not None:
            self._watchdog_handle.cancel()
            self._watchdog_handle = None
        delay = CONF.scheduler.watchdog_interval
        if self._last_pass is not None:
            delay = max(delay, self._quiet_until - self.clock.now())
        if math.isinf(delay):
            return      # only an event can change anything now
        self._watchdog_handle = self.call_later(
            delay, self._watchdog, priority=clock_mod.LATE)

    def _watchdog(self):
        self._watchdog_handle = None
        if not self.pending:
            # Idle: nothing waits, so nothing a pass could change. The
            # next request re-arms it (see _enqueue).
            return
        self.request_pass()
        self._arm_watchdog()

    def _pass(self):
        self._pass_handle = None
        self.passes += 1
        now = self.clock.now()
        # Nothing changed since a pass that placed nothing, and the policy
        # says time alone changes nothing yet: it would decide the same.
        if self._last_pass == (self.host_manager.generation,
                               tuple(self.pending)) and \
                now < self._quiet_until:
            return
        generation = self.host_manager.generation
        placed = False
        lap = self.scheduler.stopwatch
        with lap('J3'):
            queue = self.queue_policy.order(list(self.pending.values()),
                                            now)
        failed = {}
        for entry in queue:
            if entry.sequence not in self.pending:
                continue
            if _dominated(entry, failed):
                continue
            started = time.perf_counter()
            decision = self.scheduler.select_destinations(
                entry.spec, now=now, pending=entry)
            self.stats.add_decision(time.perf_counter() - started)
            if decision.placed:
                placed = True
                del self.pending[entry.sequence]
                for observer in self.decision_observers:
                    observer(entry, decision, now)
                with lap('T4'):
                    self._place(entry, decision)
            elif CONF.scheduler.on_no_valid_host == 'fail':
                del self.pending[entry.sequence]
                self._fail_request(entry, decision.reason)
            else:
                _remember_failure(entry, failed)
        if placed or generation != self.host_manager.generation:
            self._last_pass = None
        else:
            self._last_pass = (generation, tuple(self.pending))
            self._quiet_until = self.scheduler.preemption.next_change(
                self.host_manager.get_all_host_states(),
                list(self.pending.values()), now)
        if self.pending:
            self._arm_watchdog()

    def _place(self, entry, decision):
        for selection in decision.selections:
            self.executor.execute(entry, selection)
        self.store.set_request_status(entry.id, 'placed', self.clock.now())

    def _mark_placed_if_complete(self, request_id, at):
        """A request is placed once none of its instances waits for a host.

        Normally set right after its decisions are journaled; this covers a
        scheduler that crashed in between and completed them on restart.
        """
        request = self.store.get_request(request_id)
        if request.status != 'pending':
            return
        if all(row.host is not None for row in self.store.list_instances(
                request_id=request_id, states=('pending',))):
            self.store.set_request_status(request_id, 'placed', at)

    def _fail_request(self, entry, reason):
        now = self.clock.now()
        LOG.info('Request %s failed: %s', entry.id, reason)
        for instance_id in entry.spec.instance_ids:
            self.store.update_instance(instance_id, at=now, state='error',
                                       ended_at=now, reason=reason)
        self.store.set_request_status(entry.id, 'failed', now, reason=reason)
        self.notify('request.failed', {'request_id': entry.id,
                                       'reason': reason})

    # -- hooks of the executor -------------------------------------------

    def on_journaled(self, entry, selection, decision_id):
        row = self.store.get_instance(selection.instance.id)
        now = self.clock.now()
        self.store.update_instance(
            row.id, at=now,
            pending_s=max(0.0, now - row.created_at - row.running_s -
                          row.overhead_s))
        self.notify('instance.placement', {
            'request_id': entry.id, 'instance_id': selection.instance.id,
            'host': selection.host, 'terminate': selection.terminate,
            'decision_id': decision_id})

    def abandon(self, decision, reason, requeue=True):
        """Give up an unfinished decision; unconfirmed victims keep running.

        A victim whose termination was already requested may still go: its
        ``instance_terminated`` then finishes it like any other.
        """
        if decision.state not in ('journaled', 'terminating', 'spawning'):
            return
        self.executor.forget(decision.id)
        self.store.roll_back_decision(decision.id, self.clock.now(), reason)
        self.on_rolled_back(decision, reason, requeue)

    def on_rolled_back(self, decision, reason, requeue=True):
        """The decision is undone in the store: mirror it in memory."""
        now = self.clock.now()
        confirmed = set(self.store.get_decision(decision.id).confirmed or ())
        if decision.instance_id in self.host_manager.instance_hosts:
            self.host_manager.remove_instance(decision.instance_id)
        host = self.host_manager.host_states.get(decision.host)
        for victim_id in decision.victims:
            if victim_id in confirmed or \
                    victim_id in self.host_manager.instance_hosts:
                continue
            if host is None or not host.up:
                self._finish(victim_id, 'error', now, release=False,
                             reason='host %s is gone' % decision.host)
            else:
                self.host_manager.add_instance(
                    decision.host, self.instance_object(victim_id))
        if not requeue:
            return
        attempts = self.store.increment_attempts(decision.request_id)
        request = self.store.get_request(decision.request_id)
        if request.status == 'deleted':
            return
        if attempts >= CONF.scheduler.max_attempts:
            self._finish(decision.instance_id, 'error', now,
                         reason='gave up after %d attempts: %s'
                         % (attempts, reason))
            return
        spec = request.request_spec()
        self._enqueue(dataclasses.replace(
            spec, num_instances=1, instance_ids=(decision.instance_id,)),
            request.submitted_at, request.duration_s, request.image,
            attempts)
        self.request_pass()

    def on_victim_gone(self, instance_id, at):
        """A victim's termination is confirmed (live or on recovery).

        Its run so far is added to its running time and it counts one more
        preemption; with ``on_preempt = requeue`` it waits in the queue
        again (same instance, same request, its account kept).
        """
        row = self.store.get_instance(instance_id)
        running = row.running_s
        if row.started_at is not None:
            running += max(0.0, at - row.started_at)
        if row.state != self.victim_final_state():
            # It ended by itself before the termination was confirmed.
            return
        if not self.requeue_victims:
            self.store.update_instance(instance_id, at=at, running_s=running,
                                       preemptions=row.preemptions + 1)
            return
        self.store.update_instance(
            instance_id, at=at, state='pending', host=None,
            decision_id=None, terminated_by=None, scheduled_at=None,
            started_at=None, ended_at=None, running_s=running,
            preemptions=row.preemptions + 1)
        self.store.set_request_status(row.request_id, 'pending', at)
        request = self.store.get_request(row.request_id)
        spec = request.request_spec()
        self._enqueue(dataclasses.replace(
            spec, num_instances=1, instance_ids=(instance_id,)),
            request.submitted_at, request.duration_s, request.image,
            request.attempts, running, row.overhead_s)
        self.notify('instance.preempted', {'instance_id': instance_id,
                                           'request_id': row.request_id,
                                           'host': row.host})
        self.request_pass()

    def on_recovered_spawn(self, decision, report):
        if report.state == 'running':
            self.instance_started(decision.host, decision.instance_id,
                                  report.started_at or self.clock.now())

    # -- compute events ----------------------------------------------------

    def instance_started(self, host, instance_id, at):
        row = self._row(instance_id)
        if row is None or row.state not in ('building', 'pending'):
            return
        overhead = max(0.0, at - (at if row.scheduled_at is None
                                  else row.scheduled_at))
        # Decision first: whoever sees the instance running (another
        # thread of the service) then sees its decision done.
        if row.decision_id is not None:
            self.store.set_decision_state(row.decision_id, 'done', at)
        self.store.update_instance(instance_id, at=at, state='running',
                                   started_at=at,
                                   overhead_s=row.overhead_s + overhead)
        if instance_id in self.host_manager.instance_hosts:
            self.host_manager.mark_started(instance_id, at,
                                           row.overhead_s + overhead)
        self._mark_placed_if_complete(row.request_id, at)
        self.notify('instance.started', {'instance_id': instance_id,
                                         'host': host,
                                         'request_id': row.request_id})
        self.request_pass()

    def instance_ended(self, host, instance_id, at):
        self._finish(instance_id, 'ended', at)
        self.request_pass()

    def instance_terminated(self, host, instance_id, at):
        if self.executor.on_terminated(host, instance_id):
            pass
        elif instance_id in self._deleting:
            self._deleting.discard(instance_id)
            self._finish(instance_id, 'deleted', at)
        else:
            # A victim of a decision given up after its termination was
            # requested: it is gone all the same.
            self._finish(instance_id, 'terminated', at)
        self.request_pass()

    def termination_failed(self, host, instance_id, at, reason):
        if not self.executor.on_termination_failed(host, instance_id,
                                                   reason):
            self._deleting.discard(instance_id)
            LOG.warning('Termination of %s on %s failed: %s', instance_id,
                        host, reason)

    def instance_failed(self, host, instance_id, at, reason):
        row = self._row(instance_id)
        if row is None:
            return
        self.notify('instance.failed', {'instance_id': instance_id,
                                        'host': host, 'reason': reason,
                                        'request_id': row.request_id})
        if row.decision_id is not None and row.state in ('building',
                                                         'pending'):
            self.store.set_decision_state(row.decision_id, 'failed', at,
                                          reason=reason)
        attempts = self.store.increment_attempts(row.request_id)
        if row.state == 'building' and attempts < CONF.scheduler.max_attempts:
            # Spawn failed: try another placement.
            if instance_id in self.host_manager.instance_hosts:
                self.host_manager.remove_instance(instance_id)
            self.store.update_instance(instance_id, at=at, state='pending',
                                       host=None, decision_id=None,
                                       overhead_s=row.overhead_s + max(
                                           0.0, at - (at if row.scheduled_at
                                                      is None else
                                                      row.scheduled_at)))
            self.store.set_request_status(row.request_id, 'pending', at)
            request = self.store.get_request(row.request_id)
            spec = request.request_spec()
            self._enqueue(dataclasses.replace(
                spec, num_instances=1, instance_ids=(instance_id,)),
                request.submitted_at, request.duration_s, request.image,
                attempts)
        else:
            self._finish(instance_id, 'error', at, reason=reason)
        self.request_pass()

    def host_down(self, host, at):
        state = self.host_manager.host_states.get(host)
        if state is None:
            return
        state.up = False
        self.host_manager.generation += 1
        self.store.set_host_up(host, False, at)
        self.notify('host.down', {'host': host})
        for decision in self.store.unfinished_decisions():
            if decision.host == host:
                self.abandon(decision, 'host %s went down' % host)
        for instance_id in list(state.instances):
            self._finish(instance_id, 'error', at, reason='host %s went down'
                         % host)
        self.request_pass()

    def host_added(self, host, at):
        """A compute host joined while the loop runs: schedule on it."""
        if host.name in self.host_manager.host_states:
            return
        self.store.save_host(host, at)
        self.host_manager.add_host(host)
        self.request_pass()

    def host_up(self, host, at):
        state = self.host_manager.host_states.get(host)
        if state is None:
            return
        state.up = True
        self.host_manager.generation += 1
        self.store.set_host_up(host, True, at)
        self.notify('host.up', {'host': host})
        self.request_pass()

    # -- bookkeeping -------------------------------------------------------

    def _finish(self, instance_id, state, at, reason=None, release=True):
        row = self._row(instance_id)
        if row is None or row.state not in ACTIVE_STATES:
            return
        fields = {'state': state, 'ended_at': at}
        if row.state in ('running', 'terminating') and \
                row.started_at is not None:
            fields['running_s'] = row.running_s + max(0.0,
                                                      at - row.started_at)
        if reason:
            fields['reason'] = reason
        self.store.update_instance(instance_id, at=at, **fields)
        if release and instance_id in self.host_manager.instance_hosts:
            self.host_manager.remove_instance(instance_id)
        if state in ('ended', 'deleted'):
            self.notify('instance.%s' % state, {
                'instance_id': instance_id, 'host': row.host,
                'request_id': row.request_id})
        if row.decision_id is not None:
            decision = self.store.get_decision(row.decision_id)
            if decision is not None and decision.state in ('journaled',
                                                           'terminating',
                                                           'spawning'):
                self.store.set_decision_state(decision.id, 'failed', at,
                                              reason=reason or state)
                self.executor.forget(decision.id)
