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


"""Hostile HTTP servers and answers: a broken load watcher, a broken
Prometheus. Used by the unit and functional tests and by
``tools/fuzz_watcher.py``.

:class:`HostileServer` listens on 127.0.0.1 and answers every connection
with the next :class:`Answer` of its script: whole, one byte at a time
(``drip``), never (``stall``), cut in the middle, or not HTTP at all.
The answer bodies a real server would never send are in
:data:`WATCHER_BODIES` and :data:`PROMETHEUS_BODIES`, by name.
"""

import http.client
import itertools
import json
import signal
import socket
import subprocess
import threading
import time

WHOLE, DRIP, STALL, CUT, RAW = 'whole', 'drip', 'stall', 'cut', 'raw'


class Answer:
    """What one connection gets: ``body`` with ``status``, sent ``mode``:
    ``whole``; ``drip`` (the whole answer, headers too, one byte every
    ``delay`` seconds); ``stall`` (nothing, the connection held open);
    ``cut`` (the headers and half the body, then closed); ``raw`` (the
    body alone, no HTTP).
    """

    def __init__(self, body, status=200, mode=WHOLE, delay=0.05,
                 content_type='application/json'):
        self.body = body if isinstance(body, bytes) else json.dumps(
            body).encode('utf-8')
        self.status = status
        self.mode = mode
        self.delay = delay
        self.content_type = content_type

    def wire(self):
        if self.mode == RAW:
            return self.body
        head = ('HTTP/1.1 %d X\r\nContent-Type: %s\r\nContent-Length: %d'
                '\r\nConnection: close\r\n\r\n' % (
                    self.status, self.content_type, len(self.body)))
        return head.encode('ascii') + self.body

    def __repr__(self):
        return '<Answer %s %d %d bytes>' % (self.mode, self.status,
                                            len(self.body))


class HostileServer:
    """Serves ``answers`` (an iterable of :class:`Answer`, cycled) on
    127.0.0.1, one per connection, until :meth:`close`. ``requests``
    lists the request lines received, ``heads`` the whole request heads
    (request line and headers, bytes).
    """

    def __init__(self, answers):
        self._answers = itertools.cycle(list(answers))
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self.requests = []
        self.heads = []
        self._sock = socket.socket()
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(('127.0.0.1', 0))
        self._sock.listen(128)
        self._sock.settimeout(0.2)
        self.port = self._sock.getsockname()[1]
        self.url = 'http://127.0.0.1:%d' % self.port
        self._thread = threading.Thread(target=self._accept, daemon=True,
                                        name='hostile-server')
        self._thread.start()

    def _accept(self):
        while not self._closed.is_set():
            try:
                connection, _ = self._sock.accept()
            except OSError:
                continue
            with self._lock:
                answer = next(self._answers)
            threading.Thread(target=self._answer, args=(connection, answer),
                             daemon=True, name='hostile-answer').start()

    def _request_line(self, connection):
        connection.settimeout(5)
        data = b''
        try:
            while b'\r\n\r\n' not in data and len(data) < 65536:
                chunk = connection.recv(4096)
                if not chunk:
                    break
                data += chunk
        except OSError:
            pass
        with self._lock:
            self.requests.append(data.split(b'\r\n', 1)[0])
            self.heads.append(data.split(b'\r\n\r\n', 1)[0])

    def _answer(self, connection, answer):
        try:
            self._request_line(connection)
            wire = answer.wire()
            if answer.mode == STALL:
                self._closed.wait()
            elif answer.mode == DRIP:
                for index in range(len(wire)):
                    if self._closed.wait(answer.delay):
                        break
                    connection.sendall(wire[index:index + 1])
            elif answer.mode == CUT:
                connection.sendall(wire[:len(wire) - len(answer.body) // 2])
            else:
                connection.sendall(wire)
        except OSError:
            pass            # the client gave up: what is being tested
        finally:
            connection.close()

    def script(self, answers):
        """Answer the next connections with ``answers`` (cycled)."""
        with self._lock:
            self._answers = itertools.cycle(list(answers))

    def close(self):
        self._closed.set()
        self._thread.join(5)
        self._sock.close()


# -- Answers of a broken load watcher (GET /watcher) ------------------------

def watcher_payload(end=1700000900, hosts=('host-A', 'host-B'), cpu=30.0):
    """A valid payload of the released format."""
    metrics = [{'name': 'host.cpu.utilisation', 'type': 'CPU',
                'operator': operator, 'rollup': '15m', 'value': value}
               for operator, value in (('AVG', cpu), ('STD', 2.0))]
    return {'timestamp': end,
            'window': {'duration': '15m', 'start': end - 900, 'end': end},
            'source': 'hostile',
            'data': {'NodeMetricsMap': {host: {'metrics': metrics,
                                               'tags': {}, 'metadata': {}}
                                        for host in hosts}}}


def _replace(text, old, new):
    assert old in text
    return text.replace(old, new, 1)


def _valid_text(end=1700000900):
    return json.dumps(watcher_payload(end))


def _deep(depth, opener=b'[', closer=b']'):
    return opener * depth + closer * depth


#: name -> body: each a payload the scheduler must survive (most refused,
#: some with per-host values the weighers ignore).
WATCHER_BODIES = {
    'deep_nesting': _deep(100000),
    'deep_nesting_open': b'[' * 200000,
    'deep_objects': b'{"a":' * 50000 + b'1' + b'}' * 50000,
    'deep_in_tags': _replace(_valid_text(), '"tags": {}', '"tags": ' +
                             '[' * 5000 + ']' * 5000).encode(),
    'end_400_digits': _replace(_valid_text(), '"end": 1700000900',
                               '"end": ' + '9' * 400).encode(),
    'timestamp_400_digits': _replace(_valid_text(), '"timestamp": 1700000900',
                                     '"timestamp": ' + '9' * 400).encode(),
    'end_5000_digits': _replace(_valid_text(), '"end": 1700000900',
                                '"end": ' + '9' * 5000).encode(),
    'end_float_huge': _replace(_valid_text(), '"end": 1700000900',
                               '"end": 1e300').encode(),
    'end_infinity': _replace(_valid_text(), '"end": 1700000900',
                             '"end": Infinity').encode(),
    'end_nan': _replace(_valid_text(), '"end": 1700000900',
                        '"end": NaN').encode(),
    'end_negative': _replace(_valid_text(), '"end": 1700000900',
                             '"end": -5').encode(),
    'value_400_digits': _replace(_valid_text(), '30.0',
                                 '9' * 400).encode(),
    'value_minus_400_digits': _replace(_valid_text(), '30.0',
                                       '-' + '9' * 400).encode(),
    'value_1e400': _replace(_valid_text(), '30.0', '1e400').encode(),
    'value_nan': _replace(_valid_text(), '30.0', 'NaN').encode(),
    'value_string': _replace(_valid_text(), '30.0', '"30"').encode(),
    'value_list': _replace(_valid_text(), '30.0', '[30]').encode(),
    'top_list': b'[' + _valid_text().encode() + b']',
    'top_string': b'"watcher"',
    'top_number': b'9' * 400,
    'data_list': json.dumps(dict(watcher_payload(), data=[])).encode(),
    'map_list': json.dumps(dict(watcher_payload(), data={
        'NodeMetricsMap': [1, 2]})).encode(),
    'metrics_dict': _replace(_valid_text(), '"metrics": [',
                             '"metrics": {"x": [').replace(
        '], "tags"', ']}, "tags"').encode(),
    'empty_host_name': json.dumps(watcher_payload(hosts=('',))).encode(),
    'not_utf8': b'{"timestamp": "\xff\xfe"}',
    'not_json': b'<html>proxy error</html>',
    'truncated': _valid_text().encode()[:40],
    'empty': b'',
    'nul_bytes': b'\0' * 4096,
    'huge': b'[' + b'0,' * (9 * 1024 * 1024) + b'0]',
    'long_string': b'"' + b'x' * (4 * 1024 * 1024) + b'"',
    'escaped_quotes': b'"' + b'\\"' * (1024 * 1024),
}


# -- Answers of a broken Prometheus (GET /api/v1/query) ---------------------

def prometheus_vector(series):
    return {'status': 'success',
            'data': {'resultType': 'vector', 'result': series}}


def _series(label='compute-01:9100', value='37.25', name='instance'):
    return {'metric': {name: label}, 'value': [1700001500.123, value]}


def _vector_bytes(series):
    return json.dumps(prometheus_vector(series)).encode()


#: name -> body: each an answer the load watcher must survive (a failed
#: collection, or bad series skipped).
PROMETHEUS_BODIES = {
    # a list where an object is expected
    'answer_list': json.dumps([prometheus_vector([_series()])]).encode(),
    'data_list': json.dumps({'status': 'success', 'data': [1]}).encode(),
    'result_dict': json.dumps({'status': 'success', 'data': {
        'resultType': 'vector', 'result': {'a': 1}}}).encode(),
    'result_number': json.dumps({'status': 'success', 'data': {
        'resultType': 'vector', 'result': 7}}).encode(),
    'series_list': _vector_bytes([[1, 2], 'x', None, 5]),
    'metric_list': _vector_bytes([{'metric': ['instance'],
                                   'value': [1, '2']}]),
    # strings or lists in labels
    'label_list': _vector_bytes([_series(['compute-01:9100'])]),
    'label_dict': _vector_bytes([_series({'a': 'b'})]),
    'label_number': _vector_bytes([_series(12)]),
    'label_null': _vector_bytes([_series(None)]),
    'label_empty': _vector_bytes([_series('')]),
    'label_long': _vector_bytes([_series('h' * 100000)]),
    'label_controls': _vector_bytes([_series('a\nb\x00c\u2028:9100')]),
    # values
    'value_list': _vector_bytes([_series(value=['37'])]),
    'value_dict': _vector_bytes([_series(value={'v': 1})]),
    'value_bool': _vector_bytes([_series(value=True)]),
    'value_word': _vector_bytes([_series(value='high')]),
    'value_nan': _vector_bytes([_series(value='NaN')]),
    'value_inf': _vector_bytes([_series(value='+Inf')]),
    'value_400_digit_string': _vector_bytes([_series(value='9' * 400)]),
    'value_triple': _vector_bytes([{'metric': {'instance': 'h:1'},
                                    'value': [1, '2', 3]}]),
    # huge integers
    'value_400_digits': (b'{"status": "success", "data": {"resultType": '
                         b'"vector", "result": [{"metric": {"instance": '
                         b'"h:1"}, "value": [1, ' + b'9' * 400 + b']}]}}'),
    'time_5000_digits': (b'{"status": "success", "data": {"resultType": '
                         b'"vector", "result": [{"metric": {"instance": '
                         b'"h:1"}, "value": [' + b'9' * 5000 +
                         b', "1"]}]}}'),
    # deep nesting
    'deep_nesting': _deep(100000),
    'deep_in_metric': (b'{"status": "success", "data": {"resultType": '
                       b'"vector", "result": [{"metric": {"instance": ' +
                       _deep(5000) + b'}, "value": [1, "2"]}]}}'),
    # the envelope
    'error_dict': json.dumps({'status': 'error',
                              'error': {'why': 'x'}}).encode(),
    'error_long': json.dumps({'status': 'error',
                              'error': 'e\n' * 100000}).encode(),
    'no_status': json.dumps({'data': {}}).encode(),
    'matrix': json.dumps({'status': 'success', 'data': {
        'resultType': 'matrix', 'result': []}}).encode(),
    'result_type_huge': json.dumps({'status': 'success', 'data': {
        'resultType': 'v' * 100000, 'result': []}}).encode(),
    'not_json': b'<html>bad gateway</html>',
    'not_utf8': b'{"status": "\xff"}',
    'empty': b'',
    'huge': b'[' + b'0,' * (9 * 1024 * 1024) + b'0]',
    'escaped_quotes': b'"' + b'\\"' * (1024 * 1024),
}


def good_prometheus_body(hosts=('compute-01', 'compute-02'), value='40'):
    return _vector_bytes([_series('%s:9100' % host, value)
                          for host in hosts])


def http_get(port, path, timeout):
    """``(status, body)`` of ``GET path`` on 127.0.0.1:``port``."""
    connection = http.client.HTTPConnection('127.0.0.1', port,
                                            timeout=timeout)
    try:
        connection.request('GET', path)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def broker_unreachable(transport_url):
    """None if something listens at the first host of ``transport_url``
    (an oslo.messaging TransportURL), else why not.
    """
    broker = transport_url.hosts[0]
    address = (broker.hostname, broker.port or 5672)
    try:
        socket.create_connection(address, timeout=5).close()
        return None
    except OSError as error:
        return '%s:%s: %s' % (address + (error,))


def read_until_closed(sock):
    """Everything ``sock`` receives until the peer closes it."""
    answer = b''
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return answer
        answer += chunk


def stop_with_sigterm(process, within):
    """Send SIGTERM to ``process`` (a Popen); ``(exit code, seconds it
    took)``, or ``(None, within)`` when it still runs after ``within``.
    """
    started = time.monotonic()
    process.send_signal(signal.SIGTERM)
    try:
        code = process.wait(within)
    except subprocess.TimeoutExpired:
        return None, within
    return code, time.monotonic() - started


def wait_until(predicate, timeout, what, interval=0.05):
    """Poll ``predicate`` until true; AssertionError after ``timeout``."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError('timed out after %g s waiting for: %s'
                                 % (timeout, what))
        time.sleep(interval)
