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


"""What the fake compute driver keeps of a blade and of its instances.

A blade (:class:`FakeHost`) holds the instances it has, building or
running, at their full sizes, and refuses a spawn it cannot hold: its
capacity is the one the scheduler is promised, ``(total - reserved) *
allocation ratio``. It remembers the last
:data:`FINISHED_KEPT` instances that finished there, and runs a duration
at its speed (:func:`scaled_duration`).
"""

import collections
import dataclasses
import math

from preemptible_sched import clock as clock_mod
from preemptible_sched.hosts import table as host_table
from preemptible_sched import objects

# Tolerance of the capacity check, for sums of fractional vCPUs.
_EPSILON = 1e-9

#: Finished instances a host remembers (the oldest are forgotten first).
FINISHED_KEPT = 1024


def boot_of(instance):
    """``{'boot': ...}`` for an instance the scheduler spawned (reports
    name the boot they are about), else nothing.
    """
    return {} if instance.boot is None else {'boot': instance.boot}


def scaled_duration(duration, cpu_mhz, reference_mhz, integer=False):
    """How long a run of ``duration`` seconds at ``reference_mhz`` takes
    on a core of ``cpu_mhz`` (either unknown: ``duration`` as it is).

    With ``integer``, whole seconds rounded down, as the SC18 simulator
    counts them: ``floor(duration * reference_mhz / cpu_mhz)``. The
    product is taken before the division so that whole numbers stay
    exact (11 s at 4000 MHz on 4100 MHz: 44000 / 4100 -> 10 s).
    """
    if duration is None or not cpu_mhz or not reference_mhz:
        return duration
    scaled = duration * reference_mhz / cpu_mhz
    return float(math.floor(scaled)) if integer else scaled


def reference_seconds(seconds, cpu_mhz, reference_mhz):
    """The work ``seconds`` of running on a core of ``cpu_mhz`` do, in
    seconds at ``reference_mhz`` (the inverse of :func:`scaled_duration`;
    either speed unknown: ``seconds`` as they are).
    """
    if not cpu_mhz or not reference_mhz:
        return seconds
    return seconds * cpu_mhz / reference_mhz


def host_capacity(host):
    """What ``host`` (an :class:`objects.Host`) can hold."""
    return objects.Resources(*host_table.capacity_of(host))


@dataclasses.dataclass(eq=False)
class FakeInstance:
    """An instance on a fake blade, with its pending boot, end and
    termination.
    """

    instance: objects.Instance
    image: str
    state: str = 'building'
    started_at: float = None
    track: object = None
    boot: clock_mod.Handle = None
    end: clock_mod.Handle = None
    termination: clock_mod.Handle = None
    # Terminate calls waiting for this instance's termination.
    terminate_calls: int = 0

    def cancel_lifecycle(self):
        for handle in (self.boot, self.end):
            if handle is not None:
                handle.cancel()
        self.boot = self.end = None

    def cancel_all(self):
        self.cancel_lifecycle()
        if self.termination is not None:
            self.termination.cancel()
            self.termination = None


class FakeHost:
    """A fake blade: its instances and what it remembers of them."""

    def __init__(self, spec):
        self.spec = spec
        self.capacity = host_capacity(spec)
        self.up = True
        self.instances = {}
        #: id -> InstanceReport of the instances that finished here
        self.finished = collections.OrderedDict()
        self.images = set()
        #: ids of the instances that have started here (hot restarts)
        self.started = set()
        self.fail_spawns = 0
        self.fail_terminations = 0

    def remember(self, fake, state, at, reason=None):
        """Record how ``fake`` finished."""
        self.finished.pop(fake.instance.id, None)
        self.finished[fake.instance.id] = objects.InstanceReport(
            id=fake.instance.id, state=state, started_at=fake.started_at,
            boot=fake.instance.boot, ended_at=at, reason=reason)
        while len(self.finished) > FINISHED_KEPT:
            self.finished.popitem(last=False)

    def used(self):
        # Three running sums (in the order Resources.__add__ would add):
        # this runs for every spawn, over every instance of the host.
        vcpus = memory_mb = disk_gb = 0.0
        for fake in self.instances.values():
            resources = fake.instance.resources
            vcpus += resources.vcpus
            memory_mb += resources.memory_mb
            disk_gb += resources.disk_gb
        return objects.Resources(vcpus, memory_mb, disk_gb)

    def shortage(self, resources):
        """Names of the resources ``resources`` does not fit in, or []."""
        free = self.capacity - self.used()
        return [name for name, need, have in zip(resources._fields,
                                                 resources, free)
                if need > have + _EPSILON]
