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
aggregation and the output layout): given the validated inputs of an
experiment (an :class:`.experiment_plan.Plan`), the cells run in the
worker pool (:func:`run_cells`; the pool and its workers are in
:mod:`.cell_workers`), and :func:`run`, which runs every cell and writes
the results.

Workers only compute; this process writes every file. Each cell's
directory is written whole as the cell ends (:mod:`.cell_files`), so a
run stopped or killed keeps the cells it finished, and the same command
started again runs only the others (:func:`pending`). The comparison and
the plots (:mod:`.comparison_plots`) are written at the end from the
cells' files, the same whether the cells were run now or by an earlier
run, in a staging directory moved into the output directory
(:func:`.experiment.staged_output`).
"""

import contextlib
import dataclasses
import os
import sys

from preemptible_sched import exception
from preemptible_sched.simulation import cell_files
from preemptible_sched.simulation import cell_workers
from preemptible_sched.simulation import comparison_csv
from preemptible_sched.simulation import comparison_plots
from preemptible_sched.simulation import comparison_tables
from preemptible_sched.simulation import experiment
from preemptible_sched.simulation import fingerprint
from preemptible_sched.simulation import report_page
from preemptible_sched.simulation import run_progress
from preemptible_sched.simulation.traces import checksums


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
            comparison_plots.write(staging, plan, rows, classes,
                                   first_records)
        report_page.write(
            staging, 'Policy comparison',
            comparison_tables.comparison_intro(rows, plan.replication),
            tables, command=command, sources=sources)
    return rows, classes
