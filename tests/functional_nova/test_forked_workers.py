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

"""``[scheduler] workers``: each forked worker talks to Placement on its
own connections.

Nova's manager asks Placement for its versions in the process that then
forks the workers; with the keep-alive connection of that request left in
the pool, two workers wrote to and read from one socket and took each
other's answers (CI, 1 December: ``IncompleteRead(53 bytes read, 511 more
expected)`` and a normal boot in ERROR, in the two-worker burst of
``tests/nova_real/test_default_locks.py``). Here a keep-alive HTTP server
stands in for Placement and counts the connections it is asked on.
"""

import subprocess
import sys

from keystoneauth1 import adapter as ks_adapter
from keystoneauth1 import session as ks_session
from nova.scheduler.client import report
import testtools

from preemptible_sched.nova import manager

#: A keep-alive HTTP/1.1 server that answers ``GET <path>`` with the path
#: and the client port of the connection it came on; it prints its own
#: port. A process of its own: Nova's tests run under eventlet, whose
#: green threads a blocked urllib3 call would never let run.
PLACEMENT = r"""
import http.server, json, sys

class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def do_GET(self):
        body = json.dumps({'path': self.path,
                           'port': self.client_address[1]}).encode()
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass

server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
print(server.server_port, flush=True)
server.serve_forever()
"""


class TestForgetConnections(testtools.TestCase):

    def setUp(self):
        super().setUp()
        server = subprocess.Popen([sys.executable, '-c', PLACEMENT],
                                  stdout=subprocess.PIPE, text=True)
        self.addCleanup(server.wait, 10)
        self.addCleanup(server.kill)
        port = int(server.stdout.readline())
        self.ports = []
        self.client = report.SchedulerReportClient(adapter=ks_adapter.Adapter(
            session=ks_session.Session(timeout=30), service_type='placement',
            endpoint_override='http://127.0.0.1:%d' % port))

    def get(self, path):
        reply = self.client.get(path).json()
        self.assertEqual(path, reply['path'])
        self.ports.append(reply['port'])

    def test_the_pool_keeps_the_connection_without_it(self):
        # The premise: a second request reuses the first one's socket.
        self.get('/')
        self.get('/allocation_candidates')
        self.assertEqual(1, len(set(self.ports)), self.ports)

    def test_the_next_request_opens_its_own_connection(self):
        self.get('/')
        manager._forget_connections(self.client)
        self.get('/allocation_candidates')
        self.get('/resource_providers')
        ports = self.ports
        self.assertNotEqual(ports[0], ports[1])
        self.assertEqual(ports[1], ports[2])

    def test_a_client_without_a_pool_is_left_alone(self):
        # Another report client (a test double, a future Nova): a warning
        # that names it, no error.
        with self.assertLogs('preemptible_sched.nova.manager',
                             'WARNING') as logs:
            manager._forget_connections(object())
        self.assertIn('object', logs.output[0])
