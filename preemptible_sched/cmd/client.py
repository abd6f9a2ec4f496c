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

"""``preemptible-sched submit | list | show | delete``: the service's client.

These subcommands talk to a running ``preemptible-scheduler`` over the
configured transport (``[DEFAULT] transport_url``; ``fake://``, the default,
reaches nothing outside a process, so it is refused). Exit codes: 0 done; 1
the request failed (``submit --wait``), the service did not answer, or the
message broker cannot be used (a transport URL that cannot be parsed, a
broker that cannot be reached or refuses the user, the password or the
virtual host); 2 bad input (arguments, unknown request id, a request id
taken by another request) or refused by the service's policy; always on
one line of stderr.

Each call names the caller's project and roles (``--os-project-id``,
``--os-roles``, or the environment variables ``OS_PROJECT_ID`` and
``OS_ROLES``; project ``default`` and no roles if neither is given): a
project sees and deletes only its own requests, the role ``admin`` every
project's (the service's policy says so; see ``doc/source/service.rst``).

``submit`` names its request itself (``--id``, or a generated
``req-<hex>``) and, when the service does not answer in time, asks again
with the same id, at most ``SUBMIT_ATTEMPTS`` times: the service takes a
request id once, so a submit that timed out is never placed twice, and a
request placed after all is the one reported.
"""

import contextlib
import functools
import json
import os
import socket
import sys
import time
import uuid

from preemptible_sched.cmd import scheduler as scheduler_cmd
from preemptible_sched.conf import CONF
from preemptible_sched.conf import parsing
from preemptible_sched.conf import urls
from preemptible_sched import exception
from preemptible_sched import input_limits as limits
from preemptible_sched import objects
from preemptible_sched.service_classes import sla

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2

#: Statuses a request does not leave.
FINAL_STATUSES = ('placed', 'failed', 'deleted')

#: The option of each SLA service, as in the workload CSV's columns.
SLA_OPTIONS = {'satisfaction_time': '--sla-satisfaction',
               'reputation': '--sla-reputation',
               'resources': '--sla-resources',
               'replicas': '--sla-replicas'}

#: Attempts to reach the message broker before giving up (exit 1), and
#: seconds to wait for its TCP port.
BROKER_RETRIES = 2
BROKER_TIMEOUT = 5.0

#: Attempts of one ``submit`` when the service does not answer (each with
#: the same request id), and seconds between two.
SUBMIT_ATTEMPTS = 3
RETRY_PAUSE = 1.0

#: The project of a caller that names none.
DEFAULT_PROJECT = 'default'

# Seconds between two looks at a request by ``submit --wait``.
_POLL_SECONDS = 0.2


def _add_common(parser):
    """The output format and the caller's project and roles."""
    parser.add_argument('--format', choices=('json', 'table'),
                        default='json', help='Output format.')
    auth = parser.add_argument_group('caller')
    auth.add_argument('--os-project-id', metavar='PROJECT',
                      help='Project the call is made for (default: '
                      '$OS_PROJECT_ID, else "%s").' % DEFAULT_PROJECT)
    auth.add_argument('--os-roles', metavar='ROLE[,ROLE...]',
                      help='Roles of the caller, comma-separated (default: '
                      '$OS_ROLES, else none); "admin" sees every project.')


def call_context(args):
    """The RPC context of a call: the caller's project and roles."""
    project_id = (getattr(args, 'os_project_id', None) or
                  os.environ.get('OS_PROJECT_ID') or DEFAULT_PROJECT)
    roles = getattr(args, 'os_roles', None)
    if roles is None:
        roles = os.environ.get('OS_ROLES', '')
    return {'project_id': project_id,
            'roles': [role.strip() for role in roles.split(',')
                      if role.strip()]}


def add_parser(subparsers):
    submit = subparsers.add_parser(
        'submit', help='Submit a request to the scheduler service.')
    submit.add_argument('--flavor', choices=sorted(objects.FLAVORS),
                        help='Size of each instance, a flavor of the '
                        'testbed; or give --vcpus and --memory-mb.')
    submit.add_argument('--vcpus', type=float, help='vCPUs per instance.')
    submit.add_argument('--memory-mb', type=float,
                        help='Memory per instance, in MB.')
    submit.add_argument('--disk-gb', type=float,
                        help='Disk per instance, in GB (default 0 without '
                        '--flavor).')
    # Not dest 'preemptible': oslo.config has a group of that name.
    submit.add_argument('--preemptible', action='store_true',
                        dest='preemptible_instances',
                        help='Ask for preemptible (spot) instances.')
    submit.add_argument('--num-instances', type=int, default=1,
                        help='Number of identical instances (default 1).')
    submit.add_argument('--duration', type=float, metavar='SECONDS',
                        help='Run time after which the instances end on '
                        'their own (default: until deleted).')
    submit.add_argument('--priority', type=float, default=0.0,
                        help='Priority of the request (queue policy '
                        '"priority", termination cost "priority").')
    submit.add_argument('--service-class', metavar='CLASS',
                        help='Service class of the request (one of '
                        '[qos] service_classes, e.g. gold, silver, '
                        'bronze); its priority applies unless --priority '
                        'is given.')
    submit.add_argument('--constraint', action='append', default=[],
                        metavar='KEY=VALUE',
                        help='A host attribute or aggregate metadata the '
                        'host must carry (repeatable).')
    submit.add_argument('--availability-zone', metavar='ZONE',
                        help='Availability zone the instances must run in.')
    submit.add_argument('--group', metavar='GROUP',
                        help='Server group the instances join.')
    submit.add_argument('--group-policy',
                        choices=('affinity', 'anti-affinity'),
                        help='Policy of --group (default: anti-affinity).')
    sla_group = submit.add_argument_group(
        'SLA classes', 'The level of each of the four SLA services (all '
        'four or none); see the SLA classes page of the documentation.')
    for service, flag in SLA_OPTIONS.items():
        sla_group.add_argument(flag, choices=objects.SLA_LEVELS,
                               dest='sla_' + service,
                               help='Level of the %s service.'
                               % service.replace('_', ' '))
    sla_group.add_argument('--sequential-s', type=float, metavar='SECONDS',
                           help='A moldable request: its run time on one '
                           'core; the scheduler sizes its cores and it runs '
                           'SECONDS / cores (give --memory-mb, not --vcpus '
                           'or --duration).')
    sla_group.add_argument('--user', help='Who submits it, for the '
                           'accounts.')
    submit.add_argument('--expected-vcpus', type=float, metavar='CORES',
                        help='Cores each instance is declared to use, at '
                        'most its vCPUs: the load-aware weighers take it '
                        'instead of predicting its use.')
    submit.add_argument('--image', help='Image the instances boot from.')
    submit.add_argument('--id', dest='request_id',
                        help='Request id (default: generated). Instances '
                        'are ID, or ID-0, ID-1... for several.')
    submit.add_argument('--wait', action='store_true',
                        help='Wait until the request is placed or failed; '
                        'exit 1 if it failed.')
    submit.add_argument('--timeout', type=float, default=60.0,
                        metavar='SECONDS', help='Longest wait of --wait '
                        '(default 60).')
    _add_common(submit)
    submit.set_defaults(func=run_submit)

    listing = subparsers.add_parser(
        'list', help='List the requests the scheduler service knows.')
    listing.add_argument('--status', choices=('pending',) + FINAL_STATUSES,
                         help='Only the requests in this status.')
    _add_common(listing)
    listing.set_defaults(func=run_list)

    for name, helptext, func in (
            ('show', 'Show a request and its instances.', run_show),
            ('delete', 'Withdraw a request or terminate its instances.',
             run_delete)):
        parser = subparsers.add_parser(name, help=helptext)
        parser.add_argument('request_id', metavar='ID', help='Request id.')
        _add_common(parser)
        parser.set_defaults(func=func)


# -- input -------------------------------------------------------------------

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


# -- talking to the service --------------------------------------------------

class _Failed(Exception):
    """A call to the service failed; ``code`` is the exit code."""

    def __init__(self, error, code):
        super().__init__(str(error))
        self.code = code


@contextlib.contextmanager
def scheduler_api(context=None):
    """A :class:`~preemptible_sched.service.rpcapi.SchedulerAPI` on the
    configured transport, calling with ``context`` (see
    :func:`call_context`); errors of the service become :class:`_Failed`.

    The messaging modules are imported here, after
    :func:`~.scheduler.quiet_eventlet`: the other subcommands do without
    oslo.messaging.
    """
    scheduler_cmd.quiet_eventlet()
    from preemptible_sched import service
    from preemptible_sched.service import readiness
    from preemptible_sched.service import rpcapi
    transport = _transport(service)
    try:
        yield rpcapi.SchedulerAPI(transport, CONF, retry=BROKER_RETRIES,
                                  context=context)
    except (rpcapi.RequestNotFound, rpcapi.BadRequest,
            rpcapi.Forbidden) as error:
        raise _Failed(error, EXIT_BAD_INPUT) from None
    except rpcapi.ServiceError as error:
        raise _Failed(error, EXIT_FAILED) from None
    except Exception as error:
        # The broker going away (or refusing us) in the middle of a call.
        amqp_error = readiness.amqp_exceptions is not None and isinstance(
            error, readiness.amqp_exceptions.AMQPError)
        if not (amqp_error or readiness.unreachable(error)):
            raise
        raise _Failed('the message broker failed: %s'
                      % readiness.one_line(error), EXIT_FAILED) from None
    finally:
        transport.cleanup()


def _transport(service):
    """The configured RPC transport, once it may reach a service.

    A transport URL that cannot be parsed, or names no driver, is refused
    with one line; so is ``fake://`` (it reaches nothing outside this
    process), a broker no host of which accepts a TCP connection
    (oslo.messaging would retry a refused connection forever, whatever the
    call's timeout, and an interactive command must not hang), and one
    that refuses the URL's user, password or virtual host.
    """
    # After quiet_eventlet(), as in scheduler_api().
    import oslo_messaging

    from preemptible_sched.service import readiness
    service.register_messaging_opts(CONF)
    problem = urls.transport_url_problem(CONF, CONF.transport_url)
    if problem:
        raise _Failed('%s: %s' % (parsing.where(
            CONF, 'DEFAULT', 'transport_url'), problem), EXIT_FAILED)
    try:
        transport = service.get_rpc_transport(CONF)
        hosts = service.broker_addresses(CONF)
    except (oslo_messaging.MessagingException, ValueError) as error:
        raise _Failed('[DEFAULT] transport_url: %s' % readiness.one_line(
            error), EXIT_FAILED) from None
    if hosts is None:
        transport.cleanup()
        raise exception.InvalidInput(
            '[DEFAULT] transport_url', None,
            'fake:// reaches no running service: set it to the transport '
            'of preemptible-scheduler, e.g. rabbit://USER:PASSWORD@HOST:5672/')
    errors = []
    for address in hosts:
        try:
            socket.create_connection(address, timeout=BROKER_TIMEOUT).close()
            break
        except OSError as error:
            errors.append('%s:%s: %s' % (address + (error,)))
    else:
        transport.cleanup()
        raise _Failed('cannot reach the message broker (%s)'
                      % '; '.join(errors), EXIT_FAILED)
    try:
        # The broker's own answer to the credentials, before any call:
        # oslo.messaging would raise it from deep inside the call.
        readiness.wait_for_broker(CONF, BROKER_TIMEOUT)
    except exception.StartupFailed as error:
        transport.cleanup()
        raise _Failed(error, EXIT_FAILED) from None
    return transport


def _fail(message, code):
    sys.stderr.write('preemptible-sched: %s\n' % ' '.join(
        str(message).split()))
    return code


def reports_failure(run):
    """Turn a failed call into its message and exit code."""
    @functools.wraps(run)
    def wrapper(args):
        try:
            return run(args)
        except _Failed as failure:
            return _fail(failure, failure.code)
    return wrapper


def new_request_id():
    """A request id, as the service would generate it."""
    return 'req-%s' % uuid.uuid4().hex[:12]


def submit_with_retries(api, spec, duration=None, image=None,
                        attempts=None):
    """``api.submit`` the request dict ``spec`` (which has an id), asking
    again with the same id while the service does not answer
    (``ServiceUnavailable``: the call timed out, or the service was not
    ready), at most ``attempts`` times (default :data:`SUBMIT_ATTEMPTS`).

    The last failure names the request id: the request may have been
    taken all the same, and submitting the same id again is safe.
    """
    from preemptible_sched.service import rpcapi

    attempts = SUBMIT_ATTEMPTS if attempts is None else attempts
    for attempt in range(1, attempts + 1):
        try:
            return api.submit(spec, duration, image)
        except rpcapi.ServiceUnavailable as error:
            if attempt == attempts:
                raise rpcapi.ServiceUnavailable(
                    '%s (%d attempts); request %s may have been taken all '
                    'the same: "preemptible-sched show %s" tells, and '
                    'submitting again with --id %s is safe' % (
                        error, attempts, spec['id'], spec['id'],
                        spec['id'])) from None
            sys.stderr.write('preemptible-sched: %s; asking again for '
                             'request %s (attempt %d of %d)\n' % (
                                 ' '.join(str(error).split()), spec['id'],
                                 attempt + 1, attempts))
            time.sleep(RETRY_PAUSE)


def _wait(api, request, timeout):
    deadline = time.monotonic() + timeout
    while request['status'] not in FINAL_STATUSES:
        if time.monotonic() > deadline:
            return None
        time.sleep(_POLL_SECONDS)
        request = api.show(request['id'])
    return request


# -- output ------------------------------------------------------------------

def _size(spec):
    res = spec['resources']
    size = spec.get('flavor') or '%gcpu/%gMB/%gGB' % (
        res['vcpus'], res['memory_mb'], res['disk_gb'])
    kind = 'preemptible' if spec.get('preemptible') else 'normal'
    return '%s %s x%d' % (kind, size, spec.get('num_instances', 1))


def _placements(request):
    return ', '.join('%s %s%s' % (i['id'], i['state'],
                                  '@' + i['host'] if i['host'] else '')
                     for i in request['instances'])


def request_table(requests):
    rows = [('ID', 'STATUS', 'REQUEST', 'INSTANCES')]
    rows += [(r['id'], r['status'], _size(r['spec']), _placements(r))
             for r in requests]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    return '\n'.join('  '.join(cell.ljust(width) for cell, width
                               in zip(row[:3], widths)) + '  ' + row[3]
                     for row in rows)


def _print(result, fmt, table):
    if fmt == 'json':
        sys.stdout.write(json.dumps(result, indent=2, sort_keys=True) + '\n')
    else:
        sys.stdout.write(table + '\n')


def _print_request(request, fmt):
    table = request_table([request])
    if request.get('reason'):
        table += '\nReason: %s' % request['reason']
    _print(request, fmt, table)


# -- the subcommands ---------------------------------------------------------

@reports_failure
def run_submit(args):
    spec = request_spec(args)
    if spec['id'] is None:
        spec['id'] = new_request_id()
    limits.finite_number(args.timeout, 'submit', '--timeout', minimum=0,
                         maximum=limits.MAX_TIME)
    with scheduler_api(call_context(args)) as api:
        request = submit_with_retries(api, spec, args.duration, args.image)
        if args.wait:
            waited = _wait(api, request, args.timeout)
            if waited is None:
                _print_request(request, args.format)
                return _fail('request %s still %s after %g s' % (
                    request['id'], request['status'], args.timeout),
                    EXIT_FAILED)
            request = waited
    _print_request(request, args.format)
    return EXIT_FAILED if request['status'] in ('failed', 'deleted') \
        else EXIT_OK


@reports_failure
def run_list(args):
    with scheduler_api(call_context(args)) as api:
        requests = api.list(args.status)
    _print(requests, args.format, request_table(requests))
    return EXIT_OK


@reports_failure
def run_show(args):
    with scheduler_api(call_context(args)) as api:
        request = api.show(args.request_id)
    _print_request(request, args.format)
    return EXIT_OK


@reports_failure
def run_delete(args):
    with scheduler_api(call_context(args)) as api:
        request = api.delete(args.request_id)
    _print_request(request, args.format)
    return EXIT_OK
