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
the request failed (``submit --wait``), or the service did not answer; 2 bad
input (arguments, unknown request id, duplicate id), on one line of stderr.
"""

import contextlib
import functools
import json
import socket
import sys
import time

from preemptible_sched.cmd import scheduler as scheduler_cmd
from preemptible_sched.cmd import testbed
from preemptible_sched.conf import CONF
from preemptible_sched import exception

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2

#: Statuses a request does not leave.
FINAL_STATUSES = ('placed', 'failed', 'deleted')

#: Attempts to reach the message broker before giving up (exit 1), and
#: seconds to wait for its TCP port.
BROKER_RETRIES = 2
BROKER_TIMEOUT = 5.0

# Seconds between two looks at a request by ``submit --wait``.
_POLL_SECONDS = 0.2


def _add_format(parser):
    parser.add_argument('--format', choices=('json', 'table'),
                        default='json', help='Output format.')


def add_parser(subparsers):
    submit = subparsers.add_parser(
        'submit', help='Submit a request to the scheduler service.')
    submit.add_argument('--flavor', choices=sorted(testbed.FLAVORS),
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
    _add_format(submit)
    submit.set_defaults(func=run_submit)

    listing = subparsers.add_parser(
        'list', help='List the requests the scheduler service knows.')
    listing.add_argument('--status', choices=('pending',) + FINAL_STATUSES,
                         help='Only the requests in this status.')
    _add_format(listing)
    listing.set_defaults(func=run_list)

    for name, helptext, func in (
            ('show', 'Show a request and its instances.', run_show),
            ('delete', 'Withdraw a request or terminate its instances.',
             run_delete)):
        parser = subparsers.add_parser(name, help=helptext)
        parser.add_argument('request_id', metavar='ID', help='Request id.')
        _add_format(parser)
        parser.set_defaults(func=func)


# -- input -------------------------------------------------------------------

def request_spec(args):
    """The request dict ``submit`` sends; raises :class:`InvalidInput`."""
    def bad(field, message):
        return exception.InvalidInput('submit', field, message)

    explicit = {'vcpus': args.vcpus, 'memory_mb': args.memory_mb,
                'disk_gb': args.disk_gb}
    if args.flavor:
        given = [name for name, value in explicit.items()
                 if value is not None]
        if given:
            raise bad('--flavor', 'give a flavor or sizes, not both (%s)'
                      % ', '.join('--' + n.replace('_', '-') for n in given))
        resources = testbed.FLAVORS[args.flavor].resources._asdict()
    else:
        if args.vcpus is None or args.memory_mb is None:
            raise bad('--flavor', 'give --flavor, or --vcpus and '
                      '--memory-mb')
        resources = dict(explicit, disk_gb=args.disk_gb or 0.0)
        for name, value in resources.items():
            if value < 0:
                raise bad('--' + name.replace('_', '-'),
                          'must be >= 0, got %g' % value)
        if not any(resources.values()):
            raise bad('--vcpus', 'the request asks for nothing')
    if args.num_instances < 1:
        raise bad('--num-instances', 'must be >= 1, got %d'
                  % args.num_instances)
    if args.duration is not None and args.duration <= 0:
        raise bad('--duration', 'must be > 0, got %g' % args.duration)
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
    return {'id': args.request_id, 'resources': resources,
            'preemptible': args.preemptible_instances,
            'num_instances': args.num_instances, 'flavor': args.flavor,
            'priority': args.priority,
            'service_class': args.service_class,
            'constraints': constraints,
            'availability_zone': args.availability_zone,
            'group': args.group,
            'group_policy': (args.group_policy or 'anti-affinity')
            if args.group else None}


# -- talking to the service --------------------------------------------------

class _Failed(Exception):
    """A call to the service failed; ``code`` is the exit code."""

    def __init__(self, error, code):
        super().__init__(str(error))
        self.code = code


@contextlib.contextmanager
def scheduler_api():
    """A :class:`~preemptible_sched.service.rpcapi.SchedulerAPI` on the
    configured transport; errors of the service become :class:`_Failed`.

    The messaging modules are imported here, after
    :func:`~.scheduler.quiet_eventlet`: the other subcommands do without
    oslo.messaging.
    """
    scheduler_cmd.quiet_eventlet()
    from preemptible_sched import service
    from preemptible_sched.service import rpcapi
    transport = _transport(service)
    try:
        yield rpcapi.SchedulerAPI(transport, CONF, retry=BROKER_RETRIES)
    except (rpcapi.RequestNotFound, rpcapi.BadRequest) as error:
        raise _Failed(error, EXIT_BAD_INPUT) from None
    except rpcapi.ServiceError as error:
        raise _Failed(error, EXIT_FAILED) from None
    finally:
        transport.cleanup()


def _transport(service):
    """The configured RPC transport, once it may reach a service.

    ``fake://`` is refused (it reaches nothing outside this process), and
    so is a broker no host of which accepts a TCP connection:
    oslo.messaging would retry a refused connection forever, whatever the
    call's timeout, and an interactive command must not hang.
    """
    transport = service.get_rpc_transport(CONF)
    hosts = service.broker_addresses(CONF)
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
            return transport
        except OSError as error:
            errors.append('%s:%s: %s' % (address + (error,)))
    transport.cleanup()
    raise _Failed('cannot reach the message broker (%s)' % '; '.join(errors),
                  EXIT_FAILED)


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
    with scheduler_api() as api:
        request = api.submit(spec, args.duration, args.image)
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
    with scheduler_api() as api:
        requests = api.list(args.status)
    _print(requests, args.format, request_table(requests))
    return EXIT_OK


@reports_failure
def run_show(args):
    with scheduler_api() as api:
        request = api.show(args.request_id)
    _print_request(request, args.format)
    return EXIT_OK


@reports_failure
def run_delete(args):
    with scheduler_api() as api:
        request = api.delete(args.request_id)
    _print_request(request, args.format)
    return EXIT_OK
