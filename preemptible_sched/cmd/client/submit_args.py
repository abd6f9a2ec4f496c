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

"""What ``preemptible-sched submit`` sends: the request dict of its
arguments, checked before any transport is looked at (a refusal raises
:class:`~preemptible_sched.exception.InvalidInput`).
"""

from preemptible_sched import exception
from preemptible_sched import input_limits as limits
from preemptible_sched import objects
from preemptible_sched.service_classes import sla

#: The option of each SLA service, as in the workload CSV's columns.
SLA_OPTIONS = {'satisfaction_time': '--sla-satisfaction',
               'reputation': '--sla-reputation',
               'resources': '--sla-resources',
               'replicas': '--sla-replicas'}


def request_spec(args):
    """The request dict ``submit`` sends; raises :class:`InvalidInput`."""
    def bad(field, message):
        return exception.InvalidInput('submit', field, message)

    def option(name):
        return '--' + name.replace('_', '-')

    explicit = {'vcpus': args.vcpus, 'memory_mb': args.memory_mb,
                'disk_gb': args.disk_gb}
    sla_levels = sla.levels(
        {service: getattr(args, 'sla_' + service)
         for service in SLA_OPTIONS}, 'submit', SLA_OPTIONS.get)
    if args.sequential_s is not None:
        limits.finite_number(args.sequential_s, 'submit', '--sequential-s',
                             minimum=0, maximum=limits.MAX_TIME,
                             exclusive_minimum=True)
        if args.duration is not None:
            raise bad('--duration', 'a moldable request runs '
                      '--sequential-s / cores: give one of them')
    if args.flavor:
        given = [name for name, value in explicit.items()
                 if value is not None]
        if given:
            raise bad('--flavor', 'give a flavor or sizes, not both (%s)'
                      % ', '.join('--' + n.replace('_', '-') for n in given))
        resources = objects.FLAVORS[args.flavor].resources._asdict()
    else:
        if args.sequential_s is not None:
            if args.vcpus is not None and sla_levels is not None:
                raise bad('--vcpus', 'a moldable SLA request is sized by '
                          'the scheduler: give --memory-mb only')
            explicit['vcpus'] = args.vcpus or 0.0
        if explicit['vcpus'] is None or args.memory_mb is None:
            raise bad('--flavor', 'give --flavor, or --vcpus and '
                      '--memory-mb')
        resources = dict(explicit, disk_gb=args.disk_gb or 0.0)
        for name, value in resources.items():
            limits.resource(value, 'submit', option(name))
        if not any(resources.values()):
            raise bad('--vcpus', 'the request asks for nothing')
    limits.integer(args.num_instances, 'submit', '--num-instances',
                   minimum=1, maximum=limits.MAX_INSTANCES_PER_REQUEST)
    if args.duration is not None:
        limits.finite_number(args.duration, 'submit', '--duration',
                             minimum=0, maximum=limits.MAX_TIME,
                             exclusive_minimum=True)
    limits.finite_number(args.priority, 'submit', '--priority')
    if args.expected_vcpus is not None:
        limits.finite_number(args.expected_vcpus, 'submit',
                             '--expected-vcpus', minimum=0,
                             exclusive_minimum=True,
                             maximum=resources['vcpus'] or None)
    if args.request_id is not None and not args.request_id.strip():
        raise bad('--id', 'must not be empty')
    constraints = {}
    for text in args.constraint:
        key, sep, value = text.partition('=')
        if not sep or not key.strip():
            raise bad('--constraint', 'must be KEY=VALUE, got %r' % text)
        constraints[key.strip()] = value.strip()
    if args.group_policy and not args.group:
        raise bad('--group-policy', 'needs --group')
    spec = {'id': args.request_id, 'resources': resources,
            'preemptible': args.preemptible_instances,
            'num_instances': args.num_instances, 'flavor': args.flavor,
            'priority': args.priority,
            'service_class': args.service_class,
            'constraints': constraints,
            'availability_zone': args.availability_zone,
            'group': args.group,
            'group_policy': (args.group_policy or 'anti-affinity')
            if args.group else None}
    # Only when given: a service that predates SLA classes refuses fields
    # it does not know.
    extra = {'sla': None if sla_levels is None else sla_levels._asdict(),
             'sequential_s': args.sequential_s, 'user': args.user,
             'expected_vcpus': args.expected_vcpus}
    spec.update((key, value) for key, value in extra.items()
                if value is not None)
    return spec
