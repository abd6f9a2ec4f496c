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

"""How the client commands call the scheduler service.

The caller's context (project and roles), the RPC transport (refused with
one line when it cannot reach a service), the service's errors turned into
exit codes, ``submit`` asking again with the same request id while the
service does not answer, and ``submit --wait`` looking at the request
until it is placed or failed.
"""

import contextlib
import functools
import os
import socket
import sys
import time
import uuid

from preemptible_sched.cmd import serving
from preemptible_sched.conf import CONF
from preemptible_sched.conf import parsing
from preemptible_sched.conf import urls
from preemptible_sched import exception

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2

#: Statuses a request does not leave.
FINAL_STATUSES = ('placed', 'failed', 'deleted')

#: Attempts to reach the message broker before giving up (exit 1), and
#: seconds to wait for its TCP port.
BROKER_RETRIES = 2
BROKER_TIMEOUT = 5.0

#: Attempts of one ``submit`` when the service does not answer (each with
#: the same request id), and seconds between two.
SUBMIT_ATTEMPTS = 3
RETRY_PAUSE = 1.0

#: The project of a caller that names none.
DEFAULT_PROJECT = 'default'

# Seconds between two looks at a request by ``submit --wait``.
_POLL_SECONDS = 0.2


def call_context(args):
    """The RPC context of a call: the caller's project and roles."""
    project_id = (getattr(args, 'os_project_id', None) or
                  os.environ.get('OS_PROJECT_ID') or DEFAULT_PROJECT)
    roles = getattr(args, 'os_roles', None)
    if roles is None:
        roles = os.environ.get('OS_ROLES', '')
    return {'project_id': project_id,
            'roles': [role.strip() for role in roles.split(',')
                      if role.strip()]}


class _Failed(Exception):
    """A call to the service failed; ``code`` is the exit code."""

    def __init__(self, error, code):
        super().__init__(str(error))
        self.code = code


@contextlib.contextmanager
def scheduler_api(context=None):
    """A :class:`~preemptible_sched.service.rpcapi.SchedulerAPI` on the
    configured transport, calling with ``context`` (see
    :func:`call_context`); errors of the service become :class:`_Failed`.

    The messaging modules are imported here, after
    :func:`~preemptible_sched.cmd.serving.quiet_eventlet`: the other
    subcommands do without oslo.messaging.
    """
    serving.quiet_eventlet()
    from preemptible_sched import service
    from preemptible_sched.service import readiness
    from preemptible_sched.service import rpcapi
    transport = _transport(service)
    try:
        yield rpcapi.SchedulerAPI(transport, CONF, retry=BROKER_RETRIES,
                                  context=context)
    except (rpcapi.RequestNotFound, rpcapi.BadRequest,
            rpcapi.Forbidden) as error:
        raise _Failed(error, EXIT_BAD_INPUT) from None
    except rpcapi.ServiceError as error:
        raise _Failed(error, EXIT_FAILED) from None
    except Exception as error:
        # The broker going away (or refusing us) in the middle of a call.
        amqp_error = readiness.amqp_exceptions is not None and isinstance(
            error, readiness.amqp_exceptions.AMQPError)
        if not (amqp_error or readiness.unreachable(error)):
            raise
        raise _Failed('the message broker failed: %s'
                      % readiness.one_line(error), EXIT_FAILED) from None
    finally:
        transport.cleanup()


def _transport(service):
    """The configured RPC transport, once it may reach a service.

    A transport URL that cannot be parsed, or names no driver, is refused
    with one line; so is ``fake://`` (it reaches nothing outside this
    process), a broker no host of which accepts a TCP connection
    (oslo.messaging would retry a refused connection forever, whatever the
    call's timeout, and an interactive command must not hang), and one
    that refuses the URL's user, password or virtual host.
    """
    # After quiet_eventlet(), as in scheduler_api().
    import oslo_messaging

    from preemptible_sched.service import readiness
    service.register_messaging_opts(CONF)
    problem = urls.transport_url_problem(CONF, CONF.transport_url)
    if problem:
        raise _Failed('%s: %s' % (parsing.where(
            CONF, 'DEFAULT', 'transport_url'), problem), EXIT_FAILED)
    try:
        transport = service.get_rpc_transport(CONF)
        hosts = service.broker_addresses(CONF)
    except (oslo_messaging.MessagingException, ValueError) as error:
        raise _Failed('[DEFAULT] transport_url: %s' % readiness.one_line(
            error), EXIT_FAILED) from None
    if hosts is None:
        transport.cleanup()
        raise exception.InvalidInput(
            '[DEFAULT] transport_url', None,
            'fake:// reaches no running service: set it to the transport '
            'of preemptible-scheduler, e.g. rabbit://USER:PASSWORD@HOST:5672/')
    errors = []
    for address in hosts:
        try:
            socket.create_connection(address, timeout=BROKER_TIMEOUT).close()
            break
        except OSError as error:
            errors.append('%s:%s: %s' % (address + (error,)))
    else:
        transport.cleanup()
        raise _Failed('cannot reach the message broker (%s)'
                      % '; '.join(errors), EXIT_FAILED)
    try:
        # The broker's own answer to the credentials, before any call:
        # oslo.messaging would raise it from deep inside the call.
        readiness.wait_for_broker(CONF, BROKER_TIMEOUT)
    except exception.StartupFailed as error:
        transport.cleanup()
        raise _Failed(error, EXIT_FAILED) from None
    return transport


def fail(message, code):
    """Say ``message`` on one line of stderr; return the exit code."""
    sys.stderr.write('preemptible-sched: %s\n' % ' '.join(
        str(message).split()))
    return code


def reports_failure(run):
    """Turn a failed call into its message and exit code."""
    @functools.wraps(run)
    def wrapper(args):
        try:
            return run(args)
        except _Failed as failure:
            return fail(failure, failure.code)
    return wrapper


def new_request_id():
    """A request id, as the service would generate it."""
    return 'req-%s' % uuid.uuid4().hex[:12]


def submit_with_retries(api, spec, duration=None, image=None,
                        attempts=None):
    """``api.submit`` the request dict ``spec`` (which has an id), asking
    again with the same id while the service does not answer
    (``ServiceUnavailable``: the call timed out, or the service was not
    ready), at most ``attempts`` times (default :data:`SUBMIT_ATTEMPTS`).

    The last failure names the request id: the request may have been
    taken all the same, and submitting the same id again is safe.
    """
    from preemptible_sched.service import rpcapi

    attempts = SUBMIT_ATTEMPTS if attempts is None else attempts
    for attempt in range(1, attempts + 1):
        try:
            return api.submit(spec, duration, image)
        except rpcapi.ServiceUnavailable as error:
            if attempt == attempts:
                raise rpcapi.ServiceUnavailable(
                    '%s (%d attempts); request %s may have been taken all '
                    'the same: "preemptible-sched show %s" tells, and '
                    'submitting again with --id %s is safe' % (
                        error, attempts, spec['id'], spec['id'],
                        spec['id'])) from None
            sys.stderr.write('preemptible-sched: %s; asking again for '
                             'request %s (attempt %d of %d)\n' % (
                                 ' '.join(str(error).split()), spec['id'],
                                 attempt + 1, attempts))
            time.sleep(RETRY_PAUSE)


def wait(api, request, timeout):
    """``request`` once it is final (:data:`FINAL_STATUSES`), asking
    ``api`` again every :data:`_POLL_SECONDS`; None after ``timeout``
    seconds.
    """
    deadline = time.monotonic() + timeout
    while request['status'] not in FINAL_STATUSES:
        if time.monotonic() > deadline:
            return None
        time.sleep(_POLL_SECONDS)
        request = api.show(request['id'])
    return request
