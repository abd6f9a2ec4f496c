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

"""Durable state of the scheduler: SQLAlchemy models, API and migrations.

While it runs, the scheduler keeps its working state in memory (the host
manager). The database is the durable journal of that state: the hosts it
knows, the requests it accepted, every instance with its lifecycle and
accumulated times, the events, and above all the **decisions**. Each
decision is journaled before the first termination or spawn it causes is
issued, so a scheduler that crashes anywhere in between finds, on restart,
every unfinished decision with the victims whose termination was confirmed,
and completes it or rolls it back: no request is lost, no instance is
terminated twice, and no host is left holding more than its capacity.

:mod:`~preemptible_sched.db.api` is the entry point for the rest of the
scheduler (its :class:`~preemptible_sched.db.api.Store` with the methods
of :mod:`~preemptible_sched.db.request_store` and
:mod:`~preemptible_sched.db.decision_journal`, what it raises in
:mod:`~preemptible_sched.db.errors`);
:mod:`~preemptible_sched.db.models` declares the tables and
:mod:`~preemptible_sched.db.migration` creates and upgrades them with
alembic. SQLite is the default; MariaDB/MySQL and PostgreSQL are supported.
"""
