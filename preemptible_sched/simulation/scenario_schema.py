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

"""The JSON schema of a scenario file (:mod:`.scenario`), and its refusals.

:func:`validate` checks a scenario as read against :data:`SCHEMA`: the
fields a scenario, a host, an instance and a request may have, their
types and bounds (sizes within ``0..limits.MAX_RESOURCE``, times within
``0..limits.MAX_TIME``, ``num_instances`` an integer within
``1..limits.MAX_INSTANCES_PER_REQUEST``). The first problem is raised as
:class:`InvalidInput` naming the file and the field
(``hosts[1].instances[0].flavor``), on one line and without quoting a
whole value.
"""

import jsonschema

from preemptible_sched import exception
from preemptible_sched import input_limits as limits
from preemptible_sched import objects

_SIZE = {'type': 'number', 'minimum': 0, 'maximum': limits.MAX_RESOURCE}
_TIME = {'type': 'number', 'minimum': 0, 'maximum': limits.MAX_TIME}
_PRIORITY = {'type': 'number', 'minimum': 0,
             'maximum': limits.MAX_PRIORITY}
_RATIO = {'type': 'number', 'minimum': 0, 'maximum': limits.MAX_FACTOR}
_SIZES = {'vcpus': _SIZE, 'memory_mb': _SIZE, 'disk_gb': _SIZE}
_STRINGS = {'type': 'object',
            'additionalProperties': {'type': ['string', 'number',
                                              'boolean']}}
_SIZED = {'anyOf': [{'required': ['flavor']},
                    {'required': ['vcpus', 'memory_mb']}]}

_INSTANCE = dict({
    'type': 'object',
    'required': ['id'],
    'properties': dict({
        'id': {'type': 'string', 'minLength': 1},
        'flavor': {'type': 'string'},
        'preemptible': {'type': 'boolean'},
        'runtime_s': _TIME,
        'service_class': {'type': 'string'},
        'priority': _PRIORITY,
        'group': {'type': 'string'},
        'expected_vcpus': _SIZE,
        'placed_s': _TIME,
    }, **_SIZES),
    'additionalProperties': False,
}, **_SIZED)

_HOST = {
    'type': 'object',
    'required': ['name', 'vcpus', 'memory_mb'],
    'properties': dict({
        'name': {'type': 'string', 'minLength': 1},
        'attributes': _STRINGS,
        'aggregates': {'type': 'array', 'items': {
            'type': 'object', 'required': ['name'],
            'properties': {'name': {'type': 'string'},
                           'metadata': _STRINGS},
            'additionalProperties': False}},
        'availability_zone': {'type': 'string'},
        'enabled': {'type': 'boolean'},
        'up': {'type': 'boolean'},
        'cpu_allocation_ratio': _RATIO,
        'ram_allocation_ratio': _RATIO,
        'disk_allocation_ratio': _RATIO,
        'reserved_vcpus': _SIZE,
        'reserved_memory_mb': _SIZE,
        'reserved_disk_gb': _SIZE,
        'metrics': {'type': 'object'},
        'instances': {'type': 'array', 'items': _INSTANCE},
    }, **_SIZES),
    'additionalProperties': False,
}

_LEVEL = {'enum': list(objects.SLA_LEVELS)}
_SLA = {'type': 'object',
        'required': list(objects.SLA_SERVICES),
        'properties': {service: _LEVEL for service in objects.SLA_SERVICES},
        'additionalProperties': False}

_REQUEST = dict({
    'type': 'object',
    'properties': dict({
        'id': {'type': 'string', 'minLength': 1},
        'flavor': {'type': 'string'},
        'preemptible': {'type': 'boolean'},
        'num_instances': {'type': 'integer', 'minimum': 1,
                          'maximum': limits.MAX_INSTANCES_PER_REQUEST},
        'constraints': {'anyOf': [_STRINGS, {'type': 'string'}]},
        'availability_zone': {'type': 'string'},
        'group': {'type': 'string'},
        'group_policy': {'enum': ['affinity', 'anti-affinity']},
        'service_class': {'type': 'string'},
        'priority': _PRIORITY,
        'sla': _SLA,
        'sequential_s': _TIME,
        'user': {'type': 'string'},
        'expected_vcpus': _SIZE,
    }, **_SIZES),
    'additionalProperties': False,
    # A moldable request (sequential_s) is sized by the scheduler.
    'anyOf': _SIZED['anyOf'] + [{'required': ['sequential_s',
                                              'memory_mb']}],
})

SCHEMA = {
    'type': 'object',
    'required': ['hosts', 'request'],
    'properties': {
        'now': _TIME,
        'description': {'type': 'string'},
        'flavors': {'type': 'object', 'additionalProperties': {
            'type': 'object', 'required': ['vcpus', 'memory_mb'],
            'properties': _SIZES, 'additionalProperties': False}},
        'hosts': {'type': 'array', 'items': _HOST},
        'request': _REQUEST,
        # The other requests pending with it (SLA explanations: their
        # PROMETHEE flows and their share of the idle cores).
        'queue': {'type': 'array', 'items': _REQUEST},
        'config': {'type': 'object', 'additionalProperties': {
            'type': 'object'}},
    },
    'additionalProperties': False,
}


def _path(parts):
    text = ''
    for part in parts:
        text += '[%d]' % part if isinstance(part, int) else (
            '.%s' % part if text else part)
    return text or '(top level)'


def validate(path, data):
    """Raise InvalidInput naming ``path`` and the field of the first
    problem :data:`SCHEMA` finds in ``data`` (a scenario as read).
    """
    validator = jsonschema.Draft7Validator(SCHEMA)
    errors = sorted(validator.iter_errors(data),
                    key=lambda e: (list(map(str, e.absolute_path)),
                                   e.message))
    if not errors:
        return
    error = errors[0]
    field = _path(error.absolute_path)
    if error.validator == 'type' and error.absolute_path and \
            error.absolute_path[-1] in ('hosts', 'request', 'flavors',
                                        'instances', 'config'):
        # The schema quotes the whole value: say what was expected only.
        raise exception.InvalidInput(
            path, field, 'expected %s, got %s' % (
                error.validator_value, type(error.instance).__name__))
    if error.validator == 'anyOf' and 'flavor' in str(error.schema):
        message = 'needs a "flavor" or "vcpus" and "memory_mb"'
        if 'sequential_s' in str(error.schema):
            message += ' (or, moldable, "sequential_s" and "memory_mb")'
    elif error.validator == 'required':
        missing = error.message.split("'")[1]
        field = _path(list(error.absolute_path) + [missing])
        message = 'missing required field'
    elif error.validator == 'additionalProperties':
        message = 'unknown field(s): %s' % error.message.split('(')[1].split(
            ' were')[0].split(' was')[0]
    else:
        message = error.message
    raise exception.InvalidInput(path, limits.one_line(field, 200),
                                 limits.one_line(message, 300))
