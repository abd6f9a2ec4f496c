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

"""The scheduler lock on the database servers: one holder per database
and topic, and two databases of one server never share it (MariaDB's
GET_LOCK names are server-wide: two test runs, or two clouds, on one
server refused each other's scheduler). A lock whose holder stops talking
to the server for its lease is dropped by the server (a leader cut off or
frozen), and the terms fence the writes of the leader that lost it.
"""

import time

from preemptible_sched.db import api
from preemptible_sched.db import leadership
from preemptible_sched import exception
from preemptible_sched import objects
from tests import base
from tests.functional.db import test_backends


class LeadershipBehaviour(test_backends.ServerDatabaseURL):

    def hold(self, url, topic, lease=None):
        held = leadership.try_lead(url, topic, lease)
        if held is not None:
            self.addCleanup(held.release)
        return held

    def test_one_holder_per_database_and_topic(self):
        url = self.database_url()
        held = self.hold(url, 'scheduler')
        self.assertIsNotNone(held)
        self.assertTrue(held.check())
        self.assertIsNone(self.hold(url, 'scheduler'))
        self.assertIsNotNone(self.hold(url, 'other-topic'))
        held.release()
        self.assertFalse(held.check())
        self.assertIsNotNone(self.hold(url, 'scheduler'))

    def test_two_databases_of_one_server_do_not_share_it(self):
        first = self.database_url()
        other = self.useFixture(self.DATABASE()).url.render_as_string(
            hide_password=False)
        self.assertIsNotNone(self.hold(first, 'scheduler'))
        self.assertIsNotNone(self.hold(other, 'scheduler'))

    def test_checked_lock_is_kept_an_idle_one_dropped(self):
        # Lease 2 s: checked every 0.5 s for 3 s it stays; then left idle,
        # the server drops it within the lease and a standby takes it.
        url = self.database_url()
        held = self.hold(url, 'scheduler', lease=2.0)
        for _ in range(6):
            time.sleep(0.5)
            self.assertTrue(held.check())
            self.assertIsNone(self.hold(url, 'scheduler', lease=2.0))
        took_over = None
        deadline = time.monotonic() + 30
        while took_over is None and time.monotonic() < deadline:
            time.sleep(0.5)
            took_over = self.hold(url, 'scheduler', lease=2.0)
        self.assertIsNotNone(took_over, 'the idle lock was never dropped')
        self.assertFalse(held.check())
        self.assertTrue(took_over.check())

    def test_terms_fence_the_old_leader(self):
        url = self.database_url()
        old, new = api.Store(url), api.Store(url)
        self.addCleanup(old.dispose)
        self.addCleanup(new.dispose)
        old.upgrade()
        self.assertEqual(1, old.begin_term('scheduler', 'a:1', 1.0))
        old.save_host(objects.Host('h1', 8, 16384, 500), 1.0)
        self.assertEqual(2, new.begin_term('scheduler', 'b:2', 2.0))
        self.assertRaises(exception.Deposed, old.save_host,
                          objects.Host('h2', 8, 16384, 500), 2.0)
        new.save_host(objects.Host('h3', 8, 16384, 500), 3.0)
        self.assertEqual(['h1', 'h3'], sorted(r.name for r in new.hosts()))


class TestLeadershipMariaDB(LeadershipBehaviour, base.TestCase):

    DATABASE = test_backends.MariaDBDatabase
    LABEL = 'MariaDB'


class TestLeadershipPostgreSQL(LeadershipBehaviour, base.TestCase):

    DATABASE = test_backends.PostgreSQLDatabase
    LABEL = 'PostgreSQL'
