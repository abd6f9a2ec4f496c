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

"""One soak scenario: build it, run it under faults, settle, check.

The production scheduler loop runs the scenario on a virtual clock, its
store on an SQLite file, so that a restart is a new loop on a new store
handle of the same file; the scheduler crashes at the executor's crash
points and between events, and restarts from the database alone.
"""

import collections
import contextlib
import dataclasses
import logging
import os
import random
import shutil
import time
import traceback

import sqlalchemy as sa

from preemptible_sched import clock as clock_mod
from preemptible_sched.conf import CONF
from preemptible_sched.conf import plugins
from preemptible_sched.db import api as db_api
from preemptible_sched.loop import scheduler_loop
from preemptible_sched import objects
from tests.soak import faults
from tests.soak import invariants
from tests.soak import scenarios


#: At most this much more virtual time lets the decisions still open at the
#: end of the settling finish (a class-based strategy may displace an
#: instance just before it ends: its notice, grace and termination are not
#: a request stuck).
DRAIN = 1800.0


#: Restarts after which a scenario is given up (a crash loop).
MAX_RESTARTS = 40


#: What the loop recorded that shows a fault reached it, as counted in
#: the figures (``observed``): reports it ignored (late, duplicate or
#: misrouted), stray instances it found and terminated, requests failed.
OBSERVED = ('instance.report_ignored', 'instance.stray', 'request.failed')


class Crash(Exception):
    """The scheduler process dies here (injected)."""

    def __init__(self, kind, where=None):
        super().__init__('%s%s' % (kind, ' at %s' % where if where else ''))
        self.kind = kind
        self.where = where


class GiveUp(Exception):
    """The scenario cannot go on (a crash loop)."""


# -- one scenario -------------------------------------------------------------

@dataclasses.dataclass
class Outcome:
    seed: int
    strategy: str
    intensity: str
    requests: int
    instances: int
    faults: collections.Counter
    restarts: int
    violations: list
    wall_s: float
    given_up: bool = False
    size: str = 'full'
    observed: collections.Counter = dataclasses.field(
        default_factory=collections.Counter)

    def as_dict(self):
        return {'seed': self.seed, 'size': self.size,
                'strategy': self.strategy,
                'intensity': self.intensity, 'requests': self.requests,
                'instances': self.instances, 'faults': dict(self.faults),
                'restarts': self.restarts, 'given_up': self.given_up,
                'observed': dict(self.observed),
                'violations': [dataclasses.astuple(v)
                               for v in self.violations],
                'wall_s': self.wall_s}


@contextlib.contextmanager
def overridden(options, conf=CONF):
    """``options`` ({(group, name): value}) set for the block."""
    for (group, name), value in options.items():
        conf.set_override(name, value, group=group)
    try:
        yield
    finally:
        for group, name in options:
            conf.clear_override(name, group=group)


@contextlib.contextmanager
def quiet(level=logging.ERROR):
    """The package's log at ``level`` or above only, for the block."""
    logger = logging.getLogger('preemptible_sched')
    before = logger.level
    logger.setLevel(level)
    try:
        yield
    finally:
        logger.setLevel(before)


_ENTRY_POINTS = {}


@contextlib.contextmanager
def cached_entry_points():
    """Entry points read once per process: every restart builds a new
    loop, whose plugins would otherwise scan the installed distributions
    again (tens of milliseconds each time).
    """
    original = getattr(plugins, '_entry_points', None)
    if original is None:
        yield
        return

    def cached(namespace):
        if namespace not in _ENTRY_POINTS:
            _ENTRY_POINTS[namespace] = original(namespace)
        return list(_ENTRY_POINTS[namespace])
    plugins._entry_points = cached
    try:
        yield
    finally:
        plugins._entry_points = original


def _fast_sqlite(store):
    """No fsync: a 'restart' is a new handle in this process, and the
    operating system keeps what was written.
    """
    def pragmas(connection, record):
        cursor = connection.cursor()
        try:
            cursor.execute('PRAGMA synchronous=OFF')
        finally:
            cursor.close()
    sa.event.listen(store.engine, 'connect', pragmas)
    return store


class Template:
    """An empty, migrated database file, copied for every scenario."""

    def __init__(self, directory):
        self.directory = directory
        self.path = os.path.join(directory, 'template.sqlite')
        store = db_api.Store('sqlite:///' + self.path)
        store.upgrade()
        store.dispose()
        self._work = os.path.join(directory, 'scenario.sqlite')
        self._store = None

    def copy(self, name):
        path = os.path.join(self.directory, name)
        shutil.copyfile(self.path, path)
        return path

    def fresh(self):
        """A store on a fresh copy of the empty database.

        One scenario at a time uses it. Its handle is the same from one
        scenario (and one restart) to the next, its connections closed in
        between: a store keeps nothing but its engine, and the engine's
        cache of compiled statements saves an eighth of the soak's time.
        A restarted loop still reads everything from the file.
        """
        if self._store is not None:
            self._store.dispose()
        shutil.copyfile(self.path, self._work)
        with contextlib.suppress(OSError):
            os.unlink(self._work + '-journal')
        if self._store is None:
            self._store = _fast_sqlite(db_api.Store('sqlite:///' +
                                                    self._work))
        return self._store

    def close(self):
        if self._store is not None:
            self._store.dispose()
            self._store = None


class Run:
    """One scenario: build it, run it under faults, settle, check."""

    def __init__(self, scenario, template, disabled=(), trace=None,
                 settle=scenarios.SETTLE, driver_class=None):
        self.scenario = scenario
        self.template = template
        self.disabled = frozenset(disabled)
        self.settle = settle
        self.lines = [] if trace else None
        self.faults = collections.Counter()
        self.violations = []
        self.restarts = 0
        self.crashes = 0
        self.deleted = set()
        self.observed = collections.Counter()
        self.deferred = []
        self.loop = None
        self.store = None
        seed = scenario.seed
        self.rng = random.Random('soak-run:%d' % seed)
        self.clock = clock_mod.VirtualClock()
        plan = scenario.faults
        # ``driver_class``: a SoakDriver subclass (the unit tests break
        # the compute side on purpose to see the checks catch it).
        self.driver = (driver_class or faults.SoakDriver)(
            self.clock, scenario.hosts, seed, plan=plan,
            rng=random.Random('soak-driver:%d' % seed), faults=self.faults,
            disabled=self.disabled, trace=self._trace if trace else None)
        self.proxy = faults.EventProxy(
            self.clock, plan=plan, rng=random.Random('soak-bus:%d' % seed),
            faults=self.faults, stamp=scenario.stamp,
            disabled=self.disabled, droppable=self._droppable,
            trace=self._trace if trace else None)
        self.driver.events = self.proxy
        self.faulty = True
        self.handle = None

    # -- plumbing ----------------------------------------------------------

    def _trace(self, source, message):
        if self.lines is not None:
            self.lines.append('%9.2f %-9s %s' % (self.clock.now(), source,
                                                 message))

    def _droppable(self, event, head):
        if event != 'instance_failed':
            return True
        last = self.driver.last_phase(head[1])
        # A crash of a running instance answers nothing the loop asked.
        return last is None or not (last[1] in ('crashed', 'lost') and
                                    last[3] == 'running')

    def _strike(self, kind, probability):
        hit = self.rng.random() < probability
        return hit and self.faulty and kind not in self.disabled

    def _violation(self, invariant, detail):
        self.violations.append(invariants.Violation(invariant, detail))
        self._trace('VIOLATION', '%s: %s' % (invariant, detail))

    # -- the scheduler process ---------------------------------------------

    def _start_loop(self):
        # A new scheduler process: a new loop on a store whose
        # connections were closed (see Template.fresh).
        self.store = self.handle
        self.store.dispose()
        loop = scheduler_loop.SchedulerLoop(self.clock, self.driver,
                                            self.store)
        rng = getattr(loop.scheduler, 'rng', None)
        if rng is not None:
            rng.seed('%d:%d' % (self.scenario.seed, self.restarts))
        receiver = self.driver.events
        self.driver.events = self.proxy
        loop.executor.crash_hook = self._crash_hook
        self.loop = loop
        self._trace('harness', 'scheduler starts (restart %d)'
                    % self.restarts)
        loop.start()
        self.proxy.attach(receiver)
        deferred, self.deferred = self.deferred, []
        for call in deferred:
            self.clock.call_soon(*call, priority=clock_mod.URGENT)

    def _crash_hook(self, where):
        if self._strike('crash_at_point', self.scenario.faults.crash_point_p) \
                and self.crashes < self.scenario.faults.max_crashes:
            raise Crash('crash_at_point', where)

    def _crash_now(self):
        if self.loop is not None and self.loop.alive and self.faulty and \
                'crash_between_events' not in self.disabled and \
                self.crashes < self.scenario.faults.max_crashes:
            raise Crash('crash_between_events')

    def _died(self, kind, detail):
        self._trace('harness', 'scheduler dies: %s' % detail)
        if kind in faults.FAULTS:
            self.faults[kind] += 1
            self.crashes += 1
        self.proxy.detach()
        if self.loop is not None:
            self.loop.stop()
            self.loop = None
        if self.store is not None:
            self.store.dispose()
            self.store = None
        self.restarts += 1
        if self.restarts > MAX_RESTARTS:
            raise GiveUp('more than %d restarts' % MAX_RESTARTS)
        downtime = self.rng.choice((0.0, 0.0, 1.0, 5.0, 30.0, 90.0))
        self.clock.call_later(downtime, self._start_loop,
                              priority=clock_mod.URGENT)

    def _drive(self, until):
        while True:
            try:
                self.clock.run(until)
                return
            except Crash as crash:
                self._died(crash.kind, str(crash))
            except GiveUp:
                raise
            except Exception as error:
                where = traceback.extract_tb(error.__traceback__)[-1]
                self._violation('scheduler_exception', '%s: %s (%s:%d)' % (
                    type(error).__name__, error,
                    os.path.basename(where.filename), where.lineno))
                self._died('exception', repr(error))

    # -- the client ----------------------------------------------------------

    def _client(self, method, *args):
        if self.loop is None or not self.loop.alive:
            self.deferred.append((self._client, method) + args)
            return
        try:
            method(*args)
        except Crash:
            raise
        except Exception as error:
            self._violation('scheduler_exception', '%s%r: %s: %s' % (
                method.__name__, args, type(error).__name__, error))

    def _submit(self, item):
        self._trace('client', 'submit %s' % item.id)
        spec = objects.RequestSpec(
            item.id, item.flavor.resources, item.preemptible,
            num_instances=item.num_instances, flavor=item.flavor.name,
            service_class=item.service_class)
        self.loop.submit(spec, duration=item.duration, image='cirros')

    def _delete(self, item):
        self._trace('client', 'delete %s' % item.id)
        self.deleted.add(item.id)
        self.loop.delete(item.id)

    # -- timed faults --------------------------------------------------------

    def _timed(self, kind, arg):
        if not self.faulty:
            return
        driver = self.driver
        if kind == 'fail_spawns' and 'spawn_failed' not in self.disabled:
            driver.fail_next_spawns(arg)
        elif kind == 'fail_terminations' and \
                'termination_failed' not in self.disabled:
            driver.fail_next_terminations(arg)
        elif kind == 'crash_instance' and \
                'instance_crashed' not in self.disabled:
            present = sorted((host, instance_id) for host, instances
                             in driver.truth().items()
                             for instance_id in instances)
            if present:
                host, instance_id = self.rng.choice(present)
                self.faults['instance_crashed'] += 1
                driver.crash_instance(host, instance_id, 'injected crash')
        elif kind == 'host_down' and 'host_down' not in self.disabled:
            up = sorted(name for name in driver.truth()
                        if driver.is_up(name))
            if up:
                host = self.rng.choice(up)
                self.faults['host_down'] += 1
                self._trace('harness', 'host %s down for %.0f s'
                            % (host, arg))
                driver.host_down(host)
                self.clock.call_later(arg, driver.host_up, host,
                                      priority=clock_mod.URGENT)
        elif kind == 'crash_scheduler':
            self._crash_now()

    def _calm(self):
        """The faults stop; every host comes back."""
        self._trace('harness', 'faults stop; settling')
        self.faulty = False
        self.driver.faulty = False
        self.proxy.faulty = False
        for name in sorted(self.driver.truth()):
            if not self.driver.is_up(name):
                self.driver.host_up(name)

    # -- the run -------------------------------------------------------------

    def execute(self):
        scenario = self.scenario
        started = time.perf_counter()
        given_up = False
        self.handle = self.template.fresh()
        try:
            with overridden(scenario.options):
                clock = self.clock
                for item in scenario.items:
                    clock.call_at(item.at, self._client, self._submit, item,
                                  priority=clock_mod.URGENT)
                    if item.delete_at is not None:
                        clock.call_at(item.delete_at, self._client,
                                      self._delete, item,
                                      priority=clock_mod.URGENT)
                for at, kind, arg in scenario.faults.timed:
                    clock.call_at(at, self._timed, kind, arg,
                                  priority=clock_mod.URGENT)
                try:
                    self._drive_start()
                    self._drive(scenarios.HORIZON)
                    self._calm()
                    self._drive(scenarios.HORIZON + self.settle)
                    if self.loop is None:
                        self._drive(None)
                    self._drain()
                    self._check()
                except GiveUp as error:
                    given_up = True
                    self._violation('scheduler_exception',
                                    'gave up: %s' % error)
        finally:
            if self.loop is not None:
                self.loop.stop()
            if self.store is not None:
                self.store.dispose()
        return Outcome(
            seed=scenario.seed, strategy=scenario.strategy,
            intensity=scenario.faults.intensity,
            requests=len(scenario.items),
            instances=sum(item.num_instances for item in scenario.items),
            faults=self.faults, restarts=self.restarts,
            violations=self.violations,
            wall_s=time.perf_counter() - started, given_up=given_up,
            size=scenario.size, observed=self.observed)

    def _drain(self):
        """Run on until the decisions open now have finished (new ones may
        open meanwhile; they are not waited for), at most :data:`DRAIN`.
        """
        if self.loop is None:
            return
        store = self.loop.store
        open_ = {decision.id for decision in store.unfinished_decisions()}
        end = self.clock.now() + DRAIN
        while open_ and self.clock.now() < end:
            self._drive(min(end, self.clock.now() + 10.0))
            open_ &= {decision.id for decision
                      in store.unfinished_decisions()}

    def _drive_start(self):
        self.clock.call_soon(self._start_loop, priority=clock_mod.URGENT)

    def _check(self):
        store = self.loop.store
        scenario = self.scenario
        rows = store.list_instances()
        requests = store.list_requests()
        with store._transaction() as session:
            decisions = list(session.scalars(
                sa.select(db_api.models.Decision)))
            event = db_api.models.Event
            self.observed.update(dict(session.execute(
                sa.select(event.kind, sa.func.count())
                .where(event.kind.in_(OBSERVED))
                .group_by(event.kind)).all()))
        truth = self.driver.truth()
        history = self.driver.history
        confirmed = collections.Counter(
            victim_id for decision in decisions
            for victim_id in decision.confirmed or ())
        # Displaced and requeued by design: as a confirmed victim, or as
        # the victim of a decision given up whose termination went through
        # all the same (counted in its preemptions).
        for row in rows:
            if row.preemptions > confirmed[row.id]:
                confirmed[row.id] = row.preemptions
        allowance = confirmed if scenario.requeue else {}
        found = []
        found += invariants.check_compute_history(history, allowance)
        found += invariants.check_overcommits(self.driver.overcommits)
        found += invariants.check_normal_terminated(
            rows, decisions, history, self.deleted, scenario.spot,
            scenario.requeue, failed={request.id for request in requests
                                      if request.status == 'failed'},
            displaced=allowance)
        found += invariants.check_db_equals_compute(rows, truth)
        found += invariants.check_books_equal_compute(
            dict(self.loop.host_manager.instance_hosts), truth)
        ran = {instance_id for instance_id, events in history.items()
               if any(event[1] == 'started' for event in events)}
        found += invariants.check_outcomes(requests, rows, self._rooms,
                                           self.deleted, ran, scenario.spot)
        for violation in found:
            self._violation(violation.invariant, violation.detail)

    def _rooms(self, normal_only):
        rooms = []
        for name, fake_host in sorted(self.driver._hosts.items()):
            if not fake_host.up:
                continue
            used = objects.Resources()
            for present in fake_host.instances.values():
                if normal_only and present.instance.preemptible:
                    continue
                used = used + present.instance.resources
            rooms.append(tuple(fake_host.capacity - used))
        return rooms


def run_scenario(seed, template, disabled=(), trace=False,
                 settle=scenarios.SETTLE, size='full', late_held=False):
    """Run the scenario of ``seed``; returns (Outcome, trace lines)."""
    scenario = scenarios.generate(seed, size, late_held)
    run = Run(scenario, template, disabled=disabled, trace=trace,
              settle=settle)
    with quiet(logging.DEBUG if trace else logging.CRITICAL), \
            cached_entry_points():
        outcome = run.execute()
    return outcome, run.lines


def minimize(seed, template, invariants=None, size='full',
             late_held=False):
    """The fault kinds the violations of ``seed`` need (greedy).

    Disables one kind at a time and keeps it disabled when a violation of
    one of the same invariants remains. Returns (kinds still needed,
    violations of the smallest run).
    """
    outcome, _ = run_scenario(seed, template, size=size,
                              late_held=late_held)
    wanted = set(invariants or {v.invariant for v in outcome.violations})
    if not wanted:
        return None, []
    disabled = {kind for kind in faults.FAULTS if not outcome.faults.get(kind)}
    best = outcome.violations
    for kind in faults.FAULTS + faults.EXTRA_FAULTS:
        if kind in disabled or kind == 'report_reordered':
            continue
        trial, _ = run_scenario(seed, template, disabled | {kind},
                                size=size, late_held=late_held)
        if {v.invariant for v in trial.violations} & wanted:
            disabled.add(kind)
            best = trial.violations
    needed = sorted(set(faults.FAULTS + faults.EXTRA_FAULTS) - disabled -
                    {'report_reordered'})
    return needed, best
