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

"""Start-up waits for the database and the broker: bounded, one line,
interruptible."""

import socket
import threading
import time

import fixtures
from oslo_db import exception as db_exc
from sqlalchemy import exc as sa_exc

from preemptible_sched import exception
from preemptible_sched import service
from preemptible_sched.service import readiness
from tests import base

RABBIT = 'rabbit://guest:guest@127.0.0.1:5672/'
MARIADB = 'mysql+pymysql://root@127.0.0.1/test'
POSTGRESQL = 'postgresql+psycopg2://postgres@127.0.0.1/test'


def listening(port):
    try:
        socket.create_connection(('127.0.0.1', port), timeout=1).close()
        return True
    except OSError:
        return False


class ReadinessTestCase(base.TestCase):
    """Upper bounds on waits are loose (a loaded 2-core machine starts
    threads and sockets slowly): they tell "at once" or "at the timeout"
    from "at the 30 or 60 s a broken wait would take".
    """

    def setUp(self):
        super().setUp()
        service.register_messaging_opts(self.config_fixture.conf)
        self.conf = self.config_fixture.conf
        self.useFixture(fixtures.MonkeyPatch(
            'preemptible_sched.service.readiness.RETRY_INTERVAL', 0.2))

    def timed(self, function, *args, **kwargs):
        start = time.monotonic()
        try:
            return function(*args, **kwargs), time.monotonic() - start
        except exception.StartupFailed as error:
            return error, time.monotonic() - start

    def assertOneLine(self, error, *fragments):
        self.assertIsInstance(error, exception.StartupFailed)
        text = str(error)
        self.assertEqual(1, len(text.splitlines()), text)
        self.assertNotIn('secret', text)
        for fragment in fragments:
            self.assertIn(fragment, text)


class TestBroker(ReadinessTestCase):

    def test_fake_transport_needs_no_broker(self):
        self.flags(transport_url='fake://')
        self.assertTrue(readiness.wait_for_broker(self.conf, 1))

    def test_unreachable_broker_fails_after_the_timeout(self):
        port = base.closed_port()
        self.flags(transport_url='rabbit://guest:secret@127.0.0.1:%d/'
                   % port)
        error, took = self.timed(readiness.wait_for_broker, self.conf, 1.5)
        self.assertOneLine(error, 'the message broker at 127.0.0.1:%d did '
                           'not answer within 1.5 s' % port,
                           'Connection refused', '[DEFAULT] transport_url')
        self.assertGreaterEqual(took, 1.4)
        self.assertLess(took, 15)

    def test_the_error_names_the_start_ups_budget(self):
        # What is left of [service] startup_timeout after the database is
        # waited for; the operator set the whole.
        port = base.closed_port()
        self.flags(transport_url='rabbit://guest:secret@127.0.0.1:%d/'
                   % port)
        error, _ = self.timed(readiness.wait_for_broker, self.conf, 0.7,
                              announced=3)
        self.assertOneLine(error, 'did not answer within 3 s')

    def test_every_broker_is_tried(self):
        first, second = base.closed_port(), base.closed_port()
        self.flags(transport_url='rabbit://a:secret@127.0.0.1:%d,'
                   'b:secret@127.0.0.1:%d/' % (first, second))
        error, _ = self.timed(readiness.wait_for_broker, self.conf, 1)
        self.assertOneLine(error, '127.0.0.1:%d: ' % first,
                           '127.0.0.1:%d: ' % second)

    def test_a_stop_ends_the_wait_at_once(self):
        self.flags(transport_url='rabbit://guest:secret@127.0.0.1:%d/'
                   % base.closed_port())
        stop = threading.Event()
        threading.Timer(0.3, stop.set).start()
        ready, took = self.timed(readiness.wait_for_broker, self.conf, 60,
                                 stop.is_set)
        self.assertFalse(ready)
        self.assertLess(took, 15)

    def test_a_broker_that_comes_up_is_waited_for(self):
        port = base.closed_port()
        self.flags(transport_url='kafka://127.0.0.1:%d/' % port)
        server = socket.socket()
        self.addCleanup(server.close)

        def listen():
            server.bind(('127.0.0.1', port))
            server.listen()

        threading.Timer(0.5, listen).start()
        ready, took = self.timed(readiness.wait_for_broker, self.conf, 10)
        self.assertTrue(ready)
        self.assertGreaterEqual(took, 0.4)

    def test_real_rabbitmq(self):
        if not listening(5672):
            self.skipTest('no RabbitMQ on 127.0.0.1:5672')
        self.flags(transport_url=RABBIT)
        self.assertTrue(readiness.wait_for_broker(self.conf, 5))

    def test_rabbitmq_refusing_the_credentials_fails_at_once(self):
        if not listening(5672):
            self.skipTest('no RabbitMQ on 127.0.0.1:5672')
        self.flags(transport_url='rabbit://guest:secret@127.0.0.1:5672/')
        error, took = self.timed(readiness.wait_for_broker, self.conf, 30)
        self.assertOneLine(error, 'refused the connection',
                           'ACCESS_REFUSED')
        self.assertLess(took, 20)


class TestDatabase(ReadinessTestCase):

    def test_sqlite_file(self):
        directory = self.useFixture(fixtures.TempDir()).path
        self.flags(group='database',
                   connection='sqlite:///%s/x.sqlite' % directory)
        self.assertTrue(readiness.wait_for_database(self.conf, 1))

    def test_default_sqlite_file_under_state_path(self):
        directory = self.useFixture(fixtures.TempDir()).path
        self.flags(state_path=directory + '/state')
        self.assertTrue(readiness.wait_for_database(self.conf, 1))

    def test_sqlite_that_cannot_be_opened_fails_at_once(self):
        self.flags(group='database',
                   connection='sqlite:////nonexistent/dir/x.sqlite')
        error, took = self.timed(readiness.wait_for_database, self.conf, 30)
        self.assertOneLine(error, 'the database sqlite:////nonexistent/dir/'
                           'x.sqlite cannot be used', 'unable to open')
        self.assertLess(took, 15)

    def test_unreachable_mariadb_fails_after_the_timeout(self):
        port = base.closed_port()
        self.flags(group='database', connection='mysql+pymysql://root:secret'
                   '@127.0.0.1:%d/test' % port)
        error, took = self.timed(readiness.wait_for_database, self.conf, 1.5)
        self.assertOneLine(error, 'the database mysql+pymysql://root:***@'
                           '127.0.0.1:%d/test did not answer within 1.5 s'
                           % port, "Can't connect", '[database] connection')
        self.assertNotIn('Background on this error', str(error))
        self.assertLess(took, 15)

    def test_unreachable_postgresql_fails_after_the_timeout(self):
        port = base.closed_port()
        self.flags(group='database', connection='postgresql+psycopg2://u:'
                   'secret@127.0.0.1:%d/test' % port)
        error, took = self.timed(readiness.wait_for_database, self.conf, 1.5)
        self.assertOneLine(error, 'did not answer within 1.5 s')
        self.assertLess(took, 15)

    def test_a_stop_ends_the_wait_at_once(self):
        self.flags(group='database', connection='mysql+pymysql://root@'
                   '127.0.0.1:%d/test' % base.closed_port())
        stop = threading.Event()
        threading.Timer(0.3, stop.set).start()
        ready, took = self.timed(readiness.wait_for_database, self.conf, 60,
                                 stop.is_set)
        self.assertFalse(ready)
        self.assertLess(took, 15)

    def test_real_servers(self):
        for url, port in ((MARIADB, 3306), (POSTGRESQL, 5432)):
            if not listening(port):
                continue
            self.flags(group='database', connection=url)
            self.assertTrue(readiness.wait_for_database(self.conf, 5), url)

    def test_mariadb_refusing_the_user_fails_at_once(self):
        if not listening(3306):
            self.skipTest('no MariaDB on 127.0.0.1:3306')
        self.flags(group='database', connection='mysql+pymysql://nobody:'
                   'secret@127.0.0.1/test')
        error, took = self.timed(readiness.wait_for_database, self.conf, 30)
        self.assertOneLine(error, 'refused the connection', 'Access denied')
        self.assertLess(took, 20)


class TestErrors(base.TestCase):

    def test_one_line_without_password(self):
        error = sa_exc.OperationalError(
            'SELECT 1', {}, Exception('cannot reach\nmysql://u:pw@h/db'))
        text = readiness.one_line(error)
        self.assertNotIn('\n', text)
        self.assertNotIn('pw', text)
        self.assertNotIn('Background on this error', text)

    def test_unreachable(self):
        self.assertTrue(readiness.unreachable(ConnectionRefusedError()))
        self.assertTrue(readiness.unreachable(sa_exc.OperationalError(
            'SELECT 1', {}, Exception('x'))))
        # What oslo.db's engine raises for a server that does not answer.
        self.assertTrue(readiness.unreachable(db_exc.DBConnectionError(
            sa_exc.OperationalError('SELECT 1', {}, Exception('x')))))
        self.assertFalse(readiness.unreachable(db_exc.DBDeadlock()))
        self.assertFalse(readiness.unreachable(KeyError('x')))
