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


"""``preemptible-sched load-watcher`` as a process, facing a hostile
Prometheus (issue 26 item 5) and hostile HTTP clients (item 6).

Before: six kinds of Prometheus answer killed it; a slow Prometheus hung
it while ``/watcher/health`` said "ok", and SIGTERM went unheeded; bad
UTF-8 in the path or query gave a 500 and a traceback; slow clients held
a thread each for ever (2,000 held 2,007 threads); the listen queue was
5 long. Every wait here is a bounded poll.
"""

import concurrent.futures
import os
import socket
import subprocess
import sys
import time

import fixtures

from tests import base
from tests import load_helpers as helpers
from tests.unit.loadwatcher import hostile

WAIT = 60.0
#: How fast a stopped watcher must be gone (issue 26).
STOP_WITHIN = 10.0

#: The answers that killed it (a list where an object is expected,
#: strings or lists in labels, deep nesting, huge integers), and others.
KILLERS = ('answer_list', 'data_list', 'result_dict', 'series_list',
           'label_list', 'label_number', 'value_list', 'deep_nesting',
           'value_400_digits', 'error_dict')


class ProcessTestCase(base.TestCase):
    """A process logging to ``log_path``, to be stopped by SIGTERM."""

    def setUp(self):
        super().setUp()
        self.tmp = self.useFixture(fixtures.TempDir()).path
        self.log_path = os.path.join(self.tmp, 'process.log')

    def log(self):
        with open(self.log_path) as stream:
            return stream.read()

    def assertStopsOnSigterm(self, process):
        """SIGTERM stops it within 10 s, exit 0, no traceback; its log."""
        code, took = hostile.stop_with_sigterm(process, STOP_WITHIN)
        log = self.log()
        self.assertIsNotNone(code, 'still running %g s after SIGTERM: %s'
                             % (STOP_WITHIN, log[-3000:]))
        self.assertEqual(0, code, log[-3000:])
        self.assertLess(took, STOP_WITHIN)
        self.assertNotIn('Traceback', log)
        return log


class WatcherProcessTestCase(ProcessTestCase):

    def start(self, config, *args):
        path = os.path.join(self.tmp, 'watcher.conf')
        with open(path, 'w') as stream:
            stream.write('[load_watcher]\n' + config)
        with open(self.log_path, 'w') as log:
            process = subprocess.Popen(
                [sys.executable, '-m', 'preemptible_sched.cmd.sched',
                 'load-watcher', '--config-file', path, '--bind',
                 '127.0.0.1:0', '--state-file',
                 os.path.join(self.tmp, 'state.sqlite')] + list(args),
                stdout=subprocess.PIPE, stderr=log, text=True,
                cwd=helpers.REPO)
        self.addCleanup(self._kill, process)
        line = process.stdout.readline()
        self.assertIn('on http://127.0.0.1:', line, self.log())
        self.port = int(line.split('http://127.0.0.1:')[1].split('/')[0])
        return process

    @staticmethod
    def _kill(process):
        if process.poll() is None:
            process.kill()
        process.wait(WAIT)
        process.stdout.close()

    def get(self, path, timeout=10.0):
        return hostile.http_get(self.port, path, timeout)

    def raw(self, request):
        """The whole answer to the bytes of ``request``."""
        with socket.create_connection(('127.0.0.1', self.port),
                                      timeout=WAIT) as sock:
            sock.sendall(request)
            return hostile.read_until_closed(sock)

    def wait_for_health(self, process, expected):
        """The first health answer for which ``expected(status, body)``."""
        deadline = time.monotonic() + WAIT
        while True:
            self.assertIsNone(process.poll(), self.log()[-3000:])
            answer = self.get('/watcher/health')
            if expected(*answer):
                return answer
            self.assertLess(time.monotonic(), deadline, answer)
            time.sleep(0.1)


class TestHostilePrometheus(WatcherProcessTestCase):

    def start_on(self, answers, timeout=2.0):
        self.prometheus = hostile.HostileServer(answers)
        self.addCleanup(self.prometheus.close)
        return self.start('scrape_interval = 1\nwindow_refresh = 1\n'
                          'prometheus_url = %s\nprometheus_timeout = %s\n'
                          % (self.prometheus.url, timeout),
                          '--source', 'prometheus')

    def test_survives_the_answers_that_killed_it(self):
        process = self.start_on([hostile.Answer(
            hostile.PROMETHEUS_BODIES[name]) for name in KILLERS])
        hostile.wait_until(
            lambda: len(self.prometheus.requests) > len(KILLERS) or
            process.poll() is not None, WAIT, 'every answer served')
        self.assertIsNone(process.poll(), self.log()[-3000:])
        # Failing, not "ok".
        status, body = self.get('/watcher/health')
        self.assertEqual(503, status, body)
        self.prometheus.script([hostile.Answer(
            hostile.good_prometheus_body())])
        self.wait_for_health(process, lambda status, _: status == 200)
        status, body = self.get('/watcher?host=compute-01')
        self.assertEqual(200, status, body)
        log = self.assertStopsOnSigterm(process)
        self.assertIn('series skipped, not in the format of its API', log)
        self.assertIn('Load source prometheus failed', log)

    def test_a_slow_prometheus_is_reported_failing(self):
        # One byte every 50 ms: each collection is cut at 1 s.
        process = self.start_on([hostile.Answer(
            hostile.good_prometheus_body(), mode=hostile.DRIP,
            delay=0.05)], timeout=1.0)
        status, body = self.wait_for_health(
            process, lambda status, body: b'no whole answer' in body)
        self.assertEqual(
            (503, b'source failing: Prometheus at %s: no whole answer '
             b'within 1 s\n' % self.prometheus.url.encode()),
            (status, body))
        # The API answers at once while a collection drips.
        started = time.monotonic()
        self.assertEqual(503, self.get('/watcher/health')[0])
        self.assertLess(time.monotonic() - started, 2.0)
        self.assertStopsOnSigterm(process)

    def test_sigterm_while_blocked_on_prometheus(self):
        # Prometheus never answers, and the deadline is 300 s: the
        # collection is blocked when SIGTERM comes.
        process = self.start_on([hostile.Answer(b'', mode=hostile.STALL)],
                                timeout=300.0)
        hostile.wait_until(lambda: self.prometheus.requests, WAIT,
                           'a collection under way')
        self.assertEqual((503, b'no collection yet\n'),
                         self.get('/watcher/health'))
        self.assertStopsOnSigterm(process)


class TestHostileClients(WatcherProcessTestCase):

    def setUp(self):
        super().setUp()
        self.trace = helpers.make_bitbrains(
            self.tmp, {1: (1000, [100, 200, 300]), 2: (2000, [500])})

    def start_fake(self, config=''):
        process = self.start('scrape_interval = 1\nwindow_refresh = 1\n' +
                             config, '--source', 'fake', '--hosts', '2',
                             '--trace', self.trace)
        self.wait_for_health(process, lambda status, _: status == 200)
        return process

    def test_bad_utf8_is_a_400_without_a_traceback(self):
        process = self.start_fake()
        for request in (b'GET /watcher\xff HTTP/1.0\r\n\r\n',
                        b'GET /%c3%28 HTTP/1.0\r\n\r\n',
                        b'GET /watcher?host=%ff HTTP/1.0\r\n\r\n',
                        b'GET /watcher?host=\xfe\xff HTTP/1.0\r\n\r\n',
                        b'HEAD /watcher/health?x=%80 HTTP/1.0\r\n\r\n'):
            answer = self.raw(request)
            self.assertTrue(answer.startswith(b'HTTP/1.0 400'),
                            (request, answer))
            if not request.startswith(b'HEAD'):
                self.assertTrue(answer.endswith(
                    b'\r\n\r\nbad request: the path or query is not '
                    b'UTF-8\n'), answer)
        for request in (b'\x00\xff\r\n\r\n', b'GET\r\n\r\n',
                        b'GET / HTTP/9.9\r\n\r\n', b'BREW / HTTP/1.0\r\n'
                        b'Content-Length: -1\r\n\r\n'):
            answer = self.raw(request)
            self.assertTrue(answer.startswith(b'HTTP/1.'), answer)
            self.assertNotIn(b' 500 ', answer.split(b'\r\n')[0])
        self.assertStopsOnSigterm(process)

    def test_300_concurrent_gets_are_all_answered(self):
        # With a listen queue of 5, 67 of 300 timed out.
        process = self.start_fake()
        backlog = _backlog(self.port)
        if backlog is not None:     # ss(8) tells it, where there is one
            self.assertEqual(128, backlog)
        with concurrent.futures.ThreadPoolExecutor(300) as pool:
            statuses = list(pool.map(
                lambda _: self.get('/watcher', timeout=30.0)[0],
                range(300)))
        self.assertEqual([200] * 300, statuses)
        self.assertStopsOnSigterm(process)

    def test_2000_slow_clients(self):
        process = self.start_fake('api_connection_timeout = 5\n')
        threads = _threads(process.pid)
        slow = []
        for number in range(2000):
            sock = socket.create_connection(('127.0.0.1', self.port),
                                            timeout=WAIT)
            self.addCleanup(sock.close)
            if number % 2:
                sock.sendall(b'GET /watcher HTTP/1.1\r\nHost: x\r\n')
            slow.append(sock)
        # No thread more for them; a real client is answered meanwhile.
        started = time.monotonic()
        self.assertEqual(200, self.get('/watcher/health', timeout=30.0)[0])
        self.assertLess(time.monotonic() - started, 10.0)
        self.assertLessEqual(_threads(process.pid), threads + 2)
        # They are cut at the deadline (some wait in the listen queue
        # first, while 512 wait for their request).
        for sock in slow[:50]:
            sock.settimeout(WAIT)
            try:
                self.assertEqual(b'', sock.recv(10))
            except ConnectionResetError:
                pass
        self.assertStopsOnSigterm(process)


def _threads(pid):
    with open('/proc/%d/status' % pid) as stream:
        for line in stream:
            if line.startswith('Threads:'):
                return int(line.split()[1])
    raise AssertionError('no thread count for %d' % pid)


def _backlog(port):
    """The listen queue's length at 127.0.0.1:``port``, as ss(8) tells
    it (None without ss).
    """
    try:
        listing = subprocess.run(['ss', '-ltnH', 'sport = :%d' % port],
                                 capture_output=True, text=True,
                                 timeout=WAIT).stdout
    except OSError:
        return None
    for line in listing.splitlines():
        fields = line.split()
        if fields[3].endswith(':%d' % port):
            return int(fields[2])
    raise AssertionError('nothing listens at %d: %r' % (port, listing))
