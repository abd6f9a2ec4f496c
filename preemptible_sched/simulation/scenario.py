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
whole file has been validated: first against its schema
(:mod:`.scenario_schema`), then for what no schema can say (unknown
flavors, duplicate ids, option values).

Hostile files are refused the same way (see
:mod:`preemptible_sched.input_limits`): only a regular file of at most
``limits.MAX_INPUT_BYTES`` is read (a FIFO, a device or ``/dev/zero`` is
refused before anything is read), it must be UTF-8, nested at most
``limits.MAX_NESTING`` levels, and every number must be finite and within its
bound: sizes within ``0..limits.MAX_RESOURCE``, times within
``0..limits.MAX_TIME``, ``num_instances`` an integer (not ``2.0``) within
``1..limits.MAX_INSTANCES_PER_REQUEST``. ``NaN`` and ``Infinity`` are never
accepted, in JSON or YAML, nor in ``config``.
"""

import math

from oslo_config import cfg

from preemptible_sched import constraints as constraint_language
from preemptible_sched import exception
from preemptible_sched import input_limits as limits
from preemptible_sched.input_limits import documents
from preemptible_sched import objects
from preemptible_sched.simulation import scenario_schema


class Scenario:
    """A validated scenario: hosts with their instances, and the request."""

    #: the other pending requests (RequestSpecs), in admission order
    queue = ()

    def __init__(self, path, now, hosts, placements, request, config):
        self.path = path
        self.now = now
        self.hosts = hosts
        #: ``[(host name, Instance)]`` in file order.
        self.placements = placements
        self.request = request
        self.config = config

    def load_windows(self):
        """Host name -> its metrics with ``window_end`` on the scenario's
        clock (the file gives it relative to ``now``; absent: ``now``).
        """
        windows = {}
        for host in self.hosts:
            metrics = host.metrics
            if not metrics:
                continue
            metrics = dict(metrics)
            end = metrics.get('window_end', 0.0)
            if isinstance(end, (int, float)) and not isinstance(end, bool):
                metrics['window_end'] = self.now + end
            windows[host.name] = metrics
        return windows

    def apply_config(self, conf):
        """Make the scenario's option values the defaults of ``conf``."""
        for group, values in self.config.items():
            for name, value in values.items():
                conf.set_default(name, value, group=(
                    None if group == 'DEFAULT' else group))


def _read(path):
    """The document at ``path``: bounded, UTF-8, finite, not too deep."""
    return documents.load_document(path)


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


def _optional_float(value):
    return None if value is None else float(value)


def _constraints(path, value, field='request'):
    if isinstance(value, dict):
        return {key: str(val) for key, val in value.items()}
    try:
        return constraint_language.parse(value)
    except constraint_language.BadConstraint as error:
        raise exception.InvalidInput(path, field + '.constraints',
                                     str(error)) from None


def _option_group(conf, group):
    """The group ``group`` of ``conf`` (``conf`` for DEFAULT), or None."""
    if group == 'DEFAULT':
        return conf
    try:
        if group not in conf:
            return None
        value = conf[group]
    except (cfg.Error, ValueError, TypeError, KeyError):
        return None
    return value if isinstance(value, cfg.ConfigOpts.GroupAttr) else None


#: Options a scenario may not set: they steer the command line itself.
_NOT_SETTABLE = ('config_file', 'config_dir', 'command')


def _check_finite(path, field, value):
    """Refuse a NaN or infinity anywhere in a converted option value."""
    if isinstance(value, float) and not math.isfinite(value):
        raise exception.InvalidInput(path, field, 'bad value: %s is not '
                                     'a finite number' % value)
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        for item in value:
            _check_finite(path, field, item)


def _check_config(path, config, conf):
    """Convert every ``config`` value with its option's type, in place."""
    for group, values in config.items():
        group_conf = _option_group(conf, group)
        if group_conf is None:
            raise exception.InvalidInput(
                path, limits.one_line('config.%s' % group, 200),
                'unknown option group')
        for name, value in values.items():
            field = limits.one_line('config.%s.%s' % (group, name), 200)
            try:
                info = conf._get_opt_info(
                    name, None if group == 'DEFAULT' else group)
            except (cfg.Error, KeyError, TypeError):
                raise exception.InvalidInput(path, field, 'unknown option')
            opt = info['opt']
            if name in _NOT_SETTABLE or isinstance(opt, cfg.SubCommandOpt):
                raise exception.InvalidInput(
                    path, field, 'cannot be set in a scenario')
            if isinstance(value, list):
                value = ','.join(str(v) for v in value)
            try:
                converted = opt.type(value)
            except Exception as error:   # any type's own complaint
                raise exception.InvalidInput(
                    path, field, 'bad value: %s'
                    % limits.one_line(error, 200))
            _check_finite(path, field, converted)
            values[name] = converted


def load(path, conf):
    """Read and validate the scenario at ``path``; raise InvalidInput."""
    data = _read(path)
    scenario_schema.validate(path, data)
    flavors = {name: objects.Flavor(name, float(f['vcpus']),
                                    float(f['memory_mb']),
                                    float(f.get('disk_gb', 0)))
               for name, f in data.get('flavors', {}).items()}
    now = float(data.get('now', 0))
    if len(data['hosts']) > limits.MAX_HOSTS:
        raise exception.InvalidInput(path, 'hosts', 'more than %d hosts'
                                     % limits.MAX_HOSTS)
    hosts = []
    placements = []
    host_names = set()
    instance_ids = {}
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
            instance_ids[inst['id']] = i_field
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
                group=inst.get('group'),
                expected_vcpus=_optional_float(inst.get('expected_vcpus')),
                placed_at=(None if 'placed_s' not in inst
                           else now - float(inst['placed_s'])))))
    request = _request(path, 'request', data['request'], flavors)
    queue = [_request(path, 'queue[%d]' % index, item, flavors,
                      'queued-%d' % index)
             for index, item in enumerate(data.get('queue', ()))]
    ids = [spec.id for spec in [request] + queue]
    twice = sorted({spec_id for spec_id in ids if ids.count(spec_id) > 1})
    if twice:
        raise exception.InvalidInput(path, 'queue', 'request id %r given '
                                     'twice' % twice[0])
    for index in range(request.num_instances):
        new_id = request.instance_id(index)
        if new_id in instance_ids:
            raise exception.InvalidInput(
                path, 'request.id', 'the request would create instance '
                '%r, which is already on %s' % (new_id,
                                                instance_ids[new_id]))
    if request.group_policy and not request.group:
        raise exception.InvalidInput(path, 'request.group',
                                     'group_policy needs a group')
    config = {group: dict(values)
              for group, values in data.get('config', {}).items()}
    _check_config(path, config, conf)
    scenario = Scenario(path, now, hosts, placements, request, config)
    scenario.queue = tuple(queue)
    return scenario


def _request(path, field, req, flavors, default_id='request'):
    num_instances = limits.positive_int(
        req.get('num_instances', 1), path, field + '.num_instances',
        maximum=limits.MAX_INSTANCES_PER_REQUEST)
    sla = req.get('sla')
    return objects.RequestSpec(
        id=req.get('id', default_id),
        resources=_resources(path, field, req, flavors),
        preemptible=req.get('preemptible', False),
        num_instances=num_instances,
        flavor=req.get('flavor'),
        constraints=_constraints(path, req.get('constraints', {}), field),
        availability_zone=req.get('availability_zone'),
        group=req.get('group'),
        group_policy=req.get('group_policy'),
        service_class=req.get('service_class'),
        priority=float(req.get('priority', 0)),
        sla=None if sla is None else objects.SLALevels(**sla),
        sequential_s=(None if req.get('sequential_s') is None
                      else float(req['sequential_s'])),
        user=req.get('user'),
        expected_vcpus=_optional_float(req.get('expected_vcpus')))
