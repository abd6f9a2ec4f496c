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


"""Reading a load watcher over HTTP, with a short cache."""

import json
import urllib.error
import urllib.request

from preemptible_sched.conf import load as load_conf
from preemptible_sched.loadwatcher import payload as payload_mod

#: Largest payload read from a watcher.
MAX_PAYLOAD_BYTES = 64 * 1024 * 1024


class WatcherClient:
    """Reads ``GET <url>/watcher`` from any compatible load watcher.

    :meth:`latest` answers ``(windows, problem)``: the per-host metrics of
    the latest window and None, or the last good windows and why the
    watcher could not be read. Answers are kept ``cache_seconds`` (on the
    clock of the caller's ``now``), so one pass, or a burst of passes,
    makes one request.
    """

    def __init__(self, url, cache_seconds=10.0, timeout=2.0):
        if not load_conf.is_http_url(url):
            raise ValueError('load watcher URL %r: must be an http:// or '
                             'https:// URL' % url)
        self.url = url.rstrip('/')
        self.cache_seconds = cache_seconds
        self.timeout = timeout
        self._fetched_at = None
        self._windows = {}
        self._problem = 'not read yet'

    def _read(self):
        try:
            # An http(s) URL: checked in __init__ (and by the options).
            with urllib.request.urlopen(  # nosec B310
                    self.url + '/watcher', timeout=self.timeout) as response:
                body = response.read(MAX_PAYLOAD_BYTES + 1)
        except urllib.error.HTTPError as error:
            return None, 'watcher answered HTTP %d' % error.code
        except (urllib.error.URLError, OSError, ValueError) as error:
            return None, 'watcher unreachable: %s' % getattr(
                error, 'reason', error)
        if len(body) > MAX_PAYLOAD_BYTES:
            return None, 'watcher payload larger than %d bytes' % (
                MAX_PAYLOAD_BYTES)
        try:
            return payload_mod.parse(json.loads(body)), None
        except (ValueError, UnicodeDecodeError) as error:
            return None, 'bad watcher payload: %s' % str(error)[:200]

    def latest(self, now):
        if self._fetched_at is None or \
                now - self._fetched_at >= self.cache_seconds:
            self._fetched_at = now
            windows, problem = self._read()
            if windows is not None:
                self._windows = windows
            self._problem = problem
        return self._windows, self._problem
