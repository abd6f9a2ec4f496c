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


"""The load watcher's HTTP API, a WSGI application (WebOb).

* ``GET /watcher``: every host's latest 15-minute window;
* ``GET /watcher?host=NAME``: one host (404 and a one-line body when it
  has none);
* ``GET /watcher/health``: 200, or 503 while the source is failing;
* anything else on these paths: 405; other paths: 404; a request whose
  body or query is larger than ``max_request_bytes``: 413.

:func:`serve` runs it on the standard library's WSGI server, one thread
per request, bound to 127.0.0.1 unless told otherwise.
"""

import json
import logging
import socketserver
import threading
from wsgiref import simple_server

import webob
import webob.dec
import webob.exc

LOG = logging.getLogger(__name__)

DEFAULT_MAX_REQUEST_BYTES = 8192


def _text(status, message, **headers):
    response = webob.Response(status=status, text=message + '\n',
                              content_type='text/plain', charset='utf-8')
    response.headers.update(headers)
    return response


class WatcherApp:
    """WSGI application serving ``watcher`` (a
    :class:`~preemptible_sched.loadwatcher.watcher.LoadWatcher`).
    """

    def __init__(self, watcher, max_request_bytes=DEFAULT_MAX_REQUEST_BYTES):
        self.watcher = watcher
        self.max_request_bytes = max_request_bytes

    @webob.dec.wsgify
    def __call__(self, request):
        if request.path not in ('/watcher', '/watcher/health'):
            return _text(404, 'no such resource: %s' % request.path[:100])
        size = request.content_length or 0
        if size > self.max_request_bytes or \
                len(request.query_string) > self.max_request_bytes:
            return _text(413, 'request larger than %d bytes'
                         % self.max_request_bytes)
        if request.method not in ('GET', 'HEAD'):
            return _text(405, 'only GET is allowed', Allow='GET, HEAD')
        if request.path == '/watcher/health':
            if self.watcher.healthy():
                return _text(200, 'ok')
            return _text(503, 'source failing: %s'
                         % self.watcher.source_error)
        host = request.GET.get('host')
        payload = self.watcher.payload(host=host or None)
        if payload is None:
            if host:
                return _text(404, 'no metrics for host %s' % host[:100])
            return _text(404, 'no metrics yet')
        return webob.Response(
            body=json.dumps(payload).encode('utf-8'),
            content_type='application/json', charset='utf-8')


class _Handler(simple_server.WSGIRequestHandler):
    def log_message(self, format, *args):
        LOG.debug('%s - %s', self.address_string(), format % args)


class _ThreadingServer(socketserver.ThreadingMixIn,
                       simple_server.WSGIServer):
    daemon_threads = True
    allow_reuse_address = True


def make_server(app, host='127.0.0.1', port=0):
    """A WSGI server for ``app`` on ``host:port`` (0: any free port)."""
    return simple_server.make_server(host, port, app,
                                     server_class=_ThreadingServer,
                                     handler_class=_Handler)


def serve_in_thread(app, host='127.0.0.1', port=0):
    """Start serving ``app`` in a daemon thread; returns the server (its
    ``server_port``, and ``shutdown()`` to stop it).
    """
    server = make_server(app, host, port)
    thread = threading.Thread(target=server.serve_forever,
                              name='load-watcher-http', daemon=True)
    thread.start()
    return server
