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


"""The load watcher's WSGI application (:mod:`preemptible_sched.loadwatcher.
wsgi`) under gunicorn, a real WSGI server, and under the project's own
(:mod:`preemptible_sched.loadwatcher.httpserver`), each a process of its
own: it collects, answers ``/watcher``, ``/watcher/health`` and
``/metrics``, stops on SIGTERM, and refuses a configuration it cannot use
in one line.
"""

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import fixtures

from preemptible_sched.loadwatcher import payload
from tests import base
from tests.functional.loadwatcher import test_command
from tests import load_helpers as helpers

#: Bound of every wait: the test fails instead of hanging.
DEADLINE_S = 60.0
FACTORY = 'preemptible_sched.loadwatcher.wsgi:init_application()'
MODULE_LEVEL = 'preemptible_sched.loadwatcher.wsgi:application'
BUILT_IN = (
    'from preemptible_sched.loadwatcher import api, wsgi\n'
    'server = api.make_server(wsgi.init_application(), "127.0.0.1", 0)\n'
    'print("port", server.server_port, flush=True)\n'
    'server.serve_forever()\n')


def free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


class TestWSGIApplication(base.TestCase):

    def setUp(self):
        super().setUp()
        self.tmp = self.useFixture(fixtures.TempDir()).path
        trace = helpers.make_bitbrains(
            self.tmp, {1: (1000, [100, 200, 300, 400]),
                       2: (2000, [500, 1500])})
        self.config = os.path.join(self.tmp, 'watcher.conf')
        self.write_config(source='fake', fake_hosts=3, fake_trace=trace,
                          state_file=os.path.join(self.tmp, 'w.sqlite'),
                          scrape_interval=1, window_refresh=1)

    def write_config(self, **options):
        with open(self.config, 'w') as stream:
            stream.write('[load_watcher]\n')
            for name, value in options.items():
                stream.write('%s = %s\n' % (name, value))

    def spawn(self, args):
        env = dict(os.environ, PSCHED_CONFIG_FILE=self.config)
        process = subprocess.Popen(
            args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, cwd=helpers.REPO, env=env)
        self.addCleanup(test_command.TestLoadWatcherCommand._stop, process)
        return process

    def gunicorn(self, target):
        port = free_port()
        process = self.spawn([
            sys.executable, '-m', 'gunicorn', '--workers', '1',
            '--threads', '2', '--bind', '127.0.0.1:%d' % port,
            '--graceful-timeout', '10', target])
        return process, 'http://127.0.0.1:%d' % port

    def built_in(self):
        process = self.spawn([sys.executable, '-c', BUILT_IN])
        line = process.stdout.readline()
        self.assertTrue(line.startswith('port '), process.stderr.read()
                        if process.poll() is not None else line)
        return process, 'http://127.0.0.1:%d' % int(line.split()[1])

    def get(self, url, until=lambda status, body: status == 200):
        """(status, body) of ``url`` once ``until`` holds (bounded)."""
        deadline = time.monotonic() + DEADLINE_S
        while True:
            try:
                with urllib.request.urlopen(url, timeout=5) as response:
                    found = response.status, response.read().decode()
            except urllib.error.HTTPError as error:
                found = error.code, error.read().decode()
            except OSError as error:    # not listening yet
                found = None, str(error)
            if found[0] is not None and until(*found):
                return found
            if time.monotonic() > deadline:
                self.fail('%s: still %r after %g s' % (url, found,
                                                       DEADLINE_S))
            time.sleep(0.2)

    def assertServes(self, url):
        self.assertEqual('ok\n', self.get(url + '/watcher/health')[1])
        _, body = self.get(url + '/watcher')
        document = json.loads(body)
        payload.validator().validate(document)
        self.assertEqual(['host-A', 'host-B', 'host-C'],
                         sorted(document['data']['NodeMetricsMap']))
        _, text = self.get(url + '/metrics')
        self.assertIn('psched_watcher_hosts 3.0', text)
        self.assertIn('psched_watcher_healthy 1.0', text)
        collected = re.search(r'^psched_watcher_collections_total'
                              r'\{outcome="ok"\} (\S+)$', text, re.M)
        self.assertGreaterEqual(float(collected.group(1)), 1.0)

    def test_under_gunicorn(self):
        process, url = self.gunicorn(FACTORY)
        self.assertServes(url)
        process.send_signal(signal.SIGTERM)
        self.assertEqual(0, process.wait(timeout=DEADLINE_S))

    def test_module_level_application_under_gunicorn(self):
        process, url = self.gunicorn(MODULE_LEVEL)
        self.assertServes(url)

    def test_under_the_built_in_server(self):
        process, url = self.built_in()
        self.assertServes(url)

    def test_unusable_configuration_stops_gunicorn_in_one_line(self):
        self.write_config(source='compute')
        process, url = self.gunicorn(FACTORY)
        self.assertNotEqual(0, process.wait(timeout=DEADLINE_S))
        ours = [line for line in process.stderr.read().splitlines()
                if line.startswith('preemptible-sched-load-watcher-wsgi')]
        self.assertEqual(
            ['preemptible-sched-load-watcher-wsgi: [load_watcher] source: '
             'the compute source runs inside the scheduler service; '
             'alone, use fake or prometheus'], ours)
