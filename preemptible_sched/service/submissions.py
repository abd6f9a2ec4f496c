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

"""What a client submits: a request checked from the wire, and compared
with an earlier submit of the same id.

:func:`request_spec_from_wire` turns the ``spec`` of a ``submit`` into an
:class:`~preemptible_sched.objects.RequestSpec` once its schema
(:data:`.schemas.REQUEST_SPEC`) and the rules no schema can say accepted
it; :func:`submit_differences` tells a repeated submit (``submit`` is
idempotent on the request id) from a different request under a taken id.
"""

import re
import uuid

from preemptible_sched import exception
from preemptible_sched import input_limits as limits
from preemptible_sched.service import payload_checks
from preemptible_sched.service import schemas
from preemptible_sched import wire


def request_spec_from_wire(data):
    """The :class:`objects.RequestSpec` a client sent, validated.

    ``data`` is checked against :data:`.schemas.REQUEST_SPEC` first (finite
    and bounded numbers, bounded strings, safe ids); a missing ``id`` is
    generated. Raises :class:`InvalidInput` listing the problems.
    """
    source = 'request'
    if isinstance(data, dict) and isinstance(data.get('id'), str) and \
            re.match(schemas.ID_PATTERN, data['id']):
        source = 'request %s' % limits.one_line(data['id'], 60)
    data = payload_checks.check_request_spec(data, source)
    if data.get('id') is None:
        data['id'] = 'req-%s' % uuid.uuid4().hex[:12]
    try:
        spec = wire.spec_from_dict(data)
    except (TypeError, ValueError) as error:
        raise exception.InvalidInput(source, None, str(error)) from None
    problems = []
    if not any(spec.resources):
        problems.append('resources: the request asks for nothing')
    if spec.group is not None and spec.group_policy not in (
            'affinity', 'anti-affinity'):
        problems.append("group_policy: must be 'affinity' or "
                        "'anti-affinity' for group %r, got %r"
                        % (spec.group, spec.group_policy))
    if spec.expected_vcpus is not None and spec.resources.vcpus and \
            spec.expected_vcpus > spec.resources.vcpus:
        problems.append('expected_vcpus: declares %g cores for %g vCPUs'
                        % (spec.expected_vcpus, spec.resources.vcpus))
    if spec.instance_ids and len(spec.instance_ids) != spec.num_instances:
        problems.append('instance_ids: %d given for %d instance(s)'
                        % (len(spec.instance_ids), spec.num_instances))
    if problems:
        raise exception.InvalidInput(source, None, '; '.join(problems))
    return spec


#: What must be the same for a submit to repeat an earlier one.
_SAME_FIELDS = ('resources', 'preemptible', 'num_instances', 'flavor',
                'constraints', 'availability_zone', 'group',
                'group_policy', 'service_class', 'expected_vcpus')


def submit_differences(request, spec, duration=None, image=None):
    """What differs between the stored ``request`` and a new submit of the
    same id (``spec``, ``duration``, ``image``): field names, none if the
    submit repeats it.

    A priority left to the service class (0 with a class) is the class's,
    as the loop stored it; instance ids are compared when given.
    """
    stored = wire.spec_to_dict(request.request_spec())
    sent = wire.spec_to_dict(spec)
    differences = [name for name in _SAME_FIELDS
                   if stored[name] != sent[name]]
    if (spec.service_class is None or spec.priority) and \
            stored['priority'] != sent['priority']:
        differences.append('priority')
    if spec.instance_ids and stored['instance_ids'] != sent['instance_ids']:
        differences.append('instance_ids')
    if request.duration_s != duration:
        differences.append('duration')
    if request.image != image:
        differences.append('image')
    return differences
