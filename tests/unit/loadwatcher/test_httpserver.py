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


"""The bounded WSGI server facing slow clients (issue 26 item 6)."""

import socket
import threading
import time

from preemptible_sched.loadwatcher import api
from preemptible_sched.loadwatcher import httpserver
from tests import base
from tests.unit.loadwatcher import hostile
from tests.unit.loadwatcher import test_api

WAIT = 30.0


class TestBoundedServer(base.TestCase):

    def serve(self, **limits):
        server = api.serve_in_thread(api.WatcherApp(test_api._watcher()),
                                     **limits)
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        return server

    def connect(self, server):
        sock = socket.create_connection(('127.0.0.1', server.server_port),
                                        timeout=WAIT)
        self.addCleanup(sock.close)
        return sock

    def get(self, server, path=b'/watcher/health'):
        sock = self.connect(server)
        sock.sendall(b'GET ' + path + b' HTTP/1.0\r\n\r\n')
        return hostile.read_until_closed(sock)

    def test_defaults(self):
        server = self.serve()
        self.assertEqual(128, server.request_queue_size)
        self.assertEqual(10.0, server.connection_timeout)
        self.assertEqual(b'HTTP/1.0 200 OK', self.get(server).split(
            b'\r\n')[0])

    def test_a_slow_client_is_cut_at_the_deadline(self):
        # One byte of the request every 100 ms: within any timeout of a
        # single read, so before it held its thread for ever.
        server = self.serve(connection_timeout=1.0)
        sock = self.connect(server)
        started = time.monotonic()
        request = b'GET /watcher HTTP/1.1\r\nHost: x\r\n' + b'X: y\r\n' * 100
        try:
            for byte in request:
                sock.sendall(bytes([byte]))
                time.sleep(0.1)
                if time.monotonic() - started > WAIT:
                    break
        except OSError:
            pass            # cut: what is tested
        self.assertLess(time.monotonic() - started, 15.0)
        try:
            self.assertEqual(b'', sock.recv(1024))
        except ConnectionResetError:
            pass

    def test_slow_clients_take_no_thread_and_others_are_served(self):
        server = self.serve(workers=4, connection_timeout=20.0)
        self.assertEqual(4, sum(thread.is_alive()
                                for thread in server._workers))
        threads = threading.active_count()
        idle = [self.connect(server) for _ in range(300)]
        for sock in idle[::2]:
            sock.sendall(b'GET /watcher HTTP/1.1\r\n')    # never ended
        hostile.wait_until(lambda: len(server._waiting) == 300, WAIT,
                           'the slow clients accepted')
        started = time.monotonic()
        self.assertTrue(self.get(server).startswith(b'HTTP/1.0 200'))
        self.assertLess(time.monotonic() - started, 15.0)
        self.assertLessEqual(threading.active_count(), threads)

    def test_a_client_that_does_not_read_is_cut(self):
        def big(environ, start_response):
            start_response('200 OK', [('Content-Type', 'text/plain')])
            return [b'x' * (64 << 20)]
        server = httpserver.BoundedWSGIServer(('127.0.0.1', 0), 1, 128, 1.0)
        server.set_app(big)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        sock = self.connect(server)
        sock.sendall(b'GET / HTTP/1.0\r\n\r\n')
        hostile.wait_until(lambda: server._served, WAIT, 'being answered')
        started = time.monotonic()
        # It reads nothing: the one worker is blocked writing, until the
        # deadline cuts the connection.
        hostile.wait_until(lambda: not server._served, WAIT,
                           'the connection cut')
        self.assertLess(time.monotonic() - started, 15.0)
        self.assertTrue(self.get(server).startswith(b'HTTP/1.0 200'))

    def test_waiting_connections_are_bounded(self):
        self.patch(httpserver, 'MAX_WAITING', 5)
        server = self.serve(connection_timeout=1.0)
        idle = [self.connect(server) for _ in range(20)]
        hostile.wait_until(lambda: len(server._waiting) == 5, WAIT,
                           'five waiting')
        time.sleep(0.3)
        self.assertEqual(5, len(server._waiting))
        # the others wait in the listen queue, and are served in turn
        self.assertTrue(self.get(server).startswith(b'HTTP/1.0 200'))
        del idle

    def test_shutdown_cuts_open_connections_at_once(self):
        server = api.serve_in_thread(api.WatcherApp(test_api._watcher()),
                                     workers=2, connection_timeout=60.0)
        self.addCleanup(server.server_close)
        idle = [self.connect(server) for _ in range(5)]
        hostile.wait_until(lambda: len(server._waiting) == 5, WAIT,
                           'five connections accepted')
        started = time.monotonic()
        server.shutdown()
        self.assertLess(time.monotonic() - started, 10.0)
        for sock in idle:
            self.assertEqual(b'', sock.recv(10))

    def test_request_line_too_long(self):
        server = self.serve()
        answer = self.get(server, b'/' + b'a' * 70000)
        self.assertTrue(answer.startswith(b'HTTP/1.0 414'), answer[:100])
