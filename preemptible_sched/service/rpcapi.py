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
raised on purpose come back as :class:`RequestNotFound`,
:class:`BadRequest` (the service's schemas refused the message, or a
request id is taken) or :class:`Forbidden` (its policy); no answer at all
is :class:`ServiceUnavailable` (:class:`ServiceTimeout` when the call
timed out, so the request may or may not have been taken: ``submit`` is
idempotent on the request id, submitting it again is safe).

A :class:`SchedulerAPI` sends a context naming the caller's project and
roles (see :mod:`preemptible_sched.service.policy`); the other clients send
none.
"""

import logging

import oslo_messaging

from preemptible_sched import compute
from preemptible_sched.conf import service as service_conf
from preemptible_sched import exception
from preemptible_sched.service import payload_checks
from preemptible_sched import wire

LOG = logging.getLogger(__name__)

RPC_API_VERSION = wire.RPC_API_VERSION


class ServiceError(exception.PreemptibleSchedException):
    """The scheduler service refused or failed a request."""


class RequestNotFound(ServiceError):
    """No request with this id."""


class BadRequest(ServiceError):
    """The service refused the request as invalid (or a duplicate id)."""


class Forbidden(ServiceError):
    """The service's policy does not allow the caller this action."""


class ServiceUnavailable(ServiceError):
    """The service did not answer in time (not running, or unreachable)."""


class ServiceTimeout(ServiceUnavailable):
    """A call got no answer within the timeout: it may have been carried
    out or not.
    """


#: Class names of the exceptions the service raises on purpose.
_REMOTE_ERRORS = {
    'NotFound': RequestNotFound,
    'Duplicate': BadRequest,
    'InvalidInput': BadRequest,
    'NotReady': ServiceUnavailable,
    'PolicyNotAuthorized': Forbidden,
    'ServiceFailure': ServiceError,
}


def _client(transport, conf, topic, retry=None):
    target = oslo_messaging.Target(topic=topic, version=RPC_API_VERSION)
    return oslo_messaging.get_rpc_client(
        transport, target, timeout=conf.service.rpc_timeout, retry=retry)


class SchedulerAPI:
    """Client of the scheduler service; requests are plain dicts.

    ``retry`` bounds the attempts to reach the broker (None: forever, as
    oslo.messaging does by default; a command line client wants a few).
    ``context`` says who calls: ``{'project_id': ..., 'roles': [...]}``
    (``user_id`` and ``is_admin`` may be added); none is the project
    ``default`` without roles.
    """

    def __init__(self, transport, conf, retry=None, context=None):
        self.topic = conf.service.scheduler_topic
        self.timeout = conf.service.rpc_timeout
        self.context = dict(context or {})
        self._client = _client(transport, conf, self.topic, retry=retry)

    def _call(self, method, **kwargs):
        try:
            return self._client.call(self.context, method, **kwargs)
        except oslo_messaging.MessagingTimeout:
            raise ServiceTimeout(
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
            if isinstance(error, ServiceError):
                raise
            cls = _REMOTE_ERRORS.get(type(error).__name__, ServiceError)
            raise cls(str(error)) from None

    def submit(self, spec, duration=None, image=None):
        """Submit ``spec`` (a dict of
        :func:`preemptible_sched.wire.spec_to_dict`'s fields; ``id``
        may be left out, but a caller that may retry gives one); returns
        the request as :meth:`show` does. Submitting the same id with the
        same request again returns the request; with another request it
        is a :class:`BadRequest`.
        """
        return self._call('submit', spec=spec, duration=duration,
                          image=image)

    def show(self, request_id):
        """The request with its instances (a dict)."""
        return self._call('show', request_id=request_id)

    def list(self, status=None):
        """Every request of the caller's project (of every project for an
        administrator); only those in ``status`` if given; oldest first.
        """
        return self._call('list', status=status)

    def delete(self, request_id):
        """Withdraw a pending request or terminate its instances."""
        return self._call('delete', request_id=request_id)


class ComputeAPI:
    """Client of the compute agents, one server per host name."""

    def __init__(self, transport, conf, epoch=None):
        self._client = _client(transport, conf, conf.service.compute_topic)
        #: the sender's term, sent with every command: an agent refuses
        #: commands of a term older than one it heard from
        self._fence = {} if epoch is None else {'epoch': epoch}
        #: set when the sender lost the lead: commands are not sent
        self.deposed = False

    def _command(self, server, method, **kwargs):
        """Cast ``method`` to the agent of host ``server`` (None: every
        agent), with the sender's epoch.
        """
        if self.deposed:
            LOG.warning('Not sending %s to %s: this scheduler lost the '
                        'lead', method, server or 'the agents')
            return
        prepared = self._client.prepare(fanout=True) if server is None \
            else self._client.prepare(server=server)
        prepared.cast({}, method, **dict(kwargs, **self._fence))

    def spawn(self, host, instance, image=None, duration=None,
              agent_boot=None):
        """Cast: boot ``instance`` (a dict of
        :func:`~preemptible_sched.wire.instance_to_dict`).

        ``agent_boot`` is the boot id of the agent run the scheduler means
        it for: a spawn still on the bus when that agent restarted reaches
        the new run, which refuses it (the scheduler took its instance
        for lost when the agent registered again, and placed it anew).
        """
        self._command(host, 'spawn', host=host, instance=instance,
                      image=image, duration=duration, agent_boot=agent_boot)

    def terminate(self, host, instance_id):
        self._command(host, 'terminate', host=host, instance_id=instance_id)

    def list_instances(self, host, finished=False):
        """Call: ``{'now': agent clock, 'instances': [report dicts]}``,
        checked by :func:`.payload_checks.validate_list_instances_answer`; with
        ``finished``, also ``'finished'``: what the host remembers
        finishing (asked only then, being up to a thousand records).

        Raises ``oslo_messaging.MessagingTimeout`` when the agent does not
        answer within ``[service] rpc_timeout``, and
        :class:`~preemptible_sched.exception.InvalidInput` when its answer
        is malformed (non-finite or absurd numbers, wrong types, too many
        instances): nothing of it reaches the scheduler.
        """
        extra = {'finished': True} if finished else {}
        answer = self._client.prepare(server=host).call(
            {}, 'list_instances', host=host, **extra)
        return payload_checks.validate_list_instances_answer(answer)

    def announce(self):
        """Fanout cast: every agent registers its host now."""
        self._command(None, 'report_host')


class SchedulerReportsAPI(compute.ComputeEvents):
    """What an agent reports to the scheduler (casts).

    ``boot_id`` names this run of the agent; the scheduler learns from a new
    one that the agent restarted with an empty blade.
    """

    def __init__(self, transport, conf):
        self._client = _client(transport, conf,
                               service_conf.report_topic(conf))

    def _cast(self, method, boot=None, **kwargs):
        if boot is not None:
            # The boot of the spawn a report is about (see
            # objects.Instance.boot); left out when unknown.
            kwargs['boot'] = boot
        self._client.cast({}, method, **kwargs)

    def register_host(self, host, boot_id):
        """``host`` is an :class:`objects.Host`."""
        self._cast('register_host', host=wire.host_to_dict(host),
                   boot_id=boot_id)

    def instance_started(self, host, instance_id, at, boot=None):
        self._cast('instance_started', host=host, instance_id=instance_id,
                   at=at, boot=boot)

    def instance_ended(self, host, instance_id, at, boot=None):
        self._cast('instance_ended', host=host, instance_id=instance_id,
                   at=at, boot=boot)

    def instance_failed(self, host, instance_id, at, reason, boot=None):
        self._cast('instance_failed', host=host, instance_id=instance_id,
                   at=at, reason=reason, boot=boot)

    def instance_terminated(self, host, instance_id, at, boot=None):
        self._cast('instance_terminated', host=host,
                   instance_id=instance_id, at=at, boot=boot)

    def termination_failed(self, host, instance_id, at, reason, boot=None):
        self._cast('termination_failed', host=host, instance_id=instance_id,
                   at=at, reason=reason, boot=boot)

    def host_down(self, host, at):
        self._cast('host_down', host=host, at=at)

    def host_up(self, host, at):
        self._cast('host_up', host=host, at=at)
