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

"""Alembic migrations of the durable state, run from code.

There is no ``alembic.ini``: :func:`alembic_config` builds the alembic
configuration pointing at this directory, and :func:`upgrade` brings a
database to the newest schema. Upgrading is idempotent; a database already
at the head revision is left as it is.

To write the next migration (from the top of the source tree), bring a
scratch database to the head revision first, then compare it with the
models::

    python -c "import sqlalchemy; \\
        from preemptible_sched.db import migration; \\
        url = 'sqlite:////tmp/head.sqlite'; \\
        migration.upgrade(sqlalchemy.create_engine(url)); \\
        migration.revision('add something', url)"

then review the generated file in ``versions/``: autogenerate is a draft.

Processes that start together on an empty database (schedulers, the
Nova managers of several hosts) migrate it one at a time, under a lock of
the database: the first creates the tables, the others find it at the
head revision.
"""

import contextlib
import os
import zlib

from alembic import command
from alembic import config as alembic_config_mod
from alembic import migration as alembic_migration
from alembic import script as alembic_script
from oslo_concurrency import lockutils

MIGRATIONS_DIR = os.path.dirname(os.path.abspath(__file__))

#: The name of the lock one migrating process holds (MariaDB's GET_LOCK,
#: the file beside an SQLite database); PostgreSQL's advisory lock key is
#: its CRC-32.
LOCK_NAME = 'preemptible_sched-migration'
#: Longest wait, in seconds, for another process's migration (MariaDB).
LOCK_TIMEOUT = 300


class MigrationLockTimeout(Exception):
    """Another process held the migration lock for LOCK_TIMEOUT s."""


def alembic_config(connection=None, url=None):
    """An alembic :class:`~alembic.config.Config` for this package.

    ``connection``, when given, is the SQLAlchemy connection ``env.py``
    migrates (inside the caller's transaction); otherwise ``url`` is used.
    """
    config = alembic_config_mod.Config()
    # ConfigParser interpolation: a literal % must be doubled.
    config.set_main_option('script_location',
                           MIGRATIONS_DIR.replace('%', '%%'))
    if url is not None:
        config.set_main_option('sqlalchemy.url', str(url).replace('%', '%%'))
    if connection is not None:
        config.attributes['connection'] = connection
    return config


@contextlib.contextmanager
def migration_lock(engine):
    """Held by one process at a time per database: an advisory lock on
    PostgreSQL, ``GET_LOCK`` on MariaDB/MySQL (both on a connection of
    their own, released after the migration's commit), a file lock beside
    an SQLite file; nothing for an in-memory database.
    """
    dialect = engine.dialect.name
    if dialect == 'sqlite':
        path = engine.url.database
        if path in (None, '', ':memory:'):
            yield
            return
        folder, name = os.path.split(os.path.abspath(path))
        with lockutils.lock('%s-%s' % (LOCK_NAME, name), external=True,
                            lock_path=folder, do_log=False):
            yield
        return
    if dialect not in ('postgresql', 'mysql'):
        yield
        return
    with engine.connect() as connection:
        if dialect == 'postgresql':
            key = zlib.crc32(LOCK_NAME.encode())
            connection.exec_driver_sql('SELECT pg_advisory_lock(%d)' % key)
            unlock = 'SELECT pg_advisory_unlock(%d)' % key
        else:
            got = connection.exec_driver_sql(
                "SELECT GET_LOCK('%s', %d)" % (LOCK_NAME, LOCK_TIMEOUT)
            ).scalar()
            if got != 1:
                raise MigrationLockTimeout(
                    'another process has been migrating the database for '
                    '%d s' % LOCK_TIMEOUT)
            unlock = "SELECT RELEASE_LOCK('%s')" % LOCK_NAME
        try:
            yield
        finally:
            connection.exec_driver_sql(unlock)
            connection.rollback()


def upgrade(engine, revision='head'):
    """Migrate the database of ``engine`` to ``revision`` (the newest),
    under :func:`migration_lock`.
    """
    with migration_lock(engine):
        with engine.begin() as connection:
            command.upgrade(alembic_config(connection=connection), revision)


def current_revision(engine):
    """The revision the database of ``engine`` is at, None if empty."""
    with engine.connect() as connection:
        context = alembic_migration.MigrationContext.configure(connection)
        return context.get_current_revision()


def head_revision():
    """The newest revision shipped with this package."""
    directory = alembic_script.ScriptDirectory.from_config(alembic_config())
    return directory.get_current_head()


def revision(message, url):
    """Autogenerate a draft migration against the database at ``url``.

    The database must be at the head revision; the draft holds the
    difference between it and :mod:`preemptible_sched.db.models`.
    """
    return command.revision(alembic_config(url=url), message=message,
                            autogenerate=True)


def is_known(revision):
    """Whether ``revision`` is one of the revisions of this package."""
    directory = alembic_script.ScriptDirectory.from_config(alembic_config())
    try:
        return directory.get_revision(revision) is not None
    except Exception:   # alembic's CommandError / ResolutionError
        return False
