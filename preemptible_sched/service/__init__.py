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

"""The scheduler service and the compute agents, over oslo.messaging.

* :mod:`.scheduler_service`: ``preemptible-scheduler``, the scheduler loop
  behind an RPC server (``submit``, ``show``, ``list``, ``delete``);
* :mod:`.compute_agent`: ``preemptible-compute``, one emulated blade
  serving ``spawn``, ``terminate`` and ``list_instances``;
* :mod:`.rpcapi`: the clients of both;
* :mod:`.notifications`: the versioned notifications the loop emits;
* here, :class:`Service`: what both share (run, stop and shut down, the
  RPC servers, the :class:`ClockBridge` to the clock's thread).

The transport is oslo.messaging's ``[DEFAULT] transport_url``; this module
registers oslo.messaging's options and makes ``fake://`` (in-process) the
default. ``fake://`` passes messages between every user in the process of
the same ``[DEFAULT] control_exchange``, so in-process tests give each test
an exchange of its own.
"""

import concurrent.futures
import contextlib
import importlib
import logging
import threading

import oslo_messaging
from oslo_messaging import opts as messaging_opts

from preemptible_sched.conf import service as service_conf
from preemptible_sched import exception

LOG = logging.getLogger(__name__)

#: oslo.messaging's notification driver unless configured: versioned
#: notifications on the transport (``[oslo_messaging_notifications]
#: driver = noop`` turns them off).
DEFAULT_NOTIFICATION_DRIVER = 'messagingv2'

#: Attempts to send a notification unless configured. The loop notifies
#: from its clock's thread: oslo.messaging's default (-1, forever) would
#: stop the scheduler while the broker is away; a lost notification is the
#: lesser harm (oslo.messaging logs it).
DEFAULT_NOTIFICATION_RETRY = 3


#: Messages RabbitMQ hands a consumer before it acknowledges them (0, the
#: library's default, is no limit). A scheduler frozen while it leads
#: (swap, SIGSTOP) keeps consuming its topics until the broker drops it: at
#: most this many of the agents' reports wait in it unseen, the rest go to
#: the standby that took over, and they are given back to the queue when
#: the broker drops the frozen one.
RABBIT_PREFETCH = 10


def register_messaging_opts(conf):
    """Register oslo.messaging's options on ``conf``, with our defaults.

    Idempotent. Registering after the configuration files were parsed is
    fine: oslo.config reads the values when they are looked up.
    """
    for group, opts in messaging_opts.list_opts():
        conf.register_opts(opts, group=group)
    for group, opts in _unlisted_messaging_opts():
        conf.register_opts(opts, group=group)
    conf.set_default('transport_url', service_conf.DEFAULT_TRANSPORT_URL)
    conf.set_default('driver', [DEFAULT_NOTIFICATION_DRIVER],
                     group='oslo_messaging_notifications')
    conf.set_default('retry', DEFAULT_NOTIFICATION_RETRY,
                     group='oslo_messaging_notifications')
    conf.set_default('rabbit_qos_prefetch_count', RABBIT_PREFETCH,
                     group='oslo_messaging_rabbit')


#: oslo.messaging options its ``list_opts()`` leaves out: (module, list).
_UNLISTED = (('oslo_messaging._tracing.client', 'oslo_messaging_tracing'),
             ('oslo_messaging._metrics.client', 'oslo_messaging_metrics'))


def _unlisted_messaging_opts():
    """``[(group, opts)]`` of oslo.messaging options missing from its list.

    oslo.messaging registers its tracing and metrics options only on
    oslo.config's global object, yet every RPC call reads them from the
    transport's own configuration; ours is a separate object (see
    :mod:`preemptible_sched.conf`), so they are registered there too.
    """
    found = []
    for module_name, name in _UNLISTED:
        try:
            module = importlib.import_module(module_name)
        except ImportError:     # a release without that feature
            continue
        found.append((name, getattr(module, name, [])))
    return found


def get_rpc_transport(conf):
    """The RPC transport ``[DEFAULT] transport_url`` names."""
    register_messaging_opts(conf)
    return oslo_messaging.get_rpc_transport(conf)


def broker_addresses(conf, default_port=5672):
    """``[(host, port)]`` of the brokers ``[DEFAULT] transport_url`` names;
    None for the in-process ``fake://``.
    """
    register_messaging_opts(conf)
    url = oslo_messaging.TransportURL.parse(conf, conf.transport_url)
    if url.transport.split('+')[0] == 'fake':
        return None
    return [(host.hostname or '127.0.0.1', host.port or default_port)
            for host in url.hosts] or [('127.0.0.1', default_port)]


def get_notification_transport(conf):
    """The transport notifications go to (oslo.messaging's rules: the
    ``[oslo_messaging_notifications] transport_url``, else the RPC one).
    """
    register_messaging_opts(conf)
    return oslo_messaging.get_notification_transport(conf)


class NotReady(exception.PreemptibleSchedException):
    """The service is starting or stopping and cannot take the request."""


class ClockBridge:
    """Runs functions in the clock's thread for the messaging threads.

    oslo.messaging calls endpoints on its own threads, but the scheduler
    loop and the fake driver are not thread-safe: everything they do runs
    in the thread of their clock. :meth:`call` schedules a function there
    (``call_soon`` is thread-safe) and waits for its result or exception,
    at most ``timeout`` wall-clock seconds. Calls wait for :meth:`open`
    (the service has started) as long; :meth:`close` fails every call
    still waiting, so a stopping service does not hang its callers.
    """

    def __init__(self, clock, timeout):
        self.clock = clock
        self.timeout = timeout
        self._open = threading.Event()
        self._closed = False
        self._lock = threading.Lock()
        self._waiting = set()

    def open(self):
        self._open.set()

    def is_open(self):
        """Whether calls are taken (opened, and not closed)."""
        return self._open.is_set() and not self._closed

    def close(self):
        with self._lock:
            self._closed = True
            waiting, self._waiting = self._waiting, set()
        self._open.set()
        for future in waiting:
            # Only a call not started yet is cancelled; one running ends.
            future.cancel()

    def call(self, function, *args):
        """``function(*args)`` in the clock's thread; its result."""
        if not self._open.wait(self.timeout):
            raise NotReady('the service is still starting')
        future = concurrent.futures.Future()
        with self._lock:
            if self._closed:
                raise NotReady('the service is stopping')
            self._waiting.add(future)
        self.clock.call_soon(self._run, future, function, args)
        try:
            return future.result(self.timeout)
        except concurrent.futures.CancelledError:
            raise NotReady('the service is stopping') from None
        except concurrent.futures.TimeoutError:
            raise NotReady('no result within %g s' % self.timeout) from None
        finally:
            with self._lock:
                self._waiting.discard(future)

    @staticmethod
    def _run(future, function, args):
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(function(*args))
        except Exception as error:
            # The caller gets it (an RPC error reply); the clock goes on.
            future.set_exception(error)


class Service:
    """A clock run in the thread calling :meth:`run`, RPC servers, and a
    :class:`ClockBridge` from their threads to the clock's.

    A subclass's ``start()`` starts its servers (:meth:`serve`) and opens
    :attr:`bridge` once it takes requests; what else it holds, it hands
    to :meth:`on_shutdown`.
    """

    def __init__(self, conf, clock, transport=None):
        self.conf = conf
        self.clock = clock
        self.transport = transport or get_rpc_transport(conf)
        self.bridge = ClockBridge(clock, conf.service.rpc_timeout)
        self._undo = contextlib.ExitStack()
        self._rpc_servers = []
        #: why this service lost the lead of its topic (then it stopped
        #: and its command exits 1), or None
        self.deposed = None

    @property
    def ready(self):
        """Whether requests are taken (started, and not stopping)."""
        return self.bridge.is_open()

    def on_shutdown(self, function, *args):
        """Have :meth:`shutdown` call ``function(*args)``."""
        self._undo.callback(function, *args)

    def serve(self, topic, server, endpoint, **kwargs):
        """Serve ``endpoint`` on ``topic`` as ``server`` until shut down
        (``kwargs``: those of the RPC server's ``start``).
        """
        rpc_server = oslo_messaging.get_rpc_server(
            self.transport, oslo_messaging.Target(topic=topic, server=server),
            [endpoint])
        if not self._rpc_servers:
            self.on_shutdown(self._stop_servers)
        rpc_server.start(**kwargs)
        self._rpc_servers.append(rpc_server)

    def _stop_servers(self):
        """Stop every RPC server at once, then wait for each.

        A server's ``stop`` waits for its listener to come out of its
        poll, up to 5 s on RabbitMQ once the server has been idle; one
        after another, two servers took up to 10 s to stop.
        """
        servers, self._rpc_servers = self._rpc_servers, []
        with concurrent.futures.ThreadPoolExecutor(
                max(1, len(servers)),
                thread_name_prefix='rpc-server-stop') as pool:
            for stopped in [pool.submit(server.stop) for server in servers]:
                stopped.result()
        for server in servers:
            server.wait()

    def run(self):
        """``start()``, run the clock in this thread until :meth:`stop`
        (from any thread, a signal handler too), then :meth:`shutdown`.
        """
        self.start()
        try:
            self.clock.run()
        except exception.Stopping:
            LOG.info('Stopped while waiting for a remote peer: the '
                     'journal holds what was under way')
        except exception.Deposed as error:
            # A write refused: another scheduler leads now.
            self.deposed = str(error)
        finally:
            self.shutdown()

    def stop(self):
        self.clock.stop()

    def shutdown(self):
        """Fail the calls waiting, then call what :meth:`on_shutdown` was
        given, last first: each once however often this is called, and
        all of them whatever one raises (raised at the end).
        """
        self.bridge.close()
        self._undo.close()
