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

"""One scheduler per database and topic, on an SQLite file (MariaDB and
PostgreSQL: tests/functional_real/test_multiprocess.py, with the service).
"""

import multiprocessing
import os

import fixtures
import sqlalchemy as sa

from preemptible_sched.db import ownership
from tests import base


def _try(url, topic):
    """In another process: whether the lock of ``topic`` is free there."""
    held = ownership.hold(sa.create_engine(url), topic)
    if held is None:
        return False
    held.release()
    return True


class TestOwnership(base.TestCase):

    def setUp(self):
        super().setUp()
        folder = self.useFixture(fixtures.TempDir()).path
        self.url = 'sqlite:///%s' % os.path.join(folder, 'db.sqlite')
        self.engine = sa.create_engine(self.url)
        self.pool = multiprocessing.get_context('spawn').Pool(1)
        self.addCleanup(self.pool.terminate)

    def elsewhere(self, topic):
        return self.pool.apply(_try, (self.url, topic))

    def test_one_holder_per_topic(self):
        held = ownership.hold(self.engine, 'scheduler')
        self.assertIsNotNone(held)
        self.assertFalse(self.elsewhere('scheduler'))
        self.assertTrue(self.elsewhere('other-topic'))
        held.release()
        self.assertTrue(self.elsewhere('scheduler'))
        held.release()      # twice is harmless

    def test_in_memory_database_has_no_lock(self):
        memory = sa.create_engine('sqlite://')
        self.assertIsNotNone(ownership.hold(memory, 'scheduler'))
        self.assertIsNotNone(ownership.hold(memory, 'scheduler'))

    def test_long_topics_fit_get_lock(self):
        name = ownership.lock_name('t' * 100)
        self.assertLessEqual(len(name), 64)
        self.assertNotEqual(name, ownership.lock_name('t' * 99))

    def test_the_name_carries_the_database(self):
        self.assertNotEqual(ownership.lock_name('scheduler', 'cloud_a'),
                            ownership.lock_name('scheduler', 'cloud_b'))
        self.assertLessEqual(
            len(ownership.lock_name('scheduler', 'd' * 64)), 64)
