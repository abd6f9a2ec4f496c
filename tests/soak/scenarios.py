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

"""The soak's scenarios: each drawn from its seed alone.

A small cloud of fake blades (2 to 6 hosts of random sizes), a random
workload (normal and preemptible requests, some for two or three
instances, some with durations, some deleted mid-way), a preemption
strategy (``dual_state``, ``retry``, ``qos`` or ``priority``), a few
options, and a :class:`FaultPlan`: how often each fault strikes.
"""

import dataclasses
import random
import typing

from oslo_config import cfg

from preemptible_sched.compute import fake_config
from preemptible_sched.conf import CONF
from preemptible_sched import objects


#: The preemption strategies the scenarios are spread over.
STRATEGIES = ('dual_state', 'retry', 'qos', 'priority')
#: Strategies that follow service classes (the preemptible flag plays no
#: part; victims are requeued by default).
CLASS_BASED = ('qos', 'priority')


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


#: Tolerance of the resource sums (floating point).
EPSILON = 1e-6


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
    #: only; see :data:`tests.soak.faults.EXTRA_FAULTS`)
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
        hosts.append(objects.Host(name=fake_config.blade_name(index),
                                  vcpus=vcpus, memory_mb=vcpus * 2048,
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
