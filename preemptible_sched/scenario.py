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

"""Scenario files: one snapshot of a cloud and one request, for ``decide``.

A scenario is JSON (or YAML, by extension) with ``now``, ``flavors``,
``hosts`` (each with its ``instances``), the ``request``, and optionally
``config``: option values (``{"group": {"option": value}}``) that become
the defaults for this scenario; a ``--config-file`` still overrides them.

Every problem is reported as :class:`InvalidInput` naming the file and the
field (``hosts[1].instances[0].flavor``), and nothing is changed before the
whole file has been validated.
"""

import json
import os

import jsonschema
import yaml

from preemptible_sched import exception
from preemptible_sched import objects

_NUMBER = {'type': 'number', 'minimum': 0}
_SIZES = {'vcpus': _NUMBER, 'memory_mb': _NUMBER, 'disk_gb': _NUMBER}
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
        'runtime_s': _NUMBER,
        'service_class': {'type': 'string'},
        'priority': _NUMBER,
        'group': {'type': 'string'},
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
        'cpu_allocation_ratio': _NUMBER,
        'ram_allocation_ratio': _NUMBER,
        'disk_allocation_ratio': _NUMBER,
        'reserved_vcpus': _NUMBER,
        'reserved_memory_mb': _NUMBER,
        'reserved_disk_gb': _NUMBER,
        'metrics': {'type': 'object'},
        'instances': {'type': 'array', 'items': _INSTANCE},
    }, **_SIZES),
    'additionalProperties': False,
}

_REQUEST = dict({
    'type': 'object',
    'properties': dict({
        'id': {'type': 'string', 'minLength': 1},
        'flavor': {'type': 'string'},
        'preemptible': {'type': 'boolean'},
        'num_instances': {'type': 'integer', 'minimum': 1},
        'constraints': {'anyOf': [_STRINGS, {'type': 'string'}]},
        'availability_zone': {'type': 'string'},
        'group': {'type': 'string'},
        'group_policy': {'enum': ['affinity', 'anti-affinity']},
        'service_class': {'type': 'string'},
        'priority': _NUMBER,
    }, **_SIZES),
    'additionalProperties': False,
}, **_SIZED)

SCHEMA = {
    'type': 'object',
    'required': ['hosts', 'request'],
    'properties': {
        'now': _NUMBER,
        'description': {'type': 'string'},
        'flavors': {'type': 'object', 'additionalProperties': {
            'type': 'object', 'required': ['vcpus', 'memory_mb'],
            'properties': _SIZES, 'additionalProperties': False}},
        'hosts': {'type': 'array', 'items': _HOST},
        'request': _REQUEST,
        'config': {'type': 'object', 'additionalProperties': {
            'type': 'object'}},
    },
    'additionalProperties': False,
}


class Scenario:
    """A validated scenario: hosts with their instances, and the request."""

    def __init__(self, path, now, hosts, placements, request, config):
        self.path = path
        self.now = now
        self.hosts = hosts
        #: ``[(host name, Instance)]`` in file order.
        self.placements = placements
        self.request = request
        self.config = config

    def apply_config(self, conf):
        """Make the scenario's option values the defaults of ``conf``."""
        for group, values in self.config.items():
            for name, value in values.items():
                conf.set_default(name, value, group=(
                    None if group == 'DEFAULT' else group))


def _path(parts):
    text = ''
    for part in parts:
        text += '[%d]' % part if isinstance(part, int) else (
            '.%s' % part if text else part)
    return text or '(top level)'


def _read(path):
    try:
        with open(path, encoding='utf-8') as stream:
            text = stream.read()
    except OSError as error:
        raise exception.InvalidInput(path, None, 'cannot read file: %s'
                                     % (error.strerror or error))
    if os.path.splitext(path)[1].lower() in ('.yaml', '.yml'):
        try:
            return yaml.safe_load(text)
        except yaml.YAMLError as error:
            mark = getattr(error, 'problem_mark', None)
            where = 'line %d' % (mark.line + 1) if mark else None
            raise exception.InvalidInput(
                path, where, 'malformed YAML: %s'
                % getattr(error, 'problem', error))
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise exception.InvalidInput(
            path, 'line %d column %d' % (error.lineno, error.colno),
            'malformed JSON: %s' % error.msg)


def _validate_schema(path, data):
    validator = jsonschema.Draft7Validator(SCHEMA)
    errors = sorted(validator.iter_errors(data),
                    key=lambda e: (list(map(str, e.absolute_path)),
                                   e.message))
    if not errors:
        return
    error = errors[0]
    field = _path(error.absolute_path)
    if error.validator == 'anyOf' and 'flavor' in str(error.schema):
        message = 'needs a "flavor" or "vcpus" and "memory_mb"'
    elif error.validator == 'required':
        missing = error.message.split("'")[1]
        field = _path(list(error.absolute_path) + [missing])
        message = 'missing required field'
    elif error.validator == 'additionalProperties':
        message = 'unknown field(s): %s' % error.message.split('(')[1].split(
            ' were')[0].split(' was')[0]
    else:
        message = error.message
    raise exception.InvalidInput(path, field, message)


def _resources(path, field, item, flavors):
    if 'flavor' in item:
        flavor = flavors.get(item['flavor'])
        if flavor is None:
            raise exception.InvalidInput(
                path, field + '.flavor', 'unknown flavor %r (known: %s)' % (
                    item['flavor'], ', '.join(sorted(flavors)) or 'none'))
        base = flavor.resources
    else:
        base = objects.Resources()
    return objects.Resources(
        float(item.get('vcpus', base.vcpus)),
        float(item.get('memory_mb', base.memory_mb)),
        float(item.get('disk_gb', base.disk_gb)))


def _constraints(path, value):
    if isinstance(value, dict):
        return {key: str(val) for key, val in value.items()}
    constraints = {}
    for pair in filter(None, (p.strip() for p in value.split(';'))):
        key, sep, val = pair.partition('=')
        if not sep or not key.strip():
            raise exception.InvalidInput(
                path, 'request.constraints',
                'expected key=value;key=value, got %r' % pair)
        constraints[key.strip()] = val.strip()
    return constraints


def _check_config(path, config, conf):
    """Convert every ``config`` value with its option's type, in place."""
    for group, values in config.items():
        if group != 'DEFAULT' and group not in conf:
            raise exception.InvalidInput(path, 'config.%s' % group,
                                         'unknown option group')
        group_conf = conf if group == 'DEFAULT' else conf[group]
        for name, value in values.items():
            field = 'config.%s.%s' % (group, name)
            if name not in group_conf:
                raise exception.InvalidInput(path, field, 'unknown option')
            opt = conf._get_opt_info(
                name, None if group == 'DEFAULT' else group)['opt']
            if isinstance(value, list):
                value = ','.join(str(v) for v in value)
            try:
                values[name] = opt.type(value)
            except (ValueError, TypeError) as error:
                raise exception.InvalidInput(path, field,
                                             'bad value: %s' % error)


def load(path, conf):
    """Read and validate the scenario at ``path``; raise InvalidInput."""
    data = _read(path)
    _validate_schema(path, data)
    flavors = {name: objects.Flavor(name, float(f['vcpus']),
                                    float(f['memory_mb']),
                                    float(f.get('disk_gb', 0)))
               for name, f in data.get('flavors', {}).items()}
    now = float(data.get('now', 0))
    hosts = []
    placements = []
    host_names = set()
    instance_ids = set()
    for h_index, item in enumerate(data['hosts']):
        field = 'hosts[%d]' % h_index
        if item['name'] in host_names:
            raise exception.InvalidInput(path, field + '.name',
                                         'duplicate host %r' % item['name'])
        host_names.add(item['name'])
        hosts.append(objects.Host(
            name=item['name'], vcpus=float(item['vcpus']),
            memory_mb=float(item['memory_mb']),
            disk_gb=float(item.get('disk_gb', 0)),
            attributes={k: str(v) for k, v in
                        item.get('attributes', {}).items()},
            aggregates=tuple(
                objects.Aggregate(a['name'], {k: str(v) for k, v in
                                              a.get('metadata', {}).items()})
                for a in item.get('aggregates', ())),
            availability_zone=item.get('availability_zone'),
            enabled=item.get('enabled', True), up=item.get('up', True),
            cpu_allocation_ratio=item.get('cpu_allocation_ratio'),
            ram_allocation_ratio=item.get('ram_allocation_ratio'),
            disk_allocation_ratio=item.get('disk_allocation_ratio'),
            reserved_vcpus=item.get('reserved_vcpus'),
            reserved_memory_mb=item.get('reserved_memory_mb'),
            reserved_disk_gb=item.get('reserved_disk_gb'),
            metrics=item.get('metrics', {})))
        for i_index, inst in enumerate(item.get('instances', ())):
            i_field = '%s.instances[%d]' % (field, i_index)
            if inst['id'] in instance_ids:
                raise exception.InvalidInput(path, i_field + '.id',
                                             'duplicate instance id %r'
                                             % inst['id'])
            instance_ids.add(inst['id'])
            started = now - float(inst.get('runtime_s', 0))
            placements.append((item['name'], objects.Instance(
                id=inst['id'],
                resources=_resources(path, i_field, inst, flavors),
                preemptible=inst.get('preemptible', False),
                started_at=started, admitted_at=started,
                running_since=started,
                flavor=inst.get('flavor'),
                service_class=inst.get('service_class'),
                priority=float(inst.get('priority', 0)),
                group=inst.get('group'))))
    req = data['request']
    request = objects.RequestSpec(
        id=req.get('id', 'request'),
        resources=_resources(path, 'request', req, flavors),
        preemptible=req.get('preemptible', False),
        num_instances=req.get('num_instances', 1),
        flavor=req.get('flavor'),
        constraints=_constraints(path, req.get('constraints', {})),
        availability_zone=req.get('availability_zone'),
        group=req.get('group'),
        group_policy=req.get('group_policy'),
        service_class=req.get('service_class'),
        priority=float(req.get('priority', 0)))
    if request.group_policy and not request.group:
        raise exception.InvalidInput(path, 'request.group',
                                     'group_policy needs a group')
    config = {group: dict(values)
              for group, values in data.get('config', {}).items()}
    _check_config(path, config, conf)
    return Scenario(path, now, hosts, placements, request, config)
