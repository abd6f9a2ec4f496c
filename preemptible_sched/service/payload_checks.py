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

"""Checking a payload against its schema (:mod:`.schemas`).

A payload is first made plain JSON (what a broker would deliver: tuples
become lists; sets, bytes and other objects are refused), then checked by
:func:`preemptible_sched.input_limits.documents.check_tree` (finite
numbers, string keys, valid Unicode, bounded nesting and size: JSON schema
cannot refuse NaN, whose comparisons with any bound are false), then by its
schema. Integers
are true integers (``2.0`` and ``true`` are not). A refusal is an
:class:`~preemptible_sched.exception.InvalidInput` naming the method and
the field, on one line.

:func:`check` takes any schema of :data:`.schemas.SCHEMAS` by name; the
others are its uses: the context of a call (:func:`check_context`), a
request (:func:`check_request_spec`), the agents' reports
(:func:`check_report`, handed to
:class:`~preemptible_sched.service.compute_reports.ComputeReportsEndpoint`)
and the answer of an agent to ``list_instances``
(:func:`validate_list_instances_answer`).
"""

import json

import jsonschema

from preemptible_sched import exception
from preemptible_sched import input_limits as limits
from preemptible_sched.input_limits import documents
from preemptible_sched.service import schemas


def _strict_integer(checker, instance):
    return isinstance(instance, int) and not isinstance(instance, bool)


_Validator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
        'integer', _strict_integer))

for _schema in schemas.SCHEMAS.values():
    _Validator.check_schema(_schema)
_VALIDATORS = {name: _Validator(schema)
               for name, schema in schemas.SCHEMAS.items()}

#: Most problems one refusal lists.
_MAX_PROBLEMS = 5


# -- checking ----------------------------------------------------------------

def _plain(payload, source, max_depth):
    """``payload`` as JSON would carry it, or InvalidInput."""
    try:
        text = json.dumps(payload, allow_nan=True)
    except RecursionError:
        raise exception.InvalidInput(
            source, None, 'nested too deeply (limit %d levels)'
            % max_depth) from None
    except (TypeError, ValueError, OverflowError) as error:
        raise exception.InvalidInput(
            source, None, 'not plain JSON: %s'
            % limits.one_line(error, 200)) from None
    try:
        return json.loads(text)
    except (RecursionError, ValueError) as error:
        raise exception.InvalidInput(
            source, None, 'not plain JSON: %s'
            % limits.one_line(error, 200)) from None


def _field(path):
    text = ''
    for part in path:
        if isinstance(part, int):
            text += '[%d]' % part
        else:
            text += ('.%s' % part) if text else str(part)
    return limits.one_line(text, 120) or None


def _innermost(error):
    """For a value matching no alternative (``anyOf``) that is not null,
    the error of the alternative it came closest to.
    """
    while error.validator == 'anyOf':
        errors = [e for e in error.context
                  if not (e.validator == 'type' and
                          e.validator_value == 'null')]
        best = jsonschema.exceptions.best_match(errors)
        if best is None:
            break
        error = best
    return error


def _describe(error):
    """One short line for a schema error (never the whole value)."""
    kind = error.validator
    if kind == 'type':
        expected = error.validator_value
        if isinstance(expected, list):
            expected = ' or '.join(expected)
        return 'expected %s, got %s' % (expected,
                                        type(error.instance).__name__)
    if kind == 'pattern':
        return 'must match %s' % error.validator_value
    if kind in ('maxLength', 'minLength'):
        return 'length must be %s %d' % (
            '<=' if kind == 'maxLength' else '>=', error.validator_value)
    if kind in ('maxItems', 'maxProperties'):
        return 'at most %d entries' % error.validator_value
    return limits.one_line(error.message, 200)


def check(name, payload, source=None):
    """``payload`` checked against ``schemas.SCHEMAS[name]``; returns it as
    plain JSON (a new object), or raises InvalidInput naming ``source``
    (default ``name``) and the field.
    """
    source = source or name
    max_nodes = schemas.MAX_NODES * (
        10 if name == 'list_instances_answer' else 1)
    data = _plain(payload, source, schemas.MAX_DEPTH)
    documents.check_tree(data, source, max_depth=schemas.MAX_DEPTH,
                         max_nodes=max_nodes)
    errors = sorted((_innermost(e) for e in
                     _VALIDATORS[name].iter_errors(data)),
                    key=lambda e: (list(map(str, e.absolute_path)),
                                   e.validator))
    if not errors:
        return data
    if len(errors) == 1:
        error, = errors
        raise exception.InvalidInput(source, _field(error.absolute_path),
                                     _describe(error))
    problems = ['%s: %s' % (_field(error.absolute_path) or '(top level)',
                            _describe(error))
                for error in errors[:_MAX_PROBLEMS]]
    if len(errors) > _MAX_PROBLEMS:
        problems.append('and %d more' % (len(errors) - _MAX_PROBLEMS))
    raise exception.InvalidInput(source, None, '; '.join(problems))


def check_context(ctxt, source='context'):
    """The context of a call as a plain dict (``{}`` for none)."""
    return check('context', {} if ctxt is None else ctxt, source)


def check_request_spec(data, source='request'):
    """A request as a client sent it (see :data:`.schemas.REQUEST_SPEC`)."""
    return check('request_spec', data, source)


def check_report(method, kwargs):
    """The arguments of an agent's report ``method``, checked; given to
    :class:`~preemptible_sched.service.compute_reports.ComputeReportsEndpoint`.
    """
    name = 'reports.%s' % method
    if name not in schemas.SCHEMAS:
        raise exception.InvalidInput(method, None, 'no such report')
    return check(name, kwargs, method)


def validate_list_instances_answer(answer):
    """An agent's answer to ``list_instances``, checked (a plain dict), or
    InvalidInput: what the ``rpc`` compute driver may trust.
    """
    return check('list_instances_answer', answer, 'list_instances answer')
