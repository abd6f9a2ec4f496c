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

"""``preemptible-sched testbed``: the paper's evaluation on emulated blades.

Random normal and preemptible requests, with exponentially distributed
inter-arrival times and durations, are submitted to the real scheduler loop
running on the fake compute driver (four emulated IBM HS21 blades) under a
virtual clock, until the first normal request that needs a termination.
The command then prints every host with its instances (run time in
minutes, preemptible ones marked) and which instances were terminated, at
what cost, to make room. The procedure and its report are
:mod:`preemptible_sched.simulation.testbed`.
"""

import json
import logging

from preemptible_sched.conf import CONF
from preemptible_sched import exception
from preemptible_sched import extras
from preemptible_sched.loop import request_ends
from preemptible_sched.loop import scheduler_loop
from preemptible_sched.simulation import testbed


def add_parser(subparsers):
    parser = subparsers.add_parser(
        'testbed', help='Run the preemptible-instance evaluation on the '
        'emulated blade testbed.')
    parser.add_argument('--seed', type=int, default=1,
                        help='Seed of the workload and of the emulated boot '
                        'times (default 1); ties between equally good hosts '
                        'use [scheduler] random_seed.')
    parser.add_argument('--flavors', choices=sorted(testbed.FLAVOR_SETS),
                        default='medium',
                        help='"medium": every request is medium, as in the '
                        'first evaluation; "mixed": small, medium and large '
                        'at random.')
    parser.add_argument('--format', choices=('json', 'table'),
                        default='table', help='Output format.')
    parser.add_argument('--preemptible-share', type=float, default=0.5,
                        metavar='P', help='Probability that a request is '
                        'preemptible (default 0.5).')
    parser.add_argument('--mean-interarrival', type=float, default=600.0,
                        metavar='SECONDS', help='Mean time between two '
                        'requests (default 600).')
    parser.add_argument('--mean-duration', type=float, default=4 * 3600.0,
                        metavar='SECONDS', help='Mean run time of an '
                        'instance (default 14400).')
    parser.add_argument('--max-requests', type=int, default=10000,
                        help='Give up after this many requests.')
    parser.set_defaults(func=run)


def _check(args):
    """Reject arguments that would make the procedure run forever."""
    problems = []
    if not 0 < args.preemptible_share < 1:
        problems.append('--preemptible-share must be between 0 and 1 '
                        '(exclusive): with only one kind of request no '
                        'normal request ever needs a termination')
    if args.mean_interarrival <= 0:
        problems.append('--mean-interarrival must be > 0')
    if args.mean_duration <= 0:
        problems.append('--mean-duration must be > 0')
    if args.max_requests < 1:
        problems.append('--max-requests must be >= 1')
    if problems:
        raise exception.InvalidInput('testbed', None, '; '.join(problems))


def run(args):
    extras.require('simulation')
    _check(args)
    testbed.set_paper_defaults(CONF)
    # Spot requests that find no room fail by design here: not news.
    for module in (scheduler_loop, request_ends):
        logging.getLogger(module.__name__).setLevel(
            logging.DEBUG if CONF.debug else logging.WARNING)
    report = testbed.Testbed(
        seed=args.seed, flavors=args.flavors,
        preemptible_share=args.preemptible_share,
        mean_interarrival=args.mean_interarrival,
        mean_duration=args.mean_duration,
        max_requests=args.max_requests).run()
    if report is None:
        print('No normal request needed a termination within %d requests.'
              % args.max_requests)
        return 1
    if args.format == 'json':
        print(json.dumps(report, indent=2))
    else:
        print(testbed.to_table(report))
    return 0
