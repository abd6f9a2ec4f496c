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

"""Start-up: wait, a bounded time, for the database and the broker.

Before a service builds anything it checks that what it needs answers:
:func:`wait_for_database` runs ``SELECT 1`` on ``[database] connection``
through a short-lived engine with a connection timeout;
:func:`wait_for_broker` opens a TCP connection to each broker of
``[DEFAULT] transport_url`` and, for RabbitMQ, an AMQP connection with
kombu (credentials and virtual host included). Each is tried again every
:data:`RETRY_INTERVAL` seconds until it answers or ``timeout`` seconds have
passed, then :class:`~preemptible_sched.exception.StartupFailed` says, in
one line without a password, what did not answer and why.

``should_stop`` is polled throughout (a signal handler sets it): the waits
return False as soon as it is true, True once ready.

Without these waits oslo.messaging retries a broker forever and a database
driver may wait minutes for a host that does not answer. oslo.db's own
connection retries (``[database] max_retries`` and ``retry_interval``, used
when the store opens its engine) are no substitute for this wait: they
count attempts, not seconds of ``startup_timeout``, sleep through a signal,
and log each failure as a warning; they only cover a server that goes away
between this wait and the store's first connection.
"""

import logging
import math
import socket
import time
import urllib.parse

from oslo_db import exception as db_exc
import oslo_messaging
import sqlalchemy as sa
from sqlalchemy import exc as sa_exc
from sqlalchemy import pool

from preemptible_sched.conf import database as database_conf
from preemptible_sched.conf import parsing
from preemptible_sched import exception
from preemptible_sched import service

try:
    import amqp.exceptions as amqp_exceptions
    import kombu
    from kombu import exceptions as kombu_exceptions
except ImportError:     # the rabbit driver is not installed
    amqp_exceptions = kombu = kombu_exceptions = None

LOG = logging.getLogger(__name__)

#: Seconds between two attempts.
RETRY_INTERVAL = 1.0
#: Longest single attempt, in seconds.
ATTEMPT_TIMEOUT = 10.0
#: MySQL errors waiting does not mend: access denied (to the database,
#: to the server, to the server without a password), unknown database.
MYSQL_REFUSED = (1044, 1045, 1049, 1698)
#: Transports spoken with kombu (the AMQP 0-9-1 check).
KOMBU_TRANSPORTS = ('rabbit', 'kombu')


def _never():
    return False


class _Refused(Exception):
    """An answer that waiting will not change (wrong credentials)."""


def one_line(error):
    """``error`` as one line without passwords (SQLAlchemy's pointer to
    its documentation left out).
    """
    text = str(error).split('(Background on this error at:')[0]
    text = parsing.mask_passwords(' '.join(text.split()))
    if len(text) > 300:
        text = text[:297] + '...'
    return text or type(error).__name__


def _sleep(seconds, should_stop):
    end = time.monotonic() + seconds
    while not should_stop():
        left = end - time.monotonic()
        if left <= 0:
            return
        time.sleep(min(left, 0.1))


def _retry(what, see, attempt, timeout, should_stop, retry=True,
           announced=None):
    """Call ``attempt(seconds)`` until it returns; see the module."""
    deadline = time.monotonic() + timeout
    attempts = 0
    while True:
        if should_stop():
            return False
        left = deadline - time.monotonic()
        attempts += 1
        try:
            attempt(max(1.0, min(ATTEMPT_TIMEOUT, left)))
            if attempts > 1:
                LOG.info('%s answered (attempt %d)', what, attempts)
            return True
        except _Refused as error:
            raise exception.StartupFailed('%s refused the connection: %s '
                                          '(see %s)' % (what, error, see))
        except Exception as error:
            last = error
        if should_stop():
            return False
        left = deadline - time.monotonic()
        if not retry:
            raise exception.StartupFailed('%s cannot be used: %s (see %s)'
                                          % (what, one_line(last), see))
        if left <= 0:
            raise exception.StartupFailed(
                '%s did not answer within %g s (%d attempt%s): %s (see %s)'
                % (what, round(announced or timeout, 1), attempts,
                   '' if attempts == 1 else 's', one_line(last), see))
        if attempts == 1:
            LOG.debug('%s does not answer (%s): trying again for %d s',
                      what, one_line(last), math.ceil(left))
        _sleep(min(RETRY_INTERVAL, left), should_stop)


def _connect_args(url, seconds):
    backend = url.get_backend_name()
    if backend == 'sqlite':
        return {'timeout': seconds}
    if backend == 'mysql':
        # The handshake is read after the connection: bound it too.
        seconds = max(1, math.ceil(seconds))
        return {'connect_timeout': seconds, 'read_timeout': seconds,
                'write_timeout': seconds}
    if backend == 'postgresql':
        # libpq rounds anything below 2 up to 2.
        return {'connect_timeout': max(2, math.ceil(seconds))}
    return {}


def wait_for_database(conf, timeout, should_stop=_never):
    """Wait until ``[database] connection`` runs ``SELECT 1``.

    True when it did, False when ``should_stop()`` became true first;
    :class:`StartupFailed` after ``timeout`` seconds. A SQLite database
    is tried once (waiting does not help it).
    """
    return wait_for_url(database_conf.get_connection_url(conf), timeout,
                        '[database] connection', should_stop)


def wait_for_url(url, timeout, see, should_stop=_never):
    """:func:`wait_for_database` for the database at ``url``, named by the
    option ``see`` (what the error tells the operator to look at).
    """
    url = sa.engine.make_url(url)
    sqlite = url.get_backend_name() == 'sqlite'
    if sqlite and url.database in (None, '', ':memory:'):
        return True
    what = 'the database %s' % url.render_as_string(hide_password=True)

    def attempt(seconds):
        engine = sa.create_engine(url, poolclass=pool.NullPool,
                                  connect_args=_connect_args(url, seconds))
        try:
            with engine.connect() as connection:
                connection.execute(sa.text('SELECT 1'))
        except sa_exc.OperationalError as error:
            code = getattr(error.orig, 'args', (None,))[:1]
            if url.get_backend_name() == 'mysql' and \
                    code and code[0] in MYSQL_REFUSED:
                raise _Refused(one_line(error)) from None
            raise
        finally:
            engine.dispose()

    return _retry(what, see, attempt, timeout, should_stop,
                  retry=not sqlite)


def _amqp_url(host, port, transport_host, virtual_host):
    quote = urllib.parse.quote
    credentials = ''
    if transport_host is not None and transport_host.username:
        credentials = quote(transport_host.username, safe='')
        if transport_host.password:
            credentials += ':' + quote(transport_host.password, safe='')
        credentials += '@'
    return 'amqp://%s%s:%d/%s' % (credentials, host, port,
                                  quote(virtual_host or '/', safe=''))


def _uses_ssl(conf):
    try:
        return bool(conf.oslo_messaging_rabbit.ssl)
    except (AttributeError, KeyError, ValueError):
        return False


def _amqp_check(url, seconds):
    connection = kombu.Connection(url, connect_timeout=seconds)
    try:
        connection.connect()
    except (amqp_exceptions.AccessRefused,
            amqp_exceptions.NotAllowed) as error:
        raise _Refused(one_line(error)) from None
    finally:
        connection.release()


def wait_for_broker(conf, timeout, should_stop=_never, announced=None):
    """Wait until a broker of ``[DEFAULT] transport_url`` accepts a
    connection (an AMQP one, with the URL's credentials, for RabbitMQ).

    True when one did (at once for ``fake://``), False when
    ``should_stop()`` became true first; :class:`StartupFailed` after
    ``timeout`` seconds or when the broker refuses the credentials. The
    error names ``announced`` seconds if given (the whole start-up's
    budget, of which ``timeout`` is what is left).
    """
    addresses = service.broker_addresses(conf)
    if addresses is None:
        return True
    url = oslo_messaging.TransportURL.parse(conf, conf.transport_url)
    hosts = list(url.hosts) or [None]
    amqp = (kombu is not None and not _uses_ssl(conf) and
            url.transport.split('+')[0] in KOMBU_TRANSPORTS)
    what = 'the message broker at %s' % ', '.join(
        '%s:%d' % address for address in addresses)

    def attempt(seconds):
        errors = []
        for index, (host, port) in enumerate(addresses):
            try:
                socket.create_connection((host, port), timeout=seconds).close()
                if amqp:
                    _amqp_check(_amqp_url(host, port,
                                          hosts[min(index, len(hosts) - 1)],
                                          url.virtual_host), seconds)
                return
            except _Refused:
                raise
            except Exception as error:
                errors.append('%s:%d: %s' % (host, port, one_line(error)))
        raise ConnectionError('; '.join(errors))

    return _retry(what, '[DEFAULT] transport_url', attempt, timeout,
                  should_stop, announced=announced)


def unreachable(error):
    """Whether ``error`` says a database or broker cannot be reached (a
    one-line message is enough), rather than a bug (a traceback is due).
    """
    if isinstance(error, (sa_exc.OperationalError, sa_exc.InterfaceError,
                          db_exc.DBConnectionError,
                          oslo_messaging.MessageDeliveryFailure,
                          OSError)):
        return True
    return kombu_exceptions is not None and isinstance(
        error, kombu_exceptions.OperationalError)
