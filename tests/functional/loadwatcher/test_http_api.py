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


"""The watcher's HTTP API over real HTTP on 127.0.0.1."""

import http.client
import json

from preemptible_sched.loadwatcher import api
from preemptible_sched.loadwatcher import payload
from preemptible_sched.loadwatcher import watcher as watcher_mod
from tests import base
from tests import load_helpers as helpers
from tests.unit.loadwatcher import test_watcher

T0 = helpers.T0


class TestHTTPAPI(base.TestCase):

    def setUp(self):
        super().setUp()
        self.source = test_watcher.ScriptedSource(helpers.ramp)
        self.watcher = watcher_mod.LoadWatcher(self.source)
        self.server = api.serve_in_thread(
            api.WatcherApp(self.watcher, max_request_bytes=1024))
        self.addCleanup(self.server.server_close)
        self.addCleanup(self.server.shutdown)
        self.assertEqual('127.0.0.1', self.server.server_address[0])

    def request(self, method, path, body=None, headers=None):
        connection = http.client.HTTPConnection(
            '127.0.0.1', self.server.server_port, timeout=10)
        self.addCleanup(connection.close)
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()

    def test_payload_is_schema_valid(self):
        status, _, body = self.request('GET', '/watcher')
        self.assertEqual(404, status)       # nothing collected yet
        self.assertEqual(b'no metrics yet\n', body)
        self.watcher.tick(T0)
        self.watcher.tick(T0 + 60)
        status, headers, body = self.request('GET', '/watcher')
        self.assertEqual(200, status)
        self.assertTrue(headers['Content-Type'].startswith(
            'application/json'))
        document = json.loads(body)
        payload.validator().validate(document)
        self.assertEqual(['host-a', 'host-b'],
                         sorted(document['data']['NodeMetricsMap']))
        status, _, body = self.request('GET', '/watcher?host=host-a')
        self.assertEqual(200, status)
        one = json.loads(body)
        payload.validator().validate(one)
        self.assertEqual(['host-a'], list(one['data']['NodeMetricsMap']))
        self.assertEqual({'avg': 0.5, 'std': 0.5},
                         payload.parse(one)['host-a']['cpu'])

    def test_unknown_host_404_one_line(self):
        self.watcher.tick(T0)
        status, _, body = self.request('GET', '/watcher?host=nope')
        self.assertEqual(404, status)
        self.assertEqual(b'no metrics for host nope\n', body)
        status, _, _ = self.request('GET', '/elsewhere')
        self.assertEqual(404, status)

    def test_other_methods_405(self):
        self.watcher.tick(T0)
        for method in ('POST', 'PUT', 'DELETE', 'PATCH'):
            status, headers, _ = self.request(method, '/watcher', body=b'')
            self.assertEqual(405, status, method)
            self.assertEqual('GET, HEAD', headers['Allow'])
        status, _, body = self.request('HEAD', '/watcher')
        self.assertEqual((200, b''), (status, body))

    def test_oversized_request_413(self):
        self.watcher.tick(T0)
        status, _, _ = self.request('POST', '/watcher', body=b'x' * 4096)
        self.assertEqual(413, status)
        status, _, _ = self.request('GET', '/watcher?host=' + 'a' * 2000)
        self.assertEqual(413, status)

    def test_health(self):
        self.watcher.tick(T0)
        self.assertEqual(200, self.request('GET', '/watcher/health')[0])
        self.source.down = True
        self.watcher.scrape(T0 + 60)
        status, _, body = self.request('GET', '/watcher/health')
        self.assertEqual(503, status)
        self.assertEqual(b'source failing: connection refused\n', body)
        # the windows are still served
        self.assertEqual(200, self.request('GET', '/watcher')[0])
