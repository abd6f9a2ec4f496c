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
start-up errors and a clean stop."""

import os
import signal
import subprocess
import sys
import time

import fixtures

from preemptible_sched.db import api as db_api
from tests import base

WAIT = 60.0


class TestServiceCommands(base.TestCase):

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
        self.assertEqual(0, process.wait(WAIT))

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
