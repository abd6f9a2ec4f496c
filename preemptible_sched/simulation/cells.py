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

Workers only compute; this process writes every file, into a staging
directory that is moved into the output directory once all the cells,
the comparison and the plots are written.
"""

import concurrent.futures
import dataclasses
import os
import typing

from oslo_config import cfg

from preemptible_sched.conf import CONF
from preemptible_sched import exception
from preemptible_sched import input_limits as limits
from preemptible_sched import objects
from preemptible_sched.service_classes import qos
from preemptible_sched.simulation import cell_workers
from preemptible_sched.simulation import comparison_csv
from preemptible_sched.simulation import comparison_tables
from preemptible_sched.simulation import experiment
from preemptible_sched.simulation import infrastructure
from preemptible_sched.simulation import plots
from preemptible_sched.simulation import replay
from preemptible_sched.simulation import report
from preemptible_sched.simulation import run_progress
from preemptible_sched.simulation import runner
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

def run_cells(plan, until, on_result):
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
        tasks.append(cell_workers.CellTask(
            cell=cell, workload_path=path, items=items,
            hosts=inputs['hosts'][cell.workload, cell.size_factor,
                                  cell.seed],
            until=until,
            config_file=(configurations or {}).get(cell.policy)))
    pool = cell_workers.worker_pool(min(plan.jobs, len(tasks)))
    span, events = 0.0, 0
    with run_progress.Progress(len(tasks), label='experiment',
                               unit='runs') as bar:
        try:
            futures = {pool.submit(cell_workers.run_cell, task): task.cell
                       for task in tasks}
            for done, future in enumerate(
                    concurrent.futures.as_completed(futures), 1):
                cell = futures[future]
                try:
                    summary, records = future.result()
                except cell_workers.CellFailed as error:
                    raise exception.InvalidInput(cell.path, None,
                                                 str(error)) from None
                on_result(cell, summary, records)
                span += summary.get('until_s') or 0.0
                events += summary.get('events') or 0
                bar.update(done, span, events)
        except BaseException:
            # Stopped (SIGTERM), Ctrl-C or a failed cell: the runs under
            # way are of no use any more; do not wait for them.
            cell_workers.stop_workers(pool)
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


# -- Writing ----------------------------------------------------------------

def write_plots(directory, plan, rows, classes, first_records):
    """The figures of ``plan`` into ``directory``: the availability of
    each instance under each policy (first seed) and the fulfilment by
    size factor.
    """
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


def run(plan, output, until, draw):
    """Run the cells of ``plan`` and write everything into ``output``
    (with the plots if ``draw``); ``(cells, rows, classes)``.
    """
    summaries, first_records = {}, {}
    with experiment.staged_output(output) as staging:

        def on_result(cell, summary, records):
            report.write_outputs(os.path.join(staging, cell.path), records,
                                 summary, plots=False)
            summaries[cell] = summary
            if draw and cell.seed == plan.seeds[0]:
                first_records[cell] = records

        run_cells(plan, until, on_result)
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
            comparison_csv.write_paired_csv(
                os.path.join(staging, experiment.PAIRED_CSV), paired)
        with_std = len(plan.seeds) > 1 or plan.definition is not None
        comparison_tables.write_comparison_md(
            os.path.join(staging, experiment.COMPARISON_MD), rows, classes,
            paired=paired, replication=plan.replication)
        comparison_csv.write_comparison_csv(
            os.path.join(staging, experiment.COMPARISON_CSV), rows,
            classes, with_std, with_ci=plan.definition is not None)
        if draw:
            write_plots(staging, plan, rows, classes, first_records)
    return cells, rows, classes
