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
with that seed, and handed to the cells of every policy. A bad input is
reported on one line with exit code 2, and nothing is written.

Workers are started with ``spawn``: a forked worker would inherit this
command's parsed command line (the subcommand) and could not parse the
configuration again. Each worker parses the same configuration files
(``--config-file``, ``--config-dir``) in its initializer; the policy
overrides are applied per run by :class:`runner.Simulation`. Workers only
compute; this process writes every file, into a staging directory that
is moved into ``--output`` once all the cells, the comparison and the
plots are written. SIGTERM or Ctrl-C while it runs stops the workers,
removes the staging directory and exits with one line on stderr (143 and
130); a staging directory left by a run killed outright (SIGKILL) is
removed by the next run into the same ``--output``.

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

import concurrent.futures
import dataclasses
import math
import multiprocessing
import os
import sys
import threading
import time
import types
import typing

from oslo_config import cfg

from preemptible_sched.cmd import common
from preemptible_sched.conf import CONF
from preemptible_sched import exception
from preemptible_sched import extras
from preemptible_sched import input_limits as limits
from preemptible_sched import objects
from preemptible_sched.service_classes import qos
from preemptible_sched.simulation import definition as definitions
from preemptible_sched.simulation import experiment
from preemptible_sched.simulation import infrastructure
from preemptible_sched.simulation import plots
from preemptible_sched.simulation import replay
from preemptible_sched.simulation import report
from preemptible_sched.simulation import runner
from preemptible_sched.simulation import workload

DEFAULT_POLICIES = 'qos,priority'

#: Most values in one of --policies, --size-factors, --seeds.
MAX_LIST = 1000
#: Most worker processes (--jobs).
MAX_JOBS = 256
#: Most runs (cells) in one experiment.
MAX_CELLS = 10000


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
    parser.add_argument('--seeds', '--seed', metavar='N[,N]',
                        help='Seeds of the host sampling, the boot times '
                        'and the scheduler (default: 0).')
    parser.add_argument('--jobs', type=int, metavar='N',
                        help='Runs at once (default: the number of CPUs).')
    parser.add_argument('--output', required=True, metavar='DIR',
                        help='Directory for the cells, the comparison and '
                        'the plots.')
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


def _seed(text):
    try:
        value = int(text) if len(text) <= 30 else None
    except ValueError:
        value = None
    if value is None:
        raise ValueError('expected integers, got %s'
                         % limits.one_line(repr(text), 60))
    if not 0 <= value <= limits.MAX_SEED:
        raise ValueError('expected integers in 0..%d, got %s'
                         % (limits.MAX_SEED, text))
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


@dataclasses.dataclass
class Plan:
    """The validated inputs of an experiment.

    ``workloads`` maps a workload's stem to ``(path, items)``;
    ``size_factors`` is ``[None]`` with hosts given outright; ``hosts``
    maps ``(stem, size factor, seed)`` to the hosts of those cells.
    """

    workloads: dict
    policies: list
    size_factors: list
    seeds: list
    hosts: dict
    classes: list
    slos: dict
    jobs: int
    #: The :class:`definitions.Definition` of ``--definition``.
    definition: typing.Any = None
    #: With a definition: ``{policy: {'workloads': ..., 'hosts': ...}}``,
    #: what each configuration read (its [replay] options shape the
    #: workload).
    inputs: typing.Optional[dict] = None

    def cells(self):
        if self.definition is not None:
            return self.definition.cells()
        return experiment.design(list(self.workloads), self.policies,
                                 self.size_factors, self.seeds)

    @property
    def replication(self):
        """What the rows are means over: ``seeds`` or ``workloads``."""
        return (self.definition.replications if self.definition is not None
                else 'seeds')

    def key(self, cell):
        """The row and replication of a cell."""
        if self.definition is not None:
            return self.definition.key(cell)
        return experiment.by_seed(cell)


def _workload_args(args, path):
    """What :func:`replay.load_workload` reads, for one workload."""
    return types.SimpleNamespace(
        workload=path, workload_format=args.workload_format,
        class_map=args.class_map, default_class=args.default_class,
        limit=args.limit, until=args.until)


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


def _read_workloads(args):
    workloads = {}
    for path in args.workload:
        stem = experiment.workload_stem(path)
        if stem in workloads:
            raise exception.InvalidInput(
                '--workload', None, '%s and %s would share the output '
                'directory %r; rename one' % (workloads[stem][0], path,
                                              stem))
        items = replay.load_workload(_workload_args(args, path))
        replay.check_classes(items, path)
        runner.check_run(items, args.until)
        workloads[stem] = (path, items)
    return workloads


def _check_policies(policies):
    """A dry run of each policy on no request: builds its scheduler, so
    a plugin or option the configuration gets wrong fails now.
    """
    host = objects.Host('preflight', vcpus=1, memory_mb=1)
    for policy in policies:
        runner.Simulation([], [host], until=0.0, policy=policy).run()


def prepare(args):
    """Read and check every input; raises InvalidInput on the first bad
    one, before anything is written.
    """
    if args.definition is not None:
        return prepare_definition(args)
    if not args.workload:
        raise exception.InvalidInput(
            'experiment', None, 'give --workload (one or more) or '
            '--definition')
    policies = parse_list(args.policies or DEFAULT_POLICIES, '--policies',
                          _policy)
    seeds = parse_list(args.seeds or '0', '--seeds', _seed)
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
    cells = (len(args.workload) * len(policies) * len(size_factors) *
             len(seeds))
    if cells > MAX_CELLS:
        raise exception.InvalidInput(
            'experiment', None, '%d runs (workloads x policies x size '
            'factors x seeds), more than %d' % (cells, MAX_CELLS))
    workloads = _read_workloads(args)
    hosts = {}
    if source == 'fixed':
        first = next(iter(workloads.values()))[1]
        fixed = replay.load_hosts(args, first, None, seeds[0])
        hosts = {(stem, None, seed): fixed
                 for stem in workloads for seed in seeds}
    else:
        machines = infrastructure.read_machines(args.machines)
        for stem, (_path, items) in workloads.items():
            for factor in size_factors:
                for seed in seeds:
                    hosts[stem, factor, seed] = (
                        infrastructure.size_from_workload(
                            items, machines, factor, seed,
                            until=args.until))
    _check_policies(policies)
    classes = qos.Classes()
    return Plan(workloads=workloads, policies=policies,
                size_factors=size_factors, seeds=seeds, hosts=hosts,
                classes=[cls.name for cls in classes],
                slos={cls.name: cls.slo for cls in classes}, jobs=jobs)


# -- Definitions ------------------------------------------------------------

#: Options that describe the design: with --definition, the file does.
_DESIGN_OPTIONS = (('workload', '--workload'), ('policies', '--policies'),
                   ('size_factors', '--size-factors'), ('seeds', '--seeds'),
                   ('infrastructure', '--infrastructure'),
                   ('hosts', '--hosts'), ('host_flavor', '--host-flavor'),
                   ('machines', '--machines'), ('class_map', '--class-map'),
                   ('default_class', '--default-class'))


def read_inputs(definition, limit=None, until=None):
    """What the cells of ``definition`` need, read under the current
    configuration: ``{'workloads': {scenario: (path, items)}, 'hosts':
    {(scenario, size factor, seed): hosts}, 'classes': [...], 'slos':
    {...}}``. ``limit`` overrides every workload's.
    """
    items_of, read = {}, {}
    workloads, hosts = {}, {}
    for scenario, (work, infra) in definition.scenarios().items():
        if work.name not in items_of:
            items = workload.read_workload(
                work.path, work.format, class_map=work.class_map,
                default_class=work.default_class, limit=limit or work.limit,
                time_origin=CONF.replay.time_origin,
                task_submit=CONF.replay.task_submit)
            replay.check_classes(items, work.path)
            runner.check_run(items, until, source=definition.path)
            items_of[work.name] = items
        items = items_of[work.name]
        workloads[scenario] = (work.path, items)
        if infra.name not in read:
            # Hosts given outright, or the machines to sample from.
            read[infra.name] = (
                infrastructure.read_machines(infra.machines)
                if infra.machines else
                infrastructure.read_infrastructure(infra.infrastructure)
                if infra.infrastructure else
                infrastructure.hosts_from_flavor(infra.hosts, infra.flavor))
        for factor in infra.levels:
            for seed in definition.seeds:
                # Sampled per seed, like the flag form: the policies of a
                # replication share its hosts.
                hosts[scenario, factor, seed] = (
                    read[infra.name] if factor is None else
                    infrastructure.size_from_workload(
                        items, read[infra.name], factor, seed, until=until))
    _check_policies(definition.strategies or [None])
    classes = qos.Classes()
    return {'workloads': workloads, 'hosts': hosts,
            'classes': [cls.name for cls in classes],
            'slos': {cls.name: cls.slo for cls in classes}}


def preflight(config_file, definition, limit, until):
    """:func:`read_inputs` under ``config_file`` (in a worker); a
    problem is raised as :class:`CellFailed`, one line naming the file.
    """
    try:
        reconfigure(config_file)
        return read_inputs(definition, limit, until)
    except exception.ConfigProblems as error:
        message = '; '.join(error.problems)
    except (exception.PreemptibleSchedException, cfg.Error) as error:
        message = str(error)
    message = limits.one_line(message, 400)
    if config_file not in message:
        message = '%s: %s' % (config_file, message)
    raise CellFailed(message)


def prepare_definition(args):
    """The :class:`Plan` of ``--definition``: the file validated, then
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
    if definition.configurations:
        names = list(definition.configurations)
        pool = worker_pool(min(jobs, len(names)))
        try:
            futures = [pool.submit(preflight, definition.configurations[
                name], definition, args.limit, until) for name in names]
            inputs = {}
            for name, future in zip(names, futures):
                try:
                    inputs[name] = future.result()
                except CellFailed as error:
                    raise exception.ConfigProblems([str(error)]) from None
        except BaseException:
            _stop_workers(pool)
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    else:
        shared = read_inputs(definition, args.limit, until)
        inputs = {name: shared for name in definition.policies}
    first = inputs[definition.policies[0]]
    classes = list(dict.fromkeys(
        name for entry in inputs.values() for name in entry['classes']))
    slos = {}
    for entry in inputs.values():
        for name, slo in entry['slos'].items():
            slos.setdefault(name, slo)
    return Plan(workloads=first['workloads'], policies=definition.policies,
                size_factors=list(dict.fromkeys(
                    factor for infra in definition.infrastructures
                    for factor in infra.levels)),
                seeds=definition.seeds, hosts=first['hosts'],
                classes=classes, slos=slos, jobs=jobs,
                definition=definition, inputs=inputs)


# -- Workers ----------------------------------------------------------------

class CellFailed(Exception):
    """A run failed on purpose (bad input found late) in a worker.

    Carries the message only: :class:`InvalidInput` itself does not
    survive pickling back to this process.
    """


@dataclasses.dataclass
class CellTask:
    """What a worker needs to run one cell."""

    cell: experiment.Cell
    workload_path: str
    items: list
    hosts: list
    until: typing.Optional[float]
    #: A configuration file this cell runs under (its policy is then the
    #: configuration's own), or None.
    config_file: typing.Optional[str] = None


#: Seconds between a worker's checks that the command it works for runs.
PARENT_CHECK_SECONDS = 1.0


def exit_with_parent(parent, interval=PARENT_CHECK_SECONDS):
    """Exit the process once ``parent`` is no longer its parent.

    A pool worker whose command was killed (SIGKILL leaves it no time to
    stop its workers) would otherwise wait for work forever: it holds the
    write end of its own task queue, so it never reads an end of file.
    """
    while os.getppid() == parent:
        time.sleep(interval)
    os._exit(1)


#: The worker's base configuration: (config files, config dirs).
_BASE_CONFIG = ((), ())


def init_worker(config_files, config_dirs, parent=None):
    """Parse the configuration the parent parsed (workers start afresh);
    exit when the ``parent`` process is gone.
    """
    global _BASE_CONFIG
    if parent is not None:
        threading.Thread(target=exit_with_parent, args=(parent,),
                         name='parent-watch', daemon=True).start()
    _BASE_CONFIG = (tuple(config_files), tuple(config_dirs))
    reconfigure(None)


def reconfigure(config_file):
    """Parse the worker's base configuration again, then ``config_file``
    (a configuration of a definition) over it; None for the base alone.
    Parsing anew drops every option the previous cell set.
    """
    config_files, config_dirs = _BASE_CONFIG
    argv = []
    for path in tuple(config_files) + ((config_file,) if config_file
                                       else ()):
        argv += ['--config-file', path]
    for path in config_dirs:
        argv += ['--config-dir', path]
    CONF(argv, project='preemptible-sched', default_config_files=[],
         default_config_dirs=[])


def worker_pool(workers):
    """The pool the cells run in: ``workers`` fresh processes with this
    process's configuration, which exit if this process is killed.
    """
    return concurrent.futures.ProcessPoolExecutor(
        max_workers=workers, mp_context=multiprocessing.get_context('spawn'),
        initializer=init_worker,
        initargs=(list(CONF.config_file or ()), list(CONF.config_dir or ()),
                  os.getpid()))


def run_cell(task):
    """Run one cell; returns ``(summary, records)``."""
    args = types.SimpleNamespace(workload=task.workload_path,
                                 until=task.until)
    try:
        if task.config_file:
            reconfigure(task.config_file)
        result, summary = replay.simulate(
            args, task.items, task.hosts,
            None if task.config_file else task.cell.policy, task.cell.seed,
            progress=False)
    except exception.PreemptibleSchedException as error:
        raise CellFailed(str(error)) from None
    if task.config_file:
        summary['configuration'] = task.cell.policy
        summary['config_file'] = task.config_file
    summary['size_factor'] = task.cell.size_factor
    return summary, result.records


def _run_cells(plan, args, on_result):
    """Run every cell in ``plan.jobs`` workers; ``on_result(cell, summary,
    records)`` is called here as each one ends. On a failure the cells not
    started are cancelled and the error raised.
    """
    tasks = []
    for cell in plan.cells():
        inputs = (plan.inputs[cell.policy] if plan.inputs else
                  {'workloads': plan.workloads, 'hosts': plan.hosts})
        path, items = inputs['workloads'][cell.workload]
        configurations = (plan.definition.configurations
                          if plan.definition is not None else None)
        tasks.append(CellTask(
            cell=cell, workload_path=path, items=items,
            hosts=inputs['hosts'][cell.workload, cell.size_factor,
                                  cell.seed],
            until=args.until,
            config_file=(configurations or {}).get(cell.policy)))
    pool = worker_pool(min(plan.jobs, len(tasks)))
    span, events = 0.0, 0
    with report.Progress(len(tasks), label='experiment', unit='runs') as bar:
        try:
            futures = {pool.submit(run_cell, task): task.cell
                       for task in tasks}
            for done, future in enumerate(
                    concurrent.futures.as_completed(futures), 1):
                cell = futures[future]
                try:
                    summary, records = future.result()
                except CellFailed as error:
                    raise exception.InvalidInput(cell.path, None,
                                                 str(error)) from None
                on_result(cell, summary, records)
                span += summary.get('until_s') or 0.0
                events += summary.get('events') or 0
                bar.update(done, span, events)
        except BaseException:
            # Stopped (SIGTERM), Ctrl-C or a failed cell: the runs under
            # way are of no use any more; do not wait for them.
            _stop_workers(pool)
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


def _stop_workers(pool):
    """Terminate the worker processes of ``pool`` (they only compute)."""
    processes = getattr(pool, '_processes', None) or {}
    for process in list(processes.values()):
        try:
            process.terminate()
        except (OSError, ValueError, AttributeError):
            pass


# -- The command ------------------------------------------------------------

def _write_plots(directory, plan, rows, classes, first_records):
    # One mapping for every figure: a class has one colour in all of them.
    colours = plots.class_colours(set(classes).union(
        *(plots.record_groups(records)
          for records in first_records.values())))
    levels = {}
    for cell in plan.cells():
        levels.setdefault(cell.workload, {})[cell.size_factor] = None
    for stem in plan.workloads:
        for factor in levels[stem]:
            runs = {policy: first_records[experiment.Cell(
                stem, policy, factor, plan.seeds[0])]
                for policy in plan.policies}
            plots.availability_by_instance(
                os.path.join(directory, 'availability_%s_%s.png' % (
                    stem, experiment.level_name(factor))),
                runs, plan.slos, colours=colours)
        members = [row for row in rows if row.workload == stem]
        if members:
            plots.fulfilment_by_size_factor(
                os.path.join(directory, 'fulfilment_%s.png' % stem),
                members, classes, colours=colours)


def run(args):
    extras.require('simulation')
    try:
        with common.stoppable():
            return _run(args)
    except (common.Stopped, KeyboardInterrupt) as error:
        return common.stopped_exit('experiment', type(error))


def _run(args):
    plan = prepare(args)
    started = time.monotonic()
    draw = not args.no_plots and plots.available()
    try:
        cells, rows, classes = _write(args, plan, draw)
    except OSError as error:
        raise exception.InvalidInput(
            '--output', None, 'cannot write %s: %s; nothing written' % (
                limits.one_line(args.output, 200),
                limits.one_line(error.strerror or error, 200)))
    if not args.no_plots and not draw:
        sys.stderr.write(plots.skipped_note() + '\n')
    sys.stdout.write('%s\n%s\n' % (
        experiment.comparison_intro(rows, plan.replication),
        report.render_text(experiment.comparison_tables(rows, classes)[:2])))
    if plan.definition is not None:
        definition = plan.definition
        sys.stdout.write(
            '%d runs (%d workloads x %d infrastructures x %d %s x %d size '
            'factors x %d seeds) in %.1f s; results in %s\n' % (
                len(cells), len(definition.workloads),
                len(definition.infrastructures), len(plan.policies),
                'configurations' if definition.configurations else
                'strategies', len(plan.size_factors), len(plan.seeds),
                time.monotonic() - started, args.output))
        return 0
    sys.stdout.write(
        '%d runs (%d workloads x %d policies x %d size factors x %d seeds) '
        'in %.1f s; results in %s\n' % (
            len(cells), len(plan.workloads), len(plan.policies),
            len(plan.size_factors), len(plan.seeds),
            time.monotonic() - started, args.output))
    return 0


def _write(args, plan, draw):
    """Run the cells and write everything; ``(cells, rows, classes)``."""
    summaries, first_records = {}, {}
    with experiment.staged_output(args.output) as staging:

        def on_result(cell, summary, records):
            report.write_outputs(os.path.join(staging, cell.path), records,
                                 summary, plots=False)
            summaries[cell] = summary
            if draw and cell.seed == plan.seeds[0]:
                first_records[cell] = records

        _run_cells(plan, args, on_result)
        cells = plan.cells()
        ordered = {cell: summaries[cell] for cell in cells}
        classes = experiment.ordered_classes(plan.classes, ordered.values())
        rows = experiment.aggregate(ordered, classes, key=plan.key)
        paired = None
        if plan.definition is not None:
            # A definition always gets the spread, the intervals and the
            # paired differences (empty cells with one replication).
            paired = experiment.paired_differences(
                ordered, classes, plan.definition.baseline, key=plan.key)
            experiment.write_paired_csv(
                os.path.join(staging, experiment.PAIRED_CSV), paired)
        with_std = len(plan.seeds) > 1 or plan.definition is not None
        experiment.write_comparison_md(
            os.path.join(staging, experiment.COMPARISON_MD), rows, classes,
            paired=paired, replication=plan.replication)
        experiment.write_comparison_csv(
            os.path.join(staging, experiment.COMPARISON_CSV), rows,
            classes, with_std, with_ci=plan.definition is not None)
        if draw:
            _write_plots(staging, plan, rows, classes, first_records)
    return cells, rows, classes
