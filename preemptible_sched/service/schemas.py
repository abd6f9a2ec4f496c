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

"""JSON schemas of every RPC payload, with the bounds they enforce.

Nothing a peer sends reaches the scheduler loop, a compute driver or the
database before its schema accepted it
(:func:`preemptible_sched.service.payload_checks.check`):

* the client API of the scheduler (topic ``[service] scheduler_topic``):
  ``submit``, ``show``, ``list``, ``delete``, and the context of each call
  (:data:`CONTEXT`);
* the agents' reports (``<scheduler_topic>_reports``), handed to
  :class:`~preemptible_sched.service.compute_reports.ComputeReportsEndpoint`;
* the API of a compute agent (``[service] compute_topic``): ``spawn``,
  ``terminate``, ``list_instances``, ``report_host``;
* the answer of an agent to ``list_instances``
  (:data:`LIST_INSTANCES_ANSWER`).

Numbers are bounded (sizes ``0..MAX_RESOURCE``, ``num_instances``
``1..MAX_INSTANCES_PER_REQUEST``, durations ``0..MAX_TIME``), strings are
bounded in length and free of control characters, ids and host names match
:data:`ID_PATTERN`. :data:`SCHEMAS` names every schema; how a payload is
checked against one is :mod:`preemptible_sched.service.payload_checks`,
how the endpoints use them :mod:`preemptible_sched.service.endpoint_guards`.
"""

from preemptible_sched.db import models
from preemptible_sched import input_limits as limits
from preemptible_sched import objects

#: Most instances of one request (from :mod:`preemptible_sched.input_limits`).
MAX_INSTANCES_PER_REQUEST = limits.MAX_INSTANCES_PER_REQUEST
#: Largest size (vCPUs, MB, GB) of a request, instance or host.
MAX_RESOURCE = limits.MAX_RESOURCE
#: Largest duration or accumulated time, in seconds.
MAX_TIME = limits.MAX_TIME
#: Largest multiplier, ratio or utilisation.
MAX_FACTOR = limits.MAX_FACTOR
#: Largest clock reading (an agent's clock may run ``time_scale`` times
#: faster than the wall clock since the epoch).
MAX_CLOCK = 1e13
#: Largest priority, either sign.
MAX_PRIORITY = 1e9
#: Longest name (host, flavor, service class, zone, group, image, id): the
#: width of the database's name columns.
MAX_NAME_LENGTH = models.NAME_LENGTH
#: Longest request id: room is left for the ``-<index>`` of its instances.
MAX_REQUEST_ID_LENGTH = models.NAME_LENGTH - 8
#: Longest reason of a failure report.
MAX_REASON_LENGTH = 1000
#: Most entries of a mapping (attributes, constraints, metrics, metadata)
#: or list (aggregates, roles, hosts of a group).
MAX_ENTRIES = 256
#: Most instances in one answer to ``list_instances``.
MAX_REPORTS = 100000
#: Deepest nesting and most values of one payload.
MAX_DEPTH = 10
MAX_NODES = 100000

#: Ids (requests, instances, hosts, projects, users): a letter, digit or
#: underscore, then letters, digits and ``_ . : @ -``.
ID_PATTERN = r'^[A-Za-z0-9_][A-Za-z0-9_.:@-]*$'
#: Any other string: no control characters.
TEXT_PATTERN = r'^[^\x00-\x1f\x7f]*$'

_NULL = {'type': 'null'}


def _nullable(schema):
    return {'anyOf': [_NULL, schema]}


def _text(max_length=MAX_NAME_LENGTH):
    return {'type': 'string', 'maxLength': max_length,
            'pattern': TEXT_PATTERN}


def _id(max_length=MAX_NAME_LENGTH):
    return {'type': 'string', 'minLength': 1, 'maxLength': max_length,
            'pattern': ID_PATTERN}


def _number(minimum, maximum):
    return {'type': 'number', 'minimum': minimum, 'maximum': maximum}


def _object(properties, required=(), additional=False):
    """An object schema; ``additional`` allows fields this version does
    not know (the wire dicts of hosts, instances and reports, so that a
    newer peer still talks to an older one).
    """
    return {'type': 'object', 'properties': properties,
            'required': list(required), 'additionalProperties': additional}


def _mapping(values, max_entries=MAX_ENTRIES):
    return {'type': 'object', 'maxProperties': max_entries,
            'propertyNames': _text(), 'additionalProperties': values}


NAME = _text()
OPTIONAL_NAME = _nullable(NAME)
REQUEST_ID = _id(MAX_REQUEST_ID_LENGTH)
INSTANCE_ID = _id()
HOST_NAME = _id()
#: A key to look a row up by (a request id in ``show``/``delete``): any
#: bounded string without control characters, so that rows written before
#: ids were checked can still be shown and deleted.
LOOKUP_KEY = dict(_text(), minLength=1)
SIZE = _number(0, MAX_RESOURCE)
OPTIONAL_SIZE = _nullable(SIZE)
FACTOR = _number(0, MAX_FACTOR)
OPTIONAL_FACTOR = _nullable(FACTOR)
CLOCK = _number(0, MAX_CLOCK)
OPTIONAL_CLOCK = _nullable(CLOCK)
SECONDS = _number(0, MAX_TIME)
DURATION = _nullable({'type': 'number', 'exclusiveMinimum': 0,
                      'maximum': MAX_TIME})
PRIORITY = _number(-MAX_PRIORITY, MAX_PRIORITY)
REASON = _text(MAX_REASON_LENGTH)
SCALAR = {'anyOf': [_text(), {'type': ['number', 'boolean']}]}

RESOURCES = _object({'vcpus': SIZE, 'memory_mb': SIZE, 'disk_gb': SIZE})

#: A request as a client submits it (the fields of
#: :func:`preemptible_sched.wire.spec_to_dict`; ``id`` may be left
#: out).
REQUEST_SPEC = _object({
    'id': _nullable(REQUEST_ID),
    'resources': RESOURCES,
    'preemptible': {'type': 'boolean'},
    'num_instances': {'type': 'integer', 'minimum': 1,
                      'maximum': MAX_INSTANCES_PER_REQUEST},
    'flavor': OPTIONAL_NAME,
    'constraints': _nullable(_mapping(SCALAR)),
    'availability_zone': OPTIONAL_NAME,
    'group': OPTIONAL_NAME,
    'group_policy': {'enum': [None, 'affinity', 'anti-affinity']},
    'group_hosts': _nullable({'type': 'array', 'items': HOST_NAME,
                              'maxItems': MAX_ENTRIES}),
    'service_class': OPTIONAL_NAME,
    'priority': PRIORITY,
    'instance_ids': _nullable({'type': 'array', 'items': INSTANCE_ID,
                               'maxItems': MAX_INSTANCES_PER_REQUEST,
                               'uniqueItems': True}),
    'sla': _nullable(_object(
        {service: {'enum': list(objects.SLA_LEVELS)}
         for service in objects.SLA_SERVICES},
        required=objects.SLA_SERVICES)),
    'sequential_s': DURATION,
    'sized': {'type': 'boolean'},
    'user': OPTIONAL_NAME,
    'expected_vcpus': _nullable({'type': 'number', 'exclusiveMinimum': 0,
                                 'maximum': MAX_RESOURCE}),
})

#: The context of a call: who asks (see
#: :mod:`preemptible_sched.service.policy`). Other keys (an oslo.context dict
#  has many) are allowed and ignored.
CONTEXT = _object({
    'project_id': _nullable(_id()),
    'user_id': _nullable(_id()),
    'roles': {'type': 'array', 'items': NAME, 'maxItems': MAX_ENTRIES},
    'is_admin': {'type': 'boolean'},
}, additional=True)

#: An :class:`objects.Host` (``host_to_dict``).
HOST = _object({
    'name': HOST_NAME,
    'vcpus': SIZE, 'memory_mb': SIZE, 'disk_gb': SIZE,
    'attributes': _mapping(SCALAR),
    'aggregates': {'type': 'array', 'maxItems': MAX_ENTRIES, 'items': _object(
        {'name': NAME, 'metadata': _mapping(SCALAR)}, required=['name'],
        additional=True)},
    'availability_zone': OPTIONAL_NAME,
    'enabled': {'type': 'boolean'},
    'up': {'type': 'boolean'},
    'cpu_allocation_ratio': OPTIONAL_FACTOR,
    'ram_allocation_ratio': OPTIONAL_FACTOR,
    'disk_allocation_ratio': OPTIONAL_FACTOR,
    'reserved_vcpus': OPTIONAL_SIZE,
    'reserved_memory_mb': OPTIONAL_SIZE,
    'reserved_disk_gb': OPTIONAL_SIZE,
    'metrics': _mapping(_nullable(SCALAR)),
}, required=['name', 'vcpus', 'memory_mb'], additional=True)

#: An :class:`objects.Instance` (``instance_to_dict``).
#: The boot token of a spawn (:attr:`objects.Instance.boot`).
BOOT = {'type': ['integer', 'null'], 'minimum': 0,
        'maximum': MAX_CLOCK}

INSTANCE = _object({
    'id': INSTANCE_ID,
    'boot': BOOT,
    'resources': {'type': 'array', 'items': SIZE, 'minItems': 3,
                  'maxItems': 3},
    'preemptible': {'type': 'boolean'},
    'started_at': CLOCK,
    'flavor': OPTIONAL_NAME,
    'service_class': OPTIONAL_NAME,
    'priority': PRIORITY,
    'group': OPTIONAL_NAME,
    'admitted_at': OPTIONAL_CLOCK,
    'running_s': SECONDS,
    'overhead_s': SECONDS,
    'running_since': OPTIONAL_CLOCK,
}, required=['id', 'resources'], additional=True)

#: A :class:`~preemptible_sched.objects.InstanceReport`
#: (``report_to_dict``).
REPORT = _object({
    'id': INSTANCE_ID,
    'state': {'type': 'string', 'pattern': '^[a-z_]{1,32}$'},
    'started_at': OPTIONAL_CLOCK,
    'cpu_utilization': FACTOR,
}, required=['id', 'state'], additional=True)

#: An instance the agent's host remembers finishing.
FINISHED_REPORT = _object({
    'id': INSTANCE_ID,
    'state': {'enum': ['ended', 'failed', 'terminated']},
    'started_at': OPTIONAL_CLOCK,
    'ended_at': CLOCK,
    'boot': BOOT,
    'reason': {'anyOf': [{'type': 'null'}, REASON]},
}, required=['id', 'state', 'ended_at'], additional=True)

#: The answer of an agent to ``list_instances``: what its host runs and
#: (``finished``, optional) what it remembers finishing.
LIST_INSTANCES_ANSWER = _object({
    'now': CLOCK,
    'instances': {'type': 'array', 'items': REPORT,
                  'maxItems': MAX_REPORTS},
    'finished': {'type': 'array', 'items': FINISHED_REPORT,
                 'maxItems': MAX_REPORTS},
}, required=['now', 'instances'])


def _args(properties, required=()):
    return _object(properties, required)


#: The term of the scheduler that sent a command (see
#: :mod:`preemptible_sched.db.leadership`); None or absent: unfenced.
EPOCH = {'type': ['integer', 'null'], 'minimum': 1, 'maximum': 2 ** 31 - 1}

_AT = {'at': OPTIONAL_CLOCK}
_INSTANCE_EVENT = _args(dict(_AT, host=HOST_NAME, instance_id=INSTANCE_ID,
                             boot=BOOT),
                        required=['host', 'instance_id'])
_INSTANCE_FAILURE = _args(dict(_AT, host=HOST_NAME, instance_id=INSTANCE_ID,
                               reason=REASON, boot=BOOT),
                          required=['host', 'instance_id', 'reason'])
_HOST_EVENT = _args(dict(_AT, host=HOST_NAME), required=['host'])

#: The arguments of every method, by ``<API>.<method>``.
SCHEMAS = {
    # The client API of the scheduler (calls).
    'scheduler.submit': _args({'spec': {'type': 'object'},
                               'duration': DURATION,
                               'image': OPTIONAL_NAME},
                              required=['spec']),
    'scheduler.show': _args({'request_id': LOOKUP_KEY},
                            required=['request_id']),
    'scheduler.list': _args({'status': {
        'enum': [None] + list(models.REQUEST_STATUSES)}}),
    'scheduler.delete': _args({'request_id': LOOKUP_KEY},
                              required=['request_id']),
    # The agents' reports (casts).
    'reports.register_host': _args(
        {'host': HOST, 'boot_id': _id(64)}, required=['host', 'boot_id']),
    'reports.instance_started': _INSTANCE_EVENT,
    'reports.instance_ended': _INSTANCE_EVENT,
    'reports.instance_terminated': _INSTANCE_EVENT,
    'reports.instance_failed': _INSTANCE_FAILURE,
    'reports.termination_failed': _INSTANCE_FAILURE,
    'reports.host_down': _HOST_EVENT,
    'reports.host_up': _HOST_EVENT,
    # The API of a compute agent.
    'compute.spawn': _args({'host': HOST_NAME, 'instance': INSTANCE,
                            'image': OPTIONAL_NAME, 'duration': DURATION,
                            'agent_boot': _nullable(_id(64)),
                            'epoch': EPOCH},
                           required=['host', 'instance']),
    'compute.terminate': _args({'host': HOST_NAME,
                                'instance_id': INSTANCE_ID,
                                'epoch': EPOCH},
                               required=['host', 'instance_id']),
    'compute.list_instances': _args({'host': HOST_NAME,
                                     'finished': {'type': 'boolean'}},
                                    required=['host']),
    'compute.report_host': _args({'epoch': EPOCH}),
    # Payloads inside the arguments, and answers.
    'request_spec': REQUEST_SPEC,
    'context': CONTEXT,
    'list_instances_answer': LIST_INSTANCES_ANSWER,
}
