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

"""One scheduler per database and topic.

Two scheduler services on one database and one ``scheduler_topic`` would
share the requests and the agents' reports and decide on the same hosts
from journals they both write: neither safe nor refused before. A
scheduler now holds, for as long as it runs, a lock the database server
releases by itself when the process dies (kill -9 included), so a restart
never waits for a lease:

* PostgreSQL: a session-level advisory lock (``pg_try_advisory_lock``,
  scoped to the database by the server);
* MariaDB/MySQL: ``GET_LOCK`` with no wait (its names are server-wide, so
  the name carries the database's);
* an SQLite file: an exclusive file lock beside it;
* an in-memory SQLite database: nothing (no other process can open it).

Each is held on a connection of its own. :func:`hold` answers None when
another process holds the lock; the service then refuses to start.
"""

import logging
import os
import zlib

from oslo_concurrency import lockutils

LOG = logging.getLogger(__name__)

#: The lock's name, with the database's and the topic: ``GET_LOCK`` names
#: are 64 characters at most, so a long pair is replaced by its CRC-32.
PREFIX = 'preemptible_sched-scheduler-'


def lock_name(topic, database=None):
    """The lock of ``topic`` on ``database`` (a name within a server)."""
    scope = '%s/%s' % (database, topic) if database else topic
    name = PREFIX + scope
    if len(name) > 64:
        name = '%s%08x' % (PREFIX, zlib.crc32(scope.encode()))
    return name


class Ownership:
    """The lock a running scheduler holds; :meth:`release` gives it up."""

    def __init__(self, release):
        self._release = release

    def release(self):
        release, self._release = self._release, None
        if release is not None:
            release()


def hold(engine, topic):
    """Take the lock of ``topic`` on ``engine``'s database, without
    waiting: an :class:`Ownership`, or None when another process has it.
    """
    dialect = engine.dialect.name
    if dialect == 'sqlite':
        return _hold_file(engine.url.database, lock_name(topic))
    name = lock_name(topic, engine.url.database)
    if dialect not in ('postgresql', 'mysql'):
        LOG.warning('No scheduler lock on a %s database: make sure a '
                    'single scheduler serves topic %s.', dialect, topic)
        return Ownership(None)
    connection = engine.connect()
    try:
        if dialect == 'postgresql':
            key = zlib.crc32(name.encode())
            got = connection.exec_driver_sql(
                'SELECT pg_try_advisory_lock(%d)' % key).scalar()
            unlock = 'SELECT pg_advisory_unlock(%d)' % key
        else:
            got = connection.exec_driver_sql(
                "SELECT GET_LOCK('%s', 0)" % name).scalar() == 1
            unlock = "SELECT RELEASE_LOCK('%s')" % name
        connection.commit()
    except Exception:
        connection.close()
        raise
    if not got:
        connection.close()
        return None

    def release():
        try:
            connection.exec_driver_sql(unlock)
            connection.commit()
        finally:
            connection.close()
    return Ownership(release)


def _hold_file(path, name):
    if path in (None, '', ':memory:'):
        return Ownership(None)
    folder, base = os.path.split(os.path.abspath(path))
    lock = lockutils.external_lock('%s-%s' % (name, base), lock_path=folder)
    if not lock.acquire(blocking=False):
        return None
    return Ownership(lock.release)
