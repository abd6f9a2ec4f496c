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

"""Setting up a store's engine: oslo.db's engine with the ``[database]``
options (its pool, connection recycling and connection retries, its
translation of driver errors into :mod:`oslo_db.exception`, foreign keys
enforced on SQLite), one lock per SQLite file for the whole process, and
the URL of a database as messages show it, or the SQLite file it names
that does not exist yet.
"""

import os
import threading

from oslo_db.sqlalchemy import engines
import sqlalchemy as sa

#: ``[database]`` options passed to :func:`oslo_db.sqlalchemy.engines.
#: create_engine` under the same name.
ENGINE_OPTIONS = ('connection_recycle_time', 'max_pool_size',
                  'max_overflow', 'pool_timeout', 'max_retries',
                  'retry_interval', 'mysql_sql_mode', 'mysql_wsrep_sync_wait',
                  'connection_debug', 'connection_trace',
                  'connection_parameters', 'sqlite_synchronous')

#: Seconds a SQLite connection waits for another process's write lock.
SQLITE_BUSY_TIMEOUT = 30


def create_engine(url, conf=None, **overrides):
    """The engine of the database at ``url``, made by oslo.db.

    With ``conf``, its ``[database]`` options size the pool, recycle
    connections and retry the first connection (``max_retries`` times,
    ``retry_interval`` s apart); without, oslo.db's defaults (MySQL's
    ``TRADITIONAL`` SQL mode) and no connection at creation (the first
    use connects). ``overrides`` win.
    """
    url = sa.engine.make_url(url)
    kw = {'sqlite_fk': True, 'max_retries': 0,
          'mysql_sql_mode': 'TRADITIONAL'}
    if conf is not None:
        kw.update((name, getattr(conf.database, name))
                  for name in ENGINE_OPTIONS)
    kw.update(overrides)
    engine = engines.create_engine(url, **kw)
    if url.get_backend_name() == 'sqlite':
        sa.event.listen(engine, 'connect', _sqlite_busy_timeout)
    return engine


def _sqlite_busy_timeout(dbapi_connection, connection_record):
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute('PRAGMA busy_timeout = %d'
                       % (SQLITE_BUSY_TIMEOUT * 1000))
    finally:
        cursor.close()


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
