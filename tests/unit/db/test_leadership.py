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

"""One leader per database and topic, on an SQLite file; the terms that
fence a deposed leader's writes (MariaDB and PostgreSQL:
tests/functional/db/test_leadership.py and
tests/functional_real/test_multiprocess.py, with the service).
"""

import multiprocessing
import os

import fixtures
import sqlalchemy as sa

from preemptible_sched.db import api as db_api
from preemptible_sched.db import leadership
from preemptible_sched import exception
from preemptible_sched import objects
from tests import base


def _try(url, topic):
    """In another process: whether the lock of ``topic`` is free there."""
    held = leadership.try_lead(url, topic)
    if held is None:
        return False
    held.release()
    return True


class TestLock(base.TestCase):

    def setUp(self):
        super().setUp()
        folder = self.useFixture(fixtures.TempDir()).path
        self.url = 'sqlite:///%s' % os.path.join(folder, 'db.sqlite')
        self.pool = multiprocessing.get_context('spawn').Pool(1)
        self.addCleanup(self.pool.terminate)

    def elsewhere(self, topic):
        return self.pool.apply(_try, (self.url, topic))

    def test_one_holder_per_topic(self):
        held = leadership.try_lead(self.url, 'scheduler')
        self.assertIsNotNone(held)
        self.assertTrue(held.check())
        self.assertFalse(self.elsewhere('scheduler'))
        self.assertTrue(self.elsewhere('other-topic'))
        held.release()
        self.assertTrue(self.elsewhere('scheduler'))
        self.assertFalse(held.check())
        held.release()      # twice is harmless

    def test_in_memory_database_has_no_lock(self):
        self.assertIsNotNone(leadership.try_lead('sqlite://', 'scheduler'))
        self.assertIsNotNone(leadership.try_lead('sqlite://', 'scheduler'))

    def test_long_topics_fit_get_lock(self):
        name = leadership.lock_name('t' * 100)
        self.assertLessEqual(len(name), 64)
        self.assertNotEqual(name, leadership.lock_name('t' * 99))

    def test_the_name_carries_the_database(self):
        self.assertNotEqual(leadership.lock_name('scheduler', 'cloud_a'),
                            leadership.lock_name('scheduler', 'cloud_b'))
        self.assertLessEqual(
            len(leadership.lock_name('scheduler', 'd' * 64)), 64)


class TestCampaign(base.TestCase):
    """A standby tries every ``poll`` seconds until it leads; says once
    that it is a standby; a database that does not answer is tried again.
    """

    def setUp(self):
        super().setUp()
        self.tries = self.useFixture(fixtures.MockPatchObject(
            leadership, 'try_lead')).mock
        self.log = self.useFixture(fixtures.FakeLogger(
            name=leadership.__name__))

    def test_a_standby_leads_once_the_leader_is_gone(self):
        lease = leadership.Lease()
        self.tries.side_effect = [None, None, None, lease]
        standby_calls, sleeps = [], []
        self.assertIs(lease, leadership.campaign(
            'mysql+pymysql://db/psched', 'scheduler', lease=6.0, poll=0.5,
            on_standby=lambda: standby_calls.append(1),
            sleep=sleeps.append))
        self.assertEqual([0.5] * 3, sleeps)
        self.assertEqual([1], standby_calls)
        self.assertEqual(('mysql+pymysql://db/psched', 'scheduler', 6.0),
                         self.tries.call_args.args)

    def test_an_unreachable_database_is_tried_again(self):
        lease = leadership.Lease()
        self.tries.side_effect = [sa.exc.OperationalError('x', {}, 'down'),
                                  sa.exc.OperationalError('x', {}, 'down'),
                                  lease]
        standby_calls = []
        self.assertIs(lease, leadership.campaign(
            'mysql+pymysql://db/psched', 'scheduler',
            on_standby=lambda: standby_calls.append(1), sleep=lambda s: 0))
        self.assertEqual([], standby_calls)
        self.assertEqual(1, self.log.output.count('Could not reach'))

    def test_stopped_while_a_standby(self):
        self.tries.return_value = None
        tries = []
        self.assertIsNone(leadership.campaign(
            'sqlite:///x', 'scheduler', should_stop=lambda: len(tries) >= 2,
            sleep=tries.append))
        self.assertEqual(2, len(tries))


class TestTerms(base.TestCase):
    """A leader's writes check its term in their transaction: once a
    successor began one, they raise Deposed and write nothing.
    """

    def setUp(self):
        super().setUp()
        folder = self.useFixture(fixtures.TempDir()).path
        url = 'sqlite:///%s' % os.path.join(folder, 'db.sqlite')
        self.old = db_api.Store(url)
        self.old.upgrade()
        self.addCleanup(self.old.dispose)
        self.new = db_api.Store(url)
        self.addCleanup(self.new.dispose)

    def test_epochs_grow_and_name_the_holder(self):
        self.assertIsNone(self.old.leader('scheduler'))
        self.assertEqual(1, self.old.begin_term('scheduler', 'a:1', 10.0))
        self.assertEqual(2, self.new.begin_term('scheduler', 'b:2', 20.0))
        self.assertEqual(1, self.new.begin_term('other', 'b:2', 20.0))
        self.assertEqual((2, 'b:2', 20.0), self.old.leader('scheduler'))

    def test_a_deposed_leader_writes_nothing(self):
        self.old.begin_term('scheduler', 'a:1', 10.0)
        self.old.save_host(objects.Host('h1', 8, 16384, 500), 1.0)
        self.new.begin_term('scheduler', 'b:2', 20.0)
        self.assertRaises(exception.Deposed, self.old.save_host,
                          objects.Host('h2', 8, 16384, 500), 2.0)
        # Refused from then on without asking the database again.
        self.assertRaises(exception.Deposed, self.old.set_host_up, 'h1',
                          False, 3.0)
        self.assertEqual(['h1'], [row.name for row in self.new.hosts()])
        self.assertTrue(self.new.hosts()[0].up)
        # The successor writes.
        self.new.save_host(objects.Host('h3', 8, 16384, 500), 4.0)
        self.assertEqual(['h1', 'h3'],
                         sorted(row.name for row in self.new.hosts()))

    def test_deposed_by_its_own_keeper(self):
        self.old.begin_term('scheduler', 'a:1', 10.0)
        self.old.depose('the lock is gone')
        error = self.assertRaises(exception.Deposed, self.old.save_host,
                                  objects.Host('h1', 8, 16384, 500), 1.0)
        self.assertIn('the lock is gone', str(error))
        self.assertEqual([], self.new.hosts())

    def test_without_a_term_nothing_is_fenced(self):
        self.new.begin_term('scheduler', 'b:2', 20.0)
        self.old.save_host(objects.Host('h1', 8, 16384, 500), 1.0)
        self.assertEqual(['h1'], [row.name for row in self.new.hosts()])
