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

"""Clients of the RPC interfaces (version 1.0).

* :class:`SchedulerAPI`: what ``preemptible-sched submit|list|show|delete``
  asks the scheduler service (calls on ``[service] scheduler_topic``);
* :class:`ComputeAPI`: what the scheduler's ``rpc`` compute driver asks an
  agent (``[service] compute_topic``, server = host name);
* :class:`SchedulerReportsAPI`: what an agent tells the scheduler (casts on
  the report topic); it is a
  :class:`~preemptible_sched.compute.ComputeEvents`, so an agent's fake
  driver reports straight into it.

Calls wait at most ``[service] rpc_timeout`` seconds. Errors the service
raised on purpose come back as :class:`RequestNotFound` or
:class:`BadRequest`; no answer at all is :class:`ServiceUnavailable`.
"""

import oslo_messaging

from preemptible_sched import compute
from preemptible_sched.compute import rpc as compute_rpc
from preemptible_sched.conf import service as service_conf
from preemptible_sched import exception

RPC_API_VERSION = compute_rpc.RPC_API_VERSION


class ServiceError(exception.PreemptibleSchedException):
    """The scheduler service refused or failed a request."""


class RequestNotFound(ServiceError):
    """No request with this id."""


class BadRequest(ServiceError):
    """The service refused the request as invalid (or a duplicate id)."""


class ServiceUnavailable(ServiceError):
    """The service did not answer in time (not running, or unreachable)."""


#: Class names of the exceptions the service raises on purpose.
_REMOTE_ERRORS = {
    'NotFound': RequestNotFound,
    'Duplicate': BadRequest,
    'InvalidInput': BadRequest,
    'NotReady': ServiceUnavailable,
}


def _client(transport, conf, topic, retry=None):
    target = oslo_messaging.Target(topic=topic, version=RPC_API_VERSION)
    return oslo_messaging.get_rpc_client(
        transport, target, timeout=conf.service.rpc_timeout, retry=retry)


class SchedulerAPI:
    """Client of the scheduler service; requests are plain dicts.

    ``retry`` bounds the attempts to reach the broker (None: forever, as
    oslo.messaging does by default; a command line client wants a few).
    """

    def __init__(self, transport, conf, retry=None):
        self.topic = conf.service.scheduler_topic
        self.timeout = conf.service.rpc_timeout
        self._client = _client(transport, conf, self.topic, retry=retry)

    def _call(self, method, **kwargs):
        try:
            return self._client.call({}, method, **kwargs)
        except oslo_messaging.MessagingTimeout:
            raise ServiceUnavailable(
                'no answer from the scheduler service on topic %s within '
                '%g s' % (self.topic, self.timeout)) from None
        except oslo_messaging.RemoteError as error:
            cls = _REMOTE_ERRORS.get(error.exc_type, ServiceError)
            raise cls(error.value) from None
        except oslo_messaging.MessagingException as error:
            raise ServiceUnavailable('cannot reach the scheduler service: '
                                     '%s' % error) from None
        except exception.PreemptibleSchedException as error:
            # fake:// hands the service's own exception over as it is.
            cls = _REMOTE_ERRORS.get(type(error).__name__)
            if cls is None or isinstance(error, ServiceError):
                raise
            raise cls(str(error)) from None

    def submit(self, spec, duration=None, image=None):
        """Submit ``spec`` (a dict of
        :func:`preemptible_sched.db.models.spec_to_dict`'s fields; ``id``
        may be left out); returns the request as :meth:`show` does.
        """
        return self._call('submit', spec=spec, duration=duration,
                          image=image)

    def show(self, request_id):
        """The request with its instances (a dict)."""
        return self._call('show', request_id=request_id)

    def list(self, status=None):
        """Every request (only those in ``status`` if given), oldest
        first.
        """
        return self._call('list', status=status)

    def delete(self, request_id):
        """Withdraw a pending request or terminate its instances."""
        return self._call('delete', request_id=request_id)


class ComputeAPI:
    """Client of the compute agents, one server per host name."""

    def __init__(self, transport, conf):
        self._client = _client(transport, conf, conf.service.compute_topic)

    def spawn(self, host, instance, image=None, duration=None):
        """Cast: boot ``instance`` (a dict of
        :func:`~preemptible_sched.compute.rpc.instance_to_dict`).
        """
        self._client.prepare(server=host).cast(
            {}, 'spawn', host=host, instance=instance, image=image,
            duration=duration)

    def terminate(self, host, instance_id):
        self._client.prepare(server=host).cast(
            {}, 'terminate', host=host, instance_id=instance_id)

    def list_instances(self, host):
        """Call: ``{'now': agent clock, 'instances': [report dicts]}``.

        Raises ``oslo_messaging.MessagingTimeout`` when the agent does not
        answer within ``[service] rpc_timeout``.
        """
        return self._client.prepare(server=host).call(
            {}, 'list_instances', host=host)

    def announce(self):
        """Fanout cast: every agent registers its host now."""
        self._client.prepare(fanout=True).cast({}, 'report_host')


class SchedulerReportsAPI(compute.ComputeEvents):
    """What an agent reports to the scheduler (casts).

    ``boot_id`` names this run of the agent; the scheduler learns from a new
    one that the agent restarted with an empty blade.
    """

    def __init__(self, transport, conf):
        self._client = _client(transport, conf,
                               service_conf.report_topic(conf))

    def _cast(self, method, **kwargs):
        self._client.cast({}, method, **kwargs)

    def register_host(self, host, boot_id):
        """``host`` is an :class:`objects.Host`."""
        self._cast('register_host', host=compute_rpc.host_to_dict(host),
                   boot_id=boot_id)

    def instance_started(self, host, instance_id, at):
        self._cast('instance_started', host=host, instance_id=instance_id,
                   at=at)

    def instance_ended(self, host, instance_id, at):
        self._cast('instance_ended', host=host, instance_id=instance_id,
                   at=at)

    def instance_failed(self, host, instance_id, at, reason):
        self._cast('instance_failed', host=host, instance_id=instance_id,
                   at=at, reason=reason)

    def instance_terminated(self, host, instance_id, at):
        self._cast('instance_terminated', host=host,
                   instance_id=instance_id, at=at)

    def termination_failed(self, host, instance_id, at, reason):
        self._cast('termination_failed', host=host, instance_id=instance_id,
                   at=at, reason=reason)

    def host_down(self, host, at):
        self._cast('host_down', host=host, at=at)

    def host_up(self, host, at):
        self._cast('host_up', host=host, at=at)
