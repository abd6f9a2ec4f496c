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


"""The load watcher's SQLite file: samples and windows survive a restart.

One local file (``[load_watcher] state_file``) holds the samples of the
last 15 minutes and the windows computed from them, with when they were
computed; a restarted watcher reads them back and answers its first
request with the same windows as before, then goes on collecting. Every
write is one transaction: a crash leaves the previous state, never half
of the new one.
"""

import contextlib
import os
import sqlite3

from preemptible_sched import exception

_SCHEMA = """
CREATE TABLE IF NOT EXISTS samples (
    host TEXT NOT NULL, at REAL NOT NULL, cpu REAL, memory REAL);
CREATE INDEX IF NOT EXISTS samples_at ON samples (at);
CREATE TABLE IF NOT EXISTS windows (
    host TEXT NOT NULL, window TEXT NOT NULL, resource TEXT NOT NULL,
    avg REAL NOT NULL, std REAL NOT NULL, latest REAL NOT NULL,
    PRIMARY KEY (host, window, resource));
CREATE TABLE IF NOT EXISTS state (key TEXT PRIMARY KEY, value REAL);
CREATE TABLE IF NOT EXISTS newest (host TEXT PRIMARY KEY, at REAL NOT NULL);
"""


class WatcherStore:
    """Samples and windows in the SQLite file at ``path``
    (``:memory:`` keeps them in memory only).
    """

    def __init__(self, path):
        self.path = path
        try:
            if path != ':memory:':
                os.makedirs(os.path.dirname(os.path.abspath(path)),
                            exist_ok=True)
            # One connection shared by the collecting and serving
            # threads, each use under the watcher's lock.
            self._db = sqlite3.connect(path, check_same_thread=False)
            self._db.executescript(_SCHEMA)
        except (OSError, sqlite3.Error) as error:
            raise exception.InvalidInput(
                path, None, 'cannot keep the load watcher\'s state here: '
                '%s' % (getattr(error, 'strerror', None) or error))

    @contextlib.contextmanager
    def _transaction(self):
        with self._db:
            yield self._db

    def add_samples(self, at, samples, keep_after):
        """Store ``{host: (cpu, memory)}`` taken at ``at``; forget the
        samples older than ``keep_after``.
        """
        with self._transaction() as db:
            db.executemany('INSERT INTO samples VALUES (?, ?, ?, ?)',
                           [(host, at, cpu, memory) for host, (cpu, memory)
                            in samples.items()])
            db.execute('DELETE FROM samples WHERE at < ?', (keep_after,))

    def samples(self):
        """``[(host, at, cpu, memory)]`` in time order."""
        return self._db.execute('SELECT host, at, cpu, memory FROM samples '
                                'ORDER BY at, rowid').fetchall()

    def save_windows(self, computed_at, windows, newest=None):
        """Replace the windows by ``{host: {window: {resource: (avg, std,
        latest)}}}`` computed at ``computed_at``, and the time of each
        host's newest sample by ``newest`` (``{host: time}``).
        """
        rows = [(host, window, resource) + tuple(stats)
                for host, by_window in windows.items()
                for window, by_resource in by_window.items()
                for resource, stats in by_resource.items()]
        with self._transaction() as db:
            db.execute('DELETE FROM windows')
            db.executemany('INSERT INTO windows VALUES (?, ?, ?, ?, ?, ?)',
                           rows)
            db.execute('INSERT OR REPLACE INTO state VALUES '
                       "('computed_at', ?)", (computed_at,))
            db.execute('DELETE FROM newest')
            db.executemany('INSERT INTO newest VALUES (?, ?)',
                           sorted((newest or {}).items()))

    def windows(self):
        """``(computed_at or None, windows)`` as last saved."""
        row = self._db.execute("SELECT value FROM state WHERE key = "
                               "'computed_at'").fetchone()
        windows = {}
        for host, window, resource, avg, std, latest in self._db.execute(
                'SELECT host, window, resource, avg, std, latest '
                'FROM windows'):
            windows.setdefault(host, {}).setdefault(window, {})[resource] = (
                avg, std, latest)
        return (None if row is None else row[0]), windows

    def newest(self):
        """``{host: time of its newest sample}`` as last saved (a file
        of an older release has none).
        """
        return dict(self._db.execute('SELECT host, at FROM newest'))

    def close(self):
        self._db.close()
