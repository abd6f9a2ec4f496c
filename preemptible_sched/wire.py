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

"""The wire format: requests, hosts, instances and instance reports as
plain JSON-serialisable dicts.

One format for every place they leave the process: the scheduler
service's RPC API and its clients (requests), the ``rpc`` compute driver
and the ``preemptible-compute`` agents (hosts, instances, instance
reports) and the database, which stores a request's spec in this form.
Each ``*_from_dict`` is the inverse of its ``*_to_dict``. Values are not
checked here: what comes from the outside is checked first (see
:mod:`preemptible_sched.service.schemas`).
"""

import dataclasses

from preemptible_sched import exception
from preemptible_sched import input_limits as limits
from preemptible_sched import objects

#: Version of the RPC interfaces of the agents and of their reports.
RPC_API_VERSION = '1.0'


# -- requests ----------------------------------------------------------------

def spec_to_dict(spec):
    """A JSON-serialisable dict of every field of ``spec``."""
    return {
        'id': spec.id,
        'resources': {'vcpus': spec.resources.vcpus,
                      'memory_mb': spec.resources.memory_mb,
                      'disk_gb': spec.resources.disk_gb},
        'preemptible': bool(spec.preemptible),
        'num_instances': spec.num_instances,
        'flavor': spec.flavor,
        'constraints': dict(spec.constraints),
        'availability_zone': spec.availability_zone,
        'group': spec.group,
        'group_policy': spec.group_policy,
        'group_hosts': sorted(spec.group_hosts),
        'service_class': spec.service_class,
        'priority': spec.priority,
        'instance_ids': list(spec.instance_ids),
        'sla': None if spec.sla is None else spec.sla._asdict(),
        'sequential_s': spec.sequential_s,
        'sized': bool(spec.sized),
        'user': spec.user,
        'expected_vcpus': spec.expected_vcpus,
    }


def spec_from_dict(data):
    """The :class:`objects.RequestSpec` of a dict from :func:`spec_to_dict`.

    Fields missing from ``data`` take the RequestSpec defaults, so rows
    written before a field existed still load.
    """
    fields = dict(data)
    resources = fields.pop('resources', {})
    fields['resources'] = objects.Resources(**resources)
    if 'constraints' in fields:
        fields['constraints'] = dict(fields['constraints'] or {})
    if 'group_hosts' in fields:
        fields['group_hosts'] = frozenset(fields['group_hosts'] or ())
    if 'instance_ids' in fields:
        fields['instance_ids'] = tuple(fields['instance_ids'] or ())
    if fields.get('sla') is not None:
        fields['sla'] = objects.SLALevels(**fields['sla'])
    return objects.RequestSpec(**fields)


# -- hosts, instances and instance reports -----------------------------------

def _known_fields(cls, data):
    names = {field.name for field in dataclasses.fields(cls)}
    return {key: value for key, value in data.items() if key in names}


def _malformed(kind, error):
    return exception.InvalidInput(kind, None, 'malformed: %s'
                                  % limits.one_line(error, 200))


def host_to_dict(host):
    """:class:`objects.Host` as a JSON-serialisable dict."""
    data = dataclasses.asdict(host)
    data['attributes'] = dict(host.attributes)
    data['metrics'] = dict(host.metrics)
    return data


def host_from_dict(data):
    """The :class:`objects.Host` of :func:`host_to_dict`.

    Fields this version does not know are ignored, so an agent newer than
    the scheduler can still register. A dict of the wrong shape raises
    InvalidInput; values are not checked here (see
    :func:`preemptible_sched.service.payload_checks.check_report`).
    """
    try:
        fields = _known_fields(objects.Host, data)
        fields['aggregates'] = tuple(
            objects.Aggregate(**_known_fields(objects.Aggregate, aggregate))
            for aggregate in fields.get('aggregates') or ())
        fields['attributes'] = dict(fields.get('attributes') or {})
        fields['metrics'] = dict(fields.get('metrics') or {})
        return objects.Host(**fields)
    except (AttributeError, TypeError, ValueError) as error:
        raise _malformed('host', error) from None


def instance_to_dict(instance):
    """:class:`objects.Instance` as a JSON-serialisable dict."""
    data = dataclasses.asdict(instance)
    data['resources'] = list(instance.resources)
    return data


def instance_from_dict(data):
    """The :class:`objects.Instance` of :func:`instance_to_dict` (unknown
    fields ignored; a dict of the wrong shape raises InvalidInput).
    """
    try:
        fields = _known_fields(objects.Instance, data)
        fields['resources'] = objects.Resources(*fields['resources'])
        return objects.Instance(**fields)
    except (AttributeError, KeyError, TypeError, ValueError) as error:
        raise _malformed('instance', error) from None


def report_to_dict(report):
    """:class:`objects.InstanceReport` as a JSON-serialisable dict."""
    return dataclasses.asdict(report)


def report_from_dict(data):
    """The :class:`objects.InstanceReport` of
    :func:`report_to_dict` (unknown fields ignored; a dict of the wrong
    shape raises InvalidInput).
    """
    try:
        return objects.InstanceReport(
            **_known_fields(objects.InstanceReport, data))
    except (AttributeError, TypeError, ValueError) as error:
        raise _malformed('instance report', error) from None
