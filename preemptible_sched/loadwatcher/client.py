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


"""Reading a load watcher over HTTP, in the background, with a short cache.

The scheduler's loop never waits for the watcher: :meth:`WatcherClient.latest`
answers at once with the windows last read, and starts a read in a
thread of its own when they are older than ``cache_seconds``. Each read
is bounded (:mod:`.reading`: a total deadline, a size, a depth) and its
payload checked against the schema, times bounded, and laid out as a
:class:`~preemptible_sched.hosts.load_reading.Reading` before it replaces
the windows; a failed read leaves the previous windows in use, and the
weighers judge them stale when they are.
"""

import logging
import threading

from preemptible_sched.conf import load_watcher as watcher_conf
from preemptible_sched.hosts import load_reading
from preemptible_sched.loadwatcher import payload as payload_mod
from preemptible_sched.loadwatcher import reading

LOG = logging.getLogger(__name__)

#: Largest payload read from a watcher unless told otherwise.
MAX_PAYLOAD_BYTES = 16 * 1024 * 1024


class WatcherClient:
    """Reads ``GET <url>/watcher`` from any compatible load watcher.

    :meth:`latest` answers ``(windows, problem)`` at once: the per-host
    metrics of the latest window read, and None or why the last read
    failed. A read is started (in a daemon thread, one at a time) when
    the windows are ``cache_seconds`` old on the clock of the caller's
    ``now``, so one pass, or a burst of passes, makes one request; each
    read takes at most ``timeout`` seconds and ``max_bytes`` bytes.
    """

    def __init__(self, url, cache_seconds=10.0, timeout=5.0,
                 max_bytes=MAX_PAYLOAD_BYTES):
        if not watcher_conf.is_http_url(url):
            raise ValueError('load watcher URL %r: must be an http:// or '
                             'https:// URL' % url)
        self.url = url.rstrip('/')
        self.cache_seconds = cache_seconds
        self.timeout = timeout
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self._asked_at = None
        self._reader = None
        self._windows = {}
        self._problem = 'not read yet'
        self._warned = False
        self._prefetched = False

    def _read(self):
        """``(windows, None)`` or ``(None, why)``, within the limits."""
        try:
            status, body = reading.get(self.url + '/watcher', self.timeout,
                                       self.max_bytes)
        except reading.ReadError as error:
            return None, 'watcher unreachable: %s' % error
        if status != 200:
            return None, 'watcher answered HTTP %d' % status
        try:
            windows = payload_mod.parse(reading.loads(body))
        except ValueError as error:
            return None, 'bad watcher payload: %s' % str(error)[:200]
        # Laid out as arrays here, in the reading thread, not in a pass.
        return load_reading.Reading.of(windows, getattr(
            self._windows, 'names', None)), None

    def _refresh(self):
        try:
            windows, problem = self._read()
        except Exception as error:      # a bug: said, and the reads go on
            LOG.debug('Reading the load watcher at %s', self.url,
                      exc_info=True)
            windows, problem = None, 'read failed: %s: %s' % (
                type(error).__name__, str(error)[:200])
        with self._lock:
            if windows is not None:
                self._windows = windows
            self._problem = problem
            self._reader = None
            if problem is not None and not self._warned:
                LOG.warning('Load watcher at %s cannot be read (%s): the '
                            'windows read before are used until they are '
                            'stale', self.url, problem)
            elif problem is None and self._warned:
                LOG.warning('Load watcher at %s is read again', self.url)
            self._warned = problem is not None

    def prefetch(self):
        """Start the first read now (before the first pass asks)."""
        with self._lock:
            self._prefetched = True
            self._start_reading()

    def _start_reading(self):
        if self._reader is None:
            self._reader = threading.Thread(
                target=self._refresh, name='load-watcher-read', daemon=True)
            self._reader.start()

    def latest(self, now):
        with self._lock:
            if self._asked_at is None and self._prefetched:
                self._asked_at = now    # the prefetch is this read
            if self._reader is None and (
                    self._asked_at is None or
                    now - self._asked_at >= self.cache_seconds):
                self._asked_at = now
                self._start_reading()
            return self._windows, self._problem

    def wait(self, timeout):
        """Wait up to ``timeout`` seconds for a read under way (tests,
        tools); True when none is.
        """
        with self._lock:
            reader = self._reader
        if reader is not None:
            reader.join(timeout)
            return not reader.is_alive()
        return True
