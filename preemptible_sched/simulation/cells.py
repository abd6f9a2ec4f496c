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


"""Running the cells of an experiment over a process pool.

The cell runner of ``preemptible-sched experiment`` (see
:mod:`preemptible_sched.simulation.experiment` for the design, the
aggregation and the output layout): the validated inputs of an
experiment (:class:`Plan`), what the cells of a definition read
(:func:`read_inputs`, each configuration in a worker), the cells run in
the worker pool (:func:`run_cells`; the pool and its workers are in
:mod:`.cell_workers`), and :func:`run`, which runs every cell and writes
the results.

Workers only compute; this process writes every file. Each cell's
directory is written whole as the cell ends (:mod:`.cell_files`), so a
run stopped or killed keeps the cells it finished, and the same command
started again runs only the others (:func:`pending`). The comparison and
the plots are written at the end from the cells' files, the same
whether the cells were run now or by an earlier run, in a staging
directory moved into the output directory
(:func:`.experiment.staged_output`).
"""

import contextlib
import dataclasses
import os
import sys
import typing

from oslo_config import cfg

from preemptible_sched.conf import CONF
from preemptible_sched import exception
from preemptible_sched import input_limits as limits
from preemptible_sched import objects
from preemptible_sched.service_classes import qos
from preemptible_sched.simulation import cell_files
from preemptible_sched.simulation import cell_workers
from preemptible_sched.simulation import comparison_csv
from preemptible_sched.simulation import comparison_tables
from preemptible_sched.simulation import experiment
from preemptible_sched.simulation import fingerprint
from preemptible_sched.simulation import infrastructure
from preemptible_sched.simulation import plots
from preemptible_sched.simulation import replay
from preemptible_sched.simulation import report_page
from preemptible_sched.simulation import run_progress
from preemptible_sched.simulation import runner
from preemptible_sched.simulation.traces import checksums
from preemptible_sched.simulation.traces import reading


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
    #: The :class:`.definition.Definition` of ``--definition``.
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


def check_policies(policies):
    """A dry run of each policy on no request: builds its scheduler, so
    a plugin or option the configuration gets wrong fails now.
    """
    host = objects.Host('preflight', vcpus=1, memory_mb=1)
    for policy in policies:
        runner.Simulation([], [host], until=0.0, policy=policy).run()


# -- Definitions ------------------------------------------------------------

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
            items = reading.read_workload(
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
    check_policies(definition.strategies or [None])
    classes = qos.Classes()
    return {'workloads': workloads, 'hosts': hosts,
            'classes': [cls.name for cls in classes],
            'slos': {cls.name: cls.slo for cls in classes}}


def preflight(config_file, definition, limit, until):
    """:func:`read_inputs` under ``config_file`` (in a worker); a
    problem is raised as :class:`.cell_workers.CellFailed`, one line
    naming the file.
    """
    try:
        cell_workers.reconfigure(config_file)
        return read_inputs(definition, limit, until)
    except exception.ConfigProblems as error:
        message = '; '.join(error.problems)
    except (exception.PreemptibleSchedException, cfg.Error) as error:
        message = str(error)
    message = limits.one_line(message, 400)
    if config_file not in message:
        message = '%s: %s' % (config_file, message)
    raise cell_workers.CellFailed(message)


def definition_plan(definition, jobs, limit=None, until=None):
    """The :class:`Plan` of ``definition``: every workload, host list and
    configuration read and checked (each configuration in a worker, where
    it can be parsed), before any run. A configuration's problem is
    raised as :class:`exception.ConfigProblems`.
    """
    if definition.configurations:
        names = list(definition.configurations)
        pool = cell_workers.worker_pool(min(jobs, len(names)))
        try:
            futures = [pool.submit(preflight, definition.configurations[
                name], definition, limit, until) for name in names]
            inputs = {}
            for name, future in zip(names, futures):
                try:
                    inputs[name] = future.result()
                except cell_workers.CellFailed as error:
                    raise exception.ConfigProblems([str(error)]) from None
        except BaseException:
            cell_workers.stop_workers(pool)
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    else:
        shared = read_inputs(definition, limit, until)
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


# -- Running ----------------------------------------------------------------

def _config_digests(paths):
    """``[(path, SHA-256 of its bytes)]`` of configuration files, the
    files of configuration directories included.
    """
    files, dirs = paths
    found = list(files)
    for directory in dirs:
        try:
            names = sorted(os.listdir(directory))
        except OSError:
            continue
        found += [os.path.join(directory, name) for name in names
                  if name.endswith('.conf')]
    return [(path, checksums.file_sha256(path)) for path in found
            if os.path.isfile(path)]


def tasks_of(plan, until):
    """``(tasks, workloads)``: a :class:`.cell_workers.CellTask` per cell,
    its ``digest`` set, and the workloads they name (key -> items).

    A workload's key is the digest of its items: the same items read
    under two configurations are one workload. A cell's digest covers
    its workload, hosts, policy, seed, size factor, end time and the
    bytes of the configuration files it runs under (the command's and
    its own).
    """
    base = _config_digests(cell_workers.configured_paths())
    keys, workloads, tasks = {}, {}, []
    configurations = (plan.definition.configurations
                      if plan.definition is not None else None) or {}
    for cell in plan.cells():
        inputs = (plan.inputs[cell.policy] if plan.inputs else
                  {'workloads': plan.workloads, 'hosts': plan.hosts})
        path, items = inputs['workloads'][cell.workload]
        key = keys.get(id(items))
        if key is None:
            key = keys[id(items)] = fingerprint.digest(items)
            workloads[key] = items
        hosts = inputs['hosts'][cell.workload, cell.size_factor, cell.seed]
        config_file = configurations.get(cell.policy)
        digest = fingerprint.digest([
            cell.workload, cell.policy, cell.size_factor, cell.seed, until,
            key, fingerprint.digest(hosts), base,
            _config_digests(([config_file], ())) if config_file else None])
        tasks.append(cell_workers.CellTask(
            cell=cell, workload_path=path, workload=key, hosts=hosts,
            until=until, config_file=config_file, digest=digest))
    return tasks, workloads


def local_executor(jobs, workloads):
    """The local process pool (``--executor local``)."""
    return cell_workers.LocalCells(jobs, workloads)


def run_cells(plan, tasks, workloads, on_result, executor=local_executor):
    """Run ``tasks`` on ``executor(jobs, workloads)`` (at most
    ``plan.jobs`` at once); ``on_result(task, summary, records, stages)``
    is called here as each one ends. On a failure the cells not started
    are cancelled and the error raised.
    """
    if not tasks:
        return
    cells = executor(min(plan.jobs, len(tasks)), workloads)
    span, events = 0.0, 0
    with run_progress.Progress(len(tasks), label='experiment',
                               unit='runs') as bar:
        aborted = True
        try:
            futures = {cells.submit(task): task for task in tasks}
            for done, future in enumerate(cells.as_completed(futures), 1):
                task = futures[future]
                try:
                    summary, records, stages = future.result()
                except cell_workers.CellFailed as error:
                    raise exception.InvalidInput(task.cell.path, None,
                                                 str(error)) from None
                on_result(task, summary, records, stages)
                span += summary.get('until_s') or 0.0
                events += summary.get('events') or 0
                bar.update(done, span, events)
            aborted = False
        finally:
            # Stopped (SIGTERM), Ctrl-C or a failed cell: the runs under
            # way are of no use any more; do not wait for them.
            cells.close(abort=aborted)


# -- Writing ----------------------------------------------------------------

def write_plots(directory, plan, rows, classes, first_records):
    """The figures of ``plan`` into ``directory``: the availability of
    each instance under each policy (first seed) and the fulfilment by
    size factor.
    """
    groups = set().union(*(plots.record_groups(records)
                           for records in first_records.values()))
    if not plots.has_classes(groups):
        # Availability per class means nothing without classes (a
        # workflow trace, SLA requests).
        return
    # One mapping for every figure: a class has one colour in all of them.
    colours = plots.class_colours(set(classes).union(groups))
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


@dataclasses.dataclass
class Outcome:
    """What :func:`run` did: every cell, those it ran (the others were
    done already), the comparison rows and their classes.
    """

    cells: list
    ran: list
    rows: list
    classes: list


def pending(output, tasks):
    """The tasks whose cell is not done in ``output``
    (:func:`.cell_files.is_done`); the staging directories a killed run
    left beside the cells are removed.
    """
    left = []
    for task in tasks:
        cell_files.remove_stale(output, task.cell)
        if not cell_files.is_done(output, task.cell, task.digest):
            left.append(task)
    return left


def run(plan, output, until, draw, executor=local_executor, command=None,
        sources=()):
    """Run the cells of ``plan`` not done in ``output`` yet, each written
    there as it ends (:mod:`.cell_files`), then write the comparison (and
    the plots if ``draw``) and report.html (``command``, ``sources``: see
    :func:`.report_page.render`) from the cells' files; an
    :class:`Outcome`.
    """
    tasks, workloads = tasks_of(plan, until)
    output = os.path.abspath(output)
    os.makedirs(output, exist_ok=True)
    # It would no longer describe the cells beside it.
    with contextlib.suppress(FileNotFoundError):
        os.unlink(os.path.join(output, experiment.COMPARISON_CSV))
    todo = pending(output, tasks)
    if len(todo) < len(tasks):
        sys.stderr.write('experiment: %d of %d runs already done in %s; '
                         'running the other %d\n' % (
                             len(tasks) - len(todo), len(tasks), output,
                             len(todo)))

    def on_result(task, summary, records, stages):
        cell_files.write(output, task.cell, task.digest, summary, records,
                         stages)

    run_cells(plan, todo, {task.workload: workloads[task.workload]
                           for task in todo}, on_result, executor)
    cells = [task.cell for task in tasks]
    rows, classes = write_comparison(plan, output, cells, draw, command,
                                     sources)
    return Outcome(cells=cells, ran=[task.cell for task in todo],
                   rows=rows, classes=classes)


def write_comparison(plan, output, cells, draw, command=None, sources=()):
    """comparison.csv, comparison.md (paired.csv with a definition, the
    plots if ``draw``) and report.html from the files of the finished
    ``cells``; ``(rows, classes)``.
    """
    ordered = {cell: cell_files.read_summary(output, cell) for cell in cells}
    classes = experiment.ordered_classes(plan.classes, ordered.values())
    rows = experiment.aggregate(ordered, classes, key=plan.key)
    with experiment.staged_output(output) as staging:
        paired = None
        if plan.definition is not None:
            # A definition always gets the spread, the intervals and the
            # paired differences (empty cells with one replication).
            paired = experiment.paired_differences(
                ordered, classes, plan.definition.baseline, key=plan.key)
            comparison_csv.write_paired_csv(
                os.path.join(staging, experiment.PAIRED_CSV), paired)
        with_std = len(plan.seeds) > 1 or plan.definition is not None
        tables = comparison_tables.write_comparison_md(
            os.path.join(staging, experiment.COMPARISON_MD), rows, classes,
            paired=paired, replication=plan.replication)
        comparison_csv.write_comparison_csv(
            os.path.join(staging, experiment.COMPARISON_CSV), rows,
            classes, with_std, with_ci=plan.definition is not None)
        if draw:
            first_records = {cell: cell_files.read_records(output, cell)
                             for cell in cells
                             if cell.seed == plan.seeds[0]}
            write_plots(staging, plan, rows, classes, first_records)
        report_page.write(
            staging, 'Policy comparison',
            comparison_tables.comparison_intro(rows, plan.replication),
            tables, command=command, sources=sources)
    return rows, classes
