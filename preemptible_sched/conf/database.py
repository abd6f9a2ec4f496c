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

"""Options of the durable state: where it lives and which database holds it.

The ``[database]`` group is oslo.db's (``connection``, the pool, the
connection and deadlock retries, ...: :func:`oslo_db.options.list_opts`)
plus the scheduler's own ``auto_migrate``.
"""

import os

from oslo_config import cfg
from oslo_db import options as oslo_db_options

SQLITE_FILE = 'preemptible-sched.sqlite'

paths_opts = [
    cfg.StrOpt('state_path',
               default='~/.local/state/preemptible-sched',
               help="""
Directory where the scheduler keeps its state.

With the default ``[database] connection`` the SQLite database is the file
``preemptible-sched.sqlite`` in this directory. A leading ``~`` is expanded
when the path is used, not when the file is read, and the directory is
created if it does not exist.

Possible values:

* A directory path the scheduler may write to.

Related options:

* ``[database] connection``
"""),
]

database_group = cfg.OptGroup(
    'database',
    title='Database options',
    help="""
The database that holds the durable state: hosts, requests, instances, the
journal of decisions and the events. It is written before every termination
or spawn, so a restarted scheduler completes or rolls back every decision it
had started.

``connection`` unset (the default) means a SQLite file,
``sqlite:///<state_path>/preemptible-sched.sqlite``, enough for one
scheduler on one machine. Use MariaDB/MySQL (``mysql+pymysql://USER:PASSWORD
@HOST/DATABASE``) or PostgreSQL when the state must outlive the machine or be
shared with tools; ``sqlite://`` is an in-memory database that disappears
with the process (tests only). The schema is created and upgraded by the
scheduler's migrations; the database itself must exist.

A transaction the database aborts as a deadlock (how Galera reports a
certification conflict) is run again, up to ``db_max_retries`` times,
``db_retry_interval`` seconds apart (doubling up to
``db_max_retry_interval`` with ``db_inc_retry_interval``).
""")

database_opts = [
    cfg.BoolOpt('auto_migrate',
                default=False,
                help="""
Whether the scheduler service migrates its database to the newest schema
when it starts.

Off (the default), the service refuses to start on a database that is not
at the newest revision, and says so in one line: run
``preemptible-sched-manage db sync`` first, as part of the upgrade, while
no scheduler runs. On, the service migrates by itself (convenient for a
single scheduler; risky with several, which could migrate at once). An
in-memory SQLite database is always created at start.

Related options:

* ``connection``
"""),
]

#: The options of oslo.db the scheduler uses (the whole of oslo.db's
#: ``[database]`` group is registered, as every OpenStack service does).
OSLO_DB_OPTS = oslo_db_options.database_opts


def register_opts(conf):
    conf.register_opts(paths_opts)
    conf.register_group(database_group)
    conf.register_opts(database_opts, group=database_group)
    oslo_db_options.set_defaults(conf)


def list_opts():
    return {'DEFAULT': paths_opts,
            database_group: database_opts + list(OSLO_DB_OPTS)}


def get_state_path(conf):
    """``[DEFAULT] state_path`` with ``~`` expanded."""
    return os.path.abspath(os.path.expanduser(conf.state_path))


def get_connection_url(conf):
    """The database URL to use: the configured one or the SQLite default.

    For the default, ``state_path`` is created if it does not exist yet.
    """
    if conf.database.connection:
        return conf.database.connection
    state_path = get_state_path(conf)
    os.makedirs(state_path, exist_ok=True)
    return 'sqlite:///' + os.path.join(state_path, SQLITE_FILE)
