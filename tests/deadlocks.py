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

"""Deadlocks injected into the transactions of a store or a journal."""

import contextlib

from oslo_db import exception as db_exc


def raise_deadlock(unit):
    """Fail as Galera fails a certification conflict: at the end of the
    transaction, after its statements ran.
    """
    unit.flush()
    raise db_exc.DBDeadlock()


class Deadlocks:
    """Count the transactions ``owner`` opens with its method ``hook`` (a
    context manager yielding a session), and end number ``at`` (from 0)
    and those after it with ``fail(session)``, ``times`` times in all (or
    those ``choose()`` picks).
    """

    def __init__(self, owner, hook, at=None, times=1, fail=raise_deadlock,
                 choose=None):
        self.count = self.failed = 0
        original = getattr(owner, hook)
        if choose is None:
            def choose():
                return (at is not None and self.count > at and
                        self.failed < times)

        @contextlib.contextmanager
        def transaction():
            self.count += 1
            with original() as unit:
                yield unit
                if choose():
                    self.failed += 1
                    fail(unit)
        setattr(owner, hook, transaction)


def check_each_once(case, make, hook, run, rows):
    """Run ``run(owner)`` on an owner from ``make()`` undisturbed, then
    on a new one for each of its transactions, that one deadlocking once:
    each such run answers the same and ends with the same ``rows(owner)``.
    Returns how many transactions, the answers and the rows.
    """
    undisturbed = make()
    counter = Deadlocks(undisturbed, hook)
    answers = run(undisturbed)
    expected = rows(undisturbed)
    for at in range(counter.count):
        owner = make()
        injected = Deadlocks(owner, hook, at=at)
        case.assertEqual(answers, run(owner), 'transaction %d' % at)
        case.assertEqual((1, counter.count + 1),
                         (injected.failed, injected.count), at)
        case.assertEqual(expected, rows(owner), 'transaction %d' % at)
    return counter.count, answers, expected
