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

"""The bounds on untrusted input (:mod:`preemptible_sched.input_limits`)."""

import os
import shutil
import tempfile

from preemptible_sched import exception
from preemptible_sched import input_limits as limits
from tests import base


class TestNumbers(base.TestCase):

    def refused(self, function, *args, **kw):
        error = self.assertRaises(exception.InvalidInput, function, *args,
                                  **kw)
        self.assertNotIn('\n', str(error))
        return str(error)

    def test_finite_number(self):
        self.assertEqual(2.5, limits.finite_number(2.5, 'f', 'x'))
        self.assertEqual(3.0, limits.finite_number(3, 'f', 'x'))
        for value in (float('nan'), float('inf'), -float('inf')):
            self.assertIn('expected a finite number', self.refused(
                limits.finite_number, value, 'f', 'x'))
        for value in (True, '1', None, [1]):
            self.assertIn('expected a number', self.refused(
                limits.finite_number, value, 'f', 'x'))
        self.assertIn('number too large', self.refused(
            limits.finite_number, 10 ** 400, 'f', 'x'))

    def test_finite_number_bounds(self):
        self.assertEqual('f: x: must be >= 0, got -1', self.refused(
            limits.finite_number, -1, 'f', 'x', minimum=0))
        self.assertEqual('f: x: must be > 0, got 0', self.refused(
            limits.finite_number, 0, 'f', 'x', minimum=0,
            exclusive_minimum=True))
        self.assertEqual(
            'f: x: must be <= 1e+09, got 10000000000.0', self.refused(
                limits.finite_number, 1e10, 'f', 'x',
                maximum=limits.MAX_RESOURCE))

    def test_integers(self):
        self.assertEqual(3, limits.positive_int(3, 'f', 'n'))
        for value in (2.0, True, '2', None):
            self.assertIn('expected an integer', self.refused(
                limits.positive_int, value, 'f', 'n'))
        self.assertIn('must be >= 1', self.refused(
            limits.positive_int, 0, 'f', 'n'))
        self.assertIn('must be <= 1000', self.refused(
            limits.positive_int, 1001, 'f', 'n',
            maximum=limits.MAX_INSTANCES_PER_REQUEST))

    def test_text(self):
        self.assertEqual(1.5, limits.parse_number(' 1.5 ', '--x', None))
        for text in ('nan', 'inf', 'one', ''):
            self.refused(limits.parse_number, text, '--x', None)

    def test_one_line(self):
        self.assertEqual('a\\nb\\x00c\\u2028', limits.one_line(
            'a\nb\0c\u2028'))
        self.assertEqual(10, len(limits.one_line('x' * 50, 10)))


class TestFiles(base.TestCase):

    def setUp(self):
        super().setUp()
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def path(self, name, data=None):
        path = os.path.join(self.tmp, name)
        if data is not None:
            with open(path, 'wb') as stream:
                stream.write(data)
        return path

    def test_regular_file(self):
        self.assertEqual('{}', limits.read_bounded_text(
            self.path('a.json', b'\xef\xbb\xbf{}')))

    def test_special_files_are_refused_before_reading(self):
        fifo = self.path('fifo')
        os.mkfifo(fifo)
        for path, kind in ((fifo, 'a FIFO'), ('/dev/zero',
                                              'a character device'),
                           (self.tmp, 'a directory')):
            error = self.assertRaises(exception.InvalidInput,
                                      limits.read_bounded_bytes, path)
            self.assertEqual('%s: not a regular file (%s)' % (path, kind),
                             str(error))

    def test_size_bound(self):
        path = self.path('big', b'x' * 11)
        error = self.assertRaises(exception.InvalidInput,
                                  limits.read_bounded_bytes, path, 'big',
                                  max_bytes=10)
        self.assertEqual('big: file too large: 11 bytes (limit 10)',
                         str(error))

    def test_not_utf8(self):
        path = self.path('a.json', b'{}\n\n\xff')
        error = self.assertRaises(exception.InvalidInput,
                                  limits.read_bounded_text, path)
        self.assertEqual('%s: line 3: not UTF-8 text: byte 0xff at offset '
                         '4' % path, str(error))

    def test_missing(self):
        error = self.assertRaises(exception.InvalidInput,
                                  limits.read_bounded_bytes,
                                  self.path('nope'))
        self.assertIn('cannot read file: No such file', str(error))


class TestDocuments(base.TestCase):

    def test_json_non_finite_names_the_field(self):
        for literal in ('NaN', 'Infinity', '-Infinity', '1e400'):
            error = self.assertRaises(exception.InvalidInput,
                                      limits.parse_json,
                                      '{"a": [1, %s]}' % literal, 'f')
            self.assertEqual('a[1]', error.field)

    def test_json_nesting(self):
        depth = limits.MAX_NESTING
        limits.parse_json('[' * depth + ']' * depth, 'f')
        for depth in (depth + 1, 100000):
            error = self.assertRaises(
                exception.InvalidInput, limits.parse_json,
                '[' * depth + ']' * depth, 'f')
            self.assertIn('nested too deeply', str(error))

    def test_yaml_oddities(self):
        for text, message in (
                ('a: .nan', 'finite'), ('a: 2020-01-01', 'type date'),
                ('a: !!binary aGk=', 'type bytes'), ('1: 2', 'strings'),
                ('a: !!python/object:os.system x', 'constructor'),
                ('[' * 1000 + ']' * 1000, 'nested too deeply')):
            error = self.assertRaises(exception.InvalidInput,
                                      limits.parse_yaml, text, 'f')
            self.assertIn(message, str(error))

    def test_alias_bomb(self):
        lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]']
        for level in range(1, 8):
            lines.append('a%d: &a%d [%s]' % (level, level, ', '.join(
                ['*a%d' % (level - 1)] * 10)))
        error = self.assertRaises(exception.InvalidInput,
                                  limits.parse_yaml, '\n'.join(lines), 'f')
        self.assertIn('document too large', str(error))

    def test_lone_surrogate(self):
        error = self.assertRaises(exception.InvalidInput,
                                  limits.parse_json, '{"a": "\\ud800"}', 'f')
        self.assertIn('lone surrogate', str(error))
