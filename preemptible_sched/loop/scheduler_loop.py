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

"""The scheduler loop: passes over the pending queue, stage by stage.

A pass is the reference architecture's stages, in order (each timed, see
:mod:`preemptible_sched.loop.timing`):

====  ======================  =============================================
J2    admission               arrivals enter the queue; past
                              ``max_attempts`` or deleted, they leave it
T2    queue order (J3/T2)     the queue policy orders the queue
T1    eligibility             skip requests that cannot be placed now
                              (unless ``try_every_request``)
R1    hosts                   the host manager's states (per instance)
R4    filtering (R2-R4)       filters, on the strategy's view
R5    weighing and selection  weighers, seeded choice
T10   preemption              the strategy's victims on the candidates
T4    submission              journal the decision, hand it to the
                              executor (terminate victims, then spawn)
====  ======================  =============================================

R1 to T10 run inside the filter scheduler, once per instance. T1 also
releases the workflow tasks whose dependencies all ended. Passes run on
every event (request submitted or deleted, instance started, ended or
failed, termination done, host up or down) and at least every
``[scheduler] watchdog_interval`` seconds while requests wait; or only on
the grid of ``[scheduler] pass_mode = quantum`` (:mod:`.quantum`).

The loop knows nothing of real time: it runs on the clock it is given, so
the service (real clock) and the simulator (virtual clock) share it. Its
parts: :mod:`.lifecycle`, :mod:`.recovery`, :mod:`.executor`; mixed into
it: :mod:`.request_ends`, :mod:`.wait_reasons`, :mod:`.quantum`.
"""

import dataclasses
import logging
import math
import time

from preemptible_sched import clock as clock_mod
from preemptible_sched.conf import CONF
from preemptible_sched.loop import executor as executor_mod
from preemptible_sched.loop import lifecycle as lifecycle_mod
from preemptible_sched.loop import ports
from preemptible_sched.loop import quantum
from preemptible_sched.loop import recovery
from preemptible_sched.loop import request_ends
from preemptible_sched.loop import timing
from preemptible_sched.loop import wait_reasons
from preemptible_sched import objects
from preemptible_sched.queue import pending as queue_mod
from preemptible_sched.queue import queue_policies as policies
from preemptible_sched.scheduler import filter_scheduler as scheduler_mod
from preemptible_sched.service_classes import qos
from preemptible_sched.service_classes import sizing
from preemptible_sched.service_classes import sla

LOG = logging.getLogger(__name__)


class SchedulerLoop(request_ends.RequestEnds, wait_reasons.WaitReasons,
                    quantum.QuantumPasses):
    """Queue, passes and lifecycle over one store, driver and clock.

    ``store`` is a :class:`preemptible_sched.db.api.Store`; ``driver`` a
    compute driver (its events go to this loop's :class:`Lifecycle`);
    ``notifier``, if given, has ``info(event_type, payload)``
    (oslo.messaging's does).
    """

    def __init__(self, clock, driver, store, scheduler=None,
                 queue_policy=None, notifier=None):
        self.clock = clock
        self.driver = driver
        self.store = store
        self.scheduler = scheduler or scheduler_mod.FilterScheduler()
        self.host_manager = self.scheduler.host_manager
        strategy = self.scheduler.strategy
        self.queue = queue_mod.PendingQueue(
            queue_policy or policies.load(CONF.scheduler.queue_policy or
                                          strategy.default_queue_policy),
            sort_every_pass=CONF.scheduler.try_every_request)
        self.classes = qos.Classes()
        # The parts take narrow ports, never the loop (see ports.py).
        self.compute = ports.Compute(driver, self.host_manager)
        self.events = ports.DecisionEvents(store, clock, notifier)
        scheduling = ports.Scheduling(clock, self.call_later,
                                      self.request_pass)
        requests = ports.Requests(self.mark_placed_if_complete,
                                  self.instance_finished)
        self.lifecycle = lifecycle_mod.Lifecycle(
            store, self.host_manager, strategy, self.compute, self.events,
            scheduling, ports.Requeue(self.queue, self.request_pass),
            requests)
        driver.events = self.lifecycle
        self.executor = executor_mod.DecisionExecutor(
            store, self.host_manager, strategy, self.compute, self.events,
            scheduling, self.lifecycle)
        self.lifecycle.attach(self.executor)
        self.recovery = recovery.Recovery(
            store, self.host_manager, self.queue, self.compute, scheduling,
            requests, self.lifecycle, self.executor)
        self.stats = timing.StageStats()
        self._pass_handle = None
        self._watchdog_handle = None
        # Time of the last pass on the quantum grid (pass_mode = quantum).
        self._last_slot = None
        self.alive = False
        self.passes = 0
        # (host generation, queue) after the last pass that placed
        # nothing, and until when time alone cannot change its outcome.
        self._last_pass = None
        self._quiet_until = None
        #: called with (pending request, decision, now) for every placed
        #: decision, before it is carried out (testbed, simulator, tests)
        self.decision_observers = []
        #: builds each pass's load snapshot (``snapshot(now, host
        #: manager)``) when load-aware plugins run; see
        #: preemptible_sched.loadwatcher.provider
        self.load_provider = None
        #: request id -> why it waits, said once (see _tell_why)
        self._waiting_why = {}

    @property
    def pending(self):
        """``{sequence: PendingRequest}`` of the admitted requests."""
        return self.queue.entries

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
        self.events.notify(event_type, payload)

    # -- start and stop ----------------------------------------------------

    def start(self):
        """Load the durable state, recover open decisions, start passing."""
        self.alive = True
        self.recovery.run()
        if not self._quantum:
            self._arm_watchdog()
        self.request_pass()

    def stop(self):
        """Stop reacting: every callback of this loop becomes a no-op."""
        self.alive = False
        for handle in (self._pass_handle, self._watchdog_handle):
            if handle is not None:
                handle.cancel()
        self._pass_handle = self._watchdog_handle = None

    # -- requests --------------------------------------------------------

    def submit(self, spec, duration=None, image=None, depends_on=()):
        """Journal a request; the next pass admits it.

        A request of a service class without a priority of its own takes
        its class's priority. An unknown class is InvalidInput.
        ``depends_on`` (workflow tasks) names the requests that must have
        ended before this one is placed; they are kept in memory only.
        """
        now = self.clock.now()
        spec = self.classes.admit(spec, 'request %s' % spec.id,
                                  'service_class')
        spec = sla.with_copies(spec)
        spec = dataclasses.replace(spec, instance_ids=tuple(
            spec.instance_id(i) for i in range(spec.num_instances)))
        self.store.add_request(spec, now, duration_s=duration, image=image)
        self.queue.expect(spec.id, spec.num_instances)
        self.queue.add(spec, now, duration, depends_on=depends_on)
        self.notify('request.submitted', {'request_id': spec.id})
        self.request_pass()
        return spec.id

    # -- passes ----------------------------------------------------------

    @property
    def _quantum(self):
        return CONF.scheduler.pass_mode == 'quantum'

    def request_pass(self):
        """Run a pass soon (several events in a row make one pass); on
        a quantum, at the next time of the grid.
        """
        if not self.alive:
            return
        if self._quantum:
            if self._pass_handle is None:
                self._pass_handle = self.clock.call_at(
                    self._next_slot(), self._slot, priority=clock_mod.LATE)
            return
        if self._pass_handle is None:
            self._pass_handle = self.call_later(
                0, self._pass, priority=clock_mod.LATE)
        if self._watchdog_handle is None and self.queue:
            self._arm_watchdog()

    def _arm_watchdog(self):
        """Wake up in ``watchdog_interval``, or when the preemption
        strategy says time alone may change the last (quiet) pass's
        outcome, if that is later.
        """
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
        if not self.queue:
            # Idle: nothing waits, so nothing a pass could change. The
            # next request re-arms it (see request_pass).
            return
        self.request_pass()
        self._arm_watchdog()

    def _pass(self):
        self._pass_handle = None
        self.passes += 1
        now = self.clock.now()
        # Nothing changed since a pass that placed nothing, and the
        # strategy says time alone changes nothing yet: it would decide
        # the same.
        if self._last_pass == (self.host_manager.generation,
                               self.queue.signature()) and \
                now < self._quiet_until:
            return
        stats = self.stats
        stats.begin_pass(self.passes, now)
        try:
            placed = self._run_stages(now, stats)
        finally:
            stats.end_pass()
        if placed:
            self._last_pass = None
        else:
            self._last_pass = (self.host_manager.generation,
                               self.queue.signature())
            waiting = list(self.queue.entries.values())
            if self.host_manager.table.refused:
                # A request larger than every host waits for a host to
                # register, an event: time alone changes nothing for it.
                # (Looked for only once some size was refused: a long
                # queue is not swept on every quiet pass for nothing.)
                could_place = self.scheduler.could_place
                waiting = [entry for entry in waiting
                           if could_place(entry.spec)]
            self._quiet_until = (self.scheduler.strategy.next_change(
                self.host_manager.occupied_host_states(), waiting, now)
                if waiting else math.inf)
        if self.queue:
            if self._quantum:
                self.request_pass()
            else:
                self._arm_watchdog()

    def _run_stages(self, now, stats):
        """One pass; True when it placed or changed anything."""
        lap = stats.stopwatch
        generation = self.host_manager.generation
        with lap('J2', len(self.queue.arrivals)):
            self.queue.admit(self._admit)
        with lap('T1', len(self.queue.blocked)):
            self.queue.release()
        with lap('T2', len(self.queue.entries)):
            ordered = self.queue.order(now)
        context = objects.PassContext(
            now=now, stopwatch=lap,
            load=None if self.load_provider is None
            else self.load_provider.snapshot(now, self.host_manager))
        # Without pruning (as SC18's simulator), every request is asked.
        eligibility = None if CONF.scheduler.try_every_request else \
            self.queue.eligibility(self.scheduler, self._waiting_why)
        placed = False
        up = None       # the SLA categories with a host up, when needed
        index = 0
        while index < len(ordered):
            entry = ordered[index]
            index += 1
            if entry not in self.queue or (
                    eligibility is not None and eligibility.replays(entry)):
                continue
            spec, size = entry.spec, None
            if spec.moldable:
                # T1 fixes a moldable request's cores, before filtering
                # (loop/sizing.py).
                with lap('T1', 1):
                    spec, size = sizing.size(entry, self.queue,
                                             self.host_manager)
                if spec is None:
                    up = self._tell_why(entry, now, up)
                    continue
            started = time.perf_counter()
            # The strategies plan victims for the pending entry's spec.
            decision = self.scheduler.select_destinations(
                spec, pending=entry if spec is entry.spec else
                dataclasses.replace(entry, spec=spec), context=context)
            stats.add_decision(time.perf_counter() - started)
            if decision.placed:
                placed = True
                if eligibility is not None:
                    eligibility.placed()
                self._forget_why(entry.id, now)
                if spec is not entry.spec:
                    sizing.fix(entry, spec, size, self.store, now)
                self.queue.remove(entry)
                for observer in self.decision_observers:
                    observer(entry, decision, now)
                with lap('T4', len(decision.selections)):
                    self._submit_decision(entry, decision)
                if self.queue.reranks:
                    # T2 again: the order of the rest depends on who left.
                    with lap('T2', len(self.queue.entries)):
                        ordered = self.queue.reorder(ordered[index:], now)
                    index = 0
            elif CONF.scheduler.on_no_valid_host == 'fail' and \
                    not entry.preempted:
                self.queue.remove(entry)
                reason = decision.reason
                if spec.sla is not None:
                    up = self._categories_up(up)
                    reason = sla.no_host_up(spec, up) or reason
                self._fail_request(entry, reason)
            else:
                if spec.sla is not None:
                    up = self._tell_why(entry, now, up)
                if eligibility is not None:
                    # T1: what is left of the order, without the requests
                    # this failure shows cannot be placed either.
                    eligibility.failed_to_place(entry)
                    with lap('T1', len(ordered) - index):
                        ordered = eligibility.keep(ordered[index:])
                    index = 0
        return placed or generation != self.host_manager.generation

    def _forget_why(self, request_id, now):
        """The reason said for ``request_id`` no longer holds."""
        if self._waiting_why.pop(request_id, None) is not None:
            self._set_reason(request_id, None, now)

    def _admit(self, entry):
        """J2 for one arrival: False when it leaves the queue instead.

        Deleted requests never get here (their entries are withdrawn).
        The time of the pass is recorded as the entry's ``admitted_at``.
        """
        if entry.admitted_at is None:
            entry.admitted_at = self.clock.now()
        if entry.attempts >= CONF.scheduler.max_attempts:
            self.fail_request(entry.id, 'gave up after %d attempts: %s' % (
                entry.attempts, entry.reason or 'no reason given'))
            return False
        return True

    def _submit_decision(self, entry, decision):
        for selection in decision.selections:
            LOG.info('Request %s: instance %s on %s (strategy %s)%s',
                     entry.id, selection.instance.id, selection.host,
                     self.scheduler.strategy.name,
                     ''.join('; displaces %s (cost %.6g)' % (victim.id, cost)
                             for victim, cost in zip(selection.plan.victims,
                                                     selection.plan.costs)) +
                     ('; %s' % selection.plan.reason
                      if selection.plan.reason else ''))
            self.executor.execute(entry, selection)
        self.mark_placed_if_complete(entry.id, self.clock.now())

    def mark_placed_if_complete(self, request_id, at):
        """A request is placed once none of its instances waits for a host
        (right after its decisions are journaled, or once the last of its
        instances placed again is).
        """
        request = self.store.get_request(request_id)
        if request.status != 'pending':
            return
        if all(row.host is not None for row in self.store.list_instances(
                request_id=request_id, states=('pending',))):
            self.store.set_request_status(request_id, 'placed', at)
