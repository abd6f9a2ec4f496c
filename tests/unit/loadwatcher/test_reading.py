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


"""Bounded reads: a total deadline, a size, a depth, long integers."""

import math
import time

from preemptible_sched.loadwatcher import reading
from tests import base
from tests.unit.loadwatcher import hostile


class TestGet(base.TestCase):

    def serve(self, *answers):
        server = hostile.HostileServer(answers)
        self.addCleanup(server.close)
        return server

    def test_whole_answer(self):
        server = self.serve(hostile.Answer(b'{"a": 1}', status=400))
        self.assertEqual((400, b'{"a": 1}'),
                         reading.get(server.url + '/x?q=1', 5.0, 1024))
        self.assertEqual([b'GET /x?q=1 HTTP/1.1'], server.requests)

    def test_one_byte_at_a_time_is_cut_at_the_deadline(self):
        # Each byte comes well within any timeout of a single read: a
        # socket timeout never trips (the scheduler froze on this).
        server = self.serve(hostile.Answer(b'x' * 1000, mode=hostile.DRIP,
                                           delay=0.02))
        started = time.monotonic()
        error = self.assertRaises(reading.ReadError, reading.get,
                                  server.url, 0.5, 1 << 20)
        self.assertLess(time.monotonic() - started, 10.0)
        self.assertEqual('no whole answer within 0.5 s', str(error))

    def test_no_answer_at_all_is_cut_at_the_deadline(self):
        server = self.serve(hostile.Answer(b'', mode=hostile.STALL))
        started = time.monotonic()
        self.assertRaises(reading.ReadError, reading.get, server.url, 0.3,
                          1024)
        self.assertLess(time.monotonic() - started, 10.0)

    def test_larger_than_the_limit(self):
        server = self.serve(hostile.Answer(b'x' * 5000))
        error = self.assertRaises(reading.ReadError, reading.get,
                                  server.url, 5.0, 4096)
        self.assertEqual('answer larger than 4096 bytes', str(error))

    def test_broken_answers_are_one_line_errors(self):
        for answer in (hostile.Answer(b'x' * 100, mode=hostile.CUT),
                       hostile.Answer(b'\0\0garbage\r\n\r\n',
                                      mode=hostile.RAW)):
            server = self.serve(answer)
            error = self.assertRaises(reading.ReadError, reading.get,
                                      server.url, 5.0, 4096)
            self.assertNotIn('\n', str(error))

    def test_only_http(self):
        for url in ('file:///etc/passwd', 'http://', 'http://h:port/'):
            self.assertRaises(reading.ReadError, reading.get, url, 1.0, 10)


class TestLoads(base.TestCase):

    def test_depth(self):
        self.assertEqual(0, reading.depth(b'1'))
        self.assertEqual(3, reading.depth(b'{"a": [1, {"b": "[[[{{"}]}'))
        self.assertEqual(1, reading.depth(b'["\\"[[[", "]"]'))

    def test_deep_documents_are_refused_before_parsing(self):
        for body in (b'[' * 100000 + b']' * 100000, b'[' * 200000,
                     b'{"a":' * 40 + b'1' + b'}' * 40):
            error = self.assertRaises(ValueError, reading.loads, body)
            self.assertIn('levels deep (at most 32)', str(error))
        self.assertEqual([[[1]]], reading.loads(b'[[[1]]]'))

    def test_depth_scan_is_linear_on_hostile_strings(self):
        # An unterminated string full of escaped quotes: a scan that
        # tried again at each quote would be quadratic.
        for body in (b'"' + b'\\"' * 500000, b'"' * 1000000,
                     b'"' + b'\\"' * 500000 + b'\\'):
            started = time.monotonic()
            self.assertRaises(ValueError, reading.loads, body)
            self.assertLess(time.monotonic() - started, 15.0)

    def test_long_integers_become_floats(self):
        self.assertEqual({'a': 12345678901234567890},
                         reading.loads(b'{"a": 12345678901234567890}'))
        found = reading.loads(b'[' + b'9' * 400 + b', -' + b'9' * 5000 +
                              b', 1' + b'0' * 25 + b']')
        self.assertEqual([math.inf, -math.inf, 1e25], found)

    def test_not_json_or_not_utf8(self):
        for body, message in ((b'\xff', 'not UTF-8'),
                              (b'{"a": ', 'not JSON'),
                              (b'', 'not JSON')):
            error = self.assertRaises(ValueError, reading.loads, body)
            self.assertIn(message, str(error))
