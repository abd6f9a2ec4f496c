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

"""The ``rpc`` compute driver: hosts are remote ``preemptible-compute`` agents.

The scheduler service uses this driver when its hosts run elsewhere. It
keeps no instance state of its own: it forwards ``spawn`` and
``terminate`` to the agent of the host (casts, answered later by events)
and asks the agent for ``list_instances`` (a call, bounded by
``[service] rpc_timeout``).

The agents report on the scheduler's report topic (see
:class:`preemptible_sched.service.compute_reports.ComputeReportsEndpoint`,
which calls :meth:`RPCComputeDriver.register` and
:meth:`RPCComputeDriver.report`): their host, when they start, when the
scheduler asks and as a heartbeat; and every event of their fake driver.
Reports arrive on oslo.messaging's threads and are handed to the clock
(``call_soon``), so :class:`~preemptible_sched.compute.ComputeEvents` are
always called in the clock's thread, stamped with the scheduler's own clock
(the agents' clocks are not the scheduler's). Until
:meth:`RPCComputeDriver.start_delivery` the events are held back: a
scheduler that is starting first recovers its state, then hears what
happened meanwhile.

A host the scheduler knew before (from its database) but whose agent has
not registered yet is reported down. An agent that registers with a new
``boot_id`` has restarted with an empty blade: the host is reported down
(its instances are lost) and up again.

Hosts, instances and instance reports cross the wire in the format of
:mod:`preemptible_sched.wire`.
"""

import dataclasses
import logging
import threading

import oslo_messaging

from preemptible_sched import clock as clock_mod
from preemptible_sched import compute
from preemptible_sched import exception
from preemptible_sched import objects
from preemptible_sched import wire

LOG = logging.getLogger(__name__)

#: Events an agent may report (see :meth:`RPCComputeDriver.report`).
#: Seconds between two looks at :meth:`RPCComputeDriver.stop` while a call
#: to an agent waits for its answer.
STOP_POLL = 0.2

_REPORTED_EVENTS = ('instance_started', 'instance_ended', 'instance_failed',
                    'instance_terminated', 'termination_failed',
                    'host_down', 'host_up')


class ComputeUnreachable(exception.PreemptibleSchedException):
    """An agent did not answer a call in time."""


# -- the driver --------------------------------------------------------------

@dataclasses.dataclass
class _Agent:
    spec: objects.Host
    boot_id: str = None   # None: known from the database, not registered
    up: bool = False
    # What the loop was last told: None (nothing), else whether it is up.
    told: bool = None
    # Clock time of its last registration (heartbeat), and whether it has
    # registered within the heartbeat timeout since.
    last_seen: float = None
    reachable: bool = True

    @property
    def available(self):
        """Whether the loop may use the host: up and reachable."""
        return self.up and self.reachable


class RPCComputeDriver(compute.ComputeDriver):
    """Hosts served by remote agents; see the module docstring.

    ``compute_api`` is a :class:`preemptible_sched.service.rpcapi.ComputeAPI`
    (or anything with its methods); ``known_hosts`` the
    :class:`objects.Host` the scheduler's database holds, reported down
    until their agent registers. A host the scheduler has not heard of
    yet is reported with ``events.host_added`` (in the clock's thread).
    """

    name = 'rpc'

    def __init__(self, clock, events=None, compute_api=None, known_hosts=(),
                 heartbeat_timeout=None):
        super().__init__(clock, events)
        #: clock seconds without a registration after which an agent is
        #: unreachable (None: never)
        self.heartbeat_timeout = heartbeat_timeout
        if compute_api is None:
            raise ValueError('the rpc compute driver needs a compute_api: '
                             'it is built by the scheduler service')
        self.compute_api = compute_api
        self._lock = threading.Lock()
        self._registered = threading.Condition(self._lock)
        self._agents = {host.name: _Agent(spec=host) for host in known_hosts}
        self._held = []
        self._delivering = False
        # Set by stop() (a signal handler too: no lock taken there).
        self._stopping = False

    # -- the driver interface ------------------------------------------------

    def host_specs(self):
        """Registered hosts, and known ones not registered yet (down).

        What this returns counts as told to the loop: changes after it are
        reported as events once delivery starts.
        """
        with self._lock:
            for agent in self._agents.values():
                agent.told = agent.available
            return [dataclasses.replace(agent.spec, up=agent.available)
                    for _, agent in sorted(self._agents.items())]

    def list_instances(self, host):
        """Ask the agent of ``host``; raises :class:`ComputeUnreachable`.

        Start times are moved from the agent's clock to ours.
        """
        return self._ask(host, 'instances')

    def finished_instances(self, host):
        """Ask the agent of ``host`` (the same call as
        :meth:`list_instances`); raises :class:`ComputeUnreachable`.
        """
        return self._ask(host, 'finished')

    def _ask(self, host, part):
        self._agent(host)
        try:
            answer = self._call(self.compute_api.list_instances, host,
                                finished=part == 'finished')
        except oslo_messaging.MessagingTimeout as error:
            raise ComputeUnreachable(
                'the agent of host %s did not answer list_instances: %s'
                % (host, error)) from error
        except exception.InvalidInput as error:
            # A malformed answer tells nothing: as if it had not answered.
            raise ComputeUnreachable(
                'the agent of host %s answered list_instances with a '
                'malformed payload: %s' % (host, error)) from error
        offset = self.clock.now() - answer['now']
        reports = []
        for data in answer.get(part, ()):
            report = wire.report_from_dict(data)
            if report.started_at is not None:
                report.started_at += offset
            if report.ended_at is not None:
                report.ended_at += offset
            reports.append(report)
        return reports

    def _call(self, function, *args, **kwargs):
        """``function(*args, **kwargs)`` in a thread of its own, waited for
        until it returns or :meth:`stop` (then :class:`exception.Stopping`,
        within :data:`STOP_POLL` seconds): a SIGTERM does not wait for the
        RPC timeout of an agent that no longer answers.
        """
        outcome = {}
        done = threading.Event()

        def call():
            try:
                outcome['answer'] = function(*args, **kwargs)
            except Exception as error:  # noqa: B902 re-raised by the waiter
                outcome['error'] = error
            finally:
                done.set()

        if self._stopping:
            raise exception.Stopping()
        threading.Thread(target=call, daemon=True,
                         name='compute-call').start()
        while not done.wait(STOP_POLL):
            if self._stopping:
                raise exception.Stopping()
        if 'error' in outcome:
            raise outcome['error']
        return outcome['answer']

    def stop(self):
        """Cut short the calls waiting for an agent (the service stops).

        Safe in a signal handler: it only sets a flag the waits poll.
        """
        self._stopping = True

    def spawn(self, host, instance, image=None, duration=None):
        refusal = self._refusal(host)
        if refusal:
            self._deliver_soon('instance_failed', (host, instance.id),
                               (refusal,))
            return
        with self._lock:
            agent_boot = self._agents[host].boot_id
        self.compute_api.spawn(host, wire.instance_to_dict(instance),
                               image=image, duration=duration,
                               agent_boot=agent_boot)

    def terminate(self, host, instance_id):
        refusal = self._refusal(host)
        if refusal:
            self._deliver_soon('termination_failed', (host, instance_id),
                               (refusal,))
            return
        self.compute_api.terminate(host, instance_id)

    # -- start-up ------------------------------------------------------------

    def announce(self):
        """Ask every agent listening to register now."""
        self.compute_api.announce()

    def wait_for_hosts(self, timeout):
        """Wait until every known host has registered, at most ``timeout``
        wall-clock seconds; returns the names of those that did not.
        """
        with self._registered:
            missing = self._unregistered()
            if missing:
                LOG.info('Waiting up to %g s for the agents of %s to '
                         'register', timeout, ', '.join(missing))
            self._registered.wait_for(
                lambda: not self._unregistered(), timeout=timeout)
            return self._unregistered()

    def start_delivery(self):
        """Deliver the held events, then every event as it arrives.

        Call it from the clock's thread, once the loop has started. Hosts
        that registered, went up or went down after the loop read
        :meth:`host_specs` are reported now.
        """
        with self._lock:
            self._delivering = True
            held, self._held = self._held, []
            for event, head, tail, boot in held:
                self._deliver_soon(event, head, tail, boot)
            for _, agent in sorted(self._agents.items()):
                self._tell(agent)
        if self.heartbeat_timeout is not None:
            self.clock.call_later(self.heartbeat_timeout / 2,
                                  self.check_heartbeats)

    def check_heartbeats(self):
        """Take as unreachable every registered agent silent for longer
        than the heartbeat timeout; runs every half timeout.
        """
        now = self.clock.now()
        with self._lock:
            for _, agent in sorted(self._agents.items()):
                if agent.boot_id is None or not agent.reachable or \
                        now - agent.last_seen <= self.heartbeat_timeout:
                    continue
                LOG.warning('The agent of host %s missed its heartbeats '
                            '(last seen %.0f s ago): host unreachable',
                            agent.spec.name, now - agent.last_seen)
                agent.reachable = False
                self._tell(agent)
        self.clock.call_later(self.heartbeat_timeout / 2,
                              self.check_heartbeats)

    # -- what the agents report (any thread) ---------------------------------

    def register(self, host, boot_id):
        """The agent of ``host`` (an :class:`objects.Host`) is alive."""
        with self._registered:
            agent = self._agents.setdefault(host.name, _Agent(spec=host))
            if agent.boot_id not in (None, boot_id) and agent.told:
                LOG.warning('The agent of host %s restarted: its instances '
                            'are gone', host.name)
                self._emit('host_down', (host.name,), ())
                agent.told = False
            agent.spec = host
            agent.boot_id = boot_id
            agent.up = host.up
            agent.last_seen = self.clock.now()
            agent.reachable = True
            self._tell(agent)
            self._registered.notify_all()

    def report(self, event, host, *args, boot=None):
        """An event of the agent of ``host``: ``event`` is the name of a
        :class:`~preemptible_sched.compute.ComputeEvents` method, ``args``
        its arguments after ``host`` and without ``at``; ``boot`` the boot
        token of the spawn it is about, if the agent said.
        """
        if event not in _REPORTED_EVENTS:
            raise ValueError('unknown compute event %r' % event)
        with self._lock:
            if event in ('host_down', 'host_up'):
                agent = self._agents.get(host)
                if agent is not None:
                    agent.up = event == 'host_up'
                    self._tell(agent)
                return
            self._emit(event, (host,) + args[:1], args[1:], boot)

    # -- internals -----------------------------------------------------------

    def _unregistered(self):
        return sorted(name for name, agent in self._agents.items()
                      if agent.boot_id is None)

    def _agent(self, host):
        with self._lock:
            try:
                return self._agents[host]
            except KeyError:
                raise LookupError('no agent registered for host %s'
                                  % host) from None

    def _refusal(self, host):
        with self._lock:
            agent = self._agents.get(host)
            if agent is None:
                return 'no agent registered for host %s' % host
            if not agent.available:
                return 'host %s is %s' % (
                    host, 'down' if not agent.up else 'unreachable')
        return None

    def _emit(self, event, head, tail, boot=None):
        """Deliver an event, or hold it until delivery starts (lock held)."""
        if self._delivering:
            self._deliver_soon(event, head, tail, boot)
        else:
            self._held.append((event, head, tail, boot))

    def _tell(self, agent):
        """Report what the loop does not know of ``agent`` (lock held)."""
        available = agent.available
        if not self._delivering or agent.told == available:
            return
        if agent.told is None:
            self._deliver_soon('host_added', (agent.spec,), ())
        elif available:
            self._deliver_soon('host_up', (agent.spec.name,), ())
        else:
            self._deliver_soon('host_down' if not agent.up
                               else 'host_unreachable',
                               (agent.spec.name,), ())
        agent.told = available

    def _deliver_soon(self, event, head, tail, boot=None):
        self.clock.call_soon(self._deliver, event, head, tail, boot,
                             priority=clock_mod.URGENT)

    def _deliver(self, event, head, tail, boot=None):
        at = self.clock.now()
        if boot is None:
            getattr(self.events, event)(*head, at, *tail)
        else:
            getattr(self.events, event)(*head, at, *tail, boot=boot)
