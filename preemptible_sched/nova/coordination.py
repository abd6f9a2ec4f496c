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

"""One decision at a time across every scheduler host (Nova-free).

With ``[preemptible_sched] coordination_url`` set, decisions hold a tooz
lock of that backend (Redis, etcd, ZooKeeper, a database, or ``file://`` on
a shared folder), so schedulers on different hosts never choose victims at
the same time. Unset, an oslo.concurrency lock serialises the workers of
one host only (with ``[oslo_concurrency] lock_path``), and that is logged
once.
"""

import contextlib
import logging
import os
import socket
import threading

from oslo_concurrency import lockutils
from tooz import coordination

LOG = logging.getLogger(__name__)

LOCK_NAME = 'preemptible_sched-decisions'


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

    def _lock(self):
        with self._guard:
            if self._coordinator is None or self._pid != os.getpid():
                # A forked worker needs its own connection and heartbeat.
                self._coordinator = coordination.get_coordinator(
                    self.url, self.member.encode())
                self._coordinator.start(start_heart=True)
                self._pid = os.getpid()
            return self._coordinator.get_lock(LOCK_NAME.encode())

    @contextlib.contextmanager
    def __call__(self):
        if not self.url:
            with self._host_lock():
                yield
            return
        lock = self._lock()
        if not lock.acquire(blocking=self.timeout):
            raise self._timed_out(self.url.split('://')[0])
        try:
            yield
        finally:
            lock.release()

    @contextlib.contextmanager
    def _host_lock(self):
        """The fallback: oslo.concurrency's lock of this process, then its
        file lock in ``lock_path`` (the workers of this host), each waited
        for ``timeout`` s at most.
        """
        if not self._warned:
            self._warned = True
            LOG.info('No [preemptible_sched] coordination_url: decisions '
                     'are serialised among the workers of this host only.')
        internal = lockutils.internal_lock(LOCK_NAME)
        if not internal.acquire(timeout=self.timeout):
            raise self._timed_out('this process')
        try:
            if not self.lock_path:
                yield
                return
            external = lockutils.external_lock(
                LOCK_NAME, lock_file_prefix='nova-', lock_path=self.lock_path)
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
