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


"""A WSGI server of the standard library, safe to face a network.

No WSGI server is among the requirements, and wsgiref's own, one thread
per connection for as long as the client likes, gives a thread to every
slow client: 2,000 of them held 2,007 threads. :class:`BoundedWSGIServer`
keeps wsgiref's request handling and changes how connections are held:

* one thread accepts connections and reads their requests, all of them
  at once (non-blocking sockets, :mod:`selectors`), so a client that
  sends its request one byte at a time costs a socket, not a thread;
* a request read whole goes to a fixed pool of ``workers`` threads,
  which run the application and write the answer;
* every connection is shut down ``connection_timeout`` seconds after it
  was accepted, whatever stage it is in (a deadline, not a timeout of
  each read: a client reading the answer one byte at a time is cut too);
* the listen queue is ``backlog`` long, and at most
  :data:`MAX_WAITING` connections wait for their request at once (more
  wait in the listen queue).
"""

import io
import logging
import queue
import selectors
import socket
import sys
import threading
import time
from wsgiref import simple_server

LOG = logging.getLogger(__name__)

#: Connections that may be waiting for their request at once.
MAX_WAITING = 512
#: Largest request head (request line and headers); wsgiref allows a
#: request line of 64 KiB.
MAX_HEAD = 65536 + 8192
#: Seconds between two looks at the deadlines (and at a stop).
TICK = 0.2


class _DebugLog(io.TextIOBase):
    """wsgiref's error stream: a failed write to a client that went away
    is not worth a traceback on stderr.
    """

    def write(self, text):
        if text.strip():
            LOG.debug('%s', text.rstrip())
        return len(text)


class _Handler(simple_server.WSGIRequestHandler):
    """wsgiref's handler, reading the request the server read already;
    its own errors (a request that is not HTTP) in one short line, with a
    status line even for what looks like HTTP/0.9.
    """

    default_request_version = 'HTTP/1.0'
    error_message_format = '%(code)d %(message)s\n'
    error_content_type = 'text/plain; charset=utf-8'

    def setup(self):
        # Each write is bounded by what is left of the deadline.
        self.timeout = max(0.01, self.server.deadline_of(self.request) -
                           time.monotonic())
        super().setup()
        self.rfile.close()
        self.rfile = io.BytesIO(self.server.head_of(self.request))

    def get_stderr(self):
        return _DebugLog()

    def log_message(self, format, *args):
        LOG.debug('%s - %s', self.address_string(), format % args)


def _cut(sock):
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass            # closed meanwhile


class _Connection:
    __slots__ = ('sock', 'address', 'deadline', 'head')

    def __init__(self, sock, address, deadline):
        self.sock = sock
        self.address = address
        self.deadline = deadline
        self.head = b''


class BoundedWSGIServer(simple_server.WSGIServer):
    """See the module. ``serve_forever`` in one thread; ``shutdown``
    from another stops it, and cuts every connection still open.
    """

    allow_reuse_address = True

    def __init__(self, address, workers, backlog, connection_timeout):
        self.request_queue_size = backlog
        self.connection_timeout = connection_timeout
        super().__init__(address, _Handler)
        self.socket.setblocking(False)
        self._selector = selectors.DefaultSelector()
        self._waiting = {}          # socket -> _Connection, reading
        self._served = {}           # socket -> _Connection, in a worker
        self._lock = threading.Lock()
        self._requests = queue.Queue()
        self._closing = threading.Event()
        self._serving = False
        self._stopped = threading.Event()
        self._workers = [threading.Thread(target=self._work, daemon=True,
                                          name='load-watcher-http-worker')
                         for _ in range(workers)]
        for thread in self._workers:
            thread.start()

    # -- what the handler asks ---------------------------------------------

    def deadline_of(self, sock):
        with self._lock:
            return self._served[sock].deadline

    def head_of(self, sock):
        with self._lock:
            return self._served[sock].head

    # -- accepting and reading requests (one thread) -------------------------

    def serve_forever(self, poll_interval=TICK):
        self._serving = True
        listening = False
        try:
            while not self._closing.is_set():
                if not listening and len(self._waiting) < MAX_WAITING:
                    self._selector.register(self.socket, selectors.EVENT_READ)
                    listening = True
                for key, _ in self._selector.select(poll_interval):
                    if key.fileobj is self.socket:
                        self._accept()
                    else:
                        self._read(key.data)
                if listening and len(self._waiting) >= MAX_WAITING:
                    self._selector.unregister(self.socket)
                    listening = False
                self._reap(time.monotonic())
        finally:
            for connection in list(self._waiting.values()):
                self._drop(connection)
            self._selector.close()
            self._stopped.set()

    def _accept(self):
        while len(self._waiting) < MAX_WAITING:
            try:
                sock, address = self.socket.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as error:    # out of descriptors, for one
                LOG.debug('Accepting a connection: %s', error)
                return
            sock.setblocking(False)
            connection = _Connection(
                sock, address, time.monotonic() + self.connection_timeout)
            self._waiting[sock] = connection
            self._selector.register(sock, selectors.EVENT_READ, connection)

    def _read(self, connection):
        try:
            chunk = connection.sock.recv(8192)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            chunk = b''
        if not chunk:
            self._drop(connection)
            return
        connection.head += chunk
        head = connection.head
        if b'\r\n\r\n' in head or b'\n\n' in head or len(head) > MAX_HEAD:
            # Whole (or too long: wsgiref answers that with its 414 or
            # 431): to a worker.
            self._selector.unregister(connection.sock)
            del self._waiting[connection.sock]
            with self._lock:
                self._served[connection.sock] = connection
            self._requests.put(connection)

    def _drop(self, connection):
        self._waiting.pop(connection.sock, None)
        try:
            self._selector.unregister(connection.sock)
        except (KeyError, ValueError):
            pass
        connection.sock.close()

    def _reap(self, now):
        for connection in [c for c in self._waiting.values()
                           if c.deadline <= now]:
            LOG.debug('HTTP connection from %s: no whole request within '
                      '%g s', connection.address, self.connection_timeout)
            self._drop(connection)
        with self._lock:
            late = [c for c in self._served.values() if c.deadline <= now]
        for connection in late:
            _cut(connection.sock)

    # -- answering (the workers) ---------------------------------------------

    def _work(self):
        while True:
            connection = self._requests.get()
            if connection is None:
                return
            try:
                connection.sock.setblocking(True)
                self.finish_request(connection.sock, connection.address)
            except Exception:
                self.handle_error(connection.sock, connection.address)
            finally:
                with self._lock:
                    self._served.pop(connection.sock, None)
                self.shutdown_request(connection.sock)

    def handle_error(self, request, client_address):
        # A client that timed out, went away or sent garbage: one line.
        error = sys.exc_info()[1]
        LOG.debug('HTTP connection from %s ended: %s: %s',
                  client_address, type(error).__name__, error)

    # -- stopping -------------------------------------------------------------

    def shutdown(self):
        """Stop accepting, cut every open connection, let the workers go
        (each within :data:`TICK` or so).
        """
        self._closing.set()
        if self._serving:
            self._stopped.wait()
        with self._lock:
            served = list(self._served.values())
        for connection in served:
            _cut(connection.sock)
        for _ in self._workers:
            self._requests.put(None)
