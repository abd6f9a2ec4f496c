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

"""Hypothesis strategies of hostile input, shared by the fuzz tests.

Numbers a parser must refuse or bound (NaN, infinities, integers beyond
the float range, negative and absurd sizes, ``2.0`` for a count, booleans
for numbers), strings that break naive code (separators, quotes, control
characters, lone surrogates, very long), and JSON-like documents made of
them; plus :func:`assert_finite`, which checks that what a parser accepted
holds no non-finite number anywhere.
"""

import dataclasses
import math

from hypothesis import strategies as st

#: Numbers every parser must either refuse or keep within its bounds.
EDGE_NUMBERS = (
    0, -0.0, 1, -1, 2.0, 0.5, 1e-320, 1e9, 1e9 + 1, 1e13, 1e15, 1e308,
    -1e308, 2 ** 31, 2 ** 53 + 1, 2 ** 63, 2 ** 64, 10 ** 400, -(10 ** 400),
    float('nan'), float('inf'), float('-inf'), True, False)

#: The same as text, plus spellings only some parsers take.
EDGE_NUMBER_TEXTS = (
    '', ' ', '0', '-0', '1', '-1', '2.0', '0.5', '1e9', '1000000001',
    '1e13', '1e308', '1e309', '-1e309', '1e400', '1e-400', 'nan', 'NaN',
    '-nan', 'inf', '-inf', 'Infinity', '+Infinity', 'infinity', '1_000',
    '0x10', '1e', '.', '-', '1,5', '\u0661\u0662', '\uff11', '9' * 400,
    '9' * 5000, '1' + '0' * 30, 'true', 'null', '-1e-5', '+1')

#: Characters that separators, quoting and error messages trip over.
NASTY_CHARS = (',', ';', '=', ':', '"', "'", '\\', '\n', '\r', '\t', '\0',
               '\x0b', '\x1b', '\u2028', '\u0085', '\ufeff', '#', ' ',
               '\ud800', '\udfff', '\U0001f600', '%s', '%d', '{}')


def numbers():
    """Any number, the edge cases above more often than not."""
    return st.one_of(
        st.sampled_from(EDGE_NUMBERS),
        st.floats(allow_nan=True, allow_infinity=True),
        st.integers(min_value=-(10 ** 20), max_value=10 ** 20),
        st.integers(min_value=10 ** 300, max_value=10 ** 320))


def number_texts():
    """Text that may or may not read as a number."""
    return st.one_of(
        st.sampled_from(EDGE_NUMBER_TEXTS),
        st.floats(allow_nan=True, allow_infinity=True).map(repr),
        st.integers(min_value=-(10 ** 12), max_value=10 ** 12).map(str),
        st.integers(min_value=-(10 ** 12), max_value=10 ** 12).map(
            lambda n: '%d.0' % n))


def nasty_text(max_size=20):
    """Short text built from the troublesome characters and letters."""
    pieces = st.one_of(st.sampled_from(NASTY_CHARS), st.characters())
    return st.one_of(
        st.lists(pieces, max_size=max_size).map(''.join),
        st.sampled_from(('', 'a', 'A1', 'x' * 5000, '\ud800')))


def scalars():
    return st.one_of(st.none(), st.booleans(), numbers(), nasty_text())


def json_values(max_leaves=30):
    """JSON-like documents (dicts with string keys, lists, scalars)."""
    return st.recursive(
        scalars(),
        lambda children: st.one_of(
            st.lists(children, max_size=5),
            st.dictionaries(nasty_text(8), children, max_size=5)),
        max_leaves=max_leaves)


def deep_nesting():
    """A list nested ``depth`` deep (1 to 5,000 levels)."""
    return st.integers(min_value=1, max_value=5000).map(
        lambda depth: '[' * depth + ']' * depth)


def assert_finite(value, where='value'):
    """Fail unless every number in ``value`` (recursively) is finite.

    Walks dataclasses, named tuples, mappings and sequences.
    """
    stack = [(value, where)]
    seen = set()
    while stack:
        item, path = stack.pop()
        if isinstance(item, bool) or item is None or isinstance(
                item, (str, bytes)):
            continue
        if isinstance(item, float):
            assert math.isfinite(item), '%s is %r' % (path, item)
            continue
        if isinstance(item, int):
            assert abs(item) < 2 ** 1023, '%s is %r' % (path, item)
            continue
        if id(item) in seen:
            continue
        seen.add(id(item))
        if dataclasses.is_dataclass(item):
            for field in dataclasses.fields(item):
                stack.append((getattr(item, field.name),
                              '%s.%s' % (path, field.name)))
        elif isinstance(item, dict):
            for key, child in item.items():
                stack.append((child, '%s[%r]' % (path, key)))
        elif isinstance(item, (list, tuple, set, frozenset)):
            for index, child in enumerate(item):
                stack.append((child, '%s[%d]' % (path, index)))
