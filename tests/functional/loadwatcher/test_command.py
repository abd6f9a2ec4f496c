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


"""``preemptible-sched load-watcher``: serving, killed, restarted warm."""

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

import fixtures

from preemptible_sched.loadwatcher import payload
from tests import base
from tests import load_helpers as helpers

ROOT = helpers.REPO
#: Bound of every wait: the test fails instead of hanging.
DEADLINE_S = 60.0


class TestLoadWatcherCommand(base.TestCase):

    def setUp(self):
        super().setUp()
        tmp = self.useFixture(fixtures.TempDir()).path
        self.trace = helpers.make_bitbrains(
            tmp, {1: (1000, [100, 200, 300, 400]), 2: (2000, [500, 1500])})
        self.state = os.path.join(tmp, 'state', 'watcher.sqlite')
        self.config = os.path.join(tmp, 'watcher.conf')
        with open(self.config, 'w') as stream:
            # Collect every second; recompute the windows once a minute,
            # so they do not change while the test compares them.
            stream.write('[load_watcher]\nscrape_interval = 1\n'
                         'window_refresh = 60\n')

    def start(self):
        process = subprocess.Popen(
            [sys.executable, '-m', 'preemptible_sched.cmd.sched',
             'load-watcher', '--config-file', self.config, '--source',
             'fake', '--hosts', '3', '--trace', self.trace, '--bind',
             '127.0.0.1:0', '--state-file', self.state],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            cwd=ROOT)
        self.addCleanup(self._stop, process)
        line = process.stdout.readline()
        self.assertIn('on http://127.0.0.1:', line, process.stderr.read()
                      if process.poll() is not None else line)
        port = int(line.split('http://127.0.0.1:')[1].split('/')[0])
        return process, 'http://127.0.0.1:%d' % port

    @staticmethod
    def _stop(process):
        if process.poll() is None:
            process.kill()
        process.wait(timeout=DEADLINE_S)
        process.stdout.close()
        process.stderr.close()

    def get(self, url):
        """The first 200 answer of ``url`` (bounded retries)."""
        deadline = time.monotonic() + DEADLINE_S
        while True:
            try:
                with urllib.request.urlopen(url, timeout=5) as response:
                    return json.loads(response.read())
            except urllib.error.HTTPError as error:
                if error.code != 404 or time.monotonic() > deadline:
                    raise
            time.sleep(0.2)

    def test_killed_and_restarted_answers_the_same_windows(self):
        process, base_url = self.start()
        before = self.get(base_url + '/watcher')
        payload.validator().validate(before)
        self.assertEqual(['host-A', 'host-B', 'host-C'],
                         sorted(before['data']['NodeMetricsMap']))
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=DEADLINE_S)
        process, base_url = self.start()
        # The very first request after the restart.
        with urllib.request.urlopen(base_url + '/watcher',
                                    timeout=5) as response:
            after = json.loads(response.read())
        self.assertEqual(before, after)

    def test_stops_on_sigterm(self):
        process, base_url = self.start()
        self.get(base_url + '/watcher')
        process.send_signal(signal.SIGTERM)
        self.assertEqual(0, process.wait(timeout=DEADLINE_S))

    def test_bad_input_is_one_line_exit_2(self):
        not_a_database = os.path.join(os.path.dirname(self.config),
                                      'garbage.sqlite')
        with open(not_a_database, 'w') as stream:
            stream.write('not SQLite\n')
        for extra, message in (
                (['--bind', 'localhost'], 'expected HOST:PORT'),
                (['--source', 'influx'], "--source: unknown source "
                 "'influx' (valid: compute, fake, prometheus)"),
                (['--trace', '/nonexistent'], '/nonexistent: no Bitbrains'),
                (['--state-file', not_a_database],
                 'garbage.sqlite: cannot keep the load watcher\'s state '
                 'here: file is not a database')):
            arguments = dict(zip(['--source', '--trace', '--bind',
                                  '--state-file'],
                                 ['fake', self.trace, '127.0.0.1:0',
                                  self.state]))
            arguments.update(zip(extra[::2], extra[1::2]))
            result = subprocess.run(
                [sys.executable, '-m', 'preemptible_sched.cmd.sched',
                 'load-watcher'] + [item for pair in arguments.items()
                                    for item in pair],
                capture_output=True, text=True, cwd=ROOT,
                timeout=DEADLINE_S)
            self.assertEqual(2, result.returncode, result.stderr)
            self.assertIn(message, result.stderr)
            self.assertNotIn('Traceback', result.stderr)
            self.assertEqual(1, len(result.stderr.splitlines()),
                             result.stderr)
