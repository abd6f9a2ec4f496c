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

"""What the per-stage timing of the passes costs the simulator.

One replay (the first ``--limit`` pods of the Alibaba GPU 2023 pod list on
hosts sampled for them, under ``qos``: the simulator's heaviest shipped
case) is run ``--rounds`` times under two stopwatches, alternated within each
round so that the machine's load weighs on both alike:

``shipped``
    the stage stopwatch as it is (the wall clock and the thread's CPU
    clock at both ends of every lap; see
    :mod:`preemptible_sched.loop.timing`);
``none``
    no timing at all (every lap a no-op): the floor.

It reports the CPU time of each run (``time.process_time`` around
``Simulation.run``), the median per stopwatch, and the overhead of each
over ``none`` as a ratio of the medians. The decisions are the same under
both (the timing decides nothing): the events and the preemptions
are reported per run, and ``same_decisions`` says they agree. JSON on stdout::

    python benchmarks/stage_timing_overhead.py --limit 3000 --rounds 3
"""

import argparse
import contextlib
import gc
import os
import statistics
import sys
import time

from report import emit
from report import log
from report import machine

from preemptible_sched.loop import timing
from preemptible_sched.simulation import infrastructure
from preemptible_sched.simulation import runner
from preemptible_sched.simulation.traces import reading

_DATA = os.path.normpath(os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), '..',
    'shared', 'data', 'alibaba_gpu_v2023'))
WORKLOAD = os.path.join(_DATA, 'openb_pod_list_default.csv')
MACHINES = os.path.join(_DATA, 'openb_node_list_all_node.csv')


def _no_lap(self, stage, size=0):
    return contextlib.nullcontext()


STOPWATCHES = {
    'shipped': timing.StageStats.stopwatch,
    'none': _no_lap,
}


def run_once(name, items, hosts, seed):
    timing.StageStats.stopwatch = STOPWATCHES[name]
    try:
        gc.collect()
        begin = time.process_time()
        result = runner.Simulation(items, hosts, seed=seed,
                                   policy='qos').run()
        cpu = time.process_time() - begin
    finally:
        timing.StageStats.stopwatch = STOPWATCHES['shipped']
    return {'cpu_time_s': round(cpu, 3), 'events': result.events,
            'preemptions': result.preemptions}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--workload', default=WORKLOAD)
    parser.add_argument('--machines', default=MACHINES)
    parser.add_argument('--limit', type=int, default=3000,
                        help='replay the first N pods (default: '
                             '%(default)s)')
    parser.add_argument('--rounds', type=int, default=3,
                        help='runs per stopwatch, alternated (default: '
                             '%(default)s)')
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--output', help='also write the JSON here')
    args = parser.parse_args(argv)
    if args.limit < 1 or args.rounds < 1:
        parser.error('--limit and --rounds: positive numbers')
    items = reading.read_workload(args.workload, limit=args.limit)
    hosts = infrastructure.size_from_workload(
        items, infrastructure.read_machines(args.machines), 0.9, args.seed)
    runs = {name: [] for name in STOPWATCHES}
    for round_ in range(args.rounds):
        for name in STOPWATCHES:
            row = run_once(name, items, hosts, args.seed)
            log('round %d %-11s %.2f s CPU, %d events, %d preemptions' % (
                round_ + 1, name, row['cpu_time_s'], row['events'],
                row['preemptions']))
            runs[name].append(row)
    medians = {name: statistics.median(row['cpu_time_s'] for row in rows)
               for name, rows in runs.items()}
    floor = medians['none']
    emit({
        'benchmark': 'stage_timing_overhead',
        'machine': machine(),
        'workload': args.workload,
        'limit': args.limit,
        'hosts': len(hosts),
        'rounds': args.rounds,
        'runs': runs,
        'median_cpu_time_s': medians,
        'overhead_over_none': {
            name: round(median / floor, 3) if floor else None
            for name, median in medians.items()},
        'same_decisions': all(
            (row['events'], row['preemptions']) ==
            (runs['none'][0]['events'], runs['none'][0]['preemptions'])
            for rows in runs.values() for row in rows),
    }, args.output)


if __name__ == '__main__':
    sys.exit(main())
