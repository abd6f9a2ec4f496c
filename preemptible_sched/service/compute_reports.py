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

"""What the ``preemptible-compute`` agents report to the scheduler.

The scheduler service serves :class:`ComputeReportsEndpoint` on
``<scheduler_topic>_reports`` when its compute driver is ``rpc``: the
agents register their host (when they start, when the scheduler asks and
as a heartbeat) and report every event of their instances. Each report is
checked, decoded from the wire format (:mod:`preemptible_sched.wire`) and
handed to the driver
(:meth:`~preemptible_sched.compute.rpc.RPCComputeDriver.register`,
:meth:`~preemptible_sched.compute.rpc.RPCComputeDriver.report`), which
turns it into events of the loop.
"""

import logging

import oslo_messaging

from preemptible_sched import exception
from preemptible_sched import input_limits as limits
from preemptible_sched import wire

LOG = logging.getLogger(__name__)


def _boot(boot):
    """The ``boot`` keyword of a report, when the agent gave one."""
    return {} if boot is None else {'boot': boot}


class ComputeReportsEndpoint:
    """Server side of the agents' reports, on the scheduler's report topic.

    ``driver`` is the
    :class:`~preemptible_sched.compute.rpc.RPCComputeDriver` (or anything
    with its ``register`` and ``report``).

    Every method is a cast; ``at`` (the agent's clock) is only logged.
    ``check(method, kwargs)``, when given, returns the checked arguments
    of a report or raises InvalidInput (the scheduler service passes
    :func:`preemptible_sched.service.payload_checks.check_report`). A report
    refused, of a method that does not exist, or that fails is logged
    (one WARNING line; a failure with its traceback) and dropped: nothing
    an agent sends makes a method raise.
    """

    target = oslo_messaging.Target(version=wire.RPC_API_VERSION)

    _MISSING = object()

    def __init__(self, driver, check=None):
        self._driver = driver
        self._check = check

    def __getattr__(self, name):
        if name.startswith(('_', 'oslo_')):
            raise AttributeError(name)

        def no_such_report(ctxt, **kwargs):
            LOG.warning('Dropped report %s: no such report',
                        limits.one_line(name, 60))
        return no_such_report

    def _handle(self, method, kwargs, action):
        kwargs = {key: value for key, value in kwargs.items()
                  if value is not self._MISSING}
        try:
            if self._check is not None:
                kwargs = self._check(method, kwargs)
            action(**kwargs)
            return
        except exception.InvalidInput as error:
            refused = error
        except Exception:
            LOG.exception('Report %s failed; it is dropped', method)
            return
        # Out of the except clause: oslo.log would append the exception.
        LOG.warning('Dropped report %s: %s', method, limits.one_line(refused))

    def _register(self, host, boot_id):
        self._driver.register(wire.host_from_dict(host), boot_id)

    def _event(self, event):
        """The action of a report: the driver's ``report(event, host,
        [instance_id, [reason]])``.
        """
        def host_event(host, at=None):
            self._driver.report(event, host)

        def instance_event(host, instance_id, at=None, boot=None):
            self._driver.report(event, host, instance_id, **_boot(boot))

        def failure(host, instance_id, reason, at=None, boot=None):
            self._driver.report(event, host, instance_id, reason,
                                **_boot(boot))

        if event in ('host_down', 'host_up'):
            return host_event
        if event in ('instance_failed', 'termination_failed'):
            return failure
        return instance_event

    def register_host(self, ctxt, host=_MISSING, boot_id=_MISSING, **extra):
        self._handle('register_host', dict(extra, host=host,
                                           boot_id=boot_id), self._register)

    def instance_started(self, ctxt, host=_MISSING, instance_id=_MISSING,
                         at=None, **extra):
        self._handle('instance_started',
                     dict(extra, host=host, instance_id=instance_id, at=at),
                     self._event('instance_started'))

    def instance_ended(self, ctxt, host=_MISSING, instance_id=_MISSING,
                       at=None, **extra):
        self._handle('instance_ended',
                     dict(extra, host=host, instance_id=instance_id, at=at),
                     self._event('instance_ended'))

    def instance_failed(self, ctxt, host=_MISSING, instance_id=_MISSING,
                        reason=_MISSING, at=None, **extra):
        self._handle('instance_failed',
                     dict(extra, host=host, instance_id=instance_id,
                          reason=reason, at=at),
                     self._event('instance_failed'))

    def instance_terminated(self, ctxt, host=_MISSING, instance_id=_MISSING,
                            at=None, **extra):
        self._handle('instance_terminated',
                     dict(extra, host=host, instance_id=instance_id, at=at),
                     self._event('instance_terminated'))

    def termination_failed(self, ctxt, host=_MISSING, instance_id=_MISSING,
                           reason=_MISSING, at=None, **extra):
        self._handle('termination_failed',
                     dict(extra, host=host, instance_id=instance_id,
                          reason=reason, at=at),
                     self._event('termination_failed'))

    def host_down(self, ctxt, host=_MISSING, at=None, **extra):
        self._handle('host_down', dict(extra, host=host, at=at),
                     self._event('host_down'))

    def host_up(self, ctxt, host=_MISSING, at=None, **extra):
        self._handle('host_up', dict(extra, host=host, at=at),
                     self._event('host_up'))
