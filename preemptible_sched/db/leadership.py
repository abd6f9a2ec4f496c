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

"""Which scheduler leads a topic on a database: a lock the server keeps.

Any number of schedulers may start on one database and one
``scheduler_topic``; the one holding this lock leads, the others wait for
it (:func:`campaign`). The lock lives in the database server, on a
connection of its own, and the server drops it by itself:

* when the process dies, ``kill -9`` included: the server sees the
  connection close and releases the lock at once, so a standby takes
  over within one poll;
* when the leader stops talking to it for ``lease`` seconds (network cut,
  frozen process): the server closes the idle session
  (``idle_session_timeout`` on PostgreSQL, ``wait_timeout`` on MariaDB)
  and the lock goes with it. The leader checks its lock more often than
  that and stops acting when it cannot (``service.leadership``).

* PostgreSQL: a session-level advisory lock (``pg_try_advisory_lock``,
  scoped to the database by the server);
* MariaDB/MySQL: ``GET_LOCK`` with no wait (its names are server-wide, so
  the name carries the database's);
* an SQLite file: an exclusive file lock beside it (one machine: no
  lease, the kernel drops it with the process);
* an in-memory SQLite database: nothing (no other process can open it).

Why the database and not tooz: the database is the one thing a scheduler
cannot act without (every decision is journaled there before it acts), so
a leader elected there cannot be cut off from its journal while a standby
reaches it, and it adds no service to run. The lock says who leads; the
term's epoch in the ``leadership`` table (see
:meth:`~preemptible_sched.db.api.Store.begin_term`) fences a leader that
lost it.
"""

import logging
import math
import os
import time
import zlib

from oslo_concurrency import lockutils
import sqlalchemy as sa

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


class Lease:
    """The lock a leading scheduler holds.

    :meth:`check` tells whether it still does (and keeps the session from
    being idle); :meth:`release` gives it up.
    """

    def __init__(self, check=None, release=None):
        self._check = check
        self._release = release

    def check(self):
        """Whether the lock is still held; False on any database error."""
        if self._release is None and self._check is not None:
            return False
        if self._check is None:
            return True
        try:
            return bool(self._check())
        except Exception as error:  # noqa: B902 any failure: not held
            LOG.warning('Could not check the scheduler lock: %s',
                        str(error).splitlines()[0] if str(error) else
                        type(error).__name__)
            return False

    def release(self):
        release, self._release = self._release, None
        if release is not None:
            release()


def _connect_args(url, lease):
    """Client-side timeouts, so a check on a cut network fails in time."""
    if lease is None:
        return {}
    driver = url.get_driver_name()
    if driver == 'psycopg2':
        return {'keepalives': 1, 'keepalives_idle': 1,
                'keepalives_interval': 1,
                'keepalives_count': max(1, int(lease / 2)),
                'connect_timeout': max(1, int(lease / 2)),
                'tcp_user_timeout': int(lease * 500)}
    if driver == 'pymysql':
        return {'read_timeout': max(1, int(lease / 2)),
                'write_timeout': max(1, int(lease / 2)),
                'connect_timeout': max(1, int(lease / 2))}
    return {}


def try_lead(url, topic, lease=None):
    """Take the lock of ``topic`` on the database at ``url`` without
    waiting: a :class:`Lease`, or None when another process holds it.

    ``lease`` (seconds) is how long the server keeps the lock of a
    leader that stopped talking to it; None: as long as the connection
    lives.
    """
    url = sa.engine.make_url(url)
    dialect = url.get_backend_name()
    if dialect == 'sqlite':
        return _hold_file(url.database, lock_name(topic))
    name = lock_name(topic, url.database)
    if dialect not in ('postgresql', 'mysql'):
        LOG.warning('No scheduler lock on a %s database: make sure a '
                    'single scheduler serves topic %s.', dialect, topic)
        return Lease()
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool,
                              connect_args=_connect_args(url, lease))
    try:
        connection = engine.connect()
    except Exception:
        engine.dispose()
        raise
    try:
        if dialect == 'postgresql':
            key = zlib.crc32(name.encode())
            got = connection.exec_driver_sql(
                'SELECT pg_try_advisory_lock(%d)' % key).scalar()
            held = (sa.text(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' "
                "AND granted AND pid = pg_backend_pid() AND "
                "CAST(objid AS bigint) = :key"), {'key': key})
            unlock = 'SELECT pg_advisory_unlock(%d)' % key
        else:
            got = connection.exec_driver_sql(
                "SELECT GET_LOCK('%s', 0)" % name).scalar() == 1
            held = (sa.text('SELECT IS_USED_LOCK(:name) = CONNECTION_ID()'),
                    {'name': name})
            unlock = "SELECT RELEASE_LOCK('%s')" % name
        if got and lease is not None:
            _expire_when_idle(connection, dialect, lease)
        connection.commit()
    except Exception:
        connection.close()
        engine.dispose()
        raise
    if not got:
        connection.close()
        engine.dispose()
        return None

    def check():
        answer = connection.execute(*held).scalar()
        connection.commit()
        return answer

    def release():
        try:
            connection.exec_driver_sql(unlock)
            connection.commit()
        except Exception as error:  # noqa: B902 gone with the session
            LOG.info('The scheduler lock went with its session: %s',
                     str(error).splitlines()[0] if str(error) else
                     type(error).__name__)
        finally:
            connection.close()
            engine.dispose()
    return Lease(check, release)


def _expire_when_idle(connection, dialect, lease):
    """Have the server close the lock's session after ``lease`` idle
    seconds (the lock goes with it).
    """
    if dialect == 'postgresql':
        version = connection.exec_driver_sql(
            'SHOW server_version_num').scalar()
        if int(version) < 140000:
            LOG.warning('PostgreSQL %s has no idle_session_timeout: a '
                        'leader cut off from the database keeps the '
                        'scheduler lock until the server drops its '
                        'connection', version)
            return
        connection.exec_driver_sql(
            "SET idle_session_timeout = '%dms'" % int(lease * 1000))
    else:
        connection.exec_driver_sql(
            'SET SESSION wait_timeout = %d' % max(1, math.ceil(lease)))


def _hold_file(path, name):
    if path in (None, '', ':memory:'):
        return Lease()
    folder, base = os.path.split(os.path.abspath(path))
    lock = lockutils.external_lock('%s-%s' % (name, base), lock_path=folder)
    if not lock.acquire(blocking=False):
        return None
    return Lease(lambda: True, lock.release)


def campaign(url, topic, lease=None, poll=1.0, should_stop=lambda: False,
             on_standby=None, sleep=time.sleep):
    """Wait until this process leads ``topic`` on the database at ``url``:
    the :class:`Lease`, or None once ``should_stop()``.

    Tries every ``poll`` seconds; ``on_standby()`` is called once, after
    the first try that found another leader. A database that does not
    answer is tried again (logged once per outage).
    """
    standby = False
    failing = False
    while not should_stop():
        try:
            lease_ = try_lead(url, topic, lease)
        except sa.exc.DBAPIError as error:
            if not failing:
                LOG.warning('Could not reach the database to take the '
                            'scheduler lock (trying again every %g s): %s',
                            poll, str(error.orig).splitlines()[0]
                            if str(error.orig) else error)
            failing = True
            lease_ = None
        else:
            failing = False
        if lease_ is not None:
            return lease_
        if not standby and not failing:
            standby = True
            if on_standby is not None:
                on_standby()
        sleep(poll)
    return None
