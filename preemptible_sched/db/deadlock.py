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

"""Running a transaction again when the database aborts it as a deadlock.

MariaDB and MySQL abort one of two transactions that wait on each other
(error 1213), and Galera, as OpenStack clouds run MariaDB, aborts at
commit the transaction that lost a certification conflict with a write on
another node, also as error 1213. oslo.db's engine raises
:class:`oslo_db.exception.DBDeadlock` for both; the transaction was rolled
back, so running it again from its start is safe. Every write of the store
and every move of the journals is one transaction that re-reads what it
changes (a row locked ``FOR UPDATE``, or a conditional UPDATE from the
states it may come from), so a move run again after a rollback is made
once, or refused if another writer made it meanwhile.

:func:`retried` marks such a method; the object it is a method of says
how to retry with its ``deadlock_retry`` attribute, made by :func:`policy`
(None: no retry, as in the simulator's in-memory store). A method that
still deadlocks after the last retry raises :class:`GaveUp`.
"""

import functools

from oslo_db import api as oslo_db_api
from oslo_db import exception as db_exc

from preemptible_sched import exception


class GaveUp(exception.PreemptibleSchedException):
    """A transaction deadlocked at every attempt; nothing was written."""

    def __init__(self, what, attempts, error):
        self.attempts = attempts
        super().__init__(
            '%s was aborted as a deadlock by the database %d time(s) in a '
            'row, nothing written; giving up (see [database] '
            'db_max_retries): %s' % (what, attempts, error))


class Policy:
    """Retry a deadlocked transaction up to ``max_retries`` times
    (-1: forever), ``interval`` s after the first attempt, doubling up to
    ``max_interval`` if ``increase`` (with oslo.db's jitter).
    """

    def __init__(self, max_retries=20, interval=1, increase=True,
                 max_interval=10):
        self.max_retries = max_retries
        self._wrap = oslo_db_api.wrap_db_retry(
            max_retries=max_retries, retry_interval=interval,
            inc_retry_interval=increase, max_retry_interval=max_interval,
            retry_on_deadlock=True)

    def call(self, what, function, *args, **kwargs):
        """``function(*args, **kwargs)``, run again while it deadlocks."""
        attempts = []

        def attempt():
            attempts.append(None)
            return function(*args, **kwargs)

        try:
            return self._wrap(attempt)()
        except db_exc.DBDeadlock as error:
            raise GaveUp(what, len(attempts), error) from error


def policy(conf):
    """The :class:`Policy` of ``[database]`` ``db_max_retries``,
    ``db_retry_interval``, ``db_inc_retry_interval`` and
    ``db_max_retry_interval`` of ``conf``.
    """
    database = conf.database
    return Policy(max_retries=database.db_max_retries,
                  interval=database.db_retry_interval,
                  increase=database.db_inc_retry_interval,
                  max_interval=database.db_max_retry_interval)


def retried(method):
    """Run ``method`` again while it deadlocks, as its object's
    ``deadlock_retry`` (a :class:`Policy`, or None) says. Only for a
    method that is one whole transaction: a retry inside an enclosing
    transaction would run again only part of it.
    """
    what = method.__name__

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        retry = getattr(self, 'deadlock_retry', None)
        if retry is None:
            return method(self, *args, **kwargs)
        return retry.call(what, method, self, *args, **kwargs)
    return wrapper
