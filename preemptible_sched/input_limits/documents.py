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

"""Parsing JSON and YAML documents within the bounds of
:mod:`preemptible_sched.input_limits`.

A document is checked once parsed (:func:`check_tree`): plain (JSON's
types only), finite (no NaN, no infinity) and bounded (nesting, number of
values counted through YAML aliases). Every refusal is an
:class:`~preemptible_sched.exception.InvalidInput` naming the source and
the field.
"""

import json
import os

from preemptible_sched import exception
from preemptible_sched import input_limits as limits
from preemptible_sched.input_limits import regular_files


def _field(parts):
    text = ''
    for part in parts:
        text += '[%d]' % part if isinstance(part, int) else (
            '.%s' % part if text else str(part))
    return limits.one_line(text or '(top level)', 120)


def check_tree(data, source, max_depth=limits.MAX_NESTING,
               max_nodes=limits.MAX_NODES):
    """Check a parsed JSON/YAML document is plain, finite and bounded.

    Plain: only mappings with string keys, lists, strings (valid Unicode,
    no lone surrogates), ``int``, ``float``, ``bool`` and ``None``.
    Finite: no NaN or infinity, no integer beyond the float range.
    Bounded: nesting at most ``max_depth``, at most ``max_nodes`` values
    counted through shared references (YAML aliases). Iterative: no
    recursion, whatever the depth. Returns ``data``.
    """
    stack = [(data, 0, ())]
    count = 0
    while stack:
        value, depth, where = stack.pop()
        count += 1
        if count > max_nodes:
            raise exception.InvalidInput(
                source, None, 'document too large: more than %d values '
                '(YAML aliases count each time they are used)' % max_nodes)
        if isinstance(value, dict):
            if depth >= max_depth:
                raise exception.InvalidInput(
                    source, _field(where[:4]) + '...',
                    'nested too deeply (limit %d levels)' % max_depth)
            for key, item in value.items():
                if not isinstance(key, str):
                    raise exception.InvalidInput(
                        source, _field(where),
                        'keys must be strings, got %s' % limits.shown(key))
                _check_string(key, source, where)
                stack.append((item, depth + 1, where + (key,)))
        elif isinstance(value, list):
            if depth >= max_depth:
                raise exception.InvalidInput(
                    source, _field(where[:4]) + '...',
                    'nested too deeply (limit %d levels)' % max_depth)
            for index, item in enumerate(value):
                stack.append((item, depth + 1, where + (index,)))
        elif isinstance(value, str):
            _check_string(value, source, where)
        elif isinstance(value, bool) or value is None:
            pass
        elif isinstance(value, (int, float)):
            limits.finite_number(value, source, _field(where))
        else:
            raise exception.InvalidInput(
                source, _field(where), 'unsupported value of type %s' %
                type(value).__name__)
    return data


def _check_string(value, source, where):
    try:
        value.encode('utf-8')
    except UnicodeEncodeError:
        raise exception.InvalidInput(source, _field(where),
                                     'invalid Unicode (lone surrogate)')


def parse_json(text, source, max_depth=limits.MAX_NESTING):
    """Parse JSON ``text`` strictly and :func:`check_tree` the result.

    ``NaN``, ``Infinity``, numbers beyond the float range and integers of
    more digits than Python converts are refused (naming the field that
    holds them), like deep nesting.
    """
    try:
        # NaN, Infinity and 1e400 parse (as float NaN and infinities) so
        # that check_tree can name the field that holds them.
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise exception.InvalidInput(
            source, 'line %d column %d' % (error.lineno, error.colno),
            'malformed JSON: %s' % error.msg)
    except RecursionError:
        raise exception.InvalidInput(
            source, None, 'nested too deeply (limit %d levels)' % max_depth)
    except (ValueError, MemoryError) as error:
        raise exception.InvalidInput(source, None, 'malformed JSON: %s'
                                     % limits.one_line(error, 200))
    return check_tree(data, source, max_depth)


def parse_yaml(text, source, max_depth=limits.MAX_NESTING):
    """Parse YAML ``text`` with ``safe_load`` and :func:`check_tree` it.

    Timestamps, binary and sets are refused (they are not JSON), like
    ``.nan``/``.inf``, deep nesting and alias bombs.
    """
    import yaml

    loader = getattr(yaml, 'CSafeLoader', yaml.SafeLoader)
    try:
        # Events first (no recursion, whatever the depth): a document
        # nested too deeply is refused before it is built.
        depth = 0
        for event in yaml.parse(text, Loader=loader):
            if isinstance(event, (yaml.SequenceStartEvent,
                                  yaml.MappingStartEvent)):
                depth += 1
                if depth > max_depth:
                    raise exception.InvalidInput(
                        source, 'line %d' % (event.start_mark.line + 1),
                        'nested too deeply (limit %d levels)' % max_depth)
            elif isinstance(event, (yaml.SequenceEndEvent,
                                    yaml.MappingEndEvent)):
                depth -= 1
        # A safe loader (CSafeLoader or SafeLoader): no Python objects.
        data = yaml.load(text, Loader=loader)  # nosec B506
    except yaml.YAMLError as error:
        mark = getattr(error, 'problem_mark', None)
        where = 'line %d' % (mark.line + 1) if mark else None
        problem = getattr(error, 'problem', None) or error
        if 'maximum nesting depth' in str(problem):
            # PyYAML 6.0.4's scanner has a depth limit of its own, met
            # while reading ahead of the events counted above.
            raise exception.InvalidInput(
                source, where,
                'nested too deeply (limit %d levels)' % max_depth)
        raise exception.InvalidInput(
            source, where, 'malformed YAML: %s'
            % limits.one_line(problem, 200))
    except RecursionError:
        raise exception.InvalidInput(
            source, None, 'nested too deeply (limit %d levels)' % max_depth)
    except (ValueError, TypeError, OverflowError, MemoryError) as error:
        raise exception.InvalidInput(source, None, 'malformed YAML: %s'
                                     % limits.one_line(error, 200))
    return check_tree(data, source, max_depth)


def load_document(path, source_name=None,
                  max_bytes=limits.MAX_INPUT_BYTES,
                  max_depth=limits.MAX_NESTING):
    """Read a JSON (or, by extension, YAML) file with every check above."""
    source = path if source_name is None else source_name
    text = regular_files.read_bounded_text(path, source, max_bytes)
    if os.path.splitext(path)[1].lower() in ('.yaml', '.yml'):
        return parse_yaml(text, source, max_depth)
    return parse_json(text, source, max_depth)
