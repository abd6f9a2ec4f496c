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

"""``preemptible-compute``: an agent owning one emulated blade.

The agent runs a :class:`~preemptible_sched.compute.fake.FakeDriver` that
owns exactly one host, on a :class:`~preemptible_sched.clock.RealClock`
sped up by ``[service] time_scale``. It serves, on ``[service]
compute_topic`` with its host name as server:

* ``spawn`` and ``terminate`` (casts), carried out by the fake driver;
* ``list_instances`` (a call): what the blade runs, with the agent's clock;
* ``report_host`` (fanout cast): register now.

It reports to the scheduler (:class:`~.rpcapi.SchedulerReportsAPI`): its
host when it starts, when asked and every ``[service] heartbeat_interval``
seconds; and every event of its fake driver, as it happens.

Like the scheduler, the agent is single-threaded where it matters: the
fake driver is only touched in the clock's thread; messaging threads hand
work over with ``call_soon``.
"""

import logging
import threading
import uuid

import oslo_messaging

from preemptible_sched import clock as clock_mod
from preemptible_sched.compute import fake
from preemptible_sched import exception
from preemptible_sched import objects
from preemptible_sched import service
from preemptible_sched.service import endpoint_guards
from preemptible_sched.service import rpcapi
from preemptible_sched import wire

LOG = logging.getLogger(__name__)


def blade(name, conf):
    """The :class:`objects.Host` of one ``[fake_driver]`` blade."""
    return objects.Host(
        name=name, vcpus=conf.fake_driver.vcpus,
        memory_mb=conf.fake_driver.memory_mb,
        disk_gb=conf.fake_driver.disk_gb)


class ComputeEndpoint(endpoint_guards.GuardedEndpoint):
    """What the scheduler may ask of the agent (RPC API 1.0).

    Every message is checked by its schema (:mod:`.schemas`) and must name
    this agent's host: a bad cast is logged (one WARNING line) and
    dropped, a bad call answered with InvalidInput. Only checked values
    reach the fake driver (a NaN size would defeat its capacity check).
    """

    target = oslo_messaging.Target(version=rpcapi.RPC_API_VERSION)

    def __init__(self, agent):
        self._agent = agent
        self._epoch_lock = threading.Lock()
        #: the latest term of a scheduler heard from (None: none yet)
        self.epoch = None

    def _deposed(self, epoch, what):
        """Whether ``what`` comes from a scheduler that lost the lead (an
        epoch older than one heard from); a newer epoch is remembered.
        """
        if epoch is None:
            return False
        with self._epoch_lock:
            if self.epoch is not None and epoch < self.epoch:
                LOG.warning('Refusing %s from a scheduler that lost the '
                            'lead (epoch %d; epoch %d leads).', what, epoch,
                            self.epoch)
                return True
            self.epoch = epoch
            return False

    def _own(self, host):
        if host != self._agent.host.name:
            raise exception.InvalidInput(
                'host', None, '%s is not the host of this agent (%s)'
                % (host, self._agent.host.name))

    @endpoint_guards.checked_cast('compute')
    def spawn(self, ctxt, host, instance, image=None, duration=None,
              agent_boot=None, epoch=None):
        self._own(host)
        spawned = wire.instance_from_dict(instance)
        if self._deposed(epoch, 'a spawn of instance %s' % spawned.id):
            return
        if agent_boot is not None and agent_boot != self._agent.boot_id:
            # Sent to an earlier run of this agent, and still on the bus
            # when it restarted: the scheduler has taken the instance for
            # lost since, and placed it again.
            LOG.warning('Refusing a spawn of instance %s meant for an '
                        'earlier run of this agent (boot %s, this one is '
                        '%s).', spawned.id, agent_boot, self._agent.boot_id)
            self._agent.clock.call_soon(
                self._agent.reports.instance_failed, host, spawned.id,
                self._agent.clock.now(), 'stale spawn: meant for an '
                'earlier run of the agent', spawned.boot)
            return
        self._agent.clock.call_soon(self._agent.driver.spawn, host, spawned,
                                    image, duration)

    @endpoint_guards.checked_cast('compute')
    def terminate(self, ctxt, host, instance_id, epoch=None):
        self._own(host)
        if self._deposed(epoch, 'a termination of instance %s'
                         % instance_id):
            return
        self._agent.clock.call_soon(self._agent.driver.terminate, host,
                                    instance_id)

    @endpoint_guards.checked_call('compute', service.NotReady)
    def list_instances(self, ctxt, host, finished=False):
        self._own(host)
        return self._agent.bridge.call(self._agent.list_instances, host,
                                       finished)

    @endpoint_guards.checked_cast('compute')
    def report_host(self, ctxt, epoch=None):
        if self._deposed(epoch, 'a request to register'):
            return
        self._agent.clock.call_soon(self._agent.register)


class ComputeAgent(service.Service):
    """One emulated blade, served over oslo.messaging.

    ``host`` is its :class:`objects.Host`; ``transport`` an RPC transport
    (the configured one if not given); ``seed`` the fake driver's seed
    (``[fake_driver] random_seed`` if not given). :meth:`run` serves until
    :meth:`stop`.
    """

    def __init__(self, conf, host, transport=None, seed=None):
        super().__init__(conf, clock_mod.RealClock(conf.service.time_scale),
                         transport)
        self.on_shutdown(LOG.info, 'Compute agent of host %s stopped',
                         host.name)
        self.host = host
        self.boot_id = uuid.uuid4().hex
        self.reports = rpcapi.SchedulerReportsAPI(self.transport, conf)
        self.driver = fake.FakeDriver(self.clock, events=self.reports,
                                      hosts=[host], seed=seed)

    # -- in the clock's thread -----------------------------------------------

    def register(self):
        """Tell the scheduler this host is here (and whether it is up)."""
        spec, = self.driver.host_specs()
        self.reports.register_host(spec, self.boot_id)

    def list_instances(self, host, finished=False):
        """What ``list_instances`` answers: the reports, our clock and,
        when asked, what the host remembers finishing.
        """
        answer = {'now': self.clock.now(),
                  'instances': [wire.report_to_dict(report)
                                for report in self.driver.list_instances(
                                    host)]}
        if finished:
            answer['finished'] = [wire.report_to_dict(report)
                                  for report in self.driver.finished_instances(
                                      host)]
        return answer

    def _beat(self):
        self.register()
        # The interval is wall-clock seconds; the clock may run faster.
        self.clock.call_later(
            self.conf.service.heartbeat_interval * self.clock.time_scale,
            self._beat)

    # -- from any thread -----------------------------------------------------

    def start(self):
        """Start serving and reporting; the clock must then run."""
        self.serve(self.conf.service.compute_topic, self.host.name,
                   ComputeEndpoint(self))
        self.bridge.open()
        self.clock.call_soon(self._beat)
        LOG.info('Compute agent of host %s started (boot %s)',
                 self.host.name, self.boot_id)
