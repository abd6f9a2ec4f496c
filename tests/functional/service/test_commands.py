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

"""``preemptible-scheduler`` and ``preemptible-compute`` as processes:
start-up errors (bad files, an unreachable broker or database), signals
during the start-up, and a clean stop."""

import os
import signal
import socket
import subprocess
import sys
import time
import uuid

import fixtures

from preemptible_sched.db import api as db_api
from preemptible_sched import objects
from tests import base

WAIT = 60.0


class CommandTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.tmp = self.useFixture(fixtures.TempDir()).path
        self.db_path = os.path.join(self.tmp, 'state.sqlite')

    def config(self, text=''):
        path = os.path.join(self.tmp, 'service.conf')
        with open(path, 'w') as stream:
            stream.write('[database]\nconnection = sqlite:///%s\n%s'
                         % (self.db_path, text))
        return path

    def command(self, module, *args):
        return [sys.executable, '-m', 'preemptible_sched.cmd.' + module,
                '--config-file', self.config()] + list(args)

    def run_command(self, argv):
        result = subprocess.run(argv, capture_output=True, text=True,
                                timeout=WAIT)
        return result.returncode, result.stdout, result.stderr

    def assertBadInput(self, result, *fragments):
        code, out, err = result
        self.assertEqual(2, code, err)
        self.assertEqual(1, len(err.splitlines()), err)
        self.assertNotIn('Traceback', err)
        for fragment in fragments:
            self.assertIn(fragment, err)

    @staticmethod
    def _hosts(store):
        try:
            return [host.name for host in store.hosts()]
        except Exception:
            return []   # not migrated yet

    @staticmethod
    def _kill(process):
        if process.poll() is None:
            process.kill()
            process.wait(WAIT)


class TestServiceCommands(CommandTestCase):

    def test_compute_needs_a_host(self):
        self.assertBadInput(self.run_command(self.command('compute')),
                            'preemptible-compute:', 'host')

    def test_compute_knows_only_the_fake_driver(self):
        self.assertBadInput(
            self.run_command(self.command('compute', '--driver', 'libvirt',
                                          '--host', 'h')),
            'driver', 'libvirt')

    def test_scheduler_with_an_unknown_driver(self):
        self.config('[service]\ncompute_driver = libvirt\n')
        argv = [sys.executable, '-m', 'preemptible_sched.cmd.scheduler',
                '--config-file', os.path.join(self.tmp, 'service.conf')]
        self.assertBadInput(self.run_command(argv),
                            "[service] compute_driver", "'libvirt'",
                            'fake, rpc')

    def test_scheduler_with_a_bad_option_value(self):
        self.config('[service]\ntime_scale = fast\n')
        argv = [sys.executable, '-m', 'preemptible_sched.cmd.scheduler',
                '--config-file', os.path.join(self.tmp, 'service.conf')]
        self.assertBadInput(self.run_command(argv), 'time_scale')

    def test_scheduler_refuses_a_database_not_at_head(self):
        self.config('[service]\ncompute_driver = fake\n')
        argv = [sys.executable, '-m', 'preemptible_sched.cmd.scheduler',
                '--config-file', os.path.join(self.tmp, 'service.conf')]
        self.assertBadInput(self.run_command(argv), 'schema revision none',
                            'preemptible-sched-manage db sync')

    def test_scheduler_stops_cleanly_on_sigterm(self):
        path = self.config('[service]\ncompute_driver = fake\n'
                           'time_scale = 10\n')
        code, out, err = self.run_command(
            [sys.executable, '-m', 'preemptible_sched.cmd.manage',
             '--config-file', path, 'db', 'sync'])
        self.assertEqual(0, code, err)
        log_path = os.path.join(self.tmp, 'scheduler.log')
        with open(log_path, 'w') as log:
            process = subprocess.Popen(
                [sys.executable, '-m', 'preemptible_sched.cmd.scheduler',
                 '--config-file', path], stdout=log, stderr=log)
        self.addCleanup(self._kill, process)
        store = db_api.Store('sqlite:///' + self.db_path)
        self.addCleanup(store.dispose)
        deadline = time.monotonic() + WAIT
        # The service saves its hosts one by one: wait for all four.
        while not (os.path.exists(self.db_path) and
                   len(self._hosts(store)) == 4):
            if process.poll() is not None or time.monotonic() > deadline:
                with open(log_path) as log:
                    self.fail('the scheduler did not start: %s' % log.read())
            time.sleep(0.1)
        self.assertEqual(['host-A', 'host-B', 'host-C', 'host-D'],
                         self._hosts(store))
        process.send_signal(signal.SIGTERM)
        code = process.wait(WAIT)
        with open(log_path) as log:
            self.assertEqual(0, code, log.read()[-3000:])


def rabbit_listening():
    try:
        socket.create_connection(('127.0.0.1', 5672), timeout=1).close()
        return True
    except OSError:
        return False


class TestStartUp(CommandTestCase):
    """Start-up as processes: an unreachable broker or database ends in
    exit 1 and one line within ``[service] startup_timeout``; SIGTERM is
    honoured while waiting; bad files end in exit 2, one line each.
    """

    def service(self, module, text, *args):
        path = os.path.join(self.tmp, 'service.conf')
        with open(path, 'w') as stream:
            stream.write('[database]\nconnection = sqlite:///%s\n'
                         '[service]\ncompute_driver = fake\n%s'
                         % (self.db_path, text))
        return [sys.executable, '-m', 'preemptible_sched.cmd.' + module,
                '--config-file', path] + list(args)

    def assertOneLine(self, result, code, *fragments):
        returncode, out, err = result
        self.assertEqual(code, returncode, err)
        lines = err.splitlines()
        self.assertEqual(1, len(lines), err)
        self.assertNotIn('Traceback', err)
        self.assertNotIn('secret', err + out)
        for fragment in fragments:
            self.assertIn(fragment, lines[0])

    def test_unreachable_broker_exit_1_one_line_within_startup_timeout(self):
        start = time.monotonic()
        result = self.run_command(self.service(
            'scheduler', 'startup_timeout = 3\n[DEFAULT]\n'
            'transport_url = rabbit://guest:secret@127.0.0.1:1/\n'))
        took = time.monotonic() - start
        self.assertOneLine(result, 1, 'preemptible-scheduler: the message '
                           'broker at 127.0.0.1:1 did not answer within 3 s',
                           'Connection refused')
        # 3 s of waiting, plus the interpreter's start (generous: a busy
        # machine starts Python slowly; the point is that it ends).
        self.assertLess(took, 3 + 60)
        self.assertGreaterEqual(took, 3)

    def test_compute_with_unreachable_broker_exit_1_one_line(self):
        result = self.run_command(self.service(
            'compute', 'startup_timeout = 1\n[DEFAULT]\n'
            'transport_url = rabbit://guest:secret@127.0.0.1:1/\n',
            '--host', 'host-A'))
        self.assertOneLine(result, 1, 'preemptible-compute: the message '
                           'broker at 127.0.0.1:1 did not answer within 1 s')

    def test_unreachable_database_exit_1_one_line(self):
        port = base.closed_port()
        result = self.run_command(self.service(
            'scheduler', 'startup_timeout = 1\n[database]\nconnection = '
            'mysql+pymysql://root:secret@127.0.0.1:%d/test\n' % port))
        self.assertOneLine(result, 1, 'the database mysql+pymysql://root:'
                           '***@127.0.0.1:%d/test did not answer within 1 s'
                           % port)

    def test_manage_with_unreachable_database_exit_1_one_line(self):
        port = base.closed_port()
        argv = self.service('manage', 'startup_timeout = 1\n[database]\n'
                            'connection = postgresql+psycopg2://u:secret@'
                            '127.0.0.1:%d/test\n' % port, 'db', 'sync')
        self.assertOneLine(self.run_command(argv), 1,
                           'preemptible-sched-manage: the database')

    def wait_for(self, path, text, process):
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            with open(path) as log:
                if text in log.read():
                    return
            if process.poll() is not None:
                break
            time.sleep(0.1)
        with open(path) as log:
            self.fail('%r never logged: %s' % (text, log.read()))

    def start(self, argv):
        log_path = os.path.join(self.tmp, 'process.log')
        with open(log_path, 'w') as log:
            process = subprocess.Popen(argv, stdout=log, stderr=log)
        self.addCleanup(self._kill, process)
        return process, log_path

    def assertStopsPromptly(self, process, log_path):
        start = time.monotonic()
        process.send_signal(signal.SIGTERM)
        code = process.wait(WAIT)
        with open(log_path) as log:
            text = log.read()
        self.assertEqual(0, code, text)
        self.assertLess(time.monotonic() - start, 10, text)
        self.assertNotIn('Traceback', text)

    def test_sigterm_while_waiting_for_the_broker_exits_0_promptly(self):
        process, log_path = self.start(self.service(
            'scheduler', 'startup_timeout = 60\n[DEFAULT]\ndebug = true\n'
            'transport_url = rabbit://guest:secret@127.0.0.1:1/\n'))
        self.wait_for(log_path, 'does not answer', process)
        self.assertStopsPromptly(process, log_path)
        with open(log_path) as log:
            self.assertIn('stopped while starting', log.read())

    def test_sigterm_while_waiting_for_the_agents_exits_0_promptly(self):
        if not rabbit_listening():
            self.skipTest('no RabbitMQ on 127.0.0.1:5672')
        store = db_api.Store('sqlite:///' + self.db_path)
        self.addCleanup(store.dispose)
        store.upgrade()
        store.save_host(objects.Host('host-A', 8, 16384, 500), 0.0)
        name = 'startup-%s' % uuid.uuid4().hex[:8]
        process, log_path = self.start(self.service(
            'scheduler', 'compute_driver = rpc\nhost_wait_seconds = 60\n'
            'scheduler_topic = %s\ncompute_topic = %s-compute\n'
            '[DEFAULT]\ndebug = true\ncontrol_exchange = %s\n'
            'transport_url = rabbit://guest:guest@127.0.0.1:5672/\n'
            % (name, name, name)))
        # Past the imports and the broker check, into the wait for host-A.
        self.wait_for(log_path, 'Waiting up to 60 s for the agents of '
                      'host-A to register', process)
        self.assertStopsPromptly(process, log_path)
        with open(log_path) as log:
            text = log.read()
        self.assertNotIn('Scheduler service ready', text)
        self.assertIn('stopped while starting', text)

    def test_bad_configuration_files_exit_2_one_line_each(self):
        from tests.unit.conf import test_hostile_configs as hostile
        tried = 0
        for number, (name, text, expect) in enumerate(
                hostile.hostile_configs()):
            # A sample (every configuration is tried in-process by
            # tests/unit/conf): each run here is a Python start.
            if expect != hostile.BAD or number % 40:
                continue
            tried += 1
            path = os.path.join(self.tmp, 'hostile.conf')
            with open(path, 'wb' if isinstance(text, bytes) else 'w') as f:
                f.write(text)
            argv = self.service('scheduler', 'startup_timeout = 1\n') + [
                '--config-file', path]
            code, out, err = self.run_command(argv)
            self.assertEqual(2, code, (name, err))
            self.assertNotIn('Traceback', err, name)
            problems = [line for line in err.splitlines()
                        if line.startswith('preemptible-scheduler: ')]
            self.assertNotEqual([], problems, (name, err))
            for line in problems:
                self.assertIn(path, line, name)
        self.assertGreaterEqual(tried, 8)
