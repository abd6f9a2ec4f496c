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
* ``GET /watcher?window=5m`` (or ``10m``, ``15m``): another window; a host
  whose window is empty gets its next shorter one;
* ``GET /watcher/health``: 200 ``ok``, or 503 and why: the source is
  failing (or its window aggregates are), nothing was collected yet, or
  the last collection is stale;
* ``GET /metrics``: the watcher's metrics in Prometheus' text format
  (:mod:`.metrics`);
* anything else on these paths: 405; other paths: 404; a request whose
  body or query is larger than ``max_request_bytes``: 413; a path or
  query that is not UTF-8: 400. Every error is a one-line body.

:func:`serve_in_thread` runs it on the standard library's WSGI server,
made safe to face a network (:mod:`.httpserver`): a bounded pool of
threads (``[load_watcher] api_workers``), a long listen queue
(``api_backlog``), and a deadline on each connection
(``api_connection_timeout``), however slowly the client sends or reads.
Bound to 127.0.0.1 unless told otherwise.
"""

import json
import logging
import threading
import urllib.parse

import webob
import webob.dec
import webob.exc

from preemptible_sched.conf import CONF
from preemptible_sched import loadwatcher
from preemptible_sched.loadwatcher import httpserver
from preemptible_sched.loadwatcher import metrics as metrics_mod

LOG = logging.getLogger(__name__)

DEFAULT_MAX_REQUEST_BYTES = 8192
PATHS = ('/watcher', '/watcher/health', '/metrics')


def _text(status, message, **headers):
    # One line, whatever a client put in the path or the host name.
    message = ''.join(char if char.isprintable() else '?'
                      for char in message)
    response = webob.Response(status=status, text=message + '\n',
                              content_type='text/plain', charset='utf-8')
    response.headers.update(headers)
    return response


def _utf8(environ):
    """Whether the path and the decoded query are UTF-8."""
    try:
        # WSGI hands the path over as latin-1 text of its bytes.
        environ.get('PATH_INFO', '').encode('latin-1').decode('utf-8')
        urllib.parse.unquote_to_bytes(environ.get(
            'QUERY_STRING', '').encode('latin-1')).decode('utf-8')
    except (UnicodeEncodeError, UnicodeDecodeError):
        return False
    return True


class WatcherApp:
    """WSGI application serving ``watcher`` (a
    :class:`~preemptible_sched.loadwatcher.watcher.LoadWatcher`) and its
    metrics (``metrics``: :func:`.metrics.of` the watcher by default).
    """

    def __init__(self, watcher, max_request_bytes=DEFAULT_MAX_REQUEST_BYTES,
                 metrics=None):
        self.watcher = watcher
        self.max_request_bytes = max_request_bytes
        self.metrics = metrics or metrics_mod.of(watcher)

    @webob.dec.wsgify
    def __call__(self, request):
        try:
            return self._answer(request)
        except Exception as error:
            # A bug of ours: one line, the traceback at debug level, and
            # a short answer, never the traceback to the client.
            LOG.error('Load watcher API: %s %s failed: %s: %s',
                      request.method, request.environ.get('PATH_INFO',
                                                          '')[:100],
                      type(error).__name__, str(error)[:200])
            LOG.debug('Load watcher API failure', exc_info=True)
            return _text(500, 'internal error')

    def _answer(self, request):
        if len(request.query_string) > self.max_request_bytes:
            return _text(413, 'request larger than %d bytes'
                         % self.max_request_bytes)
        if not _utf8(request.environ):
            return _text(400, 'bad request: the path or query is not UTF-8')
        if request.path not in PATHS:
            return _text(404, 'no such resource: %s' % request.path[:100])
        size = request.content_length or 0
        if size > self.max_request_bytes:
            return _text(413, 'request larger than %d bytes'
                         % self.max_request_bytes)
        if request.method not in ('GET', 'HEAD'):
            return _text(405, 'only GET is allowed', Allow='GET, HEAD')
        if request.path == '/metrics':
            response = webob.Response(body=self.metrics.text())
            response.headers['Content-Type'] = metrics_mod.CONTENT_TYPE
            return response
        if request.path == '/watcher/health':
            healthy, why = self.watcher.health()
            return _text(200 if healthy else 503, why)
        host = request.GET.get('host')
        window = request.GET.get('window') or loadwatcher.LATEST
        if window not in dict(loadwatcher.WINDOWS):
            return _text(400, 'bad request: window must be one of %s, got '
                         '%r' % (', '.join(name for name, _ in
                                           loadwatcher.WINDOWS),
                                 window[:20]))
        payload = self.watcher.payload(host=host or None, window=window)
        if payload is None:
            if host:
                return _text(404, 'no metrics for host %s' % host[:100])
            return _text(404, 'no metrics yet')
        return webob.Response(
            body=json.dumps(payload).encode('utf-8'),
            content_type='application/json', charset='utf-8')


def make_server(app, host='127.0.0.1', port=0, workers=None, backlog=None,
                connection_timeout=None):
    """A WSGI server for ``app`` on ``host:port`` (0: any free port); the
    limits default to ``[load_watcher] api_workers``, ``api_backlog`` and
    ``api_connection_timeout``.
    """
    conf = CONF.load_watcher
    server = httpserver.BoundedWSGIServer(
        (host, port), workers or conf.api_workers,
        backlog or conf.api_backlog,
        connection_timeout or conf.api_connection_timeout)
    server.set_app(app)
    return server


def serve_in_thread(app, host='127.0.0.1', port=0, **limits):
    """Start serving ``app`` in a daemon thread; returns the server (its
    ``server_port``, and ``shutdown()`` to stop it). ``limits``: those of
    :func:`make_server`.
    """
    server = make_server(app, host, port, **limits)
    thread = threading.Thread(target=server.serve_forever,
                              name='load-watcher-http', daemon=True)
    thread.start()
    return server
