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

"""The placement-constraint language of a request.

A request's ``constraints`` is a mapping; each entry is one constraint on
a host attribute. The operator rides on the key, so that the mapping (and
the ``key=value;key=value`` text it is written as) stays what it always
was for equality:

========== ======================== =====================================
text       mapping entry            a host passes when its value ...
========== ======================== =====================================
``k=v``    ``{'k': 'v'}``           equals ``v`` (as strings)
``k!=v``   ``{'k!': 'v'}``          differs from ``v`` (as strings)
``k<v``    ``{'k<': 'v'}``          is a number below ``v``
``k>v``    ``{'k>': 'v'}``          is a number above ``v``
========== ======================== =====================================

The four are the operators of the Google 2011 ``task_constraints`` table
(0 equal, 1 not equal, 2 less than, 3 greater than), whose values may be
empty. A host that lacks the attribute is taken to have the empty value:
``k=`` (empty) then means "has no k", ``k!=v`` (non-empty ``v``) matches
it, and ``k<v`` / ``k>v`` do not (the empty value is no number). ``<`` and
``>`` need a finite number ``v``. As before, a name written twice with
one operator keeps the last value.
"""

import math

EQUAL, NOT_EQUAL, LESS, GREATER = '=', '!=', '<', '>'
#: Key suffix of each operator in a constraints mapping.
SUFFIXES = {EQUAL: '', NOT_EQUAL: '!', LESS: '<', GREATER: '>'}
_OPERATORS = {suffix: op for op, suffix in SUFFIXES.items() if suffix}


class BadConstraint(ValueError):
    """A constraint that cannot be read; its message says why."""


def key(name, operator):
    """The mapping key of a constraint ``name <operator> value``."""
    return name + SUFFIXES[operator]


def split(entry_key):
    """``(attribute name, operator)`` of a constraints mapping key."""
    operator = _OPERATORS.get(entry_key[-1:])
    if operator is None or len(entry_key) < 2:
        return entry_key, EQUAL
    return entry_key[:-1], operator


def number(text):
    """``text`` as a finite float, or None."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def parse(text):
    """The constraints mapping of ``k=v;k!=v;k<v;k>v`` text (empty: none).

    Raises :class:`BadConstraint` for a part with no operator, no name, a
    name ending in an operator character or a non-numeric bound of ``<``
    or ``>``.
    """
    parsed = {}
    for part in filter(None, (p.strip() for p in text.split(';'))):
        positions = [(part.find(op), op) for op in ('!=', '=', '<', '>')
                     if part.find(op) > 0]
        if not positions:
            raise BadConstraint('expected key=value, key!=value, key<value '
                                'or key>value, got %r' % part)
        at, operator = min(positions)
        name = part[:at].strip()
        value = part[at + len(operator):].strip()
        if not name or name[-1] in '!<>=':
            raise BadConstraint('no attribute name in %r' % part)
        if operator in (LESS, GREATER) and number(value) is None:
            raise BadConstraint('%r: %s needs a number, got %r'
                                % (part, operator, value))
        parsed[key(name, operator)] = value
    return parsed


def satisfied(operator, have, wanted):
    """Whether a host value ``have`` (None: the host lacks the attribute)
    meets ``operator wanted``.
    """
    have = '' if have is None else str(have)
    wanted = str(wanted)
    if operator == EQUAL:
        return have == wanted
    if operator == NOT_EQUAL:
        return have != wanted
    left, right = number(have), number(wanted)
    if left is None or right is None:
        return False
    return left < right if operator == LESS else left > right
