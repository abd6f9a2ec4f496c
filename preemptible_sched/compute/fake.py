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

"""The ``fake`` compute driver: the emulated IBM HS21 blade testbed.

It owns hosts and instances in memory and plays their life on the clock it
is given (virtual time in the simulator and the tests, real time, possibly
scaled, in the ``preemptible-compute`` agent). Nothing here reads the wall
clock, and every random draw comes from generators seeded at construction,
so the same seed and the same calls give the same events at the same
times.

What it emulates:

* **Blades**: ``[fake_driver] host_count`` identical blades ``host-A``,
  ``host-B``, ... of ``vcpus`` / ``memory_mb`` / ``disk_gb``, unless it is
  given its hosts (a compute agent owns one).
* **Boot**: an instance is ``building`` for a boot time drawn from
  ``boot_times_hot`` when it has run on that host before (or, with
  ``hot_start = image``, when the host has run its image), else from
  ``boot_times_cold``, then ``running`` (``instance_started``). With a
  ``duration`` it ends on its own that long after it started
  (``instance_ended``).
* **Host speed**: with ``[fake_driver] reference_cpu_mhz``, a duration is
  the run time at that speed, and a host of known ``cpu_mhz`` runs it in
  ``duration * reference / cpu_mhz`` seconds (rounded down to whole
  seconds with ``integer_durations``); see
  :func:`.fake_hosts.scaled_duration`.
* **No overcommit**: a spawn the host cannot hold, counting every instance
  it has (building or running, full sizes), fails with the reason. The
  capacity is the one the scheduler is promised, ``(total - reserved) *
  allocation ratio`` with the ``[compute]`` defaults for what the host
  leaves unset; with the defaults that is the bare blade. A scheduler that
  overcommits is caught here rather than silently tolerated.
* **Termination**: ``termination_seconds`` after the request the instance
  is gone (``instance_terminated``). Terminating an absent instance is
  answered at once, with how it finished if the host remembers it, else
  ``instance_terminated``; every call to :meth:`FakeDriver.terminate` gets
  exactly one answer, except that a host going down answers everything
  pending on it with ``host_down``.
* **Memory of finished instances**: each host remembers the last
  :data:`.fake_hosts.FINISHED_KEPT` instances that ended, failed or were
  terminated there (:meth:`FakeDriver.finished_instances`), as a real
  compute host keeps its deleted instances' records; a host that goes
  down forgets them.
* **Failures on demand** for tests and chaos runs: :meth:`fail_next_spawns`,
  :meth:`fail_next_terminations`, :meth:`crash_instance`,
  :meth:`host_down` and :meth:`host_up` (see :mod:`.fake_faults`).
* **CPU utilisation** per instance, from the model chosen by
  ``[fake_driver] utilization_model`` (see :mod:`.utilization`).

Events are always delivered through the clock (``URGENT`` priority, as state
changes), never from inside the call that caused them. The driver is not
thread-safe: call it from the clock's thread (``clock.call_soon`` from
elsewhere).
"""

import dataclasses
import functools
import random

from preemptible_sched import clock as clock_mod
from preemptible_sched import compute
from preemptible_sched.compute import fake_config
from preemptible_sched.compute import fake_faults
from preemptible_sched.compute import fake_hosts
from preemptible_sched.conf import CONF
from preemptible_sched import objects

DEFAULT_IMAGE = 'default'


class FakeDriver(fake_faults.FailureInjection,
                 compute.ComputeDriver):
    """Emulated blades; see the module docstring for what it emulates.

    ``hosts`` (a list of :class:`objects.Host`) replaces the configured
    blades; ``seed`` replaces ``[fake_driver] random_seed``. Options are
    read once, here: a bad boot-time list or utilisation trace raises
    :class:`~preemptible_sched.exception.InvalidInput`.
    """

    name = 'fake'

    def __init__(self, clock, events=None, hosts=None, seed=None):
        super().__init__(clock, events)
        conf = CONF.fake_driver
        if hosts is None:
            hosts = fake_config.default_hosts()
        self._hosts = {}
        for host in hosts:
            if host.name in self._hosts:
                raise ValueError('host %s given twice' % host.name)
            self._hosts[host.name] = fake_hosts.FakeHost(host)
        seed = conf.random_seed if seed is None else seed
        # Two generators, so the utilisation model never shifts boot times.
        self._boot_rng = random.Random(seed)
        self._utilization_rng = random.Random('utilization:%s' % (seed,))
        self.boot_times_hot = fake_config.boot_times('boot_times_hot')
        self.boot_times_cold = fake_config.boot_times('boot_times_cold')
        self.hot_by_image = conf.hot_start == 'image'
        self.termination_seconds = conf.termination_seconds
        self.reference_cpu_mhz = conf.reference_cpu_mhz
        self.integer_durations = conf.integer_durations
        self.utilization = fake_config.utilization_model()
        self._fail_spawns = 0
        self._fail_terminations = 0

    # -- the driver interface ----------------------------------------------

    def host_specs(self):
        return [dataclasses.replace(host.spec, up=host.up)
                for host in self._hosts.values()]

    def list_instances(self, host):
        now = self.clock.now()
        reports = []
        for fake in self._host(host).instances.values():
            share = 0.0
            if fake.state == 'running':
                share = fake.track.at(now - fake.started_at)
            reports.append(objects.InstanceReport(
                id=fake.instance.id, state=fake.state,
                started_at=fake.started_at, cpu_utilization=share,
                boot=fake.instance.boot))
        return reports

    def finished_instances(self, host):
        return [dataclasses.replace(report) for report
                in self._host(host).finished.values()]

    def host_utilization(self, host):
        """``(cpu %, memory %)`` of ``host`` now, of its physical size.

        CPU: the running instances' utilisation times their vCPUs, over
        the host's cores. Memory: the instances' memory (a booting VM has
        its memory already), over the host's; Bitbrains samples carry no
        memory use, so a VM is taken to touch all of its memory.
        """
        fake_host = self._host(host)
        now = self.clock.now()
        cores = 0.0
        memory = 0.0
        for fake in fake_host.instances.values():
            memory += fake.instance.resources.memory_mb
            if fake.state == 'running':
                cores += (fake.track.at(now - fake.started_at) *
                          fake.instance.resources.vcpus)
        spec = fake_host.spec
        return (100.0 * cores / spec.vcpus if spec.vcpus > 0 else None,
                100.0 * memory / spec.memory_mb if spec.memory_mb > 0
                else None)

    def work_done(self, host, seconds):
        """The work ``seconds`` of running on ``host`` do, in seconds at
        the reference speed (:func:`reference_seconds`): what a requeued
        instance's duration is less of. An unknown host: ``seconds``.
        """
        fake_host = self._hosts.get(host)
        return fake_hosts.reference_seconds(
            seconds, fake_host.spec.cpu_mhz if fake_host else None,
            self.reference_cpu_mhz)

    def spawn(self, host, instance, image=None, duration=None):
        """Boot ``instance`` on ``host``; see :class:`ComputeDriver`.

        A spawn of the same boot of an instance (its ``boot`` token) that
        the host runs or remembers finishing is a duplicate message and is
        ignored. Fails (``instance_failed``, at once) when the host is
        unknown or down, when an instance with the same id is on any host
        of this driver, or when the host cannot hold it. An injected failure
        (:meth:`fail_next_spawns`) lets the instance build and fails it at
        the end of its boot time.
        """
        image = DEFAULT_IMAGE if image is None else image
        if self._handled(host, instance):
            return
        reason = self._spawn_refusal(host, instance)
        if reason is not None:
            self._report('instance_failed', host, instance.id,
                         reason, **fake_hosts.boot_of(instance))
            return
        fake_host = self._hosts[host]
        duration = fake_hosts.scaled_duration(
            duration, fake_host.spec.cpu_mhz, self.reference_cpu_mhz,
            self.integer_durations)
        hot = (image in fake_host.images if self.hot_by_image
               else instance.id in fake_host.started)
        boot_time = self._boot_rng.choice(self.boot_times_hot if hot
                                          else self.boot_times_cold)
        fake = fake_hosts.FakeInstance(instance=instance, image=image)
        fake_host.instances[instance.id] = fake
        fake_host.finished.pop(instance.id, None)      # a new boot
        if self._take_injected(fake_host, 'fail_spawns'):
            fake.boot = self._later(boot_time, self._boot_failed, fake_host,
                                    fake)
        else:
            fake.boot = self._later(boot_time, self._booted, fake_host, fake,
                                    duration)

    def terminate(self, host, instance_id):
        """Terminate ``instance_id``; see :class:`ComputeDriver`.

        An absent instance is answered at once: with how and when it
        finished (``instance_ended``, ``instance_failed`` or
        ``instance_terminated`` of its boot) if the host remembers it, else
        ``instance_terminated`` (now).
        An
        unknown or down host is answered ``termination_failed`` at once:
        the compute side cannot confirm anything (a host that went down has
        already reported ``host_down``, which loses its instances). A
        second call for an instance already being terminated joins the
        first and is answered with it. An injected failure
        (:meth:`fail_next_terminations`) answers ``termination_failed``
        after ``termination_seconds`` and leaves the instance as it was.
        """
        if host not in self._hosts:
            self._report('termination_failed', host, instance_id,
                         'no host %s on this driver' % host)
            return
        fake_host = self._hosts[host]
        if not fake_host.up:
            self._report('termination_failed', host, instance_id,
                         'host %s is down' % host)
            return
        fake = fake_host.instances.get(instance_id)
        if fake is None:
            self._answer_absent(fake_host, instance_id)
            return
        if self._take_injected(fake_host, 'fail_terminations'):
            self._later(self.termination_seconds, self._report_boot,
                        'termination_failed', host, instance_id,
                        'injected termination failure', fake.instance)
            return
        fake.terminate_calls += 1
        if fake.termination is None:
            fake.cancel_lifecycle()
            fake.termination = self._later(self.termination_seconds,
                                           self._terminated, fake_host, fake)

    # -- what the host knows -------------------------------------------------

    def images(self, host):
        """Images instances have started from on ``host`` (a new set)."""
        return set(self._host(host).images)

    def used(self, host):
        """Resources held on ``host``: every instance present, full size."""
        return self._host(host).used()

    def capacity(self, host):
        """What ``host`` can hold; spawns beyond it fail."""
        return self._host(host).capacity

    def is_up(self, host):
        return self._host(host).up

    # -- internals (the failure injection: fake_faults.py) ------------------

    def _host(self, host):
        try:
            return self._hosts[host]
        except KeyError:
            raise LookupError('no host %s on this fake driver (it owns %s)'
                              % (host, ', '.join(self._hosts))) from None

    def _handled(self, host, instance):
        """Whether this spawn (same instance, same boot) was handled
        already: a message delivered twice (at-least-once messaging) is
        answered once, neither refused as a duplicate (which would fail
        the boot that runs) nor booted again after it finished.
        """
        if instance.boot is None or host not in self._hosts:
            return False
        fake_host = self._hosts[host]
        present = fake_host.instances.get(instance.id)
        if present is not None:
            return present.instance.boot == instance.boot
        record = fake_host.finished.get(instance.id)
        return record is not None and record.boot == instance.boot

    def _spawn_refusal(self, host, instance):
        if host not in self._hosts:
            return 'no host %s on this driver' % host
        fake_host = self._hosts[host]
        if not fake_host.up:
            return 'host %s is down' % host
        for other in self._hosts.values():
            if instance.id in other.instances:
                return 'instance %s already exists on %s' % (
                    instance.id, other.spec.name)
        short = fake_host.shortage(instance.resources)
        if short:
            free = fake_host.capacity - fake_host.used()
            return 'host %s cannot hold %s: not enough %s (free %s)' % (
                host, tuple(instance.resources), ', '.join(short),
                tuple(free))
        return None

    def _answer_absent(self, fake_host, instance_id):
        host = fake_host.spec.name
        record = fake_host.finished.get(instance_id)
        if record is None:
            self._report('instance_terminated', host, instance_id)
        elif record.state == 'ended':
            self._report('instance_ended', host, instance_id,
                         boot=record.boot, at=record.ended_at)
        elif record.state == 'failed':
            self._report('instance_failed', host, instance_id,
                         record.reason or 'failed', boot=record.boot,
                         at=record.ended_at)
        else:
            self._report('instance_terminated', host, instance_id,
                         boot=record.boot, at=record.ended_at)

    def _take_injected(self, fake_host, counter):
        """Use up one injected failure, the host's own first."""
        if getattr(fake_host, counter) > 0:
            setattr(fake_host, counter, getattr(fake_host, counter) - 1)
            return True
        if getattr(self, '_' + counter) > 0:
            setattr(self, '_' + counter, getattr(self, '_' + counter) - 1)
            return True
        return False

    def _later(self, delay, callback, *args):
        return self.clock.call_later(delay, callback, *args,
                                     priority=clock_mod.URGENT)

    def _report(self, event, host, *args, boot=None, at=None):
        """Deliver ``events.<event>(host, ..., at, ...)`` soon (at now)."""
        self._later(0.0, functools.partial(self._report_now, boot=boot,
                                           at=at), event, host, *args)

    def _report_boot(self, event, host, instance_id, reason, instance):
        self._report_now(event, host, instance_id, reason,
                         boot=instance.boot)

    def _report_now(self, event, host, instance_id=None, *rest, boot=None,
                    at=None):
        # Looked up now: the scheduler loop may replace ``events``.
        event = getattr(self.events, event)
        at = self.clock.now() if at is None else at
        if instance_id is None:
            event(host, at)
        elif boot is None:
            event(host, instance_id, at, *rest)
        else:
            event(host, instance_id, at, *rest, boot=boot)

    def _booted(self, fake_host, fake, duration):
        fake.boot = None
        fake.state = 'running'
        fake.started_at = self.clock.now()
        fake.track = self.utilization.start(self._utilization_rng)
        fake_host.images.add(fake.image)
        fake_host.started.add(fake.instance.id)
        if duration is not None:
            fake.end = self._later(duration, self._ended, fake_host, fake)
        self.events.instance_started(fake_host.spec.name, fake.instance.id,
                                     fake.started_at,
                                     **fake_hosts.boot_of(fake.instance))

    def _boot_failed(self, fake_host, fake):
        fake.boot = None
        del fake_host.instances[fake.instance.id]
        fake_host.remember(fake, 'failed', self.clock.now(),
                           'injected boot failure')
        self.events.instance_failed(fake_host.spec.name, fake.instance.id,
                                    self.clock.now(), 'injected boot failure',
                                    **fake_hosts.boot_of(fake.instance))

    def _ended(self, fake_host, fake):
        fake.end = None
        del fake_host.instances[fake.instance.id]
        fake_host.remember(fake, 'ended', self.clock.now())
        self.events.instance_ended(fake_host.spec.name, fake.instance.id,
                                   self.clock.now(),
                                   **fake_hosts.boot_of(fake.instance))

    def _terminated(self, fake_host, fake):
        fake.termination = None
        if fake_host.instances.get(fake.instance.id) is fake:
            del fake_host.instances[fake.instance.id]
            fake_host.remember(fake, 'terminated', self.clock.now())
        for _ in range(fake.terminate_calls):
            self.events.instance_terminated(
                fake_host.spec.name, fake.instance.id, self.clock.now(),
                **fake_hosts.boot_of(fake.instance))
