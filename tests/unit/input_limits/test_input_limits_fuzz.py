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

"""Fuzz tests of :mod:`preemptible_sched.input_limits`: every check refuses
with InvalidInput or returns a value within its bounds, whatever the input.
Settings: tests/hypothesis_profiles.
"""

import json
import math

from hypothesis import given
from hypothesis import strategies as st

from preemptible_sched import exception
from preemptible_sched import input_limits as limits
from preemptible_sched.input_limits import documents
from tests import base
from tests import fuzz_strategies as hostile
from tests.hypothesis_profiles import fuzz_settings


class TestLimitsFuzz(base.TestCase):

    @fuzz_settings()
    @given(st.one_of(hostile.numbers(), hostile.scalars()),
           st.one_of(st.none(), st.floats(-1e9, 1e9)),
           st.one_of(st.none(), st.floats(-1e9, 1e9)))
    def test_finite_number(self, value, minimum, maximum):
        try:
            number = limits.finite_number(value, 'f', 'x', minimum=minimum,
                                          maximum=maximum)
        except exception.InvalidInput as error:
            self.assertNotIn('\n', str(error))
            return
        self.assertTrue(math.isfinite(number))
        self.assertTrue(minimum is None or number >= minimum)
        self.assertTrue(maximum is None or number <= maximum)

    @fuzz_settings()
    @given(st.one_of(hostile.numbers(), hostile.number_texts(),
                     hostile.nasty_text()))
    def test_parse_number(self, value):
        try:
            number = limits.parse_number(value, '--x', None, minimum=0,
                                         maximum=limits.MAX_TIME)
        except exception.InvalidInput as error:
            self.assertNotIn('\n', str(error))
            return
        self.assertTrue(0 <= number <= limits.MAX_TIME)

    @fuzz_settings()
    @given(st.one_of(hostile.json_values().map(
        json.dumps),
        hostile.nasty_text(40), hostile.deep_nesting()))
    def test_parse_json(self, text):
        try:
            data = documents.parse_json(text, 'f')
        except exception.InvalidInput as error:
            self.assertNotIn('\n', str(error))
            return
        hostile.assert_finite(data)

    @fuzz_settings()
    @given(st.one_of(hostile.nasty_text(40), st.lists(st.sampled_from((
        'a: .nan\n', 'b: [1, 2]\n', 'c: &x {d: 1}\n', 'e: *x\n', '- 1\n',
        '? [1]\n: 2\n', 'f: 2020-01-01\n', '[[[[', ']]', '{', 'g: 1e400\n',
        'h: !!float inf\n', '---\n', 'i: "\\ud800"\n')), max_size=6).map(
        ''.join)))
    def test_parse_yaml(self, text):
        try:
            data = documents.parse_yaml(text, 'f')
        except exception.InvalidInput as error:
            self.assertNotIn('\n', str(error))
            return
        hostile.assert_finite(data)
