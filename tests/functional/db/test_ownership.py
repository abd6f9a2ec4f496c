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
server refused each other's scheduler).
"""

import sqlalchemy as sa

from preemptible_sched.db import ownership
from tests import base
from tests.functional.db import test_backends


class OwnershipBehaviour(test_backends.ServerDatabaseURL):

    def engine(self, url):
        engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
        self.addCleanup(engine.dispose)
        return engine

    def hold(self, url, topic):
        held = ownership.hold(self.engine(url), topic)
        if held is not None:
            self.addCleanup(held.release)
        return held

    def test_one_holder_per_database_and_topic(self):
        url = self.database_url()
        held = self.hold(url, 'scheduler')
        self.assertIsNotNone(held)
        self.assertIsNone(self.hold(url, 'scheduler'))
        self.assertIsNotNone(self.hold(url, 'other-topic'))
        held.release()
        self.assertIsNotNone(self.hold(url, 'scheduler'))

    def test_two_databases_of_one_server_do_not_share_it(self):
        first = self.database_url()
        other = self.useFixture(self.DATABASE()).url.render_as_string(
            hide_password=False)
        self.assertIsNotNone(self.hold(first, 'scheduler'))
        self.assertIsNotNone(self.hold(other, 'scheduler'))


class TestOwnershipMariaDB(OwnershipBehaviour, base.TestCase):

    DATABASE = test_backends.MariaDBDatabase
    LABEL = 'MariaDB'


class TestOwnershipPostgreSQL(OwnershipBehaviour, base.TestCase):

    DATABASE = test_backends.PostgreSQLDatabase
    LABEL = 'PostgreSQL'
