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

"""What a simulation leaves behind: instances.csv, summary.json, plots.

:func:`write_outputs` is all or nothing: every file is first written into a
hidden staging directory beside the output directory, and moved in only
once all of them are complete, so a failure (bad input, a plot that cannot
be drawn, a full disk) leaves no partial result behind. ``summary.json`` is
moved last: once it is there, the run's other files are too.

The layouts are those of ``preemptible-sched simulate`` in interfaces.md.
What a run shows a person is in :mod:`.report_tables` (the tables) and
:mod:`.run_progress` (its progress on stderr).
"""

import csv
import json
import math
import operator
import os
import shutil

from preemptible_sched.loop import timing
from preemptible_sched.simulation import metrics
from preemptible_sched.simulation import plots as plotting
from preemptible_sched.simulation import sla_accounts
from preemptible_sched.simulation import staging as staging_mod
from preemptible_sched.simulation import workflows

INSTANCES_FILE = 'instances.csv'
JOBS_FILE = 'jobs.csv'
STAGES_FILE = 'stages.csv'
SUMMARY_FILE = 'summary.json'
AVAILABILITY_BY_INSTANCE_FILE = 'availability_by_instance.png'
AVAILABILITY_CDF_FILE = 'availability_cdf.png'
SLA_GANTT_FILE = 'sla_gantt.png'
INVOICES_FILE = 'invoices.csv'
UTILISATION_FILE = 'utilisation.png'

_TEXT, _FLOAT, _INT, _BOOL = 'text', 'float', 'int', 'bool'

#: The columns of instances.csv, in order, with the kind of their values.
INSTANCE_COLUMNS = (
    ('id', _TEXT),
    ('service_class', _TEXT),
    ('preemptible', _BOOL),
    ('submit_s', _FLOAT),
    ('end_s', _FLOAT),
    ('running_s', _FLOAT),
    ('pending_s', _FLOAT),
    ('overhead_s', _FLOAT),
    ('availability', _FLOAT),
    ('preemptions', _INT),
    ('terminated', _BOOL),
    ('host', _TEXT),
    ('user', _TEXT),
    ('cores', _FLOAT),
    ('copies', _TEXT),
    ('start_s', _FLOAT),
    ('reason', _TEXT),
)

#: The kind of the values of each column of jobs.csv.
_JOB_KINDS = dict.fromkeys(workflows.JOB_COLUMNS, _FLOAT)
_JOB_KINDS.update(job=_TEXT, tasks=_INT, njsl=_INT)

#: What ``plot_data`` of :func:`write_outputs` may hold.
PLOT_DATA_KEYS = frozenset(['runs', 'slos', 'utilisation'])


def build_summary(policy, records, slos, preemptions, terminations,
                  latencies_s, stage_time_ms, extra=None,
                  tolerance=metrics.SLO_TOLERANCE, gini_window=None,
                  until=None):
    """The content of summary.json.

    ``slos`` maps a class name to its SLO; ``latencies_s`` are the
    scheduling latencies of the decisions, in seconds; ``stage_time_ms``
    maps a pipeline stage to its time; ``tolerance`` is how far below
    its SLO an availability still fulfils it; ``gini_window`` the window
    of the windowed Gini, ``until`` the end of the run (see
    :func:`metrics.class_summary`). ``extra`` adds run-wide figures
    (acceptance, utilisation, ...); it may not replace a standard key.
    """
    summary = {
        'policy': policy,
        'per_class': metrics.class_summary(records, slos, tolerance,
                                           gini_window, until),
        'preemptions': preemptions,
        'terminations': terminations,
        'scheduling_latency_ms': metrics.percentiles_ms(latencies_s),
        'stage_time_ms': dict(stage_time_ms),
    }
    clash = sorted(set(extra or ()) & set(summary))
    if clash:
        raise ValueError('extra summary keys replace standard ones: %s'
                         % ', '.join(clash))
    summary.update(extra or {})
    return summary


def write_outputs(directory, records, summary, plots=True, plot_data=None,
                  stages=None, invoices=None, jobs=None):
    """Write a run's results into ``directory``, all or nothing.

    Writes instances.csv (one row per record), summary.json (indented,
    keys sorted) and, when ``plots`` is true and matplotlib is installed,
    the figures. ``plot_data`` may hold ``runs`` (policy -> records, for
    the availability figure; default: this run alone), ``slos`` (class ->
    SLO; default: those in ``summary['per_class']``) and ``utilisation``
    (``(t, cpu_fraction, memory_fraction)`` tuples; no utilisation figure
    without it). ``stages``, if given, are the per-pass stage rows of
    :meth:`~preemptible_sched.loop.timing.StageStats.rows`, written to
    stages.csv. ``invoices`` (rows of
    :data:`~.sla_accounts.INVOICE_COLUMNS`), if any, are written to
    invoices.csv, and the SLA requests are drawn in sla_gantt.png.
    ``jobs``, if given, are the per-job rows of
    :func:`~preemptible_sched.simulation.workflows.workflow_metrics`,
    written to jobs.csv.

    ``directory`` is created if missing; files of an earlier run not
    rewritten stay. The files are written in a hidden staging directory
    first (:mod:`.staging`: those a killed run left are removed here).
    Raises on bad input (a NaN, an unknown ``plot_data`` key, ...) with
    nothing written. Returns the names of the files written.
    """
    records = list(records)
    plot_data = dict(plot_data or {})
    unknown = sorted(set(plot_data) - PLOT_DATA_KEYS)
    if unknown:
        raise ValueError('unknown plot data: %s' % ', '.join(unknown))

    directory = os.path.abspath(directory)
    staging = staging_mod.make(directory)
    try:
        _write_instances(os.path.join(staging, INSTANCES_FILE), records)
        if stages is not None:
            _write_stages(os.path.join(staging, STAGES_FILE), stages)
        if invoices:
            _write_invoices(os.path.join(staging, INVOICES_FILE), invoices)
        if jobs:
            _write_jobs(os.path.join(staging, JOBS_FILE), jobs)
        if plots and plotting.available():
            _write_plots(staging, records, summary, plot_data)
            if invoices:
                policy = summary.get('policy') or 'run'
                plotting.sla_gantt(os.path.join(staging, SLA_GANTT_FILE),
                                   records, 'SLA requests (policy %s)'
                                   % policy)
        _write_summary(os.path.join(staging, SUMMARY_FILE), summary)
        os.makedirs(directory, exist_ok=True)
        names = sorted(os.listdir(staging),
                       key=lambda name: (name == SUMMARY_FILE, name))
        for name in names:
            os.replace(os.path.join(staging, name),
                       os.path.join(directory, name))
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return sorted(names)


def _write_instances(path, records):
    with open(path, 'w', newline='') as stream:
        writer = csv.writer(stream, lineterminator='\n')
        writer.writerow([name for name, _kind in INSTANCE_COLUMNS])
        for record in records:
            writer.writerow([_format(getattr(record, name), kind, name)
                             for name, kind in INSTANCE_COLUMNS])


def _write_invoices(path, invoices):
    with open(path, 'w', newline='') as stream:
        writer = csv.writer(stream, lineterminator='\n')
        writer.writerow(sla_accounts.INVOICE_COLUMNS)
        for row in invoices:
            writer.writerow([_format(value, _FLOAT if isinstance(
                value, float) else _TEXT, column) for column, value in zip(
                    sla_accounts.INVOICE_COLUMNS, row)])


def _write_stages(path, rows):
    with open(path, 'w', newline='') as stream:
        writer = csv.writer(stream, lineterminator='\n')
        writer.writerow(timing.COLUMNS + ('stage_name',))
        for number, at, stage, iterations, size, wall, cpu in rows:
            writer.writerow([number, '%.6f' % at, stage, iterations, size,
                             '%.6f' % wall, '%.6f' % cpu,
                             timing.STAGE_NAMES.get(stage, stage)])


def _write_jobs(path, rows):
    with open(path, 'w', newline='') as stream:
        writer = csv.writer(stream, lineterminator='\n')
        writer.writerow(workflows.JOB_COLUMNS)
        for row in rows:
            writer.writerow([_format(row[name], _JOB_KINDS[name], name)
                             for name in workflows.JOB_COLUMNS])


def _format(value, kind, column):
    """A CSV cell: empty for None, true/false, floats to 6 decimals."""
    if value is None:
        return ''
    if kind == _BOOL:
        if value not in (True, False):
            raise ValueError('%s: not a boolean: %r' % (column, value))
        return 'true' if value else 'false'
    if kind == _INT:
        return str(operator.index(value))
    if kind == _FLOAT:
        value = float(value)
        if not math.isfinite(value):
            raise ValueError('%s: not a finite number: %r' % (column, value))
        text = ('%.6f' % value).rstrip('0').rstrip('.')
        return '0' if text == '-0' else text
    return str(value)


def _write_summary(path, summary):
    # allow_nan=False: NaN is not JSON, and a NaN metric is a bug to see.
    text = json.dumps(summary, indent=2, sort_keys=True, allow_nan=False)
    with open(path, 'w') as stream:
        stream.write(text + '\n')


def _write_plots(directory, records, summary, plot_data):
    slos = plot_data.get('slos')
    if slos is None:
        slos = {name: entry['slo']
                for name, entry in summary.get('per_class', {}).items()
                if entry.get('slo') is not None}
    policy = summary.get('policy') or 'run'
    runs = plot_data.get('runs') or {policy: records}
    # One mapping for every figure: a class has one colour in all of them.
    groups = set().union(plotting.record_groups(records),
                         *(plotting.record_groups(run)
                           for run in runs.values()))
    colours = plotting.class_colours(groups)
    if plotting.has_classes(groups):
        # Availability per class means nothing in a run without classes
        # (a workflow trace, SLA requests).
        plotting.availability_by_instance(
            os.path.join(directory, AVAILABILITY_BY_INSTANCE_FILE), runs,
            slos, colours=colours)
        plotting.availability_cdf(
            os.path.join(directory, AVAILABILITY_CDF_FILE), records, slos,
            'Availability per class (policy %s)' % policy, colours=colours)
    if plot_data.get('utilisation') is not None:
        plotting.utilisation_over_time(
            os.path.join(directory, UTILISATION_FILE),
            plot_data['utilisation'])
