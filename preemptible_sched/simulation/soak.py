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

"""A soak under faults: the scheduler loop on random clouds, checked.

Each scenario is drawn from its seed alone: a small cloud of fake blades
(2 to 6 hosts of random sizes), a random workload (normal and preemptible
requests, some for two or three instances, some with durations, some
deleted mid-way), a preemption strategy (``dual_state``, ``retry``, ``qos``
or ``priority``), a few options, and faults. The production
:class:`~preemptible_sched.loop.scheduler_loop.SchedulerLoop` runs it on a
:class:`~preemptible_sched.clock.VirtualClock`, its store on an SQLite file,
so that a restart is a new loop on a new store handle of the same file.

Faults (counted per kind when they actually happen, see :data:`FAULTS`):

* the compute side refuses a spawn at once, fails it at the end of its boot
  (``fail_next_spawns``), fails a termination
  (``fail_next_terminations``), or crashes an instance
  (``crash_instance``); hosts go down and come back;
* spawn and terminate messages are lost (:class:`SoakDriver` swallows the
  call);
* reports are delayed (hence reordered), duplicated or lost on their way
  to the loop (:class:`EventProxy`, which stands where the message bus
  does); reports that answer nothing the loop asked for (an instance that
  ended or crashed while running, a host going down or up) are never
  lost: no deadline could recover them;
* the scheduler crashes at the executor's crash points (``crash_hook``)
  and between events, and restarts, after a random downtime, from the
  database alone; the reports that waited for it reach it before its first
  step (with ``--late-held-reports``, over a while after it, as a broker's
  backlog does: see :data:`EXTRA_FAULTS`).

After the workload the faults stop, every host comes back, and the clock
runs on for a while (``settle``) so that deadlines and watchdogs can finish
what the faults left open. Then the invariants (:data:`INVARIANTS`) are
checked against the store, the loop's books and what the fake blades really
run. Run it as::

    python -m preemptible_sched.simulation.soak --scenarios 10000 --jobs 2

It prints its figures as JSON on stdout and exits 1 when an invariant was
broken. ``--seed S --scenarios 1 --trace`` replays one scenario with a log
of everything that happened; ``--minimize`` finds, for the first violating
seeds, the fault kinds the violation needs.
"""

import argparse
import collections
import concurrent.futures
import contextlib
import dataclasses
import importlib
import json
import logging
import math
import multiprocessing
from multiprocessing import util as mp_util
import os
import random
import shutil
import sys
import tempfile
import time
import traceback
import typing

from oslo_config import cfg
import sqlalchemy as sa

from preemptible_sched import clock as clock_mod
from preemptible_sched import compute
from preemptible_sched.compute import fake
from preemptible_sched.conf import CONF
from preemptible_sched.conf import plugins
from preemptible_sched.db import api as db_api
from preemptible_sched.loop import scheduler_loop
from preemptible_sched import objects

LOG = logging.getLogger(__name__)

#: The preemption strategies the scenarios are spread over.
STRATEGIES = ('dual_state', 'retry', 'qos', 'priority')
#: Strategies that follow service classes (the preemptible flag plays no
#: part; victims are requeued by default).
CLASS_BASED = ('qos', 'priority')

#: Fault kinds, as counted in the figures. ``report_reordered`` is not a
#: knob of its own: it counts reports delivered after a report sent later
#: (delays make them).
FAULTS = ('spawn_refused', 'spawn_failed', 'termination_failed',
          'instance_crashed', 'host_down', 'spawn_lost', 'terminate_lost',
          'report_delayed', 'report_reordered', 'report_duplicated',
          'report_lost', 'crash_at_point', 'crash_between_events')

#: Fault kinds injected only on request. ``report_held_late`` (option
#: ``--late-held-reports``): after a restart, the reports that waited for
#: the new scheduler arrive over up to ``report_max_delay`` seconds (at
#: least 5) instead of before its first step. Each such report is counted.
#: It is off by default so that the seeds of the scenarios the CI runs keep
#: their meaning; ``tox -e soak`` turns it on. (The loop survives it since
#: instances that are gone are settled from what their host remembers.)
EXTRA_FAULTS = ('report_held_late',)

#: What is checked after every scenario.
INVARIANTS = (
    # Every request ends placed (its instances running or ended),
    # failed with a reason, deleted (only when the workload deleted it),
    # or still legitimately waiting; nothing is stuck half-way.
    'request_outcome',
    # No instance is terminated twice by the compute side.
    'terminated_twice',
    # No instance boots again after it was terminated or ended (unless it
    # was displaced and requeued by design, on_victim = requeue).
    'resurrected',
    # No normal instance is terminated by a preemption decision.
    'normal_terminated',
    # No spawn reaches a host that cannot hold it (the fake refuses it: a
    # real host would be overcommitted).
    'overcommitted',
    # The database equals what the compute side runs, host by host.
    'db_equals_compute',
    # The loop's in-memory books equal what the compute side runs.
    'books_equal_compute',
    # A multi-instance request runs all of its instances or none.
    'all_or_nothing',
    # The scheduler raised something other than an injected crash (the
    # service would have died; the soak restarts it).
    'scheduler_exception',
)

FLAVORS = (
    objects.Flavor('tiny', 1, 1024, 10),
    objects.Flavor('small', 1, 2048, 20),
    objects.Flavor('medium', 2, 4096, 40),
    objects.Flavor('large', 4, 8192, 80),
    objects.Flavor('xlarge', 8, 16384, 160),
)
#: A flavor no host of a scenario can hold (it must wait or fail).
HUGE = objects.Flavor('huge', 64, 131072, 1280)

CLASSES = ('gold', 'silver', 'bronze')

#: Seconds of virtual time the workload arrives over, faults are injected
#: over, and the loop is then left to settle for.
ARRIVALS = 900.0
HORIZON = 1800.0
SETTLE = 3600.0
#: At most this much more virtual time lets the decisions still open at the
#: end of the settling finish (a class-based strategy may displace an
#: instance just before it ends: its notice, grace and termination are not
#: a request stuck).
DRAIN = 1800.0

#: Restarts after which a scenario is given up (a crash loop).
MAX_RESTARTS = 40

_EPSILON = 1e-6

#: What the loop recorded that shows a fault reached it, as counted in
#: the figures (``observed``): reports it ignored (late, duplicate or
#: misrouted), stray instances it found and terminated, requests failed.
OBSERVED = ('instance.report_ignored', 'instance.stray', 'request.failed')

DROPPABLE = ('instance_started', 'instance_failed', 'instance_terminated',
             'termination_failed')
HOST_EVENTS = ('host_down', 'host_up', 'host_added')


class Crash(Exception):
    """The scheduler process dies here (injected)."""

    def __init__(self, kind, where=None):
        super().__init__('%s%s' % (kind, ' at %s' % where if where else ''))
        self.kind = kind
        self.where = where


class GiveUp(Exception):
    """The scenario cannot go on (a crash loop)."""


@dataclasses.dataclass(frozen=True)
class Violation:
    invariant: str
    detail: str


# -- scenarios ---------------------------------------------------------------

@dataclasses.dataclass
class Item:
    """One request of the workload."""

    id: str
    at: float
    flavor: objects.Flavor
    preemptible: bool
    num_instances: int = 1
    duration: typing.Optional[float] = None
    service_class: typing.Optional[str] = None
    delete_at: typing.Optional[float] = None


@dataclasses.dataclass
class FaultPlan:
    """How often each fault strikes in one scenario."""

    intensity: str = 'none'
    spawn_refused_p: float = 0.0
    spawn_lost_p: float = 0.0
    terminate_lost_p: float = 0.0
    report_delay_p: float = 0.0
    report_max_delay: float = 0.0
    report_duplicate_p: float = 0.0
    report_lost_p: float = 0.0
    crash_point_p: float = 0.0
    max_crashes: int = 0
    #: chance that the reports held while the scheduler was down reach
    #: the next one over a while after its start, as a broker's backlog
    #: does, rather than all before its first step (``--late-held-reports``
    #: only; see :data:`EXTRA_FAULTS`)
    held_late_p: float = 0.0
    #: (time, kind, argument) of the faults that strike at a set time:
    #: fail_spawns (count), fail_terminations (count), crash_instance,
    #: host_down (seconds down), crash_scheduler.
    timed: list = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Scenario:
    seed: int
    strategy: str
    options: dict
    hosts: list
    items: list
    faults: FaultPlan
    #: 'event': reports carry the time they happened at (the ComputeEvents
    #: contract); 'delivery': the time they reach the loop (what the rpc
    #: driver does).
    stamp: str = 'event'
    size: str = 'full'

    @property
    def requeue(self):
        on_victim = self.options.get(('scheduler', 'on_victim'))
        if on_victim:
            return on_victim == 'requeue'
        return self.strategy in CLASS_BASED

    @property
    def spot(self):
        return self.strategy not in CLASS_BASED

    def describe(self):
        """A JSON-able summary (for --trace and the violation reports)."""
        return {
            'seed': self.seed, 'size': self.size, 'strategy': self.strategy,
            'stamp': self.stamp,
            'options': {'%s.%s' % key: value
                        for key, value in sorted(self.options.items())},
            'hosts': ['%s %gc/%gM/%gG' % (h.name, h.vcpus, h.memory_mb,
                                          h.disk_gb) for h in self.hosts],
            'faults': {key: value for key, value in
                       dataclasses.asdict(self.faults).items()
                       if key != 'timed'},
            'timed_faults': [list(t) for t in self.faults.timed],
            'items': [
                '%s t=%.1f %s%s x%d dur=%s%s%s' % (
                    item.id, item.at, item.flavor.name,
                    ' preemptible' if item.preemptible else '',
                    item.num_instances,
                    'inf' if item.duration is None
                    else '%.0f' % item.duration,
                    ' class=%s' % item.service_class
                    if item.service_class else '',
                    ' delete@%.1f' % item.delete_at
                    if item.delete_at is not None else '')
                for item in self.items],
        }


#: Scenario sizes: (hosts, requests) ranges. ``small`` is the CI's.
SIZES = {'full': ((2, 6), (6, 22)), 'small': ((2, 4), (3, 10))}


def generate(seed, size='full', late_held=False):
    """The scenario of ``seed`` (the same seed and size, the same
    scenario); ``late_held`` adds ``report_held_late`` faults to it,
    changing nothing else.
    """
    rng = random.Random('soak-scenario:%s:%d' % (size, seed))
    strategy = STRATEGIES[seed % len(STRATEGIES)]
    host_range, request_range = SIZES[size]
    hosts = []
    for index in range(rng.randint(*host_range)):
        vcpus = rng.choice((4, 8, 8, 16))
        hosts.append(objects.Host(name=fake.blade_name(index), vcpus=vcpus,
                                  memory_mb=vcpus * 2048,
                                  disk_gb=vcpus * 20))
    options = {
        ('scheduler', 'preemption_strategy'): strategy,
        ('scheduler', 'on_no_valid_host'): rng.choice(('fail', 'wait',
                                                       'wait')),
        ('scheduler', 'max_attempts'): rng.choice((2, 3, 5)),
        ('scheduler', 'watchdog_interval'): 10.0,
        ('scheduler', 'terminate_only_when_needed'):
            rng.random() < 0.8,
        ('preemptible', 'termination_grace_seconds'):
            rng.choice((0.0, 0.0, 5.0, 30.0)),
        ('fake_driver', 'termination_seconds'):
            rng.choice((0.0, 0.5, 5.0, 20.0)),
        ('fake_driver', 'boot_times_hot'): ['1.0', '2.0', '3.0'],
        ('fake_driver', 'boot_times_cold'): ['5.0', '10.0', '20.0'],
    }
    if strategy == 'qos':
        options[('qos', 'preempt_exempt_seconds')] = rng.choice(
            (0.0, 30.0, 120.0))
    deadline = rng.choice((60.0, 180.0, 600.0))
    if _has_option('scheduler', 'compute_deadline'):
        options[('scheduler', 'compute_deadline')] = deadline
    items = []
    count = rng.randint(*request_range)
    for index in range(count):
        flavor = HUGE if rng.random() < 0.03 else rng.choice(FLAVORS)
        num = rng.choice((2, 3)) if rng.random() < 0.2 else 1
        duration = None
        if rng.random() < 0.7:
            duration = round(rng.uniform(20.0, 1200.0), 1)
        at = round(rng.uniform(0.0, ARRIVALS), 1)
        delete_at = None
        if rng.random() < 0.12:
            delete_at = round(at + rng.uniform(0.0, 400.0), 1)
        items.append(Item(
            id='r%02d' % index, at=at, flavor=flavor,
            preemptible=rng.random() < 0.5, num_instances=num,
            duration=duration,
            service_class=rng.choice(CLASSES)
            if strategy in CLASS_BASED else None,
            delete_at=delete_at))
    items.sort(key=lambda item: (item.at, item.id))
    plan = _fault_plan(rng, hosts)
    if late_held and plan.intensity != 'none':
        plan.held_late_p = random.Random('soak-held:%s:%d' % (
            size, seed)).choice((0.5, 1.0))
    return Scenario(seed=seed, strategy=strategy, options=options,
                    hosts=hosts, items=items, faults=plan,
                    stamp=rng.choice(('event', 'delivery')), size=size)


def _has_option(group, name):
    try:
        return name in CONF[group]
    except (KeyError, cfg.NoSuchOptError, cfg.NoSuchGroupError):
        return False


def _fault_plan(rng, hosts):
    intensity = rng.choice(('none', 'light', 'light', 'heavy', 'heavy'))
    plan = FaultPlan(intensity=intensity)
    if intensity == 'none':
        return plan
    heavy = intensity == 'heavy'
    plan.spawn_refused_p = rng.choice((0.0, 0.05, 0.15 if heavy else 0.05))
    plan.spawn_lost_p = rng.choice((0.0, 0.03, 0.08 if heavy else 0.03))
    plan.terminate_lost_p = rng.choice((0.0, 0.05, 0.15 if heavy else 0.05))
    plan.report_delay_p = rng.choice((0.0, 0.2, 0.5 if heavy else 0.2))
    plan.report_max_delay = rng.choice((5.0, 30.0, 120.0))
    plan.report_duplicate_p = rng.choice((0.0, 0.05, 0.15 if heavy
                                          else 0.05))
    plan.report_lost_p = rng.choice((0.0, 0.03, 0.1 if heavy else 0.03))
    plan.crash_point_p = rng.choice((0.0, 0.03, 0.1 if heavy else 0.03))
    plan.max_crashes = rng.randint(1, 6 if heavy else 3)
    timed = []
    for _ in range(rng.randint(0, 4 if heavy else 2)):
        timed.append((rng.uniform(0, HORIZON), 'fail_spawns',
                      rng.randint(1, 3)))
    for _ in range(rng.randint(0, 4 if heavy else 2)):
        timed.append((rng.uniform(0, HORIZON), 'fail_terminations',
                      rng.randint(1, 4)))
    for _ in range(rng.randint(0, 3 if heavy else 1)):
        timed.append((rng.uniform(0, HORIZON), 'crash_instance', None))
    for _ in range(rng.randint(0, 2 if heavy else 1)):
        timed.append((rng.uniform(0, HORIZON), 'host_down',
                      rng.uniform(10.0, 600.0)))
    for _ in range(rng.randint(0, 3 if heavy else 1)):
        timed.append((rng.uniform(0, HORIZON), 'crash_scheduler', None))
    plan.timed = sorted((round(at, 1), kind, arg)
                        for at, kind, arg in timed)
    return plan


# -- the compute side ---------------------------------------------------------

class SoakDriver(fake.FakeDriver):
    """The fake blades, recording what they really did, losing messages.

    ``history`` maps an instance id to what happened to it on the compute
    side, in order: ``(time, what, host, detail)`` with ``what`` one of
    spawned, refused, started, ended, boot_failed, terminated, crashed,
    lost (its host went down), spawn_lost, terminate_lost. ``overcommits``
    lists every spawn that a host could not hold (the fake refuses it; a
    real host would be overcommitted) and every spawn after which a host
    holds more than its capacity.
    """

    def __init__(self, clock, hosts, seed, plan=None, rng=None, faults=None,
                 disabled=(), trace=None):
        super().__init__(clock, hosts=hosts, seed=seed)
        self.plan = plan or FaultPlan()
        self.rng = rng or random.Random(seed)
        self.faults = collections.Counter() if faults is None else faults
        self.disabled = frozenset(disabled)
        self.trace = trace
        #: faults strike only while this is True (the settling turns it
        #: off)
        self.faulty = True
        self.history = collections.defaultdict(list)
        self.overcommits = []

    def _note(self, instance_id, what, host, detail=None):
        self.history[instance_id].append((self.clock.now(), what, host,
                                          detail))
        if self.trace is not None:
            self.trace('compute', '%s %s on %s%s' % (
                instance_id, what, host, ': %s' % detail if detail else ''))

    def _strike(self, kind, probability):
        """Draw (always, so that disabling a kind keeps the draws) and
        say whether ``kind`` strikes now.
        """
        hit = self.rng.random() < probability
        return hit and self.faulty and kind not in self.disabled

    # -- the driver interface ----------------------------------------------

    def spawn(self, host, instance, image=None, duration=None):
        if self._strike('spawn_lost', self.plan.spawn_lost_p):
            self.faults['spawn_lost'] += 1
            self._note(instance.id, 'spawn_lost', host)
            return
        fake_host = self._hosts.get(host)
        if self._strike('spawn_refused', self.plan.spawn_refused_p) and \
                fake_host is not None and fake_host.up:
            self.faults['spawn_refused'] += 1
            self._note(instance.id, 'refused', host, 'injected refusal')
            self._report('instance_failed', host, instance.id,
                         'injected refusal: the host declined the spawn',
                         boot=instance.boot)
            return
        super().spawn(host, instance, image=image, duration=duration)
        placed = fake_host.instances.get(instance.id) if fake_host else None
        if placed is not None and placed.instance is instance:
            self._note(instance.id, 'spawned', host)
            short = [name for name, used, capacity in zip(
                objects.Resources._fields, fake_host.used(),
                fake_host.capacity) if used > capacity + _EPSILON]
            if short:
                self.overcommits.append(
                    (self.clock.now(), host, instance.id,
                     'holds more than its capacity in %s'
                     % ', '.join(short)))

    def terminate(self, host, instance_id):
        if self._strike('terminate_lost', self.plan.terminate_lost_p):
            self.faults['terminate_lost'] += 1
            self._note(instance_id, 'terminate_lost', host)
            return
        super().terminate(host, instance_id)

    def crash_instance(self, host, instance_id, reason='crashed'):
        fake_host = self._host(host)
        present = fake_host.instances.get(instance_id)
        state = present.state if present is not None else None
        super().crash_instance(host, instance_id, reason)
        self._note(instance_id, 'crashed', host, state)

    def host_down(self, host):
        fake_host = self._host(host)
        if fake_host.up:
            for instance_id, present in sorted(fake_host.instances.items()):
                self._note(instance_id, 'lost', host, present.state)
        super().host_down(host)

    # -- what the fake does ------------------------------------------------

    def _spawn_refusal(self, host, instance):
        reason = super()._spawn_refusal(host, instance)
        if reason is not None:
            self._note(instance.id, 'refused', host, reason)
            if 'cannot hold' in reason:
                self.overcommits.append((self.clock.now(), host,
                                         instance.id, reason))
        return reason

    def _take_injected(self, fake_host, counter):
        if not self.faulty:
            # Failures injected during the workload but not used up by
            # then (fail_next_spawns/terminations wait for the next spawn
            # or termination) stop with the other faults: left pending,
            # they would fail every retry of the settling too, and a
            # request deleted under them would look stuck.
            return False
        taken = super()._take_injected(fake_host, counter)
        if taken:
            self.faults[{'fail_spawns': 'spawn_failed',
                         'fail_terminations': 'termination_failed'}[
                             counter]] += 1
        return taken

    def _booted(self, fake_host, fake_instance, duration):
        self._note(fake_instance.instance.id, 'started',
                   fake_host.spec.name)
        super()._booted(fake_host, fake_instance, duration)

    def _boot_failed(self, fake_host, fake_instance):
        self._note(fake_instance.instance.id, 'boot_failed',
                   fake_host.spec.name)
        super()._boot_failed(fake_host, fake_instance)

    def _ended(self, fake_host, fake_instance):
        self._note(fake_instance.instance.id, 'ended', fake_host.spec.name)
        super()._ended(fake_host, fake_instance)

    def _terminated(self, fake_host, fake_instance):
        if fake_host.instances.get(fake_instance.instance.id) is \
                fake_instance:
            self._note(fake_instance.instance.id, 'terminated',
                       fake_host.spec.name)
        super()._terminated(fake_host, fake_instance)

    # -- the truth ---------------------------------------------------------

    def truth(self):
        """``{host: {instance id: state}}`` of what the blades run now."""
        return {name: {instance_id: present.state for instance_id, present
                       in fake_host.instances.items()}
                for name, fake_host in self._hosts.items()}

    def last_phase(self, instance_id):
        """What last happened to ``instance_id`` on the compute side."""
        events = self.history.get(instance_id)
        return events[-1] if events else None


# -- between the compute side and the loop ---------------------------------

class EventProxy(compute.ComputeEvents):
    """What a message bus may do to the reports on their way to the loop.

    It stands in the driver's ``events`` attribute and forwards every
    report, always later (through the clock, never inside the driver's
    call), to ``target``: the receiver of the loop running now, or nobody
    while the scheduler is down (the reports then wait, as in a queue,
    and reach the next scheduler once it has started). Reports are
    delayed (``report_delay_p``, up to ``report_max_delay`` seconds),
    duplicated or lost; reports about hosts go first and in order, and
    those a new scheduler would learn from the hosts themselves (host up
    or down while it was down) are dropped at its start.
    """

    def __init__(self, clock, plan=None, rng=None, faults=None, stamp='event',
                 disabled=(), droppable=None, trace=None):
        self.clock = clock
        self.plan = plan or FaultPlan()
        self.rng = rng or random.Random(0)
        self.faults = collections.Counter() if faults is None else faults
        self.stamp = stamp
        self.disabled = frozenset(disabled)
        #: ``droppable(event, head)``: whether the report answers a request
        #: of the loop (a deadline could recover it if lost)
        self.droppable = droppable
        self.trace = trace
        self.faulty = True
        self.target = None
        self.waiting = []
        self._sent = 0
        self._delivered = -1

    def _strike(self, kind, probability):
        hit = self.rng.random() < probability
        return hit and self.faulty and kind not in self.disabled

    def attach(self, target):
        """A scheduler started: it hears what waited for it, in order
        (or, with ``held_late_p``, over a while).
        """
        self.target = target
        waiting, self.waiting = self.waiting, []
        late = False
        if self.plan.held_late_p and waiting:
            # Drawn only then, so that the other draws stay the same.
            late = self._strike('report_held_late', self.plan.held_late_p)
        spread = max(5.0, self.plan.report_max_delay)
        for sequence, event, head, at, tail, boot in waiting:
            if event in HOST_EVENTS:
                continue
            if late:
                self.faults['report_held_late'] += 1
                self.clock.call_later(self.rng.uniform(0.0, spread),
                                      self._deliver, sequence, event, head,
                                      at, tail, boot,
                                      priority=clock_mod.URGENT)
                continue
            self.clock.call_soon(self._deliver, sequence, event, head, at,
                                 tail, boot, priority=clock_mod.URGENT)

    def detach(self):
        """The scheduler died: reports wait for the next one."""
        self.target = None

    def _send(self, event, head, at, tail=(), boot=None):
        sequence = self._sent
        self._sent += 1
        if event in HOST_EVENTS:
            self.clock.call_soon(self._deliver, sequence, event, head, at,
                                 tail, boot, priority=clock_mod.URGENT)
            return
        lost = self._strike('report_lost', self.plan.report_lost_p)
        if lost and event in DROPPABLE and (
                self.droppable is None or self.droppable(event, head)):
            self.faults['report_lost'] += 1
            if self.trace is not None:
                self.trace('bus', 'lost %s%r' % (event, head))
            return
        copies = 1
        if self._strike('report_duplicated', self.plan.report_duplicate_p):
            self.faults['report_duplicated'] += 1
            copies = 2
        for _ in range(copies):
            delay = self.rng.uniform(0.0, self.plan.report_max_delay)
            if self._strike('report_delayed', self.plan.report_delay_p):
                self.faults['report_delayed'] += 1
            else:
                delay = 0.0
            self.clock.call_later(delay, self._deliver, sequence, event,
                                  head, at, tail, boot,
                                  priority=clock_mod.URGENT)

    def _deliver(self, sequence, event, head, at, tail, boot=None):
        if self.target is None:
            self.waiting.append((sequence, event, head, at, tail, boot))
            return
        if sequence < self._delivered:
            self.faults['report_reordered'] += 1
        self._delivered = max(self._delivered, sequence)
        stamp = at if self.stamp == 'event' else self.clock.now()
        if self.trace is not None:
            self.trace('bus', 'deliver %s%r at=%.1f%s' % (
                event, head, at, '' if boot is None else ' boot=%s' % boot))
        # ``boot`` goes on as the driver gave it: by keyword, and only when
        # there is one (as the fake and rpc drivers do).
        extra = {} if boot is None else {'boot': boot}
        getattr(self.target, event)(*head, stamp, *tail, **extra)

    # -- ComputeEvents -----------------------------------------------------

    def instance_started(self, host, instance_id, at, boot=None):
        self._send('instance_started', (host, instance_id), at, boot=boot)

    def instance_ended(self, host, instance_id, at, boot=None):
        self._send('instance_ended', (host, instance_id), at, boot=boot)

    def instance_failed(self, host, instance_id, at, reason, boot=None):
        self._send('instance_failed', (host, instance_id), at, (reason,),
                   boot=boot)

    def instance_terminated(self, host, instance_id, at, boot=None):
        self._send('instance_terminated', (host, instance_id), at,
                   boot=boot)

    def termination_failed(self, host, instance_id, at, reason, boot=None):
        self._send('termination_failed', (host, instance_id), at,
                   (reason,), boot=boot)

    def host_down(self, host, at):
        self._send('host_down', (host,), at)

    def host_up(self, host, at):
        self._send('host_up', (host,), at)

    def host_added(self, host, at):
        self._send('host_added', (host,), at)


# -- the checks ---------------------------------------------------------------

def check_compute_history(history, requeue_allowance=None):
    """``terminated_twice`` and ``resurrected`` from the compute history.

    ``history`` is :attr:`SoakDriver.history`; ``requeue_allowance`` maps an
    instance to how many times it was displaced and requeued by design
    (``on_victim = requeue``: each such termination may be followed by one
    new boot). A boot after a natural end or after any other termination
    is a resurrection; in ``terminate`` mode (no allowance) a second
    termination is one too many. (A boot after a crash or a host failure
    is not: with the start report lost, the loop may rightly take a crash
    for a failed boot and try again.)
    """
    allowance = dict(requeue_allowance or {})
    found = []
    for instance_id, events in sorted(history.items()):
        terminations = [event for event in events
                        if event[1] == 'terminated']
        if len(terminations) > 1 and not allowance.get(instance_id):
            found.append(Violation('terminated_twice', '%s terminated %d '
                                   'times (at %s)' % (
                                       instance_id, len(terminations),
                                       ', '.join('%.1f on %s' % (e[0], e[2])
                                                 for e in terminations))))
        gone = None
        for at, what, host, detail in events:
            if what == 'terminated':
                gone = ('terminated', at, host)
            elif what == 'ended':
                gone = ('ended', at, host)
            elif what == 'spawned':
                if gone is not None:
                    if gone[0] == 'terminated' and \
                            allowance.get(instance_id, 0) > 0:
                        allowance[instance_id] -= 1
                    else:
                        found.append(Violation(
                            'resurrected', '%s spawned on %s at %.1f after '
                            'it was %s at %.1f on %s' % (
                                instance_id, host, at, gone[0], gone[1],
                                gone[2])))
                gone = None
    return found


def check_overcommits(overcommits):
    return [Violation('overcommitted', 'spawn of %s on %s at %.1f: %s'
                      % (instance_id, host, at, reason))
            for at, host, instance_id, reason in overcommits]


def check_db_equals_compute(rows, truth):
    """Every instance the store puts on a host (building, running or
    terminating) runs there, and the reverse.
    """
    found = []
    in_db = collections.defaultdict(dict)
    by_id = {}
    for row in rows:
        by_id[row.id] = row
        if row.host is not None and row.state in ('building', 'running',
                                                  'terminating'):
            in_db[row.host][row.id] = row.state
    for host in sorted(set(truth) | set(in_db)):
        real = truth.get(host, {})
        books = in_db.get(host, {})
        for instance_id in sorted(set(real) - set(books)):
            row = by_id.get(instance_id)
            said = 'nothing' if row is None else '%s on %s' % (row.state,
                                                               row.host)
            found.append(Violation(
                'db_equals_compute', '%s is %s on %s, the database says %s'
                % (instance_id, real[instance_id], host, said)))
        for instance_id in sorted(set(books) - set(real)):
            found.append(Violation(
                'db_equals_compute', 'the database has %s %s on %s, which '
                'does not run it' % (instance_id, books[instance_id],
                                     host)))
    return found


def check_books_equal_compute(instance_hosts, truth):
    """The loop's host manager places every instance where it runs."""
    found = []
    real = {instance_id: host for host, present in truth.items()
            for instance_id in present}
    for instance_id in sorted(set(real) | set(instance_hosts)):
        if real.get(instance_id) != instance_hosts.get(instance_id):
            found.append(Violation(
                'books_equal_compute', '%s runs on %s, the loop counts it '
                'on %s' % (instance_id, real.get(instance_id),
                           instance_hosts.get(instance_id))))
    return found


def check_normal_terminated(rows, decisions, history, deleted, spot,
                            requeue, failed=(), displaced=None):
    """No normal instance is terminated by a preemption decision.

    With a spot strategy (``dual_state``, ``retry``) no decision may even
    name a normal victim. With any strategy a normal instance may be
    terminated by the compute side only when its request was deleted,
    when one of its request's instances failed (a multi-instance request
    rolled back), or when it was displaced and requeued by design
    (class-based strategies with ``on_victim = requeue``: as many times as
    ``displaced`` says, by default as many as decisions confirmed it gone);
    and no normal instance ends ``terminated``.
    """
    found = []
    by_id = {row.id: row for row in rows}
    failed_requests = {row.request_id for row in rows
                       if row.state == 'error'} | set(failed or ())
    confirmed = collections.Counter()
    for decision in decisions:
        for victim_id in decision.victims:
            row = by_id.get(victim_id)
            if spot and row is not None and not row.preemptible:
                found.append(Violation(
                    'normal_terminated', 'decision %s (%s) names the '
                    'normal instance %s as a victim' % (
                        decision.id, decision.state, victim_id)))
        for victim_id in decision.confirmed or ():
            confirmed[victim_id] += 1
    for row in rows:
        if row.preemptible:
            continue
        if row.state == 'terminated':
            found.append(Violation(
                'normal_terminated', 'the normal instance %s ended '
                'terminated (%s)' % (row.id, row.reason or 'no reason')))
        terminations = [event for event in history.get(row.id, ())
                        if event[1] == 'terminated']
        allowed = 0
        if row.request_id in deleted or row.request_id in failed_requests:
            allowed += 1
        if requeue and not spot:
            allowed += confirmed[row.id] if displaced is None else \
                displaced.get(row.id, 0)
        if len(terminations) > allowed:
            found.append(Violation(
                'normal_terminated', 'the normal instance %s was '
                'terminated by the compute side at %s (state %s)' % (
                    row.id, ', '.join('%.1f' % e[0] for e in terminations),
                    row.state)))
    return found


def _pack(sizes, rooms):
    """Whether ``sizes`` fit ``rooms`` (first fit, largest first)."""
    rooms = [list(room) for room in rooms]
    for size in sorted(sizes, reverse=True):
        for room in rooms:
            if all(need <= have + _EPSILON
                   for need, have in zip(size, room)):
                for index, need in enumerate(size):
                    room[index] -= need
                break
        else:
            return False
    return True


def check_outcomes(requests, rows, truth_rooms, deleted, ran, spot):
    """``request_outcome`` and ``all_or_nothing``.

    ``truth_rooms(normal_only)`` returns the free room of every up host as
    the compute side sees it (``normal_only``: as if no preemptible
    instance ran there); ``deleted`` holds the requests the workload
    deleted; ``ran`` the instances the compute side ever ran.

    An instance pending without a host is legitimately waiting when its
    request (its pending instances, all together) could not be placed on
    the free room now, nor, for a normal request under a spot strategy,
    on the room with every preemptible instance gone.
    """
    found = []
    by_request = collections.defaultdict(list)
    for row in rows:
        by_request[row.request_id].append(row)
    for request in requests:
        mine = by_request.get(request.id, [])
        status = request.status
        if status == 'deleted' and request.id not in deleted:
            found.append(Violation('request_outcome', 'request %s is '
                                   'deleted; nobody deleted it'
                                   % request.id))
        if status == 'failed' and not request.reason:
            found.append(Violation('request_outcome', 'request %s failed '
                                   'without a reason' % request.id))
        waiting = []
        for row in mine:
            where = '%s (request %s, %s)' % (row.id, request.id, status)
            if row.state in ('building', 'terminating', 'preempted') or (
                    row.state == 'pending' and row.host is not None):
                found.append(Violation('request_outcome', '%s is stuck %s%s'
                                       % (where, row.state,
                                          ' on %s' % row.host
                                          if row.host else '')))
            elif row.state == 'error' and not row.reason:
                found.append(Violation('request_outcome', '%s is in error '
                                       'without a reason' % where))
            elif row.state == 'deleted' and request.id not in deleted:
                found.append(Violation('request_outcome', '%s is deleted; '
                                       'nobody deleted it' % where))
            elif row.state in ('running',) and request.id in deleted:
                found.append(Violation('request_outcome', '%s still runs; '
                                       'its request was deleted' % where))
            elif row.state == 'pending':
                waiting.append(row)
                if request.id in deleted:
                    found.append(Violation('request_outcome', '%s waits; '
                                           'its request was deleted'
                                           % where))
        if waiting and status != 'pending':
            found.append(Violation('request_outcome', 'request %s is %s '
                                   'while %s wait(s) for a host' % (
                                       request.id, status, ', '.join(
                                           row.id for row in waiting))))
        if status == 'pending' and not waiting and mine:
            found.append(Violation('request_outcome', 'request %s is '
                                   'pending, none of its instances waits '
                                   '(%s)' % (request.id, ', '.join(
                                       '%s %s' % (row.id, row.state)
                                       for row in mine))))
        if waiting and request.id not in deleted:
            groups = [[row] for row in waiting if row.preemptions]
            fresh = [row for row in waiting if not row.preemptions]
            if fresh:
                groups.append(fresh)
            for group in groups:
                sizes = [(row.vcpus, row.memory_mb, row.disk_gb)
                         for row in group]
                normal_room = spot and not group[0].preemptible
                if _pack(sizes, truth_rooms(False)) or (
                        normal_room and _pack(sizes, truth_rooms(True))):
                    found.append(Violation(
                        'request_outcome', '%s of request %s wait(s) '
                        'although the cloud has room for them' % (
                            ', '.join(row.id for row in group),
                            request.id)))
        if len(mine) > 1 and request.id not in deleted and \
                status != 'failed':
            started = [row.id for row in mine if row.id in ran]
            # Gave up: neither waiting nor displaced. An instance
            # chosen as the victim of a decision before it ran was
            # displaced by design, one instance at a time, and did not
            # give up, whether it then ended terminated (or preempted) or
            # in error because its own failed spawn was reported during
            # its termination (seeds 293, 557, 856 and 972 of the first
            # long run: preemptible instances of multi-instance requests
            # chosen as victims while building).
            never = [row for row in mine if row.id not in ran and
                     row.state not in ('pending', 'terminated',
                                       'preempted') and
                     getattr(row, 'terminated_by', None) is None]
            if started and never:
                found.append(Violation(
                    'all_or_nothing', 'request %s is %s: %s ran, %s never '
                    'did and gave up (%s)' % (
                        request.id, status, ', '.join(started),
                        ', '.join(row.id for row in never), ', '.join(
                            '%s %s%s' % (row.id, row.state,
                                         ': %s' % row.reason
                                         if row.reason else '')
                            for row in never))))
        if status == 'failed':
            alive = [row.id for row in mine
                     if row.state in ('building', 'running')]
            if alive:
                found.append(Violation(
                    'all_or_nothing', 'request %s failed (%s) but %s still '
                    'run(s)' % (request.id, request.reason,
                                ', '.join(alive))))
    return found


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
                 settle=SETTLE, driver_class=None):
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
        self.driver = (driver_class or SoakDriver)(
            self.clock, scenario.hosts, seed, plan=plan,
            rng=random.Random('soak-driver:%d' % seed), faults=self.faults,
            disabled=self.disabled, trace=self._trace if trace else None)
        self.proxy = EventProxy(
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
        self.violations.append(Violation(invariant, detail))
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

    def _crash_hook(self, where, **context):
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
        if kind in FAULTS:
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
                    self._drive(HORIZON)
                    self._calm()
                    self._drive(HORIZON + self.settle)
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
        found += check_compute_history(history, allowance)
        found += check_overcommits(self.driver.overcommits)
        found += check_normal_terminated(
            rows, decisions, history, self.deleted, scenario.spot,
            scenario.requeue, failed={request.id for request in requests
                                      if request.status == 'failed'},
            displaced=allowance)
        found += check_db_equals_compute(rows, truth)
        found += check_books_equal_compute(
            dict(self.loop.host_manager.instance_hosts), truth)
        ran = {instance_id for instance_id, events in history.items()
               if any(event[1] == 'started' for event in events)}
        found += check_outcomes(requests, rows, self._rooms, self.deleted,
                                ran, scenario.spot)
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


def run_scenario(seed, template, disabled=(), trace=False, settle=SETTLE,
                 size='full', late_held=False):
    """Run the scenario of ``seed``; returns (Outcome, trace lines)."""
    scenario = generate(seed, size, late_held)
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
    disabled = {kind for kind in FAULTS if not outcome.faults.get(kind)}
    best = outcome.violations
    for kind in FAULTS + EXTRA_FAULTS:
        if kind in disabled or kind == 'report_reordered':
            continue
        trial, _ = run_scenario(seed, template, disabled | {kind},
                                size=size, late_held=late_held)
        if {v.invariant for v in trial.violations} & wanted:
            disabled.add(kind)
            best = trial.violations
    needed = sorted(set(FAULTS + EXTRA_FAULTS) - disabled -
                    {'report_reordered'})
    return needed, best


# -- many scenarios -----------------------------------------------------------

_WORKER = {}
_MODULE = 'preemptible_sched.simulation.soak'


def _init_worker(parse=False):
    """Options and a template database for this process's scenarios."""
    plugins.register_opts(CONF)
    if parse:
        CONF([], project='preemptible-sched', default_config_files=[])
    directory = tempfile.mkdtemp(prefix='psched-soak-', dir=_tmp_root())
    _WORKER['template'] = Template(directory)
    _WORKER['directory'] = directory
    mp_util.Finalize(None, _cleanup_worker, exitpriority=10)


def _tmp_root():
    """Where the scenarios' throw-away databases go: memory-backed
    ``/dev/shm`` when writable (each is a fresh ``tempfile`` directory
    inside it), else the default temporary directory.
    """
    shm = '/dev/shm'  # nosec B108: only the parent of mkdtemp() dirs
    if os.path.isdir(shm) and os.access(shm, os.W_OK):
        return shm
    return None


def _run_seeds(seeds, settle=SETTLE, size='full', late_held=False):
    if 'template' not in _WORKER:
        _init_worker()
    results = []
    for seed in seeds:
        outcome, _ = run_scenario(seed, _WORKER['template'], settle=settle,
                                  size=size, late_held=late_held)
        result = outcome.as_dict()
        result['late_held'] = late_held
        results.append(result)
    return results


def _cleanup_worker():
    directory = _WORKER.pop('directory', None)
    template = _WORKER.pop('template', None)
    if template is not None:
        template.close()
    if directory:
        shutil.rmtree(directory, ignore_errors=True)


class Figures:
    """What many scenarios add up to."""

    def __init__(self, first=10):
        self.first = first
        self.scenarios = 0
        self.requests = 0
        self.instances = 0
        self.restarts = 0
        self.given_up = 0
        self.wall_s = 0.0
        self.slowest = (0.0, None)
        self.faults = collections.Counter({kind: 0 for kind in FAULTS})
        self.violations = collections.Counter(
            {name: 0 for name in INVARIANTS})
        self.observed = collections.Counter({kind: 0 for kind in OBSERVED})
        self.strategies = collections.Counter()
        self.intensities = collections.Counter()
        self.violating = []
        self.violating_count = 0

    def add(self, result):
        self.scenarios += 1
        self.requests += result['requests']
        self.instances += result['instances']
        self.restarts += result['restarts']
        self.given_up += bool(result['given_up'])
        self.wall_s += result['wall_s']
        if result['wall_s'] > self.slowest[0]:
            self.slowest = (result['wall_s'], result['seed'])
        self.faults.update(result['faults'])
        self.observed.update(result.get('observed', {}))
        self.strategies[result['strategy']] += 1
        self.intensities[result['intensity']] += 1
        violations = result['violations']
        if violations:
            self.violating_count += 1
            self.violations.update(name for name in
                                   {v[0] for v in violations})
            if len(self.violating) < self.first:
                self.violating.append({
                    'seed': result['seed'],
                    'strategy': result['strategy'],
                    'faults': {k: v for k, v in
                               sorted(result['faults'].items()) if v},
                    'violations': [list(v) for v in violations[:5]],
                    'more': max(0, len(violations) - 5),
                    'reproduce': 'python -m preemptible_sched.simulation.'
                                 'soak --scenarios 1 --seed %d --size %s '
                                 '%s--trace' % (
                                     result['seed'],
                                     result.get('size', 'full'),
                                     '--late-held-reports '
                                     if result.get('late_held') else '')})

    def as_dict(self):
        crashes = self.faults['crash_at_point'] + \
            self.faults['crash_between_events']
        return {
            'scenarios': self.scenarios,
            'requests': self.requests,
            'instances': self.instances,
            'strategies': dict(sorted(self.strategies.items())),
            'fault_intensities': dict(sorted(self.intensities.items())),
            'faults': dict(self.faults),
            # What the loop recorded of them (database events).
            'observed': dict(self.observed),
            'crashes': {'injected': crashes, 'restarts': self.restarts,
                        'given_up_scenarios': self.given_up},
            # Scenarios in which the invariant was broken at least once.
            'violations': dict(self.violations),
            'violating_scenarios': self.violating_count,
            'first_violations': self.violating,
            'scenario_wall_s': {
                'total': round(self.wall_s, 1),
                'mean': round(self.wall_s / max(1, self.scenarios), 3),
                'slowest': [round(self.slowest[0], 2), self.slowest[1]]},
        }


def soak(seeds, jobs=1, first=10, settle=SETTLE, progress=None,
         size='full', late_held=False):
    """Run every scenario of ``seeds``; returns the :class:`Figures`."""
    figures = Figures(first=first)
    seeds = list(seeds)
    chunk = 20
    chunks = [seeds[i:i + chunk] for i in range(0, len(seeds), chunk)]
    if jobs <= 1:
        try:
            for part in chunks:
                for result in _run_seeds(part, settle, size, late_held):
                    figures.add(result)
                if progress:
                    progress(figures)
        finally:
            _cleanup_worker()
        return figures
    context = multiprocessing.get_context('spawn')
    with concurrent.futures.ProcessPoolExecutor(
            max_workers=jobs, mp_context=context) as pool:
        # By module name: under "python -m" this module is __main__.
        run_seeds = importlib.import_module(__name__ if __name__ !=
                                            '__main__' else _MODULE)
        futures = [pool.submit(run_seeds._run_seeds, part, settle, size,
                               late_held)
                   for part in chunks]
        results = {}
        for index, future in enumerate(futures):
            results[index] = future.result()
            for result in results.pop(index):
                figures.add(result)
            if progress:
                progress(figures)
    return figures


def _checkpoint(path, figures, started):
    """The figures so far, in ``path`` (replaced whole)."""
    result = figures.as_dict()
    result['wall_s'] = round(time.monotonic() - started, 1)
    partial = path + '.partial'
    with open(partial, 'w') as stream:
        json.dump(result, stream, indent=1)
    os.replace(partial, path)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog='python -m preemptible_sched.simulation.soak',
        description='Run the scheduler loop on random clouds under '
        'injected faults and check its invariants; print the figures as '
        'JSON. Exit status 1 when an invariant was broken.')
    parser.add_argument('--scenarios', type=int, default=100,
                        help='how many scenarios (default 100)')
    parser.add_argument('--seed', type=int, default=0,
                        help='seed of the first scenario; the others '
                        'follow (default 0)')
    parser.add_argument('--jobs', type=int, default=1,
                        help='worker processes (default 1)')
    parser.add_argument('--first', type=int, default=10,
                        help='violating scenarios listed (default 10)')
    parser.add_argument('--settle', type=float, default=SETTLE,
                        help='virtual seconds left to settle after the '
                        'faults stop (default %g)' % SETTLE)
    parser.add_argument('--size', choices=sorted(SIZES), default='full',
                        help='scenario size (default full; the CI runs '
                        'small ones)')
    parser.add_argument('--late-held-reports', action='store_true',
                        help='also deliver the reports held while the '
                        'scheduler was down over a while after its restart '
                        '(fault report_held_late; off by default, '
                        'tox -e soak turns it on)')
    parser.add_argument('--trace', action='store_true',
                        help='with one scenario: print the scenario and '
                        'everything that happened to stderr')
    parser.add_argument('--minimize', type=int, default=0, metavar='N',
                        help='find the fault kinds the first N violating '
                        'scenarios need')
    parser.add_argument('--progress', action='store_true',
                        help='report progress on stderr')
    parser.add_argument('--checkpoint', metavar='FILE',
                        help='write the figures so far to FILE (JSON) '
                        'after every 20 scenarios, so that a long run '
                        'stopped early still has them')
    args = parser.parse_args(argv)
    if args.scenarios < 1 or args.jobs < 1:
        parser.error('--scenarios and --jobs must be positive')
    if not math.isfinite(args.settle) or args.settle < 0:
        parser.error('--settle must be a finite number >= 0')
    seeds = range(args.seed, args.seed + args.scenarios)
    if args.trace:
        if args.scenarios != 1:
            parser.error('--trace replays one scenario (--scenarios 1)')
        _init_worker()
        try:
            sys.stderr.write(json.dumps(
                generate(args.seed, args.size,
                         args.late_held_reports).describe(),
                indent=1) + '\n')
            outcome, lines = run_scenario(args.seed, _WORKER['template'],
                                          trace=True, settle=args.settle,
                                          size=args.size,
                                          late_held=args.late_held_reports)
            sys.stderr.write('\n'.join(lines) + '\n')
            figures = Figures(first=args.first)
            figures.add(dict(outcome.as_dict(),
                             late_held=args.late_held_reports))
        finally:
            _cleanup_worker()
    else:
        started = time.monotonic()

        def progress(figures):
            if args.progress:
                sys.stderr.write(
                    '%d/%d scenarios, %d violating, %.0f s\n' % (
                        figures.scenarios, args.scenarios,
                        figures.violating_count,
                        time.monotonic() - started))
            if args.checkpoint:
                _checkpoint(args.checkpoint, figures, started)
        figures = soak(seeds, jobs=args.jobs, first=args.first,
                       settle=args.settle, progress=progress,
                       size=args.size, late_held=args.late_held_reports)
    result = figures.as_dict()
    if args.minimize and figures.violating:
        _init_worker()
        try:
            for entry in figures.violating[:args.minimize]:
                needed, violations = minimize(
                    entry['seed'], _WORKER['template'], size=args.size,
                    late_held=args.late_held_reports)
                entry['needs_faults'] = needed
                entry['minimal_violations'] = [
                    list(dataclasses.astuple(v)) for v in violations[:5]]
        finally:
            _cleanup_worker()
    if not args.trace:
        result['wall_s'] = round(time.monotonic() - started, 1)
    json.dump(result, sys.stdout, indent=1)
    sys.stdout.write('\n')
    return 1 if figures.violating_count else 0


if __name__ == '__main__':
    sys.exit(main())
