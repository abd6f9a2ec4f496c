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

"""``preemptible-sched experiment``: a factorial design of simulations.

Runs every combination of ``--workload`` (repeatable), ``--policies``,
``--size-factors`` and ``--seeds`` (see
:mod:`preemptible_sched.simulation.experiment` for the design, the
aggregation and the output layout), each run in a worker process.

Every input is read and checked once, in this process, before any run
starts: the workloads, the machine list, the option values, and each
policy against the configuration (a dry run of each policy on no request
builds its scheduler, so a bad plugin name fails here, not in a worker).
The hosts of every (workload, size factor, seed) are sampled here too,
with that seed, and handed to the cells of every policy. This module
checks the option values; :mod:`.simulation.experiment_plan` reads the
inputs into the experiment's plan. A bad input is reported on one line
with exit code 2, and nothing is written.

The cells run in worker processes (:mod:`.simulation.cells`: the run;
:mod:`.simulation.cell_workers`: the pool and the workers), or with
``--executor dask`` on a Dask cluster (:mod:`.simulation.dask_cells`,
``--scheduler-address``). Each cell's directory is written whole in
``--output`` as the cell ends (:mod:`.simulation.cell_files`); the
comparison and the plots at the end, from the cells' files. SIGTERM or
Ctrl-C while it runs stops the workers and exits with one line on stderr
(143 and 130), keeping the cells that finished; the same command started
again (after SIGTERM, SIGKILL or a crash) runs only the cells not done,
and staging directories left by a run killed outright are removed.

``--definition FILE`` reads the design from a YAML or JSON file instead
(:mod:`preemptible_sched.simulation.definition`): several infrastructures,
and configuration files applied per cell, which the flags cannot say.
Each configuration is parsed, and the workloads read under it, in a
worker (this process cannot parse the configuration again) before any
run; each cell's worker parses the command's configuration files and then
the cell's own over them. A definition's comparison also has the 95 %
intervals and the paired differences (:mod:`.replications`).

Bounds on the options (:mod:`preemptible_sched.input_limits`): numbers finite,
seeds within ``0..limits.MAX_SEED``, size factors within
``0..limits.MAX_SIZE_FACTOR``, at most ``MAX_LIST`` values per list, at
most ``MAX_JOBS`` workers and ``MAX_CELLS`` runs.
"""

import math
import os
import sys
import time

from preemptible_sched.cmd import common
from preemptible_sched import exception
from preemptible_sched import extras
from preemptible_sched import input_limits as limits
from preemptible_sched.simulation import cells
from preemptible_sched.simulation import comparison_tables
from preemptible_sched.simulation import definition as definitions
from preemptible_sched.simulation import experiment_plan
from preemptible_sched.simulation import plot_canvas
from preemptible_sched.simulation import plots
from preemptible_sched.simulation import report_tables
from preemptible_sched.simulation import runner

DEFAULT_POLICIES = 'qos,priority'

#: Most values in one of --policies, --size-factors, --seeds.
MAX_LIST = 1000
#: Most worker processes (--jobs).
MAX_JOBS = 256
#: Most runs (cells) in one experiment.
MAX_CELLS = 10000
#: The values of --executor.
EXECUTORS = ('local', 'dask')


def add_parser(subparsers):
    parser = subparsers.add_parser(
        'experiment', help='Run a factorial design of simulations '
        '(workloads x policies x size factors x seeds) in parallel and '
        'compare the policies.')
    parser.add_argument('--definition', metavar='FILE',
                        help='The whole design in a YAML or JSON file '
                        '(workloads, infrastructures, configurations or '
                        'strategies, size factors, seeds) instead of the '
                        'options that describe it; --limit, --until, '
                        '--jobs and --no-plots still apply.')
    parser.add_argument('--workload', action='append', metavar='FILE',
                        help='A workload trace; repeat for several.')
    common.add_arguments(parser)
    # --policy and --seed as simulate spells them: one vocabulary.
    parser.add_argument('--policies', '--policy',
                        metavar='NAME[,NAME]',
                        help='Policies to compare (%s; default: %s).'
                        % (', '.join(runner.POLICIES),
                           DEFAULT_POLICIES))
    parser.add_argument('--size-factors', metavar='F[,F]',
                        help='Cloud sizes, as multiples of each '
                        'workload\'s peak demand, sampled from '
                        '--machines.')
    parser.add_argument('--seeds', '--seed', metavar='N[-M][,N...]',
                        help='Seeds of the host sampling, the boot times '
                        'and the scheduler, as simulate takes them (0-4, '
                        'or 1,3,7; default: %s).' % common.DEFAULT_SEEDS)
    parser.add_argument('--jobs', type=int, metavar='N',
                        help='Runs at once (default: the number of CPUs).')
    parser.add_argument('--output', required=True, metavar='DIR',
                        help='Directory for the cells, the comparison and '
                        'the plots. Each cell is written there as it '
                        'ends; the cells already done there (for the same '
                        'inputs) are kept and not run again.')
    parser.add_argument('--executor', choices=EXECUTORS, default='local',
                        help='Where the runs go: local (a pool of --jobs '
                        'worker processes, the default) or dask (a Dask '
                        'distributed cluster; needs the dask extra).')
    parser.add_argument('--scheduler-address', metavar='ADDRESS',
                        help='With --executor dask: the Dask scheduler, '
                        'e.g. tcp://10.0.0.1:8786 (default: a local '
                        'cluster of --jobs worker processes).')
    parser.set_defaults(func=run)


# -- Validation -------------------------------------------------------------

def _policy(text):
    runner.strategy_of(text)
    return text


def _size_factor(text):
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise ValueError('expected numbers > 0, got %s'
                         % limits.one_line(repr(text), 60))
    if value > limits.MAX_SIZE_FACTOR:
        raise ValueError('expected numbers <= %g, got %s' % (
            limits.MAX_SIZE_FACTOR, limits.one_line(repr(text), 60)))
    return value


def parse_list(text, option, convert):
    """The comma-separated values of ``option``, each through ``convert``
    (which raises ValueError with the reason); no value twice.
    """
    values = []
    parts = (text or '').split(',')
    if len(parts) > MAX_LIST:
        raise exception.InvalidInput(option, None, 'more than %d values'
                                     % MAX_LIST)
    for part in parts:
        try:
            value = convert(part.strip())
        except ValueError as error:
            raise exception.InvalidInput(option, None, str(error)) from None
        if value in values:
            raise exception.InvalidInput(
                option, None, '%s given twice'
                % limits.one_line(repr(part.strip()), 60))
        values.append(value)
    return values


def _host_source(args):
    """``'fixed'`` or ``'sampled'``; exactly one way must be given."""
    ways = [name for name, given in (
        ('--infrastructure', args.infrastructure),
        ('--hosts', args.hosts is not None),
        ('--size-factors', args.size_factors is not None)) if given]
    if len(ways) != 1:
        raise exception.InvalidInput(
            'experiment', None, 'give exactly one of --infrastructure, '
            '--hosts with --host-flavor, or --size-factors with '
            '--machines (got %s)' % (', '.join(ways) or 'none'))
    if ways[0] == '--size-factors':
        if not args.machines:
            raise exception.InvalidInput('--machines', None,
                                         'required with --size-factors')
        return 'sampled'
    if args.machines:
        raise exception.InvalidInput('--machines', None,
                                     'only with --size-factors')
    return 'fixed'


def prepare(args):
    """Check every option, then read every input
    (:func:`.experiment_plan.options_plan`); raises InvalidInput on the
    first bad one, before anything is written.
    """
    if args.definition is not None:
        return prepare_definition(args)
    if not args.workload:
        raise exception.InvalidInput(
            'experiment', None, 'give --workload (one or more) or '
            '--definition')
    policies = parse_list(args.policies or DEFAULT_POLICIES, '--policies',
                          _policy)
    seeds = common.parse_seeds(args.seeds or common.DEFAULT_SEEDS)
    jobs = args.jobs if args.jobs is not None else os.cpu_count() or 1
    limits.integer(jobs, '--jobs', None, minimum=1, maximum=MAX_JOBS)
    if args.until is not None:
        args.until = limits.parse_number(args.until, '--until', None,
                                         minimum=0, maximum=limits.MAX_TIME)
    if args.limit is not None:
        limits.integer(args.limit, '--limit', None, minimum=1,
                       maximum=limits.MAX_COUNT * 1000)
    if args.hosts is not None:
        limits.integer(args.hosts, '--hosts', None, minimum=1,
                       maximum=limits.MAX_HOSTS)
    source = _host_source(args)
    size_factors = ([None] if source == 'fixed' else
                    parse_list(args.size_factors, '--size-factors',
                               _size_factor))
    common.check_output(args.output)
    runs = (len(args.workload) * len(policies) * len(size_factors) *
            len(seeds))
    if runs > MAX_CELLS:
        raise exception.InvalidInput(
            'experiment', None, '%d runs (workloads x policies x size '
            'factors x seeds), more than %d' % (runs, MAX_CELLS))
    return experiment_plan.options_plan(args, policies, size_factors, seeds,
                                        jobs)


# -- Definitions ------------------------------------------------------------

#: Options that describe the design: with --definition, the file does.
_DESIGN_OPTIONS = (('workload', '--workload'), ('policies', '--policies'),
                   ('size_factors', '--size-factors'), ('seeds', '--seeds'),
                   ('infrastructure', '--infrastructure'),
                   ('hosts', '--hosts'), ('host_flavor', '--host-flavor'),
                   ('machines', '--machines'), ('class_map', '--class-map'),
                   ('default_class', '--default-class'))


def prepare_definition(args):
    """The :class:`.experiment_plan.Plan` of ``--definition``: the file
    validated, then
    every workload, host list and configuration read and checked (each
    configuration in a worker, where it can be parsed), before any run.
    """
    given = [option for name, option in _DESIGN_OPTIONS
             if getattr(args, name, None) is not None]
    if args.workload_format != 'auto':
        given.append('--workload-format')
    if given:
        raise exception.InvalidInput(
            '--definition', None, 'the definition describes the design; '
            'drop %s' % ', '.join(given))
    definition = definitions.load(args.definition)
    until = definition.until if args.until is None else args.until
    if until is not None:
        until = limits.parse_number(until, '--until', None, minimum=0,
                                    maximum=limits.MAX_TIME)
    args.until = until
    if args.limit is not None:
        limits.integer(args.limit, '--limit', None, minimum=1,
                       maximum=limits.MAX_COUNT * 1000)
    jobs = (args.jobs if args.jobs is not None else
            definition.jobs or os.cpu_count() or 1)
    limits.integer(jobs, '--jobs', None, minimum=1, maximum=MAX_JOBS)
    common.check_output(args.output)
    return experiment_plan.definition_plan(definition, jobs, args.limit,
                                           until)


# -- The command ------------------------------------------------------------

def executor_of(args):
    """The executor of ``--executor`` (for :func:`cells.run`); the dask
    extra is required here, before anything runs.
    """
    address = getattr(args, 'scheduler_address', None)
    if getattr(args, 'executor', 'local') != 'dask':
        if address is not None:
            raise exception.InvalidInput('--scheduler-address', None,
                                         'only with --executor dask')
        return cells.local_executor
    extras.require('dask')
    if address is not None and not address.strip():
        raise exception.InvalidInput('--scheduler-address', None,
                                     'must not be empty')
    from preemptible_sched.simulation import dask_cells

    def executor(jobs, workloads):
        return dask_cells.DaskCells(jobs, workloads, address)
    return executor


def stopped_exit(kind, output):
    """Say on stderr that the command stopped, and that the finished
    runs are kept; the exit code.
    """
    sys.stderr.write(
        'preemptible-sched: experiment %s; the runs that finished are in '
        '%s: run the same command again to run the others\n' % (
            'terminated (SIGTERM)' if kind is common.Stopped else
            'interrupted', limits.one_line(output, 200)))
    return (common.EXIT_TERMINATED if kind is common.Stopped else
            common.EXIT_INTERRUPTED)


def run(args):
    extras.require('simulation')
    try:
        with common.stoppable():
            return _run(args)
    except (common.Stopped, KeyboardInterrupt) as error:
        return stopped_exit(type(error), args.output)


def _run(args):
    plan = prepare(args)
    executor = executor_of(args)
    started = time.monotonic()
    draw = not args.no_plots and plots.available()
    try:
        outcome = cells.run(plan, args.output, args.until, draw,
                            executor=executor, command=common.invocation,
                            sources=plan.sources())
    except OSError as error:
        raise exception.InvalidInput(
            '--output', None, 'cannot write %s: %s' % (
                limits.one_line(args.output, 200),
                limits.one_line(error.strerror or error, 200)))
    rows, classes = outcome.rows, outcome.classes
    done = outcome.cells
    kept = len(done) - len(outcome.ran)
    # The cells an earlier run of the same design had finished.
    earlier = ' (%d done by an earlier run)' % kept if kept else ''
    if not args.no_plots and not draw:
        sys.stderr.write(plot_canvas.skipped_note() + '\n')
    sys.stdout.write('%s\n%s\n' % (
        comparison_tables.comparison_intro(rows, plan.replication),
        report_tables.render_text(
            comparison_tables.comparison_tables(rows, classes)[:2])))
    if plan.definition is not None:
        definition = plan.definition
        sys.stdout.write(
            '%d runs (%d workloads x %d infrastructures x %d %s x %d size '
            'factors x %d seeds)%s in %.1f s; results in %s\n' % (
                len(done), len(definition.workloads),
                len(definition.infrastructures), len(plan.policies),
                'configurations' if definition.configurations else
                'strategies', len(plan.size_factors), len(plan.seeds),
                earlier, time.monotonic() - started, args.output))
        return 0
    sys.stdout.write(
        '%d runs (%d workloads x %d policies x %d size factors x %d seeds)'
        '%s in %.1f s; results in %s\n' % (
            len(done), len(plan.workloads), len(plan.policies),
            len(plan.size_factors), len(plan.seeds), earlier,
            time.monotonic() - started, args.output))
    return 0
