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
:class:`ComputeReportsEndpoint`): their host, when they start, when the
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

This module also defines the wire format of hosts, instances and instance
reports: plain JSON-serialisable dicts.
"""

import dataclasses
import logging
import threading

import oslo_messaging

from preemptible_sched import clock as clock_mod
from preemptible_sched import compute
from preemptible_sched import exception
from preemptible_sched import objects

LOG = logging.getLogger(__name__)

#: Version of the RPC interfaces of the agents and of their reports.
RPC_API_VERSION = '1.0'


class ComputeUnreachable(exception.PreemptibleSchedException):
    """An agent did not answer a call in time."""


# -- the wire format ---------------------------------------------------------

def _known_fields(cls, data):
    names = {field.name for field in dataclasses.fields(cls)}
    return {key: value for key, value in data.items() if key in names}


def host_to_dict(host):
    """:class:`objects.Host` as a JSON-serialisable dict."""
    data = dataclasses.asdict(host)
    data['attributes'] = dict(host.attributes)
    data['metrics'] = dict(host.metrics)
    return data


def host_from_dict(data):
    """The :class:`objects.Host` of :func:`host_to_dict`.

    Fields this version does not know are ignored, so an agent newer than
    the scheduler can still register.
    """
    fields = _known_fields(objects.Host, data)
    fields['aggregates'] = tuple(
        objects.Aggregate(**_known_fields(objects.Aggregate, aggregate))
        for aggregate in fields.get('aggregates') or ())
    return objects.Host(**fields)


def instance_to_dict(instance):
    """:class:`objects.Instance` as a JSON-serialisable dict."""
    data = dataclasses.asdict(instance)
    data['resources'] = list(instance.resources)
    return data


def instance_from_dict(data):
    fields = _known_fields(objects.Instance, data)
    fields['resources'] = objects.Resources(*fields['resources'])
    return objects.Instance(**fields)


def report_to_dict(report):
    return dataclasses.asdict(report)


def report_from_dict(data):
    return compute.InstanceReport(
        **_known_fields(compute.InstanceReport, data))


# -- the driver --------------------------------------------------------------

@dataclasses.dataclass
class _Agent:
    spec: objects.Host
    boot_id: str = None   # None: known from the database, not registered
    up: bool = False
    # What the loop was last told: None (nothing), else whether it is up.
    told: bool = None


class RPCComputeDriver(compute.ComputeDriver):
    """Hosts served by remote agents; see the module docstring.

    ``compute_api`` is a :class:`preemptible_sched.service.rpcapi.ComputeAPI`
    (or anything with its methods); ``known_hosts`` the
    :class:`objects.Host` the scheduler's database holds, reported down
    until their agent registers. A host the scheduler has not heard of
    yet is reported with ``events.host_added`` (in the clock's thread).
    """

    def __init__(self, clock, events=None, compute_api=None, known_hosts=()):
        super().__init__(clock, events)
        if compute_api is None:
            raise ValueError('the rpc compute driver needs a compute_api: '
                             'it is built by the scheduler service')
        self.compute_api = compute_api
        self._lock = threading.Lock()
        self._registered = threading.Condition(self._lock)
        self._agents = {host.name: _Agent(spec=host) for host in known_hosts}
        self._held = []
        self._delivering = False

    # -- the driver interface ------------------------------------------------

    def host_specs(self):
        """Registered hosts, and known ones not registered yet (down).

        What this returns counts as told to the loop: changes after it are
        reported as events once delivery starts.
        """
        with self._lock:
            for agent in self._agents.values():
                agent.told = agent.up
            return [dataclasses.replace(agent.spec, up=agent.up)
                    for _, agent in sorted(self._agents.items())]

    def list_instances(self, host):
        """Ask the agent of ``host``; raises :class:`ComputeUnreachable`.

        Start times are moved from the agent's clock to ours.
        """
        self._agent(host)
        try:
            answer = self.compute_api.list_instances(host)
        except oslo_messaging.MessagingTimeout as error:
            raise ComputeUnreachable(
                'the agent of host %s did not answer list_instances: %s'
                % (host, error)) from error
        offset = self.clock.now() - answer['now']
        reports = []
        for data in answer['instances']:
            report = report_from_dict(data)
            if report.started_at is not None:
                report.started_at += offset
            reports.append(report)
        return reports

    def spawn(self, host, instance, image=None, duration=None):
        refusal = self._refusal(host)
        if refusal:
            self._deliver_soon('instance_failed', (host, instance.id),
                               (refusal,))
            return
        self.compute_api.spawn(host, instance_to_dict(instance), image=image,
                               duration=duration)

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
            for event, head, tail in held:
                self._deliver_soon(event, head, tail)
            for _, agent in sorted(self._agents.items()):
                self._tell(agent)

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
            self._tell(agent)
            self._registered.notify_all()

    def report(self, event, host, *args):
        """An event of the agent of ``host``: ``event`` is the name of a
        :class:`~preemptible_sched.compute.ComputeEvents` method, ``args``
        its arguments after ``host`` and without ``at``.
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
            self._emit(event, (host,) + args[:1], args[1:])

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
            if not agent.up:
                return 'host %s is down' % host
        return None

    def _emit(self, event, head, tail):
        """Deliver an event, or hold it until delivery starts (lock held)."""
        if self._delivering:
            self._deliver_soon(event, head, tail)
        else:
            self._held.append((event, head, tail))

    def _tell(self, agent):
        """Report what the loop does not know of ``agent`` (lock held)."""
        if not self._delivering or agent.told == agent.up:
            return
        if agent.told is None:
            self._deliver_soon('host_added', (agent.spec,), ())
        else:
            self._deliver_soon('host_up' if agent.up else 'host_down',
                               (agent.spec.name,), ())
        agent.told = agent.up

    def _deliver_soon(self, event, head, tail):
        self.clock.call_soon(self._deliver, event, head, tail,
                             priority=clock_mod.URGENT)

    def _deliver(self, event, head, tail):
        at = self.clock.now()
        getattr(self.events, event)(*head, at, *tail)


#: Events an agent may report, and whether they carry an instance id.
_REPORTED_EVENTS = ('instance_started', 'instance_ended', 'instance_failed',
                    'instance_terminated', 'termination_failed',
                    'host_down', 'host_up')


class ComputeReportsEndpoint:
    """Server side of the agents' reports, on the scheduler's report topic.

    Every method is a cast; ``at`` (the agent's clock) is only logged.
    """

    target = oslo_messaging.Target(version=RPC_API_VERSION)

    def __init__(self, driver):
        self.driver = driver

    def register_host(self, ctxt, host, boot_id):
        self.driver.register(host_from_dict(host), boot_id)

    def instance_started(self, ctxt, host, instance_id, at=None):
        self.driver.report('instance_started', host, instance_id)

    def instance_ended(self, ctxt, host, instance_id, at=None):
        self.driver.report('instance_ended', host, instance_id)

    def instance_failed(self, ctxt, host, instance_id, reason, at=None):
        self.driver.report('instance_failed', host, instance_id, reason)

    def instance_terminated(self, ctxt, host, instance_id, at=None):
        self.driver.report('instance_terminated', host, instance_id)

    def termination_failed(self, ctxt, host, instance_id, reason, at=None):
        self.driver.report('termination_failed', host, instance_id, reason)

    def host_down(self, ctxt, host, at=None):
        self.driver.report('host_down', host)

    def host_up(self, ctxt, host, at=None):
        self.driver.report('host_up', host)
