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

"""``serve()``, the start-up of ``preemptible-scheduler`` and
``preemptible-compute``: bad configurations, unreachable database or
broker, and signals at any time."""

import contextlib
import io
import os
import signal
import threading
import time

import fixtures
from sqlalchemy import exc as sa_exc

from preemptible_sched.cmd import compute
from preemptible_sched.cmd import serving
from preemptible_sched.service import readiness
from tests import base


def interrupt_soon(delay=0.3):
    """SIGINT to this process in ``delay`` seconds (serve's handler is
    installed by then: the callers start it from inside serve).
    """
    timer = threading.Timer(delay, os.kill, (os.getpid(), signal.SIGINT))
    timer.daemon = True
    timer.start()


class FakeServer:
    """A service: ``run()`` starts (maybe slowly), then waits for stop."""

    def __init__(self, start_seconds=0.0, on_start=None):
        self.start_seconds = start_seconds
        self.on_start = on_start
        self.started = False
        self.stopped = threading.Event()
        self.shutdowns = 0

    @property
    def ready(self):
        return self.started

    def run(self):
        if self.on_start:
            self.on_start()
        time.sleep(self.start_seconds)
        self.started = True
        self.stopped.wait(30)
        self.shutdown()

    def stop(self):
        self.stopped.set()

    def shutdown(self):
        self.shutdowns += 1


class ServeTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.directory = self.useFixture(fixtures.TempDir()).path
        self.useFixture(fixtures.MonkeyPatch(
            'preemptible_sched.service.readiness.RETRY_INTERVAL', 0.2))
        self.built = []

    def config(self, text=''):
        path = os.path.join(self.directory, 'service.conf')
        with open(path, 'w') as stream:
            stream.write('[database]\nconnection = sqlite:///%s/db.sqlite\n'
                         '[service]\nstartup_timeout = 1\n%s'
                         % (self.directory, text))
        return path

    def serve(self, text='', build=None, **kwargs):
        path = self.config(text)

        def default_build(conf):
            server = FakeServer()
            server.stopped.set()
            return server

        def recording(conf):
            server = (build or default_build)(conf)
            self.built.append(server)
            return server

        err = io.StringIO()
        start = time.monotonic()
        with contextlib.redirect_stderr(err):
            code = serving.serve('preemptible-scheduler',
                                 ['--config-file', path], recording,
                                 **kwargs)
        return code, err.getvalue(), time.monotonic() - start

    def assertOneLine(self, err, *fragments):
        lines = [line for line in err.splitlines()
                 if line.startswith('preemptible-')]
        self.assertEqual(1, len(lines), err)
        self.assertNotIn('Traceback', err)
        for fragment in fragments:
            self.assertIn(fragment, lines[0])


class TestBadConfiguration(ServeTestCase):

    def test_every_bad_value_one_line_each_exit_2(self):
        code, err, _ = self.serve('[scheduler]\nwatchdog_interval = nan\n'
                                  'max_attempts = -1\n')
        self.assertEqual(2, code)
        lines = err.splitlines()
        self.assertEqual(2, len(lines), err)
        self.assertIn('[scheduler] max_attempts: Should be greater', lines[0])
        self.assertIn('[scheduler] watchdog_interval: must be a finite '
                      'number, got nan', lines[1])
        self.assertEqual([], self.built)

    def test_debug_maybe_names_the_file_exit_2(self):
        code, err, _ = self.serve('[DEFAULT]\ndebug = maybe\n')
        self.assertEqual(2, code)
        self.assertOneLine(err, 'service.conf: [DEFAULT] debug: Unexpected '
                           "boolean value 'maybe'")

    def test_misspelt_option_exit_2(self):
        code, err, _ = self.serve('[service]\nstartup_timout = 5\n')
        self.assertEqual(2, code)
        self.assertOneLine(err, '[service] startup_timout: unknown option '
                           '(did you mean startup_timeout?)')

    def test_malformed_transport_url_exit_2_without_password(self):
        code, err, _ = self.serve(
            '[DEFAULT]\ntransport_url = rabbit://a:secret@:notaport/\n')
        self.assertEqual(2, code)
        self.assertOneLine(err, '[DEFAULT] transport_url: not a valid '
                           'transport URL')
        self.assertNotIn('secret', err)

    def test_malformed_database_url_exit_2(self):
        code, err, _ = self.serve('[database]\nconnection = mysql+pymysql'
                                  '://u:secret@[/x\n')
        self.assertEqual(2, code)
        self.assertOneLine(err, '[database] connection: ')
        self.assertNotIn('secret', err)

    def test_class_strategy_with_terminate_exit_2(self):
        code, err, _ = self.serve('[scheduler]\npreemption_strategy = qos\n'
                                  'on_victim = terminate\n')
        self.assertEqual(2, code)
        self.assertOneLine(err, 'on_victim = terminate contradicts')

    def test_compute_options_are_checked_before_the_broker(self):
        path = self.config('[DEFAULT]\ntransport_url = rabbit://g:g@'
                           '127.0.0.1:%d/\n' % base.closed_port())
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            code = compute.main(['--config-file', path, '--host', 'h',
                                 '--driver', 'libvirt'])
        self.assertEqual(2, code)
        self.assertOneLine(err.getvalue(), "unknown agent driver 'libvirt'")

    def test_compute_host_name_is_checked_before_the_broker(self):
        # The scheduler's schemas would refuse every message about it.
        path = self.config('[DEFAULT]\ntransport_url = rabbit://g:g@'
                           '127.0.0.1:%d/\n' % base.closed_port())
        for host in ('host A', '-a', 'a' * 300, 'h\u00e9'):
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                code = compute.main(['--config-file', path,
                                     '--host=' + host])
            self.assertEqual(2, code, host)
            self.assertOneLine(err.getvalue(), 'is not a host name')


class TestUnreachable(ServeTestCase):

    def test_unreachable_broker_exit_1_one_line_within_the_timeout(self):
        port = base.closed_port()
        code, err, took = self.serve(
            '[DEFAULT]\ntransport_url = rabbit://guest:secret@127.0.0.1:%d/\n'
            % port)
        self.assertEqual(1, code, err)
        self.assertOneLine(err, 'preemptible-scheduler: the message broker '
                           'at 127.0.0.1:%d did not answer within 1 s' % port)
        self.assertNotIn('secret', err)
        self.assertLess(took, 15)
        self.assertEqual([], self.built)

    def test_unreachable_database_exit_1_one_line(self):
        port = base.closed_port()
        code, err, took = self.serve(
            '[database]\nconnection = mysql+pymysql://root:secret@'
            '127.0.0.1:%d/test\n' % port)
        self.assertEqual(1, code, err)
        self.assertOneLine(err, 'the database mysql+pymysql://root:***@'
                           '127.0.0.1:%d/test did not answer' % port)
        self.assertNotIn('secret', err)
        self.assertLess(took, 15)
        self.assertEqual([], self.built)

    def test_compute_agent_waits_for_the_broker_not_the_database(self):
        port = base.closed_port()
        path = self.config(
            '[database]\nconnection = mysql+pymysql://root@127.0.0.1:%d/x\n'
            '[DEFAULT]\ntransport_url = rabbit://g:g@127.0.0.1:%d/\n'
            % (base.closed_port(), port))
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            code = compute.main(['--config-file', path, '--host', 'h'])
        self.assertEqual(1, code)
        self.assertOneLine(err.getvalue(), 'preemptible-compute: the '
                           'message broker at 127.0.0.1:%d' % port)

    def test_database_lost_while_building_exit_1_one_line(self):
        def build(conf):
            raise sa_exc.OperationalError('SELECT 1', {},
                                          Exception('gone\naway'))
        code, err, _ = self.serve(build=build)
        self.assertEqual(1, code)
        self.assertOneLine(err, 'could not start: ', 'gone away')

    def test_a_bug_while_building_is_logged_with_its_traceback(self):
        def build(conf):
            raise KeyError('bug')
        code, err, _ = self.serve(build=build)
        self.assertEqual(1, code)
        self.assertIn('Traceback', err)


class TestSignals(ServeTestCase):

    def test_signal_while_waiting_for_the_broker_exits_0_promptly(self):
        real = readiness.wait_for_broker

        def wait(conf, timeout, should_stop, announced=None):
            interrupt_soon()
            return real(conf, 60, should_stop)

        self.useFixture(fixtures.MonkeyPatch(
            'preemptible_sched.service.readiness.wait_for_broker', wait))
        code, err, took = self.serve(
            '[DEFAULT]\ntransport_url = rabbit://g:g@127.0.0.1:%d/\n'
            % base.closed_port())
        self.assertEqual(0, code, err)
        self.assertLess(took, 15)
        self.assertEqual([], self.built)

    def test_signal_while_building_exits_0_promptly(self):
        def build(conf):
            interrupt_soon()
            time.sleep(30)
        code, err, took = self.serve(build=build)
        self.assertEqual(0, code, err)
        self.assertLess(took, 15)

    def test_signal_while_starting_stops_what_started(self):
        server = FakeServer(start_seconds=30, on_start=interrupt_soon)
        code, err, took = self.serve(build=lambda conf: server)
        self.assertEqual(0, code, err)
        self.assertLess(took, 15)
        self.assertEqual(1, server.shutdowns)
        self.assertTrue(server.stopped.is_set())

    def test_a_failed_rollback_of_what_the_signal_cut_is_no_error(self):
        # The signal lands in a database transaction; the driver's
        # rollback fails on the connection it left (as SQLite's under
        # oslo.db did): a clean stop, exit 0, not 'could not start'.
        def build(conf):
            try:
                interrupt_soon()
                time.sleep(30)
            finally:
                raise RuntimeError('cannot roll back: connection closed')
        code, err, took = self.serve(build=build)
        self.assertEqual(0, code, err)
        self.assertNotIn('could not start', err)
        self.assertLess(took, 15)

    def test_the_same_while_starting(self):
        def start():
            try:
                interrupt_soon()
                time.sleep(30)
            finally:
                raise RuntimeError('cannot roll back: connection closed')
        server = FakeServer(on_start=start)
        code, err, _took = self.serve(build=lambda conf: server)
        self.assertEqual(0, code, err)
        self.assertNotIn('stopped on an error', err)

    def test_an_error_of_its_own_is_still_one(self):
        def build(conf):
            raise RuntimeError('a bug')
        code, err, _took = self.serve(build=build)
        self.assertEqual(1, code, err)
        self.assertIn('could not start', err)

    def test_signal_once_running_stops_cleanly(self):
        server = FakeServer(on_start=lambda: interrupt_soon(0.5))
        code, err, took = self.serve(build=lambda conf: server)
        self.assertEqual(0, code, err)
        self.assertTrue(server.started)
        self.assertEqual(1, server.shutdowns)

    def test_handlers_are_restored(self):
        before = signal.getsignal(signal.SIGTERM), signal.getsignal(
            signal.SIGINT)
        self.serve()
        self.assertEqual(before, (signal.getsignal(signal.SIGTERM),
                                  signal.getsignal(signal.SIGINT)))
