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

"""The guards of the RPC endpoints: nothing a peer sends makes one fail.

:func:`checked_call` and :func:`checked_cast` wrap endpoint methods, whose
arguments (and a call's context) they check with
:mod:`preemptible_sched.service.payload_checks`: a bad call is logged (one
WARNING line) and answered with ``InvalidInput`` (the client's
``BadRequest``); a bad cast is logged and dropped; an unexpected error is
logged with its traceback and answered with :class:`ServiceFailure`, so
nothing a peer sends makes an endpoint raise anything else, let alone stop
a service. :class:`GuardedEndpoint` answers a method an endpoint does not
have the same way.
"""

import functools
import logging

import oslo_messaging

from preemptible_sched import exception
from preemptible_sched import input_limits as limits
from preemptible_sched.service import payload_checks

LOG = logging.getLogger(__name__)


class ServiceFailure(exception.PreemptibleSchedException):
    """An endpoint failed on a bug, not on its input (logged with the
    traceback where it happened); what the caller gets instead of the
    bug's own exception.
    """

    def __init__(self, method):
        self.method = method
        super().__init__('%s failed on an internal error (see the log of '
                         'the service)' % method)


def _one_line(error):
    return limits.one_line(error, limits.MAX_MESSAGE)


def checked_call(api, *expected):
    """Decorate the endpoint method of a call: its arguments are checked
    against ``SCHEMAS['<api>.<method>']`` (:mod:`.schemas`) and its context
    by :func:`.payload_checks.check_context` (the method gets both as plain
    dicts).

    InvalidInput is logged (one WARNING line) and returned to the caller,
    like the ``expected`` exceptions; anything else is logged with its
    traceback and returned as :class:`ServiceFailure`.
    """
    known = (exception.InvalidInput, ServiceFailure) + tuple(expected)

    def decorate(method):
        name = method.__name__
        schema = '%s.%s' % (api, name)

        @functools.wraps(method)
        def guarded(self, ctxt, **kwargs):
            try:
                context = payload_checks.check_context(
                    ctxt, '%s context' % name)
                args = payload_checks.check(schema, kwargs, name)
                return method(self, context, **args)
            except exception.InvalidInput as error:
                refused = error
            except known:
                raise
            except Exception:
                LOG.exception('%s failed', name)
                raise ServiceFailure(name) from None
            # Logged out of the except clause: oslo.log would append the
            # exception to the line.
            LOG.warning('Rejected %s: %s', name, _one_line(refused))
            raise refused

        return oslo_messaging.expected_exceptions(*known)(guarded)
    return decorate


def checked_cast(api):
    """Decorate the endpoint method of a cast: its arguments are checked
    against ``SCHEMAS['<api>.<method>']`` (:mod:`.schemas`); a bad one is
    logged (one WARNING line) and dropped, and so is anything the method
    raises (an unexpected error with its traceback). Nothing is raised.
    """
    def decorate(method):
        name = method.__name__
        schema = '%s.%s' % (api, name)

        @functools.wraps(method)
        def guarded(self, ctxt, **kwargs):
            try:
                args = payload_checks.check(schema, kwargs, name)
                method(self, ctxt, **args)
                return
            except exception.InvalidInput as error:
                refused = error
            except Exception:
                LOG.exception('%s failed; the message is dropped', name)
                return
            LOG.warning('Dropped %s: %s', name, _one_line(refused))

        return guarded
    return decorate


@oslo_messaging.expected_exceptions(exception.InvalidInput)
def _no_such_method(name, ctxt, /, **kwargs):
    error = exception.InvalidInput(name, None, 'no such method')
    LOG.warning('Rejected %s: %s', limits.one_line(name, 60),
                _one_line(error))
    raise error


class GuardedEndpoint:
    """Base of the endpoints: a method they do not have is answered with
    InvalidInput (logged on one line), not oslo.messaging's
    ``NoSuchMethod`` with a traceback in the log. Private names (which
    oslo.messaging never dispatches) are not affected.
    """

    def __getattr__(self, name):
        if name.startswith(('_', 'oslo_')):
            raise AttributeError(name)
        return functools.partial(_no_such_method, name)
