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

"""Fault injection: the compute side and the message bus, misbehaving.

:class:`SoakDriver` is the fake blades, recording what they really did,
refusing and failing spawns, failing terminations, crashing instances and
losing the spawn and terminate messages. :class:`EventProxy` stands where
the message bus does, between the compute side and the loop: it delays
(hence reorders), duplicates and loses reports, and holds them while the
scheduler is down. Each fault is counted, per kind (:data:`FAULTS`), when
it actually happens.
"""

import collections
import random

from preemptible_sched import clock as clock_mod
from preemptible_sched import compute
from preemptible_sched.compute import fake
from preemptible_sched import objects
from tests.soak import scenarios


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


DROPPABLE = ('instance_started', 'instance_failed', 'instance_terminated',
             'termination_failed')
HOST_EVENTS = ('host_down', 'host_up', 'host_added')


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
        self.plan = plan or scenarios.FaultPlan()
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
                fake_host.capacity) if used > capacity + scenarios.EPSILON]
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
        self.plan = plan or scenarios.FaultPlan()
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
