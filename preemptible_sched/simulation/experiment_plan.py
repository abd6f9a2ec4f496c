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

"""The plan of an experiment: its inputs, read and checked before any run.

``preemptible-sched experiment`` reads every input once, before the first
cell runs (:mod:`.cells` runs them): a :class:`Plan` holds the workloads,
the hosts of every (workload, size factor, seed), the policies, the
seeds and the service classes. It is built from the command's options
(:func:`options_plan`, once the command has checked their values) or
from a definition file (:func:`definition_plan`; :mod:`.definition`
reads the file), whose configurations are each parsed, and the workloads
read under them, in a worker (:func:`preflight`). Each policy gets a dry
run on no request (:func:`check_policies`), so that a bad plugin name
fails here, not in a worker. A bad input raises
:class:`~preemptible_sched.exception.InvalidInput` (or
:class:`~preemptible_sched.exception.ConfigProblems`) before anything is
written.
"""

import dataclasses
import os
import types
import typing

from oslo_config import cfg

from preemptible_sched.conf import CONF
from preemptible_sched import exception
from preemptible_sched import input_limits as limits
from preemptible_sched import objects
from preemptible_sched.service_classes import qos
from preemptible_sched.simulation import cell_workers
from preemptible_sched.simulation import experiment
from preemptible_sched.simulation import infrastructure
from preemptible_sched.simulation import replay
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

    def sources(self):
        """``(label, path)`` of the files that configured the experiment,
        for report.html: the definition and its configurations, or the
        configuration files given.
        """
        definition = self.definition
        if definition is None:
            return [(path, path) for path in CONF.config_file or ()]
        return [(os.path.basename(definition.path), definition.path)] + [
            ('%s: %s' % (name, os.path.basename(path)), path)
            for name, path in sorted(
                (definition.configurations or {}).items())]


def check_policies(policies):
    """A dry run of each policy on no request: builds its scheduler, so
    a plugin or option the configuration gets wrong fails now.
    """
    host = objects.Host('preflight', vcpus=1, memory_mb=1)
    for policy in policies:
        runner.Simulation([], [host], until=0.0, policy=policy).run()


def _classes():
    """``(names, {name: SLO})`` of the configured service classes."""
    classes = qos.Classes()
    return ([cls.name for cls in classes],
            {cls.name: cls.slo for cls in classes})


# -- Options ----------------------------------------------------------------

def _workload_args(args, path):
    """What :func:`replay.load_workload` reads, for one workload."""
    return types.SimpleNamespace(
        workload=path, workload_format=args.workload_format,
        class_map=args.class_map, default_class=args.default_class,
        limit=args.limit, until=args.until)


def read_workloads(args):
    """``{stem: (path, items)}`` of every ``--workload`` in ``args``,
    each read and checked; two workloads may not share a stem (it names
    their output directory).
    """
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


def options_plan(args, policies, size_factors, seeds, jobs):
    """The :class:`Plan` the command's options describe, once their
    values are checked: the workloads read, the hosts given outright
    (``size_factors`` is ``[None]``) or sampled from ``--machines`` for
    every (workload, size factor, seed) with that seed, and each policy
    tried.
    """
    workloads = read_workloads(args)
    hosts = {}
    if size_factors == [None]:
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
    check_policies(policies)
    classes, slos = _classes()
    return Plan(workloads=workloads, policies=policies,
                size_factors=size_factors, seeds=seeds, hosts=hosts,
                classes=classes, slos=slos, jobs=jobs)


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
    classes, slos = _classes()
    return {'workloads': workloads, 'hosts': hosts,
            'classes': classes, 'slos': slos}


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
