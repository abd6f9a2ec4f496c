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

"""CPU and wall time of one scheduling decision, by cloud size, case and
mode.

Measures ``FilterScheduler.select_destinations`` for one instance
(``num_instances=1``) with the filters, weighers and termination costs of
the default configuration (no configuration file is read), on clouds of
identical blades (8 vCPU, 16384 MB, 500 GB), in three cases:

``empty_normal``
    a normal ``medium`` request (2 vCPU, 4000 MB, 40 GB) on an empty cloud;
``empty_preemptible``
    a preemptible ``medium`` request on an empty cloud;
``saturated_normal``
    a normal ``medium`` request on a cloud where every host carries four
    preemptible ``medium`` instances with varied run times (so their
    ``billing_period`` costs differ): every decision terminates one of them
    in ``dual_state`` and ``retry`` modes, and finds no valid host in
    ``plain`` mode (reported as ``"no_valid_host": true``).

The three modes (``plain``, ``dual_state``, ``retry``) are measured side by
side: each mode has its own scheduler and its own copy of the cloud, and
every repetition times one decision of each mode, in an order that rotates
from one repetition to the next, so machine noise hits them alike. Only the
``select_destinations`` call is timed, in CPU time (``time.process_time``;
the ratios and targets are of its medians) and in wall time
(``time.perf_counter``). After each
decision the new instance is removed and its victims are put back, so every
repetition sees the same cloud. Each repetition also moves the clock on by
exactly one billing period: run times modulo the period, hence termination
costs, stay the same, but the per-host memo of termination plans (keyed by
the time) cannot be reused from the previous repetition, as it could not be
in a real cloud where time passes between two decisions.

The cloud is built before timing and frozen out of the garbage collector's
sight (``gc.freeze``) so that collections triggered by the decision do not
scan the millions of long-lived objects of a large cloud; the collector
stays enabled during the timed call.

The result is JSON on stdout (progress goes to stderr)::

    python benchmarks/scheduling_latency.py --output results.json

``--profile`` also prints, on stderr, a cProfile of one decision per case
and mode at the largest size.
"""

import argparse
import cProfile
import gc
import io
import itertools
import math
import pstats
import random
import resource
import statistics
import sys
import time

from report import emit
from report import log
from report import machine
from report import progress

from preemptible_sched.conf import CONF
from preemptible_sched import objects
from preemptible_sched.scheduler import filter_scheduler as scheduler

MODES = ('plain', 'dual_state', 'retry')
CASES = ('empty_normal', 'empty_preemptible', 'saturated_normal')
EMPTY_CASES = ('empty_normal', 'empty_preemptible')
SIZES = (100, 1000, 10000, 100000)
QUICK_SIZES = (100, 1000)
QUICK_REPETITIONS = 5
QUICK_HOSTS = ','.join(map(str, QUICK_SIZES))
MIN_REPETITIONS = 15
MIN_REPETITIONS_HUGE = 5
MAX_REPETITIONS = 200
BUDGET_SECONDS = 20.0

BLADE = objects.Resources(8, 16384, 500)
MEDIUM = objects.Resources(2, 4000, 40)
PREEMPTIBLE_PER_HOST = 4
BILLING_PERIOD = 3600
# Decisions are made at START + repetition * BILLING_PERIOD.
START = 100 * BILLING_PERIOD

DUAL_OVER_PLAIN_TARGET = 1.15
SCALING_TARGET = 12.0
DUAL_OVER_PLAIN_MOONSHOT = 1.05
#: The cloud sizes the dual_state overhead target is judged at.
DUAL_TARGET_SIZES = (1000, 10000)
TARGET_DUAL = ('dual_state/plain <= 1.15 (CPU) on empty cloud at 1000 '
               'and 10000 hosts')
MOONSHOT_DUAL = ('dual_state/plain <= 1.05 (CPU) on empty cloud at 1000 '
                 'and 10000 hosts')
TARGET_SCALING = '10000 hosts <= 12 x 1000 hosts (all cases/modes)'


def calibrated_repetitions(round_seconds, hosts, budget):
    """Repetitions per mode that fit ``budget`` seconds for one case.

    ``round_seconds`` is the time of one decision in every mode (measured
    on the warm-up round). At least MIN_REPETITIONS (MIN_REPETITIONS_HUGE
    above 10000 hosts, where one saturated decision takes seconds), at most
    MAX_REPETITIONS.
    """
    low = MIN_REPETITIONS if hosts <= 10000 else MIN_REPETITIONS_HUGE
    wanted = int(budget / max(round_seconds, 1e-9))
    return max(low, min(MAX_REPETITIONS, wanted))


def build_scheduler(mode, hosts, saturated, seed):
    """A scheduler in ``mode`` with its own cloud of ``hosts`` blades.

    A saturated cloud carries PREEMPTIBLE_PER_HOST preemptible ``medium``
    instances per host, with run times drawn from ``seed`` (the same for
    every mode, so every mode sees the same cloud).
    """
    sched = scheduler.FilterScheduler(strategy=mode)
    manager = sched.host_manager
    rng = random.Random(seed)
    for index in range(hosts):
        name = f'node-{index:06d}'
        manager.add_host(objects.Host(name, *BLADE))
        if not saturated:
            continue
        for slot in range(PREEMPTIBLE_PER_HOST):
            # Whole minutes plus a few seconds, over up to two days: the
            # billing_period cost (run time mod 3600) varies from host to
            # host and from instance to instance.
            runtime = rng.randrange(1, 48 * 60) * 60 + rng.randrange(60)
            manager.add_instance(name, objects.Instance(
                id=f'{name}-spot-{slot}', resources=MEDIUM,
                preemptible=True, started_at=START - runtime,
                flavor='medium'))
    return sched


def make_spec(case, repetition):
    return objects.RequestSpec(
        id=f'bench-{repetition}', resources=MEDIUM,
        preemptible=(case == 'empty_preemptible'), flavor='medium')


def undo(sched, decision):
    """Put the cloud back as it was before ``decision``."""
    manager = sched.host_manager
    for selection in decision.selections:
        manager.remove_instance(selection.instance.id)
        for victim in selection.plan.victims:
            manager.add_instance(selection.host, victim)


def timed_decision(sched, case, repetition):
    """Time one decision, then undo it.

    Returns the CPU and wall seconds taken, whether the request was
    placed and how many instances the decision terminated.
    """
    spec = make_spec(case, repetition)
    now = START + repetition * BILLING_PERIOD
    begin = time.perf_counter()
    cpu = time.process_time()
    decision = sched.select_destinations(spec, now=now)
    cpu = time.process_time() - cpu
    elapsed = time.perf_counter() - begin
    placed = decision.placed
    victims = sum(len(s.plan.victims) for s in decision.selections)
    undo(sched, decision)
    return (cpu, elapsed), placed, victims


def percentile(values, fraction):
    """Nearest-rank percentile of ``values``."""
    ordered = sorted(values)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


def measure(hosts, case, repetitions, seed, budget):
    """Time decisions of every mode, interleaved; one row per mode.

    ``repetitions`` None means: as many as fit in ``budget`` seconds (see
    :func:`calibrated_repetitions`).
    """
    log(f'building {hosts} hosts for {case} (x{len(MODES)} modes)')
    schedulers = {mode: build_scheduler(mode, hosts,
                                        case == 'saturated_normal', seed)
                  for mode in MODES}
    gc.collect()
    gc.freeze()
    samples = {mode: [] for mode in MODES}
    walls = {mode: [] for mode in MODES}
    outcome = {}
    try:
        # Repetition 0 warms up every code path, sizes the run when no
        # repetition count is given, and is not recorded.
        repetition = 0
        while repetition <= (repetitions or 0):
            shift = repetition % len(MODES)
            round_seconds = 0.0
            for mode in MODES[shift:] + MODES[:shift]:
                (cpu, wall), placed, victims = timed_decision(
                    schedulers[mode], case, repetition)
                round_seconds += wall
                if repetition:
                    samples[mode].append(cpu)
                    walls[mode].append(wall)
                outcome[mode] = (placed, victims)
            if not repetitions:
                repetitions = calibrated_repetitions(round_seconds, hosts,
                                                     budget)
            repetition += 1
    finally:
        del schedulers
        gc.unfreeze()
        gc.collect()
    rows = []
    for mode in MODES:
        values = samples[mode]
        placed, victims = outcome[mode]
        rows.append({
            'hosts': hosts, 'case': case, 'mode': mode,
            'median_ms': round(statistics.median(values) * 1e3, 4),
            'p90_ms': round(percentile(values, 0.9) * 1e3, 4),
            'min_ms': round(min(values) * 1e3, 4),
            'wall_median_ms': round(statistics.median(walls[mode]) * 1e3,
                                    4),
            'wall_p90_ms': round(percentile(walls[mode], 0.9) * 1e3, 4),
            'repetitions': len(values),
            'no_valid_host': not placed,
            'victims': victims,
        })
        note = '' if placed else '  (no valid host)'
        log(f"  {case:17} {mode:10} CPU median "
            f"{rows[-1]['median_ms']:9.3f} ms  p90 "
            f"{rows[-1]['p90_ms']:9.3f} ms{note}")
    return rows


def profile(hosts, case, mode, seed, limit=15):
    """cProfile of one decision (after a warm-up one), as text.

    The cloud is frozen out of the collector's sight as in :func:`measure`.
    """
    sched = build_scheduler(mode, hosts, case == 'saturated_normal', seed)
    gc.collect()
    gc.freeze()
    try:
        timed_decision(sched, case, 0)
        profiler = cProfile.Profile()
        spec = make_spec(case, 1)
        profiler.enable()
        decision = sched.select_destinations(spec,
                                             now=START + BILLING_PERIOD)
        profiler.disable()
        undo(sched, decision)
    finally:
        del sched
        gc.unfreeze()
        gc.collect()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats('tottime').print_stats(limit)
    return out.getvalue()


def _ratio(numerator, denominator):
    return round(numerator / denominator, 3) if denominator else None


def summarise(rows):
    """The ``ratios``, ``scaling`` and ``targets`` sections."""
    median = {(r['hosts'], r['case'], r['mode']): r['median_ms']
              for r in rows}
    sizes = sorted({r['hosts'] for r in rows})
    cases = [c for c in CASES if any(r['case'] == c for r in rows)]
    ratios = {}
    for hosts in sizes:
        for case in cases:
            ratios[f'{case}@{hosts}'] = {
                'dual_state/plain': _ratio(
                    median[hosts, case, 'dual_state'],
                    median[hosts, case, 'plain']),
                'retry/dual_state': _ratio(
                    median[hosts, case, 'retry'],
                    median[hosts, case, 'dual_state']),
            }
    scaling = {}
    for case in cases:
        for mode in MODES:
            scaling[f'{case}/{mode}'] = {
                f'{large}/{small}': _ratio(median[large, case, mode],
                                           median[small, case, mode])
                for small, large in itertools.pairwise(sizes)}
    targets = {}
    details = {}
    empty = [f'{case}@{hosts}' for hosts in DUAL_TARGET_SIZES
             for case in EMPTY_CASES if f'{case}@{hosts}' in ratios]
    for name, bound in ((TARGET_DUAL, DUAL_OVER_PLAIN_TARGET),
                        (MOONSHOT_DUAL, DUAL_OVER_PLAIN_MOONSHOT)):
        if empty:
            values = {key: ratios[key]['dual_state/plain'] for key in empty}
            targets[name] = all(v <= bound for v in values.values())
            details[name] = values
        else:
            targets[name] = None
    if 1000 in sizes and 10000 in sizes:
        values = {}
        for case in cases:
            for mode in MODES:
                values[f'{case}/{mode}'] = _ratio(
                    median[10000, case, mode], median[1000, case, mode])
        targets[TARGET_SCALING] = all(v <= SCALING_TARGET
                                      for v in values.values())
        details[TARGET_SCALING] = {
            'worst': max(values, key=values.get),
            'worst_ratio': max(values.values())}
    else:
        targets[TARGET_SCALING] = None
    return ratios, scaling, targets, details


def cases_list(text):
    """The cases named in ``text``, in :data:`CASES` order."""
    names = [name for name in text.split(',') if name]
    unknown = sorted(set(names) - set(CASES))
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            'unknown case %s (choose from %s)'
            % (','.join(unknown) or 'none', ','.join(CASES)))
    return tuple(case for case in CASES if case in names)


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        '--hosts', type=lambda text: [int(n) for n in text.split(',')],
        help='comma-separated cloud sizes (default: 100,1000,10000,100000 '
             'up to --max-hosts)')
    parser.add_argument(
        '--max-hosts', type=int, default=10000,
        help='largest default cloud size (default: %(default)s; '
             'use 100000 to include the largest one)')
    parser.add_argument(
        '--repetitions', type=int,
        help='timed decisions per mode, size and case (default: as many '
             f'as fit in --budget, between {MIN_REPETITIONS} '
             f'({MIN_REPETITIONS_HUGE} above 10000 hosts) and '
             f'{MAX_REPETITIONS})')
    parser.add_argument(
        '--budget', type=float, default=BUDGET_SECONDS,
        help='seconds of timed decisions per size and case when '
             '--repetitions is not given (default: %(default)s)')
    parser.add_argument(
        '--cases', type=cases_list, default=CASES,
        help='comma-separated cases (default: %s)' % ','.join(CASES))
    parser.add_argument('--seed', type=int, default=0,
                        help='seed of the run times (default: 0)')
    parser.add_argument('--output', help='also write the JSON here')
    parser.add_argument('--quick', action='store_true',
                        help=f'smoke run: {QUICK_HOSTS} hosts, '
                             f'{QUICK_REPETITIONS} repetitions')
    parser.add_argument('--profile', action='store_true',
                        help='print a cProfile of one decision per case '
                             'and mode at the largest size on stderr')
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    CONF([], project='preemptible-sched', default_config_files=[])
    if args.quick:
        sizes = list(args.hosts or QUICK_SIZES)
    else:
        sizes = args.hosts or [n for n in SIZES if n <= args.max_hosts]
    rows = []
    started = time.perf_counter()
    for hosts in sorted(sizes):
        repetitions = args.repetitions or (
            QUICK_REPETITIONS if args.quick else None)
        for case in progress(args.cases, '%d hosts' % hosts, 'cases'):
            rows.extend(measure(hosts, case, repetitions, args.seed,
                                args.budget))
    ratios, scaling, targets, details = summarise(rows)
    info = machine()
    info['peak_rss_mb'] = round(
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1)
    report = {
        'benchmark': 'scheduling_latency',
        'machine': info,
        'config': {
            'enabled_filters': list(CONF.filter_scheduler.enabled_filters),
            'weighers': [weigher.name for weigher in scheduler.FilterScheduler(
                strategy='dual_state').weight_handler.weighers],
            'termination_costs': list(CONF.preemptible.termination_costs),
            'host_subset_size': CONF.filter_scheduler.host_subset_size,
            'host': dict(zip(('vcpus', 'memory_mb', 'disk_gb'), BLADE)),
            'request': dict(zip(('vcpus', 'memory_mb', 'disk_gb'), MEDIUM)),
            'preemptible_per_host_when_saturated': PREEMPTIBLE_PER_HOST,
            'seed': args.seed,
        },
        'results': rows,
        'ratios': ratios,
        'scaling': scaling,
        'targets': targets,
        'target_details': details,
        'wall_time_s': round(time.perf_counter() - started, 1),
    }
    if args.profile:
        largest = max(sizes)
        for case in CASES:
            for mode in MODES:
                log(f'--- profile: {case}, {mode}, {largest} hosts')
                log(profile(largest, case, mode, args.seed))
    emit(report, args.output)
    return 0


if __name__ == '__main__':
    sys.exit(main())
