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
with the same id, at most ``service_calls.SUBMIT_ATTEMPTS`` times: the
service takes a request id once, so a submit that timed out is never placed
twice, and a request placed after all is the one reported.

The sub-commands are here; ``service_calls.py`` calls the service,
``submit_args.py`` makes the request dict of ``submit``'s arguments and
``output.py`` prints the answers.
"""

from preemptible_sched.cmd.client import output
from preemptible_sched.cmd.client import service_calls as calls
from preemptible_sched.cmd.client import submit_args
from preemptible_sched import input_limits as limits
from preemptible_sched import objects


def _add_common(parser):
    """The output format and the caller's project and roles."""
    parser.add_argument('--format', choices=('json', 'table'),
                        default='json', help='Output format.')
    auth = parser.add_argument_group('caller')
    auth.add_argument('--os-project-id', metavar='PROJECT',
                      help='Project the call is made for (default: '
                      '$OS_PROJECT_ID, else "%s").' % calls.DEFAULT_PROJECT)
    auth.add_argument('--os-roles', metavar='ROLE[,ROLE...]',
                      help='Roles of the caller, comma-separated (default: '
                      '$OS_ROLES, else none); "admin" sees every project.')


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
    for service, flag in submit_args.SLA_OPTIONS.items():
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
    listing.add_argument('--status',
                         choices=('pending',) + calls.FINAL_STATUSES,
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


# -- the subcommands ---------------------------------------------------------

@calls.reports_failure
def run_submit(args):
    spec = submit_args.request_spec(args)
    if spec['id'] is None:
        spec['id'] = calls.new_request_id()
    limits.finite_number(args.timeout, 'submit', '--timeout', minimum=0,
                         maximum=limits.MAX_TIME)
    with calls.scheduler_api(calls.call_context(args)) as api:
        request = calls.submit_with_retries(api, spec, args.duration,
                                            args.image)
        if args.wait:
            waited = calls.wait(api, request, args.timeout)
            if waited is None:
                output.print_request(request, args.format)
                return calls.fail('request %s still %s after %g s' % (
                    request['id'], request['status'], args.timeout),
                    calls.EXIT_FAILED)
            request = waited
    output.print_request(request, args.format)
    return calls.EXIT_FAILED if request['status'] in ('failed', 'deleted') \
        else calls.EXIT_OK


@calls.reports_failure
def run_list(args):
    with calls.scheduler_api(calls.call_context(args)) as api:
        requests = api.list(args.status)
    output.print_result(requests, args.format,
                        output.request_table(requests))
    return calls.EXIT_OK


@calls.reports_failure
def run_show(args):
    with calls.scheduler_api(calls.call_context(args)) as api:
        request = api.show(args.request_id)
    output.print_request(request, args.format)
    return calls.EXIT_OK


@calls.reports_failure
def run_delete(args):
    with calls.scheduler_api(calls.call_context(args)) as api:
        request = api.delete(args.request_id)
    output.print_request(request, args.format)
    return calls.EXIT_OK
