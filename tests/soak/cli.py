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

"""The soak's command line: ``python -m tests.soak``."""

import argparse
import dataclasses
import json
import math
import os
import sys
import time

from tests.soak import campaign
from tests.soak import run
from tests.soak import scenarios


def _checkpoint(path, figures, started):
    """The figures so far, in ``path`` (replaced whole)."""
    result = figures.as_dict()
    result['wall_s'] = round(time.monotonic() - started, 1)
    partial = path + '.partial'
    with open(partial, 'w') as stream:
        json.dump(result, stream, indent=1)
    os.replace(partial, path)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog='python -m tests.soak',
        description='Run the scheduler loop on random clouds under '
        'injected faults and check its invariants; print the figures as '
        'JSON. Exit status 1 when an invariant was broken.')
    parser.add_argument('--scenarios', type=int, default=100,
                        help='how many scenarios (default 100)')
    parser.add_argument('--seed', type=int, default=0,
                        help='seed of the first scenario; the others '
                        'follow (default 0)')
    parser.add_argument('--jobs', type=int, default=1,
                        help='worker processes (default 1)')
    parser.add_argument('--first', type=int, default=10,
                        help='violating scenarios listed (default 10)')
    parser.add_argument('--settle', type=float, default=scenarios.SETTLE,
                        help='virtual seconds left to settle after the '
                        'faults stop (default %g)' % scenarios.SETTLE)
    parser.add_argument('--size', choices=sorted(scenarios.SIZES),
                        default='full',
                        help='scenario size (default full; the CI runs '
                        'small ones)')
    parser.add_argument('--late-held-reports', action='store_true',
                        help='also deliver the reports held while the '
                        'scheduler was down over a while after its restart '
                        '(fault report_held_late; off by default, '
                        'tox -e soak turns it on)')
    parser.add_argument('--trace', action='store_true',
                        help='with one scenario: print the scenario and '
                        'everything that happened to stderr')
    parser.add_argument('--minimize', type=int, default=0, metavar='N',
                        help='find the fault kinds the first N violating '
                        'scenarios need')
    parser.add_argument('--progress', action='store_true',
                        help='report progress on stderr')
    parser.add_argument('--checkpoint', metavar='FILE',
                        help='write the figures so far to FILE (JSON) '
                        'after every 20 scenarios, so that a long run '
                        'stopped early still has them')
    args = parser.parse_args(argv)
    if args.scenarios < 1 or args.jobs < 1:
        parser.error('--scenarios and --jobs must be positive')
    if not math.isfinite(args.settle) or args.settle < 0:
        parser.error('--settle must be a finite number >= 0')
    seeds = range(args.seed, args.seed + args.scenarios)
    if args.trace:
        if args.scenarios != 1:
            parser.error('--trace replays one scenario (--scenarios 1)')
        with campaign.template() as template:
            sys.stderr.write(json.dumps(
                scenarios.generate(args.seed, args.size,
                                   args.late_held_reports).describe(),
                indent=1) + '\n')
            outcome, lines = run.run_scenario(
                args.seed, template, trace=True, settle=args.settle,
                size=args.size, late_held=args.late_held_reports)
            sys.stderr.write('\n'.join(lines) + '\n')
            figures = campaign.Figures(first=args.first)
            figures.add(dict(outcome.as_dict(),
                             late_held=args.late_held_reports))
    else:
        started = time.monotonic()

        def progress(figures):
            if args.progress:
                sys.stderr.write(
                    '%d/%d scenarios, %d violating, %.0f s\n' % (
                        figures.scenarios, args.scenarios,
                        figures.violating_count,
                        time.monotonic() - started))
            if args.checkpoint:
                _checkpoint(args.checkpoint, figures, started)
        figures = campaign.soak(seeds, jobs=args.jobs, first=args.first,
                                settle=args.settle, progress=progress,
                                size=args.size,
                                late_held=args.late_held_reports)
    result = figures.as_dict()
    if args.minimize and figures.violating:
        with campaign.template() as template:
            for entry in figures.violating[:args.minimize]:
                needed, violations = run.minimize(
                    entry['seed'], template, size=args.size,
                    late_held=args.late_held_reports)
                entry['needs_faults'] = needed
                entry['minimal_violations'] = [
                    list(dataclasses.astuple(v)) for v in violations[:5]]
    if not args.trace:
        result['wall_s'] = round(time.monotonic() - started, 1)
    json.dump(result, sys.stdout, indent=1)
    sys.stdout.write('\n')
    return 1 if figures.violating_count else 0
