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

"""Load-aware weighers against least_requested, on real utilisation.

The Alibaba GPU 2023 pod list (the pods created in ``--days`` days from
day ``--start-day``, shifted to start at 0; the cloud starts empty) is
replayed on ``--hosts`` identical hosts of 32 cores and 256 GiB with the
vCPUs overcommitted ``--cpu-ratio`` times, each pod replaying the CPU
utilisation of a Bitbrains VM (``../shared/data/bitbrains_small``), once
per configuration (see
:mod:`preemptible_sched.simulation.load_comparison`). Prints JSON on
stdout; with ``--output DIR`` also writes ``comparison.json``,
``comparison.rst`` and ``hosts_used.png`` there::

    python benchmarks/load_aware_comparison.py --output benchmarks/results/load
"""

import argparse
import dataclasses
import json
import os
import sys
import time

from report import emit
from report import log
from report import machine

from preemptible_sched.conf import CONF
from preemptible_sched import objects
from preemptible_sched.simulation import load_comparison
from preemptible_sched.simulation.traces import reading

_DATA = os.path.normpath(os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), '..',
    'shared', 'data'))
PODS = os.path.join(_DATA, 'alibaba_gpu_v2023', 'openb_pod_list_default.csv')
BITBRAINS = os.path.join(_DATA, 'bitbrains_small')
DAY = 86400.0


def _items(path, start_day, days):
    items = reading.read_workload(path, 'alibaba')
    start, end = start_day * DAY, (start_day + days) * DAY
    return [dataclasses.replace(item, submit_s=item.submit_s - start)
            for item in items if start <= item.submit_s < end]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--pods', default=PODS)
    parser.add_argument('--bitbrains', default=BITBRAINS)
    parser.add_argument('--start-day', type=int, default=140)
    parser.add_argument('--days', type=float, default=2.0)
    parser.add_argument('--hosts', type=int, default=12)
    parser.add_argument('--cpu-ratio', type=float, default=4.0)
    parser.add_argument('--target', type=float, default=40.0)
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--output', metavar='DIR')
    args = parser.parse_args(argv)
    CONF([], project='preemptible-sched')
    CONF.set_override('utilization_model', 'replay', group='fake_driver')
    CONF.set_override('utilization_trace', args.bitbrains,
                      group='fake_driver')
    CONF.set_override('target_utilization', args.target,
                      group='target_load_packing')
    CONF.set_override('enabled_filters', ['compute', 'resources'],
                      group='filter_scheduler')
    items = _items(args.pods, args.start_day, args.days)
    hosts = [objects.Host('host-%02d' % index, vcpus=32, memory_mb=262144,
                          disk_gb=10000, cpu_allocation_ratio=args.cpu_ratio,
                          ram_allocation_ratio=1.0)
             for index in range(args.hosts)]
    log('%d pods on %d hosts, %g days' % (len(items), len(hosts), args.days))
    started = time.process_time()
    outcomes = load_comparison.compare(items, hosts, until=args.days * DAY,
                                       seed=args.seed)
    document = {
        'machine': machine(),
        'cpu_s': time.process_time() - started,
        'setup': {'pods': len(items), 'hosts': len(hosts),
                  'host': '32 cores, 256 GiB', 'cpu_ratio': args.cpu_ratio,
                  'days': args.days, 'start_day': args.start_day,
                  'target': args.target, 'seed': args.seed},
        'results': [outcome.summary() for outcome in outcomes],
    }
    if args.output:
        os.makedirs(args.output, exist_ok=True)
        with open(os.path.join(args.output, 'comparison.json'), 'w') as out:
            json.dump(document, out, indent=2)
        with open(os.path.join(args.output, 'comparison.rst'), 'w') as out:
            out.write(load_comparison.table(outcomes, args.target) + '\n')
        load_comparison.plot(outcomes,
                             os.path.join(args.output, 'hosts_used.png'))
    log(load_comparison.table(outcomes, args.target, tablefmt='simple'))
    emit(document, None)
    return 0


if __name__ == '__main__':
    sys.exit(main())
