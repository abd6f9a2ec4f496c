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

"""``preemptible-sched`` as a process on hostile inputs (issue 26 item 9):
one line on stderr and a documented exit code, never a traceback, a hang
or a temporary left behind."""

import os
import subprocess
import sys
import unittest

import fixtures

from tests import base
from tests.functional.service import test_commands
from tests import wta_traces

WAIT = 120.0
SCENARIO = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__))))), 'etc',
    'preemptible-sched', 'scenarios', 'paper-snapshot-1.json')


class HostileInputCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.tmp = self.useFixture(fixtures.TempDir()).path

    def path(self, name):
        return os.path.join(self.tmp, name)

    def write(self, name, text):
        with open(self.path(name), 'w') as stream:
            stream.write(text)
        return self.path(name)

    def sched(self, *argv, timeout=WAIT):
        result = subprocess.run(
            [sys.executable, '-m', 'preemptible_sched.cmd.sched'] +
            list(argv), capture_output=True, text=True, timeout=timeout,
            cwd=self.tmp, stdin=subprocess.DEVNULL)
        return result.returncode, result.stdout, result.stderr

    def assertOneLine(self, result, code, *fragments):
        returncode, _out, err = result
        self.assertEqual(code, returncode, err)
        self.assertNotIn('Traceback', err)
        self.assertEqual(1, len(err.splitlines()), err)
        for fragment in fragments:
            self.assertIn(fragment, err)


class TestClientBroker(HostileInputCase):
    """The client's broker problems: one line, exit 1 (an 88-line
    traceback before).
    """

    def client(self, url, *argv):
        conf = self.write('client.conf', '[DEFAULT]\ntransport_url = %s\n'
                          % url)
        return self.sched('--config-file', conf, *(argv or ('list',)))

    def test_malformed_transport_url(self):
        self.assertOneLine(self.client('rabbit://[::1'), 1,
                           '[DEFAULT] transport_url',
                           'not a valid transport URL')
        self.assertOneLine(self.client('nosuch://x', 'show', 'r1'), 1,
                           "unknown transport driver 'nosuch'")

    @unittest.skipUnless(test_commands.rabbit_listening(),
                         'no RabbitMQ on 127.0.0.1:5672')
    def test_wrong_password(self):
        result = self.client('rabbit://guest:secret@127.0.0.1:5672/')
        self.assertOneLine(result, 1, 'the message broker at '
                           '127.0.0.1:5672 refused the connection',
                           'ACCESS_REFUSED')
        self.assertNotIn('secret', result[2])

    @unittest.skipUnless(test_commands.rabbit_listening(),
                         'no RabbitMQ on 127.0.0.1:5672')
    def test_unknown_virtual_host(self):
        self.assertOneLine(
            self.client('rabbit://guest:guest@127.0.0.1:5672/nowhere',
                        'submit', '--flavor', 'small'), 1,
            'vhost nowhere not found')


class TestSpecialPaths(HostileInputCase):

    def test_fifo_as_config_file_does_not_hang(self):
        os.mkfifo(self.path('fifo.conf'))
        self.assertOneLine(
            self.sched('decide', '--scenario', SCENARIO, '--config-file',
                       'fifo.conf', timeout=60), 2, 'fifo.conf',
            'not a regular file (a FIFO)')

    def test_dev_zero_as_config_file(self):
        self.assertOneLine(self.sched('--config-file', '/dev/zero', 'list',
                                      timeout=60), 2, '/dev/zero',
                           'a character device')

    def test_fifo_as_definition(self):
        os.mkfifo(self.path('definition.yaml'))
        self.assertOneLine(
            self.sched('experiment', '--definition', 'definition.yaml',
                       '--output', 'out', timeout=60), 2,
            'definition.yaml', 'a FIFO')
        self.assertFalse(os.path.exists(self.path('out')))


class TestKilledSimulate(HostileInputCase):

    def test_the_next_run_removes_what_a_killed_one_left(self):
        self.write('w.csv', 'id,submit_s,duration_s,vcpus,memory_mb\n'
                   'r1,0,10,1,100\n')
        # One run (--seed) writes DIR through its staging directory, the
        # replications (the default) each seed's: both clear DIR's.
        for form in (('--seed', '0'), ()):
            # A process killed with SIGKILL while it stages simulate's
            # output.
            killed = subprocess.run(
                [sys.executable, '-c', 'import os, signal\n'
                 'from preemptible_sched.simulation import staging\n'
                 'staging.make(os.path.abspath("out"))\n'
                 'os.kill(os.getpid(), signal.SIGKILL)\n'],
                cwd=self.tmp, timeout=WAIT)
            self.assertEqual(-9, killed.returncode)
            left = [name for name in os.listdir(self.tmp)
                    if name.endswith('.tmp')]
            self.assertEqual(1, len(left), left)
            code, _out, err = self.sched(
                'simulate', '--workload', 'w.csv', '--hosts', '2',
                '--host-flavor', '4:8000', '--no-plots', '--output', 'out',
                *form)
            self.assertEqual(0, code, err)
            self.assertEqual(['out', 'w.csv'], sorted(os.listdir(self.tmp)))


class TestWtaTrace(HostileInputCase):

    def test_duplicate_task_id(self):
        trace = wta_traces.write_trace(self.path('trace'), [
            (1, 0, 16, 11, 1, ()), (1, 0, 40, 11, 1, ())])
        self.assertOneLine(
            self.sched('simulate', '--workload', trace, '--hosts', '2',
                       '--host-flavor', '4:8000', '--no-plots', '--output',
                       'out'), 2,
            'tasks: row 2: field id: duplicate task 1 of workflow 0')
        self.assertEqual(['trace'], os.listdir(self.tmp))

    def test_symlink_loop_under_tasks(self):
        trace = wta_traces.write_trace(self.path('trace'), [
            (1, 0, 16, 11, 1, ())])
        os.symlink('.', os.path.join(trace, 'tasks', 'loop'))
        self.assertOneLine(
            self.sched('simulate', '--workload', trace, '--hosts', '2',
                       '--host-flavor', '4:8000', '--no-plots', '--output',
                       'out'), 2, 'tasks/loop: symbolic link loop')
