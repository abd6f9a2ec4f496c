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

"""``preemptible-sched simulate``: replay a workload under a virtual clock.

Every input (workload, infrastructure, options) is read and checked before
anything runs; a bad one is reported on one line naming the file, line and
field, with exit code 2 and nothing written. The results
(``instances.csv``, ``summary.json``, plots) are written all or nothing at
the end (see :mod:`preemptible_sched.simulation.report`).

The option values are checked before any file is read
(:func:`check_options`): every number finite and within the bounds of
:mod:`preemptible_sched.input_limits`, ``--output`` a directory that can be
created (not empty, not an existing file). A run that could not end (an
open-ended request without ``--until``) is refused once the workload and
the hosts are read, before anything runs. SIGTERM and Ctrl-C stop the run
with one line on stderr, nothing written (exit 143 and 130).
"""

import json
import os
import sys

from preemptible_sched.cmd import common
from preemptible_sched import exception
from preemptible_sched import extras
from preemptible_sched import input_limits as limits
from preemptible_sched.simulation import metrics
from preemptible_sched.simulation import plot_canvas
from preemptible_sched.simulation import plots
from preemptible_sched.simulation import replay
from preemptible_sched.simulation import report
from preemptible_sched.simulation import report_replications
from preemptible_sched.simulation import report_tables
from preemptible_sched.simulation import runner
from preemptible_sched.simulation import staging

#: The file of the estimates over the seeds.
REPLICATIONS_FILE = 'replications.json'


def add_parser(subparsers):
    parser = subparsers.add_parser(
        'simulate', help='Replay a workload through the scheduler loop '
        'under a virtual clock.')
    parser.add_argument('--workload', required=True, metavar='FILE',
                        help='The workload trace.')
    common.add_arguments(parser)
    parser.add_argument('--size-factor', type=float, metavar='F',
                        help='Size the cloud from the workload: F times '
                        'its peak demand, sampled from --machines.')
    parser.add_argument('--machine-attributes', metavar='FILE',
                        help='Google machine_attributes giving the '
                        'machines of a Google --machines list their '
                        'attributes (matched by request constraints).')
    parser.add_argument('--task-constraints', metavar='FILE',
                        help='Google task_constraints giving the tasks of '
                        'a google2011 --workload their placement '
                        'constraints.')
    parser.add_argument('--policy', choices=runner.POLICIES + tuple(
                        runner.ALIASES), metavar='STRATEGY',
                        help='Run under this preemption strategy (%s); it '
                        'brings its own queue policy, weighers and victim '
                        'action unless the configuration sets them. '
                        'Default: the configuration as it is.'
                        % ', '.join(runner.POLICIES))
    parser.add_argument('--seeds', metavar='N[-M][,N...]',
                        help='Replicate the run over these seeds (0-4, '
                        'or 1,3,7, or both mixed): each seed\'s results '
                        'go to DIR/seed<N>, and every metric is reported '
                        'as its mean with the half-width of its 95 %% '
                        'confidence interval (replications.json). '
                        'Default: ' + common.DEFAULT_SEEDS + '. One seed '
                        'runs as --seed does; not with --seed.')
    parser.add_argument('--seed', type=int,
                        help='Run once, with this seed of the host '
                        'sampling, the boot times and the scheduler, its '
                        'results straight in DIR (instead of the '
                        'replications of --seeds).')
    parser.add_argument('--output', required=True, metavar='DIR',
                        help='Directory for instances.csv, summary.json '
                        'and the plots.')
    parser.set_defaults(func=run)


def check_options(args):
    """Check the numbers and paths among ``args`` before reading files.

    Every number must be finite and within its bound (see
    :mod:`preemptible_sched.input_limits`); raises InvalidInput naming the
    option otherwise.
    """
    if getattr(args, 'until', None) is not None:
        args.until = limits.parse_number(
            args.until, '--until', None, minimum=0,
            maximum=limits.MAX_TIME)
    if getattr(args, 'limit', None) is not None:
        limits.integer(args.limit, '--limit', None, minimum=1,
                       maximum=limits.MAX_COUNT * 1000)
    if getattr(args, 'hosts', None) is not None:
        limits.integer(args.hosts, '--hosts', None, minimum=1,
                       maximum=limits.MAX_HOSTS)
    if getattr(args, 'size_factor', None) is not None:
        args.size_factor = limits.parse_number(
            args.size_factor, '--size-factor', None, minimum=0,
            exclusive_minimum=True, maximum=limits.MAX_SIZE_FACTOR)
    if getattr(args, 'seed', None) is not None:
        limits.integer(args.seed, '--seed', None, minimum=0,
                       maximum=limits.MAX_SEED)
    if getattr(args, 'seeds', None) is not None:
        if getattr(args, 'seed', None) is not None:
            raise exception.InvalidInput('--seeds', None,
                                         'give --seed or --seeds, not both')
        args.seeds = common.parse_seeds(args.seeds)
    for option in ('workload', 'infrastructure', 'machines',
                   'machine_attributes', 'task_constraints'):
        value = getattr(args, option, None)
        if isinstance(value, str) and '\0' in value:
            raise exception.InvalidInput(
                '--%s' % option.replace('_', '-'), None,
                'contains a NUL byte')
    common.check_output(args.output)


def write_outputs(output, *args, **kw):
    """:func:`report.write_outputs`, a failure to write as InvalidInput."""
    try:
        return report.write_outputs(output, *args, **kw)
    except OSError as error:
        raise exception.InvalidInput(
            '--output', None, 'cannot write %s: %s; nothing written' % (
                limits.one_line(output, 200),
                limits.one_line(error.strerror or error, 200)))


def run(args):
    extras.require('simulation')
    try:
        with common.stoppable():
            return _run(args)
    except (common.Stopped, KeyboardInterrupt) as error:
        return common.stopped_exit('simulate', type(error))


def _run(args):
    check_options(args)
    seeds = args.seeds or ([args.seed] if args.seed is not None else
                           common.parse_seeds(common.DEFAULT_SEEDS))
    items = replay.load_workload(args)
    replay.check_classes(items, args.workload)
    runs = []
    for seed in seeds:
        hosts = replay.load_hosts(args, items, args.size_factor, seed)
        if not runs:
            args.until = runner.check_run(items, args.until)
        runs.append((seed, hosts) + tuple(replay.simulate(
            args, items, hosts, args.policy, seed)))
    if len(runs) == 1:
        _write_run(args.output, args, runs[0])
        _print_run(args, items, runs[0], args.output)
        return 0
    # Each seed's directory is staged beside it, under DIR; what a run
    # killed while staging DIR itself left goes here.
    staging.remove_stale(args.output)
    for run in runs:
        _write_run(os.path.join(args.output, 'seed%d' % run[0]), args, run)
    estimates = report_replications.estimates([run[3] for run in runs])
    _write_replications(args.output, report_replications.document(
        estimates, seeds, runs[0][3]))
    if not args.no_plots and not plots.available():
        sys.stderr.write(plot_canvas.skipped_note() + '\n')
    for seed, hosts, _result, summary in runs:
        sys.stdout.write('seed %d: %d hosts, %s preemptions\n' % (
            seed, len(hosts), report_tables.count(summary['preemptions'])))
    sys.stdout.write('\n' + report_tables.render_text([
        report_replications.table(estimates, seeds)]))
    sys.stdout.write(report_replications.NOTE + '\n')
    sys.stdout.write('\n%s: %d requests, policy %s, %s; results in %s '
                     '(one directory per seed, %s)\n' % (
                         args.workload, len(items), runs[0][3]['policy'],
                         report_replications.seed_label(seeds),
                         args.output, REPLICATIONS_FILE))
    return 0


def _write_run(output, args, run):
    """One seed's results into ``output`` (see :func:`write_outputs`)."""
    _seed, _hosts, result, summary = run
    write_outputs(
        output, result.records, summary, plots=not args.no_plots,
        plot_data={'utilisation': metrics.utilisation_fractions(
            result.utilisation)}, stages=result.stage_rows,
        invoices=[priced.row() for priced in result.invoices],
        jobs=result.jobs)


def _write_replications(output, content):
    """replications.json into ``output``, replaced whole."""
    path = os.path.join(output, REPLICATIONS_FILE)
    try:
        with open(path + '.tmp', 'w') as stream:
            json.dump(content, stream, indent=2, sort_keys=True)
            stream.write('\n')
        os.replace(path + '.tmp', path)
    except OSError as error:
        raise exception.InvalidInput(
            '--output', None, 'cannot write %s: %s' % (
                limits.one_line(path, 200),
                limits.one_line(error.strerror or error, 200)))


def _print_run(args, items, run, output):
    """What one run prints: its tables and a closing line."""
    _seed, hosts, _result, summary = run
    if not args.no_plots and not plots.available():
        sys.stderr.write(plot_canvas.skipped_note() + '\n')
    sys.stdout.write(report_tables.render_text(
        report_tables.run_tables(summary)))
    sys.stdout.write('\n%s: %d requests on %d hosts, policy %s, %d '
                     'preemptions, %s simulated; results in %s\n' % (
                         args.workload, len(items), len(hosts),
                         summary['policy'], summary['preemptions'],
                         report_tables.duration(summary['until_s']),
                         output))
