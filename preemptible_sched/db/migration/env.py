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

"""Alembic environment: migrates the connection handed over by the caller.

:func:`preemptible_sched.db.migration.upgrade` passes a connection in
``config.attributes['connection']``, so the migration runs in the caller's
transaction and on the caller's engine (an in-memory SQLite database
included). Without one, ``sqlalchemy.url`` is used.
"""

from alembic import context
import sqlalchemy as sa

from preemptible_sched.db import models

config = context.config
target_metadata = models.Base.metadata


def _configure(**kw):
    context.configure(target_metadata=target_metadata,
                      compare_type=True, **kw)


def run_migrations_offline():
    """Emit the SQL instead of running it (``alembic upgrade --sql``)."""
    _configure(url=config.get_main_option('sqlalchemy.url'),
               literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def _run(connection):
    # SQLite cannot ALTER most things; batch mode copies the table.
    _configure(connection=connection,
               render_as_batch=connection.dialect.name == 'sqlite')
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online():
    connection = config.attributes.get('connection')
    if connection is not None:
        _run(connection)
        return
    engine = sa.create_engine(config.get_main_option('sqlalchemy.url'),
                              poolclass=sa.pool.NullPool)
    try:
        with engine.begin() as connection:
            _run(connection)
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
