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


"""Bounded reads of JSON over HTTP: a load watcher, a Prometheus server.

A socket timeout bounds each ``recv``, not the read: a server answering
one byte a second never trips it. :func:`get` bounds the whole exchange
(connecting, sending, the headers, the body) by one deadline, after which
the socket is shut down under the reader, and the body by a size;
:func:`loads` refuses documents nested deeper than :data:`MAX_DEPTH`
before the parser recurses, and turns integers too long to be a
measurement into floats (infinite when out of range), which the callers
judge as they judge any absurd number.
"""

import http.client
import json
import re
import socket
import threading
import urllib.parse

import numpy

#: Deepest nesting of arrays and objects :func:`loads` parses. The
#: watcher's payload needs 6 levels and a Prometheus answer 5; the margin
#: is for the tags and metadata other watchers add.
MAX_DEPTH = 32
#: Integers with more digits than this are read as floats: no utilisation
#: or time of day needs more, and Python's int would take them all.
MAX_INT_DIGITS = 20

# A string, or an unterminated one up to the end: every attempt succeeds,
# so the scan is linear whatever the text (no backtracking to try again).
_STRING = re.compile(rb'"(?:[^"\\]+|\\.|\\\Z)*(?:"|\Z)', re.DOTALL)
_NOT_BRACKETS = bytes(set(range(256)) - set(b'[]{}'))


class ReadError(Exception):
    """The answer could not be had within the limits (one line);
    ``timed_out`` when the deadline passed.
    """

    def __init__(self, message, timed_out=False):
        super().__init__(message)
        self.timed_out = timed_out


def _connection(parts, port, deadline, context):
    if parts.scheme == 'https':
        return http.client.HTTPSConnection(parts.hostname, port,
                                           timeout=deadline, context=context)
    return http.client.HTTPConnection(parts.hostname, port, timeout=deadline)


def get(url, deadline, max_bytes, headers=None, context=None):
    """``(status, body)`` of ``GET url`` within ``deadline`` seconds in
    all, the body at most ``max_bytes``; :class:`ReadError` otherwise.

    Any status is returned (Prometheus explains a bad query in the body
    of its 400); redirects are not followed. ``headers`` are sent too
    (an ``Authorization``); ``context`` (an :class:`ssl.SSLContext`)
    checks an https server (None: the system's CAs, host name checked).
    """
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ('http', 'https') or not parts.hostname:
        raise ReadError('not an http:// or https:// URL')
    try:
        port = parts.port
    except ValueError:
        raise ReadError('bad port in the URL')
    connection = _connection(parts, port, deadline, context)
    state = {'done': False, 'aborted': False}
    lock = threading.Lock()

    def abort():
        with lock:
            if state['done']:
                return
            state['aborted'] = True
            sock = connection.sock
        if sock is not None:
            try:
                # The plain socket's method: an SSL socket's own would
                # tear its state down under the reading thread.
                socket.socket.shutdown(sock, socket.SHUT_RDWR)
            except OSError:
                pass        # already closed

    timer = threading.Timer(deadline, abort)
    timer.daemon = True
    timer.start()
    failure = None
    try:
        path = parts.path or '/'
        if parts.query:
            path += '?' + parts.query
        sent = {'Accept': 'application/json', 'Connection': 'close'}
        sent.update(headers or {})
        connection.request('GET', path, headers=sent)
        response = connection.getresponse()
        body = bytearray()
        while len(body) <= max_bytes:
            chunk = response.read(min(1 << 16, max_bytes + 1 - len(body)))
            if not chunk:
                if response.length:     # Content-Length not reached
                    raise http.client.IncompleteRead(bytes(body),
                                                     response.length)
                break
            body += chunk
        status = response.status
    except (OSError, http.client.HTTPException, ValueError) as error:
        failure = error
    finally:
        with lock:
            # From here the timer does nothing: the read is over.
            state['done'] = True
        timer.cancel()
        connection.close()
    # A socket timeout is the whole deadline too (connecting, or any
    # wait of the socket, is bounded by it).
    if state['aborted'] or isinstance(failure, TimeoutError):
        raise ReadError('no whole answer within %g s' % deadline, True)
    if failure is not None:
        raise ReadError(_one_line(failure))
    if len(body) > max_bytes:
        raise ReadError('answer larger than %d bytes' % max_bytes)
    return status, bytes(body)


def _one_line(error):
    text = ' '.join(str(error).split())[:200]
    return '%s: %s' % (type(error).__name__, text) if text else \
        type(error).__name__


def depth(body):
    """How deep arrays and objects nest in the JSON text ``body``
    (bytes); linear, without recursion.
    """
    brackets = _STRING.sub(b'', body).translate(None, _NOT_BRACKETS)
    if not brackets:
        return 0
    codes = numpy.frombuffer(brackets, dtype=numpy.uint8)
    steps = numpy.where((codes == ord('[')) | (codes == ord('{')),
                        numpy.int8(1), numpy.int8(-1))
    return int(numpy.cumsum(steps, dtype=numpy.int32).max())


def _integer(text):
    digits = len(text) - (text[0] == '-')
    return int(text) if digits <= MAX_INT_DIGITS else float(text)


def loads(body, max_depth=MAX_DEPTH):
    """The JSON document ``body`` (bytes, UTF-8); ValueError (one line)
    when it is not JSON, not UTF-8 or nested deeper than ``max_depth``.

    Long integers are floats (see :data:`MAX_INT_DIGITS`); NaN and the
    infinities are kept as floats for the caller to judge.
    """
    found = depth(body)
    if found > max_depth:
        raise ValueError('nested %d levels deep (at most %d)'
                         % (found, max_depth))
    try:
        text = body.decode('utf-8')
    except UnicodeDecodeError:
        raise ValueError('not UTF-8')
    try:
        return json.loads(text, parse_int=_integer)
    except RecursionError:      # not reached below max_depth
        raise ValueError('nested too deep')
    except ValueError as error:
        raise ValueError('not JSON (%s)' % str(error)[:120])
