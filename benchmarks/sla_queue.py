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

"""Time of the SLA stages of a pass: the PROMETHEE II order and sizing.

``promethee``: :meth:`PrometheePolicy.order` over a queue of ``n`` pending
SLA requests with random levels (its cost grows with ``n`` only through the
distinct level vectors, 81 at most, and the sort). ``sizing``:
:func:`preemptible_sched.service_classes.sizing.size` of one moldable request
on a cloud of ``h`` hosts in three reputation categories, half of each host
busy, with 100 other moldable requests queued (the host table's columns, a
few vector operations). ``sizing_queue``: the same on the 15 hosts of the
shipped SLA emulation, with 1,000, 10,000 and 100,000 moldable requests
queued (the queue keeps the priorities they share as running sums, so the
time should not grow with the queue). Each case is run ``--repetitions``
times and the median and maximum are reported.

The result is JSON on stdout (progress goes to stderr)::

    python benchmarks/sla_queue.py --output results.json
"""

import argparse
import random
import statistics
import time

from report import emit
from report import log
from report import machine

from preemptible_sched.conf import CONF
from preemptible_sched.hosts import manager as host_manager
from preemptible_sched import objects
from preemptible_sched.queue import pending as queue_mod
from preemptible_sched.queue.queue_policies import fifo
from preemptible_sched.queue.queue_policies import promethee
from preemptible_sched.service_classes import sizing

QUEUES = (100, 1000, 10000, 100000)
CLOUDS = (100, 1000, 10000, 100000)
QUICK = (100, 1000)
QUEUED = (1000, 10000, 100000)
QUICK_QUEUED = (1000,)
#: Hosts of the shipped SLA emulation (etc/.../experiments/sla/hosts.csv).
EMULATION_HOSTS = 15
CATEGORIES = ('high', 'average', 'low')


class _Planner:
    def plan(self, state, resources, now, cost=None):
        return None


def moldable(rng, index):
    return objects.RequestSpec(
        'r%d' % index, objects.Resources(0, 512, 0), sequential_s=300.0,
        sla=objects.SLALevels(*[rng.choice(objects.SLA_LEVELS)
                                for _ in objects.SLA_SERVICES]))


def timed(function, repetitions):
    times = []
    for _ in range(repetitions):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return {'median_ms': round(statistics.median(times) * 1e3, 3),
            'max_ms': round(max(times) * 1e3, 3)}


def bench_promethee(sizes, repetitions, rng):
    policy = promethee.PrometheePolicy()
    rows = []
    for count in sizes:
        queue = [objects.PendingRequest(moldable(rng, index), 0.0, index)
                 for index in range(count)]
        rows.append(dict(pending=count, **timed(
            lambda: policy.order(queue, 0.0), repetitions)))
        log('promethee %d pending: %s' % (count, rows[-1]))
    return rows


def cloud(count):
    """``count`` hosts of 32 cores in three reputation categories, half
    of each busy.
    """
    manager = host_manager.HostManager(_Planner())
    for index in range(count):
        name = 'h%d' % index
        manager.add_host(objects.Host(
            name, 32, 131072, 500,
            attributes={'reputation': CATEGORIES[index % 3]}))
        manager.add_instance(name, objects.Instance(
            name + '-busy', objects.Resources(16, 1024, 0)))
    return manager


def queued(count, rng):
    pending = queue_mod.PendingQueue(fifo.FifoPolicy())
    for index in range(count):
        pending.add(moldable(rng, index), 0.0)
    pending.admit(lambda entry: True)
    return pending


def bench_sizing(sizes, repetitions, rng):
    rows = []
    for count in sizes:
        manager = cloud(count)
        pending = queued(101, rng)
        entry = next(iter(pending.entries.values()))
        rows.append(dict(hosts=count, **timed(
            lambda: sizing.size(entry, pending, manager), repetitions)))
        log('sizing on %d hosts: %s' % (count, rows[-1]))
    return rows


def bench_sizing_queue(lengths, repetitions, rng):
    manager = cloud(EMULATION_HOSTS)
    rows = []
    for count in lengths:
        pending = queued(count, rng)
        entry = next(iter(pending.entries.values()))
        rows.append(dict(queued=count, hosts=EMULATION_HOSTS, **timed(
            lambda: sizing.size(entry, pending, manager), repetitions)))
        log('sizing with %d queued: %s' % (count, rows[-1]))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--repetitions', type=int, default=20,
                        help='runs per case (default: %(default)s)')
    parser.add_argument('--output', help='also write the JSON here')
    parser.add_argument('--quick', action='store_true',
                        help='smoke run: up to 1000 requests and hosts')
    args = parser.parse_args(argv)
    CONF([], project='preemptible-sched')
    rng = random.Random(0)
    started = time.perf_counter()
    report = {
        'benchmark': 'sla_queue',
        'machine': machine(),
        'promethee': bench_promethee(QUICK if args.quick else QUEUES,
                                     args.repetitions, rng),
        'sizing': bench_sizing(QUICK if args.quick else CLOUDS,
                               args.repetitions, rng),
        'sizing_queue': bench_sizing_queue(
            QUICK_QUEUED if args.quick else QUEUED, args.repetitions, rng),
        'wall_time_s': round(time.perf_counter() - started, 1),
    }
    emit(report, args.output)
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
