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

"""Decision locks across every scheduler host (Nova-free).

With ``[preemptible_sched] coordination_url`` set, the locks are tooz
locks of that backend (Redis, etcd, ZooKeeper, a database, or ``file://``
on a shared folder), shared by every scheduler host. Unset, oslo.concurrency
locks serialise the workers of one host only (with ``[oslo_concurrency]
lock_path``), and that is logged once. Two kinds:

* ``lock()``, the cloud-wide lock: the periodic rules that pick victims
  across the cloud;
* ``lock(names)``, one lock per compute node: a decision holds the locks
  of the nodes it places on from the moment it checks them again to the
  moment its claims and victims are journaled, so decisions on other
  nodes never wait for it.

:func:`backend_problem`, called by ``preemptible-nova-scheduler`` once it
has read ``nova.conf``, loads tooz's driver for the URL's backend (which
imports the backend's client library) and connects once: a library that is
not installed, an unknown backend or a backend that does not answer stops
the scheduler at start with one line, rather than at its first decision
with a traceback.
"""

import contextlib
import importlib.metadata
import logging
import os
import socket
import threading
import urllib.parse

from oslo_concurrency import lockutils
from tooz import coordination

from preemptible_sched.conf import parsing

LOG = logging.getLogger(__name__)

LOCK_NAME = 'preemptible_sched-decisions'

OPTION = '[preemptible_sched] coordination_url'
#: tooz backend (the URL's scheme) -> the extra of preemptible-sched that
#: installs its client library (setup.cfg); the others need none.
BACKEND_EXTRAS = {
    'redis': 'redis',
    'etcd3+http': 'etcd',
    'etcd3+https': 'etcd',
    'zookeeper': 'zookeeper',
    'kazoo': 'zookeeper',
    'memcached': 'memcached',
    'mysql': 'mysql',
    'postgresql': 'postgresql',
}
#: Longest wait (s) for the backend when the scheduler starts.
CHECK_TIMEOUT = 10.0


class LockTimeout(Exception):
    """The decision lock was not acquired in time."""


class DecisionLock:
    """``with lock():`` holds the decision lock.

    ``url`` is a tooz backend URL or None; ``timeout`` bounds the wait (s);
    ``lock_path`` is the oslo.concurrency folder for the fallback.
    """

    def __init__(self, url, timeout, lock_path=None, member=None):
        self.url = url
        self.timeout = timeout
        self.lock_path = lock_path
        self.member = member or '%s-%d' % (socket.gethostname(), os.getpid())
        self._coordinator = None
        self._pid = None
        self._guard = threading.Lock()
        self._warned = False

    def _lock(self, name):
        with self._guard:
            if self._coordinator is None or self._pid != os.getpid():
                # A forked worker needs its own connection and heartbeat.
                self._coordinator = coordination.get_coordinator(
                    self.url, self.member.encode())
                self._coordinator.start(start_heart=True)
                self._pid = os.getpid()
            return self._coordinator.get_lock(name.encode())

    @contextlib.contextmanager
    def __call__(self, names=None):
        """Hold the cloud-wide lock, or with ``names`` the lock of each
        (taken in sorted order, so that two holders never wait for each
        other).
        """
        keys = ([LOCK_NAME] if names is None else
                ['%s-%s' % (LOCK_NAME, name) for name in sorted(set(names))])
        with contextlib.ExitStack() as held:
            for key in keys:
                held.enter_context(self._one(key))
            yield

    @contextlib.contextmanager
    def _one(self, key):
        if not self.url:
            with self._host_lock(key):
                yield
            return
        lock = self._lock(key)
        if not lock.acquire(blocking=self.timeout):
            raise self._timed_out(self.url.split('://')[0])
        try:
            yield
        finally:
            lock.release()

    @contextlib.contextmanager
    def _host_lock(self, key):
        """The fallback: oslo.concurrency's lock of this process, then its
        file lock in ``lock_path`` (the workers of this host), each waited
        for ``timeout`` s at most.
        """
        if not self._warned:
            self._warned = True
            LOG.info('No [preemptible_sched] coordination_url: decisions '
                     'are serialised among the workers of this host only.')
        internal = lockutils.internal_lock(key)
        if not internal.acquire(timeout=self.timeout):
            raise self._timed_out('this process')
        try:
            if not self.lock_path:
                yield
                return
            external = lockutils.external_lock(
                key, lock_file_prefix='nova-', lock_path=self.lock_path)
            if not external.acquire(timeout=self.timeout):
                raise self._timed_out('file')
            try:
                yield
            finally:
                external.release()
        finally:
            internal.release()

    def _timed_out(self, backend):
        return LockTimeout('the decision lock (%s) was not acquired in %s s'
                           % (backend, self.timeout))

    def stop(self):
        with self._guard:
            if self._coordinator is not None and self._pid == os.getpid():
                self._coordinator.stop()
            self._coordinator = None


class BackendUnavailable(Exception):
    """The backend of ``coordination_url`` cannot be used; the message is
    one line naming the option and the backend.
    """

    def __init__(self, message, installed=True):
        #: False when what is missing is a Python package (an extra)
        self.installed = installed
        super().__init__('%s: %s' % (OPTION, message))


def _driver(url):
    """tooz's driver class for the backend of ``url``, loaded (which
    imports the backend's client library).
    """
    scheme = urllib.parse.urlsplit(url).scheme
    found = importlib.metadata.entry_points(group='tooz.backends',
                                            name=scheme)
    if not found:
        valid = sorted(ep.name for ep in importlib.metadata.entry_points(
            group='tooz.backends'))
        raise BackendUnavailable('unknown tooz backend %r (valid: %s)'
                                 % (scheme, ', '.join(valid)))
    try:
        return tuple(found)[0].load()
    except ImportError as error:
        extra = BACKEND_EXTRAS.get(scheme)
        remedy = ("pip install '.[%s]' from a checkout of "
                  "preemptible-sched" % extra if extra else
                  'install the Python package %s' % (error.name or '?'))
        raise BackendUnavailable(
            'the %s backend needs the Python package %s, which is not '
            'installed (%s): %s' % (scheme, error.name or '?', error,
                                    remedy), installed=False) from None


def _where(url):
    """The backend and its address, without credentials."""
    parts = urllib.parse.urlsplit(url)
    address = parts.hostname or parts.path or ''
    if parts.port:
        address = '%s:%d' % (address, parts.port)
    return '%s backend at %s' % (parts.scheme, address) if address \
        else '%s backend' % parts.scheme


def _connect_once(url, timeout):
    """Start and stop a coordinator of ``url`` (no heartbeat); the error
    it raised, or TimeoutError after ``timeout`` s.
    """
    outcome = []

    def connect():
        try:
            member = 'preemptible_sched-check-%d' % os.getpid()
            coordinator = coordination.get_coordinator(url, member.encode())
            coordinator.start(start_heart=False)
            coordinator.stop()
            outcome.append(None)
        except Exception as error:
            outcome.append(error)

    # A thread of its own: some clients wait long for an address that
    # does not answer; a daemon one never holds the process up.
    thread = threading.Thread(target=connect, daemon=True,
                              name='coordination-check')
    thread.start()
    thread.join(timeout)
    if not outcome:
        return TimeoutError('no answer within %g s' % timeout)
    return outcome[0]


def check_backend(url, timeout=CHECK_TIMEOUT):
    """Raise :class:`BackendUnavailable` unless the tooz backend of
    ``url`` is installed and answers within ``timeout`` s; nothing to
    check without a URL (the lock of one host).
    """
    if not url:
        return
    _driver(url)
    error = _connect_once(url, timeout)
    if error is not None:
        reason = ' '.join(str(error).split()) or type(error).__name__
        raise BackendUnavailable('the %s does not answer: %s' % (
            _where(url), parsing.mask_passwords(reason)))
