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
:mod:`preemptible_sched.limits`, ``--output`` a directory that can be
created (not empty, not an existing file). A run that could not end (an
open-ended request without ``--until``) is refused once the workload and
the hosts are read, before anything runs. SIGTERM and Ctrl-C stop the run
with one line on stderr, nothing written (exit 143 and 130).
"""

import contextlib
import logging
import os
import signal
import sys
import time

from preemptible_sched.conf import CONF
from preemptible_sched import exception
from preemptible_sched import limits
from preemptible_sched.loop import scheduler_loop
from preemptible_sched import qos
from preemptible_sched.simulation import infrastructure
from preemptible_sched.simulation import metrics
from preemptible_sched.simulation import plots
from preemptible_sched.simulation import report
from preemptible_sched.simulation import runner
from preemptible_sched.simulation import sla_accounts
from preemptible_sched.simulation import workload

LOG = logging.getLogger(__name__)


def add_arguments(parser):
    """The options shared by ``simulate`` and ``experiment``."""
    parser.add_argument('--workload-format', default='auto',
                        choices=('auto',) + workload.FORMATS,
                        help='Format of the workload (default: from the '
                        'file name and header).')
    parser.add_argument('--class-map', metavar='KEY=CLASS[,KEY=CLASS]',
                        help='Map trace classes to service classes, e.g. '
                        '"LS=gold,BE=bronze" for the Alibaba QoS column, '
                        'queue numbers for SWF, priorities for Google '
                        '2011.')
    parser.add_argument('--default-class', metavar='CLASS',
                        help='Class of requests the trace gives none.')
    parser.add_argument('--limit', type=int, metavar='N',
                        help='Replay only the first N requests.')
    parser.add_argument('--infrastructure', metavar='FILE',
                        help='Hosts as the canonical CSV '
                        '(name,vcpus,memory_mb,disk_gb,attributes).')
    parser.add_argument('--hosts', type=int, metavar='N',
                        help='N identical hosts of --host-flavor.')
    parser.add_argument('--host-flavor', metavar='VCPUS:MEMORY_MB[:DISK_GB]',
                        help='Size of each host of --hosts.')
    parser.add_argument('--machines', metavar='FILE',
                        help='Machine list to sample hosts from with '
                        '--size-factor: an Alibaba node list, Google '
                        'machine_events or the canonical CSV.')
    parser.add_argument('--until', type=float, metavar='SECONDS',
                        help='End of the run (default: once every request '
                        'has ended).')
    parser.add_argument('--no-plots', action='store_true',
                        help='Do not draw the figures.')


def add_parser(subparsers):
    parser = subparsers.add_parser(
        'simulate', help='Replay a workload through the scheduler loop '
        'under a virtual clock.')
    parser.add_argument('--workload', required=True, metavar='FILE',
                        help='The workload trace.')
    add_arguments(parser)
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
    parser.add_argument('--seed', type=int, default=0,
                        help='Seed of the host sampling, the boot times '
                        'and the scheduler (default 0).')
    parser.add_argument('--output', required=True, metavar='DIR',
                        help='Directory for instances.csv, summary.json '
                        'and the plots.')
    parser.set_defaults(func=run)


#: Exit codes of a run stopped by SIGTERM and by Ctrl-C (SIGINT).
EXIT_TERMINATED, EXIT_INTERRUPTED = 128 + 15, 128 + 2


class Stopped(BaseException):
    """SIGTERM arrived: unwind (removing staging directories), then exit.

    A BaseException, like KeyboardInterrupt, so that no ``except
    Exception`` on the way swallows it.
    """


@contextlib.contextmanager
def stoppable():
    """Turn SIGTERM into :class:`Stopped` while the block runs.

    ``finally`` blocks then run (a staging directory is removed) instead
    of the process vanishing with them undone. A second SIGTERM kills as
    usual. Outside the main thread the block runs as it is.
    """
    def handler(signum, frame):
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        raise Stopped()

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:   # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def stopped_exit(command, kind):
    """Say on stderr that ``command`` stopped; the exit code."""
    sys.stderr.write('preemptible-sched: %s %s; nothing written\n' % (
        command, 'terminated (SIGTERM)' if kind is Stopped else
        'interrupted'))
    return EXIT_TERMINATED if kind is Stopped else EXIT_INTERRUPTED


def check_output(path, option='--output'):
    """``path`` if the results can go there: a directory, existing or not.

    Refused: an empty name (it would write into the current directory),
    an existing file that is not a directory, a NUL byte, and a path whose
    nearest existing ancestor is not a writable directory.
    """
    if not isinstance(path, str) or not path.strip():
        raise exception.InvalidInput(option, None, 'must name a directory '
                                     '(got an empty name)')
    if '\0' in path:
        raise exception.InvalidInput(option, None, 'contains a NUL byte')
    try:
        if os.path.lexists(path) and not os.path.isdir(path):
            raise exception.InvalidInput(
                option, None, '%s exists and is not a directory'
                % limits.one_line(path, 200))
        ancestor = os.path.dirname(os.path.abspath(path))
        while not os.path.lexists(ancestor):
            ancestor = os.path.dirname(ancestor)
        if not os.path.isdir(ancestor):
            raise exception.InvalidInput(
                option, None, '%s is not a directory'
                % limits.one_line(ancestor, 200))
        if not os.access(ancestor, os.W_OK | os.X_OK):
            raise exception.InvalidInput(
                option, None, 'cannot create %s: %s is not writable'
                % (limits.one_line(path, 200),
                   limits.one_line(ancestor, 200)))
    except (OSError, ValueError) as error:
        raise exception.InvalidInput(option, None, 'unusable path: %s'
                                     % limits.one_line(error, 200))
    return path


def check_options(args):
    """Check the numbers and paths among ``args`` before reading files.

    Every number must be finite and within its bound (see
    :mod:`preemptible_sched.limits`); raises InvalidInput naming the
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
    for option in ('workload', 'infrastructure', 'machines',
                   'machine_attributes', 'task_constraints'):
        value = getattr(args, option, None)
        if isinstance(value, str) and '\0' in value:
            raise exception.InvalidInput(
                '--%s' % option.replace('_', '-'), None,
                'contains a NUL byte')
    check_output(args.output)


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
    return workload.read_workload(
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
    """The loop logs every decision at INFO: thousands of lines on stderr
    that would bury the progress bar and the results. Only warnings while
    a simulation runs (everything with ``--debug``), as before after it.
    """
    logger = logging.getLogger(scheduler_loop.__name__)
    level = logger.level
    # debug is oslo.log's option: an experiment's workers do not have it.
    if not getattr(CONF, 'debug', False):
        logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        logger.setLevel(level)


def simulate(args, items, hosts, policy, seed, progress=True):
    """Run one simulation; returns (result, summary).

    With ``progress``, a progress bar on stderr at a terminal, a summary
    line there otherwise (see :class:`report.Progress`).
    """
    started = time.monotonic()
    simulation = runner.Simulation(items, hosts, until=args.until,
                                   seed=seed, policy=policy)
    with report.Progress(len(items), enabled=None if progress else False,
                         label=' '.join(filter(None, ('simulate', policy)))
                         ) as bar:
        simulation.on_event = bar.follow(simulation)
        with quiet_decisions():
            result = simulation.run()
        bar.update(len(items), result.until, result.events)
    summary = summarise(result, {
        'workload': args.workload, 'seed': seed,
        'wall_time_s': round(time.monotonic() - started, 3)})
    return result, summary


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
    try:
        with stoppable():
            return _run(args)
    except (Stopped, KeyboardInterrupt) as error:
        return stopped_exit('simulate', type(error))


def _run(args):
    check_options(args)
    items = load_workload(args)
    check_classes(items, args.workload)
    hosts = load_hosts(args, items, args.size_factor, args.seed)
    args.until = runner.check_run(items, args.until)
    result, summary = simulate(args, items, hosts, args.policy, args.seed)
    write_outputs(
        args.output, result.records, summary, plots=not args.no_plots,
        plot_data={'utilisation': metrics.utilisation_fractions(
            result.utilisation)}, stages=result.stage_rows,
        invoices=[priced.row() for priced in result.invoices],
        jobs=result.jobs)
    if not args.no_plots and not plots.available():
        sys.stderr.write(plots.skipped_note() + '\n')
    sys.stdout.write(report.render_text(report.run_tables(summary)))
    sys.stdout.write('\n%s: %d requests on %d hosts, policy %s, %d '
                     'preemptions, %s simulated; results in %s\n' % (
                         args.workload, len(items), len(hosts),
                         summary['policy'], summary['preemptions'],
                         report.duration(summary['until_s']), args.output))
    return 0
