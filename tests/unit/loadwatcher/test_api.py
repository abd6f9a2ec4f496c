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


"""The watcher's HTTP API facing hostile clients (issue 26 item 6)."""

import webob

from preemptible_sched.loadwatcher import api
from preemptible_sched.loadwatcher import watcher as watcher_mod
from tests import base
from tests import load_helpers as helpers
from tests.unit.loadwatcher import test_watcher


def _watcher():
    watcher = watcher_mod.LoadWatcher(
        test_watcher.ScriptedSource(helpers.ramp))
    watcher.tick(helpers.T0)
    return watcher


class TestApp(base.TestCase):

    def call(self, path_bytes, query=b'', method='GET'):
        request = webob.Request.blank('/')
        # As a WSGI server passes them: the bytes of the path as latin-1.
        request.environ['PATH_INFO'] = path_bytes.decode('latin-1')
        request.environ['QUERY_STRING'] = query.decode('latin-1')
        request.method = method
        response = request.get_response(api.WatcherApp(_watcher()))
        return response.status_code, response.body

    def test_bad_utf8_is_a_400_not_a_500(self):
        # Before: UnicodeDecodeError out of WebOb, a 500 and a traceback.
        for path, query in ((b'/watcher\xff', b''),
                            (b'/\xc3(', b''),
                            (b'/watcher', b'host=%ff'),
                            (b'/watcher', b'host=\xff'),
                            (b'/watcher/health', b'a=%c3%28&b=1')):
            self.assertEqual(
                (400, b'bad request: the path or query is not UTF-8\n'),
                self.call(path, query), (path, query))

    def test_error_bodies_are_one_line(self):
        # The path is said percent-encoded, the host name as it is.
        self.assertEqual((404, b'no such resource: /a%0Ab%1Bc\n'),
                         self.call(b'/a\nb\x1bc'))
        self.assertEqual((404, b'no metrics for host x?y\n'),
                         self.call(b'/watcher', b'host=x%0dy'))

    def test_utf8_host_names_are_fine(self):
        self.assertEqual((404, 'no metrics for host h\u00e9\n'.encode()),
                         self.call(b'/watcher', b'host=h%C3%A9'))

    def test_a_bug_is_a_short_500(self):
        app = api.WatcherApp(_watcher())
        app.watcher.payload = None     # not callable: a TypeError
        with self.assertLogs('preemptible_sched.loadwatcher.api',
                             'ERROR') as logs:
            response = webob.Request.blank('/watcher').get_response(app)
        self.assertEqual((500, b'internal error\n'),
                         (response.status_code, response.body))
        self.assertEqual(1, len(logs.records))
        self.assertIsNone(logs.records[0].exc_info)

    def test_health(self):
        watcher = _watcher()
        request = webob.Request.blank('/watcher/health')
        self.assertEqual(b'ok\n', request.get_response(
            api.WatcherApp(watcher)).body)
        watcher.source.down = True
        watcher.scrape(helpers.T0 + 60)
        response = request.get_response(api.WatcherApp(watcher))
        self.assertEqual((503, b'source failing: connection refused\n'),
                         (response.status_code, response.body))
