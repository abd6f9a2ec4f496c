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

"""Options of the durable state: where it lives and which database holds it."""

import os

from oslo_config import cfg

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
    cfg.StrOpt('connection',
               secret=True,
               help="""
SQLAlchemy URL of the database that holds the scheduler's state.

Unset (the default) means a SQLite file,
``sqlite:///<state_path>/preemptible-sched.sqlite``, enough for one
scheduler on one machine. Use MariaDB/MySQL or PostgreSQL when the state must
outlive the machine or be shared with tools. The schema is created and
upgraded by the scheduler's migrations; the database itself must exist.

Possible values:

* ``mysql+pymysql://USER:PASSWORD@HOST/DATABASE``, e.g.
  ``mysql+pymysql://root@127.0.0.1/test``
* ``postgresql+psycopg2://USER:PASSWORD@HOST/DATABASE``, e.g.
  ``postgresql+psycopg2://postgres@127.0.0.1/test``
* ``sqlite:///PATH`` for a SQLite file, ``sqlite://`` for an in-memory
  database that disappears with the process (tests only).

Related options:

* ``[DEFAULT] state_path``
"""),
]


def register_opts(conf):
    conf.register_opts(paths_opts)
    conf.register_group(database_group)
    conf.register_opts(database_opts, group=database_group)


def list_opts():
    return {'DEFAULT': paths_opts, database_group: database_opts}


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
