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

"""JSON schemas of every RPC payload, and the endpoints' guards.

Nothing a peer sends reaches the scheduler loop, a compute driver or the
database before :func:`check` accepted it:

* the client API of the scheduler (topic ``[service] scheduler_topic``):
  ``submit``, ``show``, ``list``, ``delete``, and the context of each call
  (:func:`check_context`);
* the agents' reports (``<scheduler_topic>_reports``):
  :func:`check_report`, handed to
  :class:`~preemptible_sched.service.compute_reports.ComputeReportsEndpoint`;
* the API of a compute agent (``[service] compute_topic``): ``spawn``,
  ``terminate``, ``list_instances``, ``report_host``;
* the answer of an agent to ``list_instances``
  (:func:`validate_list_instances_answer`).

A payload is first made plain JSON (what a broker would deliver: tuples
become lists; sets, bytes and other objects are refused), then checked by
:func:`preemptible_sched.input_limits.documents.check_tree` (finite
numbers, string keys, valid Unicode, bounded nesting and size: JSON
schema cannot refuse NaN, whose comparisons with any bound are false),
then by its schema. Numbers are bounded (sizes ``0..MAX_RESOURCE``,
``num_instances`` ``1..MAX_INSTANCES_PER_REQUEST``, durations
``0..MAX_TIME``), strings are bounded in length and free of control
characters, ids and host names match :data:`ID_PATTERN`. Integers are true
integers (``2.0`` and ``true`` are not). A refusal is an
:class:`~preemptible_sched.exception.InvalidInput` naming the method and
the field, on one line.

:func:`checked_call` and :func:`checked_cast` wrap endpoint methods: a bad
call is logged (one WARNING line) and answered with ``InvalidInput`` (the
client's ``BadRequest``); a bad cast is logged and dropped; an unexpected
error is logged with its traceback and answered with
:class:`ServiceFailure`, so nothing a peer sends makes an endpoint raise
anything else, let alone stop a service.
"""

import functools
import json
import logging

import jsonschema
import oslo_messaging

from preemptible_sched.db import models
from preemptible_sched import exception
from preemptible_sched import input_limits as limits
from preemptible_sched.input_limits import documents
from preemptible_sched import objects

LOG = logging.getLogger(__name__)

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
                            'agent_boot': _nullable(_id(64))},
                           required=['host', 'instance']),
    'compute.terminate': _args({'host': HOST_NAME,
                                'instance_id': INSTANCE_ID},
                               required=['host', 'instance_id']),
    'compute.list_instances': _args({'host': HOST_NAME,
                                     'finished': {'type': 'boolean'}},
                                    required=['host']),
    'compute.report_host': _args({}),
    # Payloads inside the arguments, and answers.
    'request_spec': REQUEST_SPEC,
    'context': CONTEXT,
    'list_instances_answer': LIST_INSTANCES_ANSWER,
}


def _strict_integer(checker, instance):
    return isinstance(instance, int) and not isinstance(instance, bool)


_Validator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
        'integer', _strict_integer))

for _schema in SCHEMAS.values():
    _Validator.check_schema(_schema)
_VALIDATORS = {name: _Validator(schema) for name, schema in SCHEMAS.items()}

#: Most problems one refusal lists.
_MAX_PROBLEMS = 5


class ServiceFailure(exception.PreemptibleSchedException):
    """An endpoint failed on a bug, not on its input (logged with the
    traceback where it happened); what the caller gets instead of the
    bug's own exception.
    """

    def __init__(self, method):
        self.method = method
        super().__init__('%s failed on an internal error (see the log of '
                         'the service)' % method)


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
    """``payload`` checked against ``SCHEMAS[name]``; returns it as plain
    JSON (a new object), or raises InvalidInput naming ``source``
    (default ``name``) and the field.
    """
    source = source or name
    max_nodes = MAX_NODES * (10 if name == 'list_instances_answer' else 1)
    data = _plain(payload, source, MAX_DEPTH)
    documents.check_tree(data, source, max_depth=MAX_DEPTH,
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
    """A request as a client sent it (see :data:`REQUEST_SPEC`)."""
    return check('request_spec', data, source)


def check_report(method, kwargs):
    """The arguments of an agent's report ``method``, checked; given to
    :class:`~preemptible_sched.service.compute_reports.ComputeReportsEndpoint`.
    """
    name = 'reports.%s' % method
    if name not in SCHEMAS:
        raise exception.InvalidInput(method, None, 'no such report')
    return check(name, kwargs, method)


def validate_list_instances_answer(answer):
    """An agent's answer to ``list_instances``, checked (a plain dict), or
    InvalidInput: what the ``rpc`` compute driver may trust.
    """
    return check('list_instances_answer', answer, 'list_instances answer')


# -- guarding endpoints -------------------------------------------------------

def _one_line(error):
    return limits.one_line(error, limits.MAX_MESSAGE)


def checked_call(api, *expected):
    """Decorate the endpoint method of a call: its arguments are checked
    against ``SCHEMAS['<api>.<method>']`` and its context by
    :func:`check_context` (the method gets both as plain dicts).

    InvalidInput is logged (one WARNING line) and returned to the caller,
    like the ``expected`` exceptions; anything else is logged with its
    traceback and returned as :class:`ServiceFailure`.
    """
    known = (exception.InvalidInput, ServiceFailure) + tuple(expected)

    def decorate(method):
        name = method.__name__
        schema = '%s.%s' % (api, name)

        @functools.wraps(method)
        def guarded(self, ctxt, **kwargs):
            try:
                context = check_context(ctxt, '%s context' % name)
                args = check(schema, kwargs, name)
                return method(self, context, **args)
            except exception.InvalidInput as error:
                refused = error
            except known:
                raise
            except Exception:
                LOG.exception('%s failed', name)
                raise ServiceFailure(name) from None
            # Logged out of the except clause: oslo.log would append the
            # exception to the line.
            LOG.warning('Rejected %s: %s', name, _one_line(refused))
            raise refused

        return oslo_messaging.expected_exceptions(*known)(guarded)
    return decorate


def checked_cast(api):
    """Decorate the endpoint method of a cast: its arguments are checked
    against ``SCHEMAS['<api>.<method>']``; a bad one is logged (one WARNING
    line) and dropped, and so is anything the method raises (an
    unexpected error with its traceback). Nothing is raised.
    """
    def decorate(method):
        name = method.__name__
        schema = '%s.%s' % (api, name)

        @functools.wraps(method)
        def guarded(self, ctxt, **kwargs):
            try:
                args = check(schema, kwargs, name)
                method(self, ctxt, **args)
                return
            except exception.InvalidInput as error:
                refused = error
            except Exception:
                LOG.exception('%s failed; the message is dropped', name)
                return
            LOG.warning('Dropped %s: %s', name, _one_line(refused))

        return guarded
    return decorate


@oslo_messaging.expected_exceptions(exception.InvalidInput)
def _no_such_method(name, ctxt, /, **kwargs):
    error = exception.InvalidInput(name, None, 'no such method')
    LOG.warning('Rejected %s: %s', limits.one_line(name, 60),
                _one_line(error))
    raise error


class GuardedEndpoint:
    """Base of the endpoints: a method they do not have is answered with
    InvalidInput (logged on one line), not oslo.messaging's
    ``NoSuchMethod`` with a traceback in the log. Private names (which
    oslo.messaging never dispatches) are not affected.
    """

    def __getattr__(self, name):
        if name.startswith(('_', 'oslo_')):
            raise AttributeError(name)
        return functools.partial(_no_such_method, name)
