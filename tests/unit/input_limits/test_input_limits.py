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

"""The bounds on untrusted input and the checks of numbers and text
(:mod:`preemptible_sched.input_limits`).
"""

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
