#!/usr/bin/env python3
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

"""Instructions of one decision, counted by callgrind, by cloud size.

What CPU time cannot settle on a noisy machine: how a decision's cost
grows with the hosts. For each size and case of ``nova_anchor.py`` (the
same clouds, the same request, the default configuration), a child
interpreter runs under ``valgrind --tool=callgrind`` with instrumentation
off while the cloud is built and two decisions warm up; then callgrind
counts the instructions (``Ir``) of ``--decisions`` decisions only, each
one's undoing left out, through callgrind's client requests (a small C
shim compiled here with the system's ``gcc`` and ``valgrind/callgrind.h``).
The result is the mean per decision, and per decade of hosts the ratio of
the means (the target: at most 11 times for 10 times the hosts).

Needs valgrind, gcc and valgrind's headers (Debian: ``valgrind``); without
them the script says so on stderr and exits 2. Slow: a cloud of 100,000
hosts takes minutes to build under valgrind::

    python benchmarks/decision_instructions.py --hosts 1000,10000,100000

The result is JSON on stdout (progress goes to stderr).
"""

import argparse
import ctypes
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import nova_anchor  # noqa: E402
from report import emit  # noqa: E402
from report import log  # noqa: E402
from report import machine  # noqa: E402
from scheduling_latency import BILLING_PERIOD  # noqa: E402
from scheduling_latency import START  # noqa: E402
from scheduling_latency import undo  # noqa: E402

CASES = ('saturated_mixed', 'saturated_two', 'saturated_three')
SIZES = (1000, 10000)
DECISIONS = 20
PER_DECADE_TARGET = 11.0

_SHIM = r"""
#include <valgrind/callgrind.h>
void marks_start(void) { CALLGRIND_START_INSTRUMENTATION; }
void marks_toggle(void) { CALLGRIND_TOGGLE_COLLECT; }
void marks_dump(void) { CALLGRIND_DUMP_STATS; }
"""


def build_shim(directory):
    """The client-request shim as a shared library in ``directory``."""
    source = os.path.join(directory, 'marks.c')
    library = os.path.join(directory, 'marks.so')
    with open(source, 'w') as out:
        out.write(_SHIM)
    subprocess.run(['gcc', '-O1', '-shared', '-fPIC', '-o', library,
                    source], check=True, capture_output=True)
    return library


def child(hosts, case, decisions, library):
    """Under callgrind: build, warm up, count ``decisions`` decisions."""
    marks = ctypes.CDLL(library)
    cloud = nova_anchor.build_cloud(hosts, case, 0)
    sched = nova_anchor.build_project(cloud)
    del cloud
    request = nova_anchor.REQUEST[case]
    for repetition in range(2):
        nova_anchor.time_project(sched, repetition, request)
    marks.marks_start()
    placed = True
    for repetition in range(2, 2 + decisions):
        spec = nova_anchor.project_spec(repetition, request)
        now = START + repetition * BILLING_PERIOD
        marks.marks_toggle()
        decision = sched.select_destinations(spec, now=now)
        marks.marks_toggle()
        placed = placed and decision.placed
        undo(sched, decision)
    marks.marks_dump()
    if not placed:
        sys.exit('a decision did not place its request')


def total_instructions(out_file):
    """``Ir`` summed over the dumps callgrind wrote for ``out_file``."""
    directory = os.path.dirname(out_file)
    prefix = os.path.basename(out_file)
    total = 0
    for name in os.listdir(directory):
        if not name.startswith(prefix):
            continue
        with open(os.path.join(directory, name)) as dump:
            for line in dump:
                if line.startswith('summary:') or line.startswith('totals:'):
                    total += int(line.split()[1])
                    break
    return total


def measure(hosts, case, decisions, library, directory):
    out_file = os.path.join(directory, f'callgrind.{hosts}.{case}')
    command = ['valgrind', '--tool=callgrind', '--instr-atstart=no',
               '--collect-atstart=no', f'--callgrind-out-file={out_file}',
               sys.executable, os.path.abspath(__file__), '--child',
               str(hosts), case, str(decisions), library]
    began = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode:
        sys.exit(f'{case} at {hosts} hosts failed under callgrind:\n'
                 f'{done.stderr[-2000:]}')
    per_decision = total_instructions(out_file) / decisions
    log(f'  {case:17} {hosts:>7} hosts  {per_decision / 1e6:10.2f} M '
        f'instructions per decision  ({time.monotonic() - began:.0f} s)')
    return per_decision


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--hosts', type=nova_anchor.sizes_option,
                        default=SIZES,
                        help='comma-separated cloud sizes (default: '
                             '1000,10000; 100000 is allowed)')
    parser.add_argument('--cases', type=nova_anchor.cases_option,
                        default=CASES,
                        help='comma-separated cases of nova_anchor.py '
                             '(default: %s)' % ','.join(CASES))
    parser.add_argument('--decisions', type=int, default=DECISIONS,
                        help='decisions counted per size and case '
                             '(default: %(default)s)')
    parser.add_argument('--output', help='also write the JSON here')
    parser.add_argument('--child', nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.decisions < 1:
        parser.error('--decisions must be at least 1')
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.child:
        hosts, case, decisions, library = args.child
        child(int(hosts), case, int(decisions), library)
        return 0
    missing = [tool for tool in ('valgrind', 'gcc') if not shutil.which(tool)]
    if missing or not os.path.exists('/usr/include/valgrind/callgrind.h'):
        log('decision_instructions.py needs valgrind, gcc and '
            "valgrind's headers (valgrind/callgrind.h): missing %s"
            % ', '.join(missing or ['valgrind/callgrind.h']))
        return 2
    began = time.monotonic()
    results = {}
    with tempfile.TemporaryDirectory() as directory:
        library = build_shim(directory)
        for hosts in args.hosts:
            for case in args.cases:
                log(f'counting {case} at {hosts} hosts')
                results.setdefault(str(hosts), {})[case] = round(
                    measure(hosts, case, args.decisions, library,
                            directory))
    scaling = {}
    sizes = sorted(args.hosts)
    for case in args.cases:
        scaling[case] = {
            f'{large}/{small}': round(results[str(large)][case] /
                                      results[str(small)][case], 2)
            for small, large in zip(sizes, sizes[1:]) if large == 10 * small}
    ratios = [ratio for per_case in scaling.values()
              for ratio in per_case.values()]
    document = {
        'benchmark': 'decision_instructions',
        'machine': machine(),
        'config': {'counter': 'callgrind Ir (instructions executed), the '
                              'decisions only', 'decisions': args.decisions,
                   'seed': 0},
        'instructions_per_decision': results,
        'scaling': scaling,
        'targets': {
            f'10x hosts -> <= {PER_DECADE_TARGET:g}x instructions (every '
            'case)': all(ratio <= PER_DECADE_TARGET for ratio in ratios)
            if ratios else None},
        'wall_time_s': round(time.monotonic() - began, 1),
    }
    emit(document, args.output)
    return 0


if __name__ == '__main__':
    sys.exit(main())
