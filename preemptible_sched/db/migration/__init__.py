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
"""

import os

from alembic import command
from alembic import config as alembic_config_mod
from alembic import migration as alembic_migration
from alembic import script as alembic_script

MIGRATIONS_DIR = os.path.dirname(os.path.abspath(__file__))


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


def upgrade(engine, revision='head'):
    """Migrate the database of ``engine`` to ``revision`` (the newest)."""
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
