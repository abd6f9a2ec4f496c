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

"""One replay of a workload, as ``simulate`` and each cell of
``experiment`` run it: read the workload and the hosts the options name,
check the service classes, run, summarise.
"""

import contextlib
import logging
import time

from preemptible_sched.conf import CONF
from preemptible_sched import exception
from preemptible_sched import input_limits as limits
from preemptible_sched.loop import request_ends
from preemptible_sched.loop import scheduler_loop
from preemptible_sched.service_classes import qos
from preemptible_sched.simulation import infrastructure
from preemptible_sched.simulation import metrics
from preemptible_sched.simulation import report
from preemptible_sched.simulation import run_progress
from preemptible_sched.simulation import runner
from preemptible_sched.simulation import sla_accounts
from preemptible_sched.simulation.traces import reading


def parse_class_map(text):
    if not text:
        return None
    mapping = {}
    for part in text.split(','):
        key, sep, value = part.partition('=')
        if not sep or not key.strip() or not value.strip():
            raise exception.InvalidInput(
                '--class-map', None, 'expected KEY=CLASS[,KEY=CLASS], '
                'got %r' % part)
        mapping[key.strip()] = value.strip()
    return mapping


def load_workload(args):
    if args.limit is not None:
        limits.integer(args.limit, '--limit', None, minimum=1)
    return reading.read_workload(
        args.workload, args.workload_format,
        class_map=parse_class_map(args.class_map),
        default_class=args.default_class, limit=args.limit,
        time_origin=CONF.replay.time_origin,
        task_submit=CONF.replay.task_submit,
        task_constraints=getattr(args, 'task_constraints', None),
        sample_users=CONF.replay.sample_users,
        sample_share=CONF.replay.sample_share,
        sample_seed=CONF.replay.sample_seed)


def load_hosts(args, items, size_factor, seed):
    """The hosts the arguments describe; exactly one way must be given."""
    ways = [name for name, given in (
        ('--infrastructure', args.infrastructure),
        ('--hosts', args.hosts is not None),
        ('--size-factor', size_factor is not None)) if given]
    if len(ways) != 1:
        raise exception.InvalidInput(
            'simulate', None, 'give exactly one of --infrastructure, '
            '--hosts with --host-flavor, or --size-factor with --machines '
            '(got %s)' % (', '.join(ways) or 'none'))
    if getattr(args, 'machine_attributes', None) and (
            size_factor is None or not args.machines):
        raise exception.InvalidInput('--machine-attributes', None,
                                     'goes with --size-factor and a Google '
                                     '--machines list')
    if args.infrastructure:
        return infrastructure.read_infrastructure(args.infrastructure)
    if args.hosts is not None:
        if not args.host_flavor:
            raise exception.InvalidInput('--host-flavor', None,
                                         'required with --hosts')
        return infrastructure.hosts_from_flavor(args.hosts,
                                                args.host_flavor)
    if not args.machines:
        raise exception.InvalidInput('--machines', None,
                                     'required with --size-factor')
    machines = infrastructure.read_machines(
        args.machines,
        attributes=getattr(args, 'machine_attributes', None))
    return infrastructure.size_from_workload(items, machines, size_factor,
                                             seed, until=args.until)


def check_classes(items, source):
    classes = qos.Classes()
    for item in items:
        classes.require(item.service_class, source,
                        'request %s: service_class' % item.id)
    return classes


def summarise(result, extra=None):
    """summary.json of a :class:`runner.Result`."""
    extra = dict(extra or {})
    if result.workflow_metrics is not None:
        extra['workflow_metrics'] = result.workflow_metrics
    extra.update({
        'requests': len(result.records),
        'hosts': result.hosts,
        'until_s': result.until,
        'events': result.events,
        'normal_acceptance': result.normal_acceptance,
        'never_placed': result.never_placed,
        'preemptible_cpu_hours_lost': result.preemptible_cpu_hours_lost,
        'slo_tolerance': CONF.qos.slo_tolerance,
        'gini_window_s': CONF.qos.gini_window_seconds,
        'utilisation': metrics.utilisation_series(result.utilisation,
                                                  end=result.until),
    })
    if result.invoices:
        extra['sla'] = sla_accounts.totals(result.invoices)
    return report.build_summary(
        result.policy, result.records, result.slos, result.preemptions,
        result.terminations, result.latencies_s, result.stage_time_ms,
        extra=extra, tolerance=CONF.qos.slo_tolerance,
        gini_window=CONF.qos.gini_window_seconds, until=result.until)


@contextlib.contextmanager
def quiet_decisions():
    """The loop logs every decision and every request that fails at INFO:
    thousands of lines on stderr that would bury the progress bar and the
    results. Only warnings while a simulation runs (everything with
    ``--debug``), as before after it.
    """
    loggers = [logging.getLogger(module.__name__)
               for module in (scheduler_loop, request_ends)]
    levels = [logger.level for logger in loggers]
    # debug is oslo.log's option: an experiment's workers do not have it.
    if not getattr(CONF, 'debug', False):
        for logger in loggers:
            logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels):
            logger.setLevel(level)


def simulate(args, items, hosts, policy, seed, progress=True):
    """Run one simulation; returns (result, summary).

    With ``progress``, a progress bar on stderr at a terminal, a summary
    line there otherwise (see :class:`run_progress.Progress`).
    """
    started = time.monotonic()
    simulation = runner.Simulation(items, hosts, until=args.until,
                                   seed=seed, policy=policy)
    with run_progress.Progress(
            len(items), enabled=None if progress else False,
            label=' '.join(filter(None, ('simulate', policy)))) as bar:
        simulation.on_event = bar.follow(simulation)
        with quiet_decisions():
            result = simulation.run()
        bar.update(len(items), result.until, result.events)
    summary = summarise(result, {
        'workload': args.workload, 'seed': seed,
        'wall_time_s': round(time.monotonic() - started, 3)})
    return result, summary
