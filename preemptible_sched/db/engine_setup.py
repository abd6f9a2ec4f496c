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

"""Setting up a store's engine: what every SQLite connection needs (one
lock per SQLite file for the whole process, foreign keys enforced), and
the URL of a database as messages show it, or the SQLite file it names
that does not exist yet.
"""

import os
import threading

import sqlalchemy as sa

# One lock per SQLite file for the whole process: SQLite has one writer at
# a time, and two stores on the same file in one process (a restarted loop
# in a test) must not make each other fail with "database is locked".
_SQLITE_LOCKS = {}
_SQLITE_LOCKS_GUARD = threading.Lock()


def sqlite_lock(url):
    if url.database in (None, '', ':memory:'):
        return threading.RLock()
    path = os.path.abspath(url.database)
    with _SQLITE_LOCKS_GUARD:
        return _SQLITE_LOCKS.setdefault(path, threading.RLock())


def enable_sqlite_foreign_keys(dbapi_connection, connection_record):
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute('PRAGMA foreign_keys=ON')
    finally:
        cursor.close()


def shown_url(url):
    """``url`` without its password, for messages."""
    return sa.engine.make_url(url).render_as_string(hide_password=True)


def sqlite_file_missing(url):
    """The path of a SQLite file ``url`` names that does not exist yet,
    else None (connecting would create it).
    """
    url = sa.engine.make_url(url)
    if url.get_backend_name() != 'sqlite' or url.database in (
            None, '', ':memory:') or url.database.startswith('file:'):
        return None
    path = os.path.abspath(os.path.expanduser(url.database))
    return None if os.path.exists(path) else path
