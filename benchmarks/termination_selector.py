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

"""Time of the exact termination selector against the brute-force oracle.

Each problem is one host carrying ``k`` preemptible instances of mixed
sizes (``small`` 1 vCPU/2000 MB/20 GB, ``medium`` 2/4000/40, ``large``
4/8000/80, drawn uniformly) with ``billing_period``-like costs (a whole
number of minutes in seconds, modulo 3600: uniform over 0, 60, ..., 3540).
The host is full (its capacity is the sum of the instances plus one vCPU,
1000 MB and 100 GB of slack) and the request lacks, in each dimension
independently, between 20 % and 40 % of what the preemptible instances
hold, so several instances must be terminated (the number is reported).

For every ``k`` the selector (``termination_selector.select``) is timed on
``--repetitions`` random problems: each problem is solved ``--inner``
times and the fastest run is kept (it is the least disturbed by the
machine); the report gives the median, 90th percentile and maximum over the
problems. For small ``k`` the brute-force oracle of the tests
(``tests/oracles.py``, ``brute_force``: every subset) is timed on the first
``--brute-force-repetitions`` problems, and the selector's answer is
compared with the oracle's on each of them: any difference is a
``mismatch`` (there must be none).

The result is JSON on stdout (progress goes to stderr)::

    python benchmarks/termination_selector.py --output results.json
"""

import argparse
import math
import os
import random
import statistics
import sys
import time

from report import emit
from report import log
from report import machine
from report import progress

from preemptible_sched.scheduler import termination_selector

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from tests import oracles  # noqa: E402

FLAVORS = {
    'small': (1.0, 2000.0, 20.0),
    'medium': (2.0, 4000.0, 40.0),
    'large': (4.0, 8000.0, 80.0),
}
SLACK = (1.0, 1000.0, 100.0)
NEED_FRACTION = (0.2, 0.4)
BILLING_PERIOD = 3600

SELECTOR_KS = (8, 16, 24, 32, 40, 48, 64)
BRUTE_FORCE_KS = (8, 12, 16, 20)
QUICK_SELECTOR_KS = (8, 16, 24)
QUICK_BRUTE_FORCE_KS = (8, 12)

TARGET = 'selector at k=40 faster than brute force at k=16'


def make_problem(seed, k, index):
    """One random host with ``k`` preemptible instances, and its need.

    Returns the keyword arguments of ``select`` and ``brute_force``. The
    problem depends only on (seed, k, index), so runs are reproducible and
    the same problems are timed whatever the other options.
    """
    rng = random.Random(f'{seed}-{k}-{index}')
    names = sorted(FLAVORS)
    resources = [FLAVORS[rng.choice(names)] for _ in range(k)]
    costs = [float(rng.randrange(0, 10 ** 6) * 60 % BILLING_PERIOD)
             for _ in range(k)]
    ids = [f'spot-{i:03d}' for i in range(k)]
    total = [sum(r[d] for r in resources) for d in range(3)]
    capacity = tuple(total[d] + SLACK[d] for d in range(3))
    need = tuple(math.ceil(rng.uniform(*NEED_FRACTION) * total[d])
                 for d in range(3))
    return {'resources': resources, 'costs': costs, 'ids': ids,
            'need': need, 'capacity': capacity}


def best_time(function, problem, runs):
    """The fastest of ``runs`` calls, in seconds, and the last answer."""
    best = None
    for _ in range(runs):
        begin = time.perf_counter()
        answer = function(**problem)
        elapsed = time.perf_counter() - begin
        best = elapsed if best is None else min(best, elapsed)
    return best, answer


def percentile(values, fraction):
    """Nearest-rank percentile of ``values``."""
    ordered = sorted(values)
    return ordered[max(1, math.ceil(fraction * len(ordered))) - 1]


def summary(times):
    """Median, p90 and max of ``times`` (seconds), in milliseconds."""
    return {
        'median_ms': round(statistics.median(times) * 1e3, 4),
        'p90_ms': round(percentile(times, 0.9) * 1e3, 4),
        'max_ms': round(max(times) * 1e3, 4),
    }


def run(ks, brute_force_ks, repetitions, brute_force_repetitions, inner,
        seed):
    """Time both algorithms; return the selector rows, oracle rows and
    the mismatches found.
    """
    selector_rows = []
    oracle_rows = []
    mismatches = []
    for k in progress(sorted(set(ks) | set(brute_force_ks)), 'k',
                      'sizes'):
        oracle_runs = brute_force_repetitions if k in brute_force_ks else 0
        count = max(repetitions, oracle_runs)
        selector_times = []
        oracle_times = []
        victims = []
        for index in range(count):
            problem = make_problem(seed, k, index)
            elapsed, answer = best_time(termination_selector.select,
                                        problem, inner)
            selector_times.append(elapsed)
            victims.append(len(answer))
            if index < oracle_runs:
                elapsed, expected = best_time(
                    oracles.brute_force, problem, 1)
                oracle_times.append(elapsed)
                if answer != expected:
                    mismatches.append({'k': k, 'problem': index,
                                       'select': answer,
                                       'brute_force': expected})
        row = dict({'k': k, 'problems': count, 'inner_runs': inner,
                    'victims_median': statistics.median(victims),
                    'victims_min': min(victims),
                    'victims_max': max(victims)},
                   **summary(selector_times))
        selector_rows.append(row)
        log(f"k={k:2d}  select   median {row['median_ms']:9.4f} ms"
            f"  p90 {row['p90_ms']:9.4f} ms  max {row['max_ms']:9.4f} ms"
            f"  victims {row['victims_min']}-{row['victims_max']}")
        if oracle_times:
            oracle = dict({'k': k, 'problems': len(oracle_times),
                           'subsets': 2 ** k - 1},
                          **summary(oracle_times))
            oracle['checked'] = len(oracle_times)
            oracle['mismatches'] = sum(1 for m in mismatches
                                       if m['k'] == k)
            oracle_rows.append(oracle)
            log(f"k={k:2d}  brute    median {oracle['median_ms']:9.4f} ms"
                f"  ({len(oracle_times)} problems, "
                f"{oracle['mismatches']} mismatches)")
    return selector_rows, oracle_rows, mismatches


def verdict(selector_rows, oracle_rows):
    """The target: the selector at k=40 beats brute force at k=16."""
    selector = {row['k']: row['median_ms'] for row in selector_rows}
    oracle = {row['k']: row['median_ms'] for row in oracle_rows}
    if 40 not in selector or 16 not in oracle:
        return {TARGET: None}
    return {
        TARGET: selector[40] < oracle[16],
        'selector_k40_median_ms': selector[40],
        'brute_force_k16_median_ms': oracle[16],
        'speedup': round(oracle[16] / selector[40], 1),
    }


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--seed', default='0',
                        help='seed of the random problems (default: 0)')
    parser.add_argument('--repetitions', type=int,
                        help='random problems per k for the selector '
                             '(default: 30; 5 with --quick)')
    parser.add_argument('--brute-force-repetitions', type=int,
                        help='problems per k also solved by brute force '
                             '(default: 5; 3 with --quick)')
    parser.add_argument('--inner', type=int, default=3,
                        help='selector runs per problem, the fastest is '
                             'kept (default: %(default)s)')
    parser.add_argument('--output', help='also write the JSON here')
    parser.add_argument('--quick', action='store_true',
                        help=f'smoke run: k up to {QUICK_SELECTOR_KS[-1]}, '
                             f'brute force up to {QUICK_BRUTE_FORCE_KS[-1]}')
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    if args.quick:
        ks, oracle_ks = QUICK_SELECTOR_KS, QUICK_BRUTE_FORCE_KS
        repetitions = args.repetitions or 5
        oracle_repetitions = args.brute_force_repetitions or 3
    else:
        ks, oracle_ks = SELECTOR_KS, BRUTE_FORCE_KS
        repetitions = args.repetitions or 30
        oracle_repetitions = args.brute_force_repetitions or 5
    started = time.perf_counter()
    selector_rows, oracle_rows, mismatches = run(
        ks, oracle_ks, repetitions, oracle_repetitions, args.inner,
        args.seed)
    report = {
        'benchmark': 'termination_selector',
        'machine': machine(),
        'problem': {
            'flavors': FLAVORS,
            'costs': f'whole minutes * 60 mod {BILLING_PERIOD}',
            'need_fraction_of_preemptible_total': NEED_FRACTION,
            'host_slack': SLACK,
            'seed': args.seed,
        },
        'selector': selector_rows,
        'brute_force': oracle_rows,
        'checked': sum(row['checked'] for row in oracle_rows),
        'mismatches': len(mismatches),
        'mismatch_details': mismatches,
        'targets': verdict(selector_rows, oracle_rows),
        'wall_time_s': round(time.perf_counter() - started, 1),
    }
    emit(report, args.output)
    return 0


if __name__ == '__main__':
    sys.exit(main())
