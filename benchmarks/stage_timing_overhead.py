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

Two replays under ``qos``, each run ``--rounds`` times under two
stopwatches, alternated within each round so that the machine's load
weighs on both alike:

``alibaba``
    the first ``--limit`` pods of the Alibaba GPU 2023 pod list on hosts
    sampled for them at size factor 0.9 (seed ``--seed``): many short
    passes, each asking about a few requests;
``validation``
    the README's validation experiment (256 requests on 20 hosts for one
    simulated hour, seed 1): fewer passes, each filtering, weighing and
    planning preemptions for more requests.

The stopwatches (after one run of each case that is not measured: the
first run of a process also pays for what it loads):

``shipped``
    the stage stopwatch as it is (see :mod:`preemptible_sched.loop.timing`);
``none``
    no timing at all (every lap, and the start and end of every pass, a
    no-op): the floor.

It reports the CPU time of each run (``time.process_time`` around
``Simulation.run``), the median and the least per stopwatch, and the
overhead of ``shipped`` over ``none`` as the ratio of the medians and of
the least times (the machine's load only ever adds, so the least times are
the steadier). Next to it, an estimate that the load barely touches: the
CPU time of one lap and of the start and end of one pass, measured on
their own (``lap_cost_ns``, ``pass_cost_ns``), times the laps and passes
of the run, added to the run's CPU time without timing
(``estimated_overhead_over_none``). The timing decides nothing:
``same_decisions`` says the events, the preemptions and the instance
records (a digest of them) are the same under both stopwatches. JSON on
stdout::

    python benchmarks/stage_timing_overhead.py --limit 3000 --rounds 3
"""

import argparse
import contextlib
import gc
import hashlib
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

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_DATA = os.path.normpath(os.path.join(
    _ROOT, '..', 'shared', 'data', 'alibaba_gpu_v2023'))
WORKLOAD = os.path.join(_DATA, 'openb_pod_list_default.csv')
MACHINES = os.path.join(_DATA, 'openb_node_list_all_node.csv')
_VALIDATION = os.path.join(_ROOT, 'etc', 'preemptible-sched', 'workloads')
VALIDATION = os.path.join(_VALIDATION, 'qos-validation.csv')
VALIDATION_HOSTS = os.path.join(_VALIDATION, 'qos-validation-hosts.csv')
CASES = ('alibaba', 'validation')
#: The stopwatch may add at most this much CPU time (issue 28).
TARGET = 1.03


def _no_lap(self, stage, size=0):
    return contextlib.nullcontext()


def _nothing(self, *args):
    pass


SHIPPED = {name: getattr(timing.StageStats, name)
           for name in ('stopwatch', 'begin_pass', 'end_pass')}
STOPWATCHES = {
    'shipped': SHIPPED,
    'none': {'stopwatch': _no_lap, 'begin_pass': _nothing,
             'end_pass': _nothing},
}


@contextlib.contextmanager
def stopwatch(name):
    for attribute, method in STOPWATCHES[name].items():
        setattr(timing.StageStats, attribute, method)
    try:
        yield
    finally:
        for attribute, method in SHIPPED.items():
            setattr(timing.StageStats, attribute, method)


def run_once(name, case):
    with stopwatch(name):
        gc.collect()
        begin = time.process_time()
        result = runner.Simulation(case['items'], case['hosts'],
                                   **case['options']).run()
        cpu = time.process_time() - begin
    rows = result.stage_rows
    return {'cpu_time_s': round(cpu, 3), 'events': result.events,
            'preemptions': result.preemptions,
            'records': hashlib.sha256(
                repr(result.records).encode()).hexdigest()[:16],
            'laps': sum(row[3] for row in rows),
            'passes': len({row[0] for row in rows})}


def lap_costs(laps=200000, passes=50000):
    """CPU nanoseconds of one empty lap, and of beginning and ending one
    pass, under the shipped stopwatch (an empty loop's time deducted).
    """
    def per(count, body):
        gc.collect()
        begin = time.process_time()
        body(count)
        return (time.process_time() - begin) / count * 1e9

    def empty(count):
        for _ in range(count):
            pass

    def lap(count):
        stats = timing.StageStats()
        stats.begin_pass(1, 0.0)
        watch = stats.stopwatch
        for _ in range(count):
            with watch('R4', 1):
                pass

    def pass_(count):
        stats = timing.StageStats()
        for number in range(count):
            stats.begin_pass(number, 0.0)
            stats.end_pass()

    loop = per(laps, empty)
    return (round(per(laps, lap) - loop, 1),
            round(per(passes, pass_) - loop, 1))


def load_case(name, args):
    if name == 'alibaba':
        items = reading.read_workload(args.workload, limit=args.limit)
        hosts = infrastructure.size_from_workload(
            items, infrastructure.read_machines(args.machines), 0.9,
            args.seed)
        return {'workload': args.workload, 'limit': args.limit,
                'items': items, 'hosts': hosts,
                'options': {'seed': args.seed, 'policy': 'qos'}}
    items = reading.read_workload(VALIDATION)
    return {'workload': VALIDATION, 'items': items,
            'hosts': infrastructure.read_infrastructure(VALIDATION_HOSTS),
            'options': {'seed': 1, 'policy': 'qos', 'until': 3600.0}}


def ratio(value, floor):
    return round(value / floor, 3) if floor else None


def measure(name, case, rounds, lap_ns, pass_ns):
    runs = {watch: [] for watch in STOPWATCHES}
    # Not measured: the first run of a process also pays for what it
    # loads and caches.
    run_once('none', case)
    for round_ in range(rounds):
        # Each stopwatch first in every other round.
        for watch in list(STOPWATCHES)[::1 if round_ % 2 else -1]:
            row = run_once(watch, case)
            log('%s round %d %-8s %.2f s CPU, %d events, %d preemptions'
                % (name, round_ + 1, watch, row['cpu_time_s'],
                   row['events'], row['preemptions']))
            runs[watch].append(row)
    medians = {watch: statistics.median(row['cpu_time_s'] for row in rows)
               for watch, rows in runs.items()}
    least = {watch: min(row['cpu_time_s'] for row in rows)
             for watch, rows in runs.items()}
    timed = runs['shipped'][0]
    first = runs['none'][0]
    return {
        'workload': case['workload'],
        'limit': case.get('limit'),
        'hosts': len(case['hosts']),
        'laps': timed['laps'],
        'passes': timed['passes'],
        'runs': runs,
        'median_cpu_time_s': medians,
        'least_cpu_time_s': least,
        'overhead_over_none': ratio(medians['shipped'], medians['none']),
        'least_overhead_over_none': ratio(least['shipped'], least['none']),
        'estimated_overhead_over_none': ratio(
            medians['none'] * 1e9 + timed['laps'] * lap_ns +
            timed['passes'] * pass_ns, medians['none'] * 1e9),
        'same_decisions': all(
            (row['events'], row['preemptions'], row['records']) ==
            (first['events'], first['preemptions'], first['records'])
            for rows in runs.values() for row in rows),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--workload', default=WORKLOAD,
                        help='the pod list of the alibaba case')
    parser.add_argument('--machines', default=MACHINES,
                        help='the node list of the alibaba case')
    parser.add_argument('--limit', type=int, default=3000,
                        help='replay the first N pods (default: '
                             '%(default)s)')
    parser.add_argument('--cases', default=','.join(CASES),
                        help='comma-separated, among %s (default: all)'
                             % ', '.join(CASES))
    parser.add_argument('--rounds', type=int, default=3,
                        help='runs per stopwatch, alternated (default: '
                             '%(default)s)')
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--output', help='also write the JSON here')
    args = parser.parse_args(argv)
    if args.limit < 1 or args.rounds < 1:
        parser.error('--limit and --rounds: positive numbers')
    names = [name for name in args.cases.split(',') if name]
    unknown = sorted(set(names) - set(CASES))
    if unknown or not names:
        parser.error('--cases: unknown %s (known: %s)' % (
            ', '.join(unknown) or 'none given', ', '.join(CASES)))
    lap_ns, pass_ns = lap_costs()
    log('one lap %.0f ns, one pass %.0f ns' % (lap_ns, pass_ns))
    cases = {name: measure(name, load_case(name, args), args.rounds,
                           lap_ns, pass_ns) for name in names}
    emit({
        'benchmark': 'stage_timing_overhead',
        'machine': machine(),
        'rounds': args.rounds,
        'lap_cost_ns': lap_ns,
        'pass_cost_ns': pass_ns,
        'target_overhead': TARGET,
        'cases': cases,
    }, args.output)


if __name__ == '__main__':
    sys.exit(main())
