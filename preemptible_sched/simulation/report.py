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

"""What a simulation leaves behind: instances.csv, summary.json, plots;
and what it shows a person: tables and progress.

:func:`write_outputs` is all or nothing: every file is first written into a
hidden staging directory beside the output directory, and moved in only
once all of them are complete, so a failure (bad input, a plot that cannot
be drawn, a full disk) leaves no partial result behind. ``summary.json`` is
moved last: once it is there, the run's other files are too.

The layouts are those of ``preemptible-sched simulate`` in interfaces.md.

The tables (:func:`run_tables`, rendered by :func:`render_text` for a
terminal or :func:`render_markdown`) name every metric in words with its
unit, and every stage with its code and name (``T2 queue order
(J3/T2)``). :class:`Progress` reports a long run on stderr: a bar at a
terminal, one summary line elsewhere.
"""

import csv
import dataclasses
import json
import math
import operator
import os
import shutil
import sys
import time

from preemptible_sched import extras
from preemptible_sched.loop import timing
from preemptible_sched.simulation import metrics
from preemptible_sched.simulation import plots as plotting
from preemptible_sched.simulation import sla_accounts
from preemptible_sched.simulation import staging as staging_mod
from preemptible_sched.simulation import workflows

tabulate = extras.optional_module('tabulate')
tqdm = extras.optional_module('tqdm')

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
    colours = plotting.class_colours(set().union(
        plotting.record_groups(records),
        *(plotting.record_groups(run) for run in runs.values())))
    plotting.availability_by_instance(
        os.path.join(directory, AVAILABILITY_BY_INSTANCE_FILE), runs, slos,
        colours=colours)
    plotting.availability_cdf(
        os.path.join(directory, AVAILABILITY_CDF_FILE), records, slos,
        'Availability per class (policy %s)' % policy, colours=colours)
    if plot_data.get('utilisation') is not None:
        plotting.utilisation_over_time(
            os.path.join(directory, UTILISATION_FILE),
            plot_data['utilisation'])


# -- Tables for people -------------------------------------------------------

@dataclasses.dataclass
class Table:
    """A table for people: headers with units, cells already formatted.

    ``align`` holds ``'left'`` or ``'right'`` per column; ``note`` (may be
    empty) says what the columns mean, under the table.
    """

    title: str
    headers: list
    rows: list
    align: list
    note: str = ''


def render_markdown(tables):
    """``tables`` as Markdown: a ``##`` heading, the table, its note."""
    parts = []
    for table in tables:
        parts.append('## %s' % table.title)
        parts.append(tabulate.tabulate(
            table.rows, table.headers, tablefmt='pipe',
            colalign=table.align, disable_numparse=True))
        if table.note:
            parts.append(table.note)
    return '\n\n'.join(parts) + '\n'


def render_text(tables):
    """``tables`` for a terminal: the title, then the table."""
    parts = []
    for table in tables:
        parts.append('%s\n%s' % (table.title, tabulate.tabulate(
            table.rows, table.headers, tablefmt='simple',
            colalign=table.align, disable_numparse=True)))
    return '\n\n'.join(parts) + '\n'


def number(value, decimals=1, scale=1.0):
    """``value * scale`` to ``decimals`` places, thousands separated;
    ``n/a`` for None.
    """
    if value is None:
        return 'n/a'
    text = '{:,.{}f}'.format(value * scale, decimals)
    return text[1:] if text.startswith('-') and float(
        text[1:].replace(',', '')) == 0 else text


def count(value):
    """A count, or a mean of counts: ``2,569``, ``5.5``; ``n/a`` for
    None.
    """
    if value is None:
        return 'n/a'
    return number(value, 0 if float(value).is_integer() else 1)


def percent(value, decimals=1):
    """A share (0..1) in percent, without the sign (the header has it)."""
    return number(value, decimals, 100.0)


def stage_label(code):
    """A stage code with its name: ``T2 queue order (J3/T2)``."""
    name = timing.STAGE_NAMES.get(code)
    return '%s %s' % (code, name) if name else code


def stage_order(codes):
    """Stage codes in the order of a pass (:data:`timing.STAGES`), any
    unknown one after them by name.
    """
    order = [code for code, _name, _counts in timing.STAGES]
    return sorted(codes, key=lambda code: (
        order.index(code) if code in order else len(order), code))


def duration(seconds):
    """A span of simulated or wall time in the unit that reads best:
    ``45 s``, ``12.5 min``, ``5.3 h``, ``2.0 d``.
    """
    if seconds is None:
        return 'n/a'
    if seconds < 120:
        return '%.0f s' % seconds
    if seconds < 2 * 3600:
        return '%.1f min' % (seconds / 60.0)
    if seconds < 2 * 86400:
        return '%.1f h' % (seconds / 3600.0)
    return '%.1f d' % (seconds / 86400.0)


#: The per-class columns: (summary key, header, formatter).
CLASS_COLUMNS = (
    ('slo', 'SLO (%)', percent),
    ('mean_availability', 'Mean availability (%)', percent),
    ('slo_fulfillment', 'SLO fulfilment (%)', percent),
    ('slo_fulfillment_strict', 'Strict SLO fulfilment (%)', percent),
    ('qos_deficit', 'QoS deficit (pp)', percent),
    ('gini', 'Gini of availability', lambda value: number(value, 3)),
    ('gini_windowed', 'Gini, windowed', lambda value: number(value, 3)),
)

#: What the per-class columns mean, under their tables.
CLASS_NOTE = (
    'Availability: time running over time since submission. SLO '
    'fulfilment: share of the class\'s requests whose availability reaches '
    'the SLO (less `[qos] slo_tolerance`); strict: the SLO itself. QoS '
    'deficit: how far below the SLO the requests that miss it fall, on '
    'average, in percentage points. Gini: inequality of availability '
    'within the class (0 when equal); windowed: among the requests active '
    'in the same `[qos] gini_window_seconds`, averaged over the windows.')

#: What the stage times mean, under their tables.
STAGE_NOTE = (
    'Wall time the scheduler spent in each stage of its passes (codes of '
    'the reference architecture, as in `stages.csv`), per pass the stage '
    'ran in.')


def class_order(names):
    """``names`` in the order of the figures' legends (see
    :func:`plots.class_colours`).
    """
    return [name for name in plotting.class_colours(names) if name in names]


def run_tables(summary):
    """The tables ``simulate`` prints: availability per class, operations
    and the time per scheduling stage of one run's summary.json.
    """
    per_class = summary.get('per_class', {})
    class_rows = []
    for name in class_order(per_class):
        entry = per_class[name]
        requests = (entry.get('count') or 0) + (entry.get('unmeasured') or 0)
        class_rows.append([plotting.label(name), '{:,}'.format(requests)] +
                          [show(entry.get(key))
                           for key, _header, show in CLASS_COLUMNS])
    latency = summary.get('scheduling_latency_ms') or {}
    utilisation = summary.get('utilisation') or {}
    operations = [
        ('Preemptions', count(summary.get('preemptions'))),
        ('Terminations', count(summary.get('terminations'))),
        ('Requests never placed', count(summary.get('never_placed'))),
        ('Normal requests placed (%)',
         percent(summary.get('normal_acceptance'))),
        ('Preemptible work lost (vCPU h)',
         number(summary.get('preemptible_cpu_hours_lost'), 1)),
        ('Mean CPU in use (%)', percent(utilisation.get('cpu'))),
        ('Mean memory in use (%)', percent(utilisation.get('memory'))),
        ('Scheduling latency mean / p50 / p99 (ms)', ' / '.join(
            number(latency.get(key), 2) for key in ('mean', 'p50', 'p99'))),
        ('Simulated time', duration(summary.get('until_s'))),
        ('Simulated events', count(summary.get('events'))),
        ('Wall time (s)', number(summary.get('wall_time_s'), 1)),
    ]
    stages = summary.get('stage_time_ms') or {}
    stage_rows = [
        [stage_label(code), count(stages[code].get('passes')),
         number(stages[code].get('mean_ms'), 3),
         number(stages[code].get('max_ms'), 3),
         number(stages[code].get('total_ms'), 1)]
        for code in stage_order(stages)]
    tables = [
        Table('Availability per class',
              ['Class', 'Requests'] + [header for _key, header, _show
                                       in CLASS_COLUMNS],
              class_rows, ['left'] + ['right'] * (1 + len(CLASS_COLUMNS)),
              CLASS_NOTE),
        Table('Operations', ['Measure', 'Value'],
              [list(row) for row in operations
               if row[1] not in ('n/a', 'n/a / n/a / n/a')],
              ['left', 'right']),
    ]
    tables += sla_tables(summary.get('sla'))
    if stage_rows:
        tables.append(Table(
            'Scheduling time per stage',
            ['Stage', 'Passes', 'Mean per pass (ms)', 'Max in a pass (ms)',
             'Total (ms)'], stage_rows, ['left'] + ['right'] * 4,
            STAGE_NOTE))
    return tables


def sla_tables(totals):
    """The SLA requests per user and per class (summary.json's ``sla``),
    or no table.
    """
    if not totals:
        return []
    headers = ['Requests', 'Copies', 'Mean cores', 'Mean start (s)',
               'Mean wait (s)', 'Core-hours', 'Price']

    def rows(entries):
        return [[name or 'no user', count(entry['requests']),
                 count(entry['copies']), number(entry['mean_cores'], 2),
                 number(entry['mean_start_s'], 1),
                 number(entry['mean_wait_s'], 1),
                 number(entry['core_seconds'], 2, 1 / 3600.0),
                 number(entry['price'], 2)]
                for name, entry in entries.items()]
    align = ['left'] + ['right'] * len(headers)
    return [Table('SLA requests per user', ['User'] + headers,
                  rows(totals.get('per_user', {})), align,
                  'Start: when the first copy started; wait: from '
                  'submission to that start; price: the `[sla] price` '
                  'function over every copy\'s core-hours.'),
            Table('SLA requests per class', ['Class'] + headers,
                  rows(totals.get('per_class', {})), align,
                  'Class: the level of the reputation service.')]


# -- Progress ----------------------------------------------------------------

class Progress:
    """Progress of a long run, on stderr, for a human.

    At a terminal, a tqdm bar: the units done out of ``total`` (requests
    submitted, runs finished), the simulated time, the events and events
    per second, and an ETA, redrawn at most every :attr:`REDRAW_S`
    seconds of wall-clock time (this is UI, not simulation time).
    Elsewhere (a log, a pipe, a test), one summary line once the run has
    succeeded::

        simulate qos: 1,000 requests, 12,345 events in 3.2 s (3,858
        events/s), simulated 2.0 d

    ``enabled`` True forces the bar, False silences both, None (default)
    picks by whether ``stream`` is a terminal.
    """

    REDRAW_S = 0.5
    BAR, SUMMARY, OFF = 'bar', 'summary', 'off'

    def __init__(self, total, stream=None, label='simulate', enabled=None,
                 clock=time.monotonic, unit='requests'):
        self.stream = sys.stderr if stream is None else stream
        if enabled is None:
            isatty = getattr(self.stream, 'isatty', None)
            self.mode = self.BAR if isatty and isatty() else self.SUMMARY
        else:
            self.mode = self.BAR if enabled else self.OFF
        self.total = total
        self.label = label
        self.unit = unit
        self.done = 0
        self.simulated_s = None
        self.events = None
        self._clock = clock
        self._started = clock()
        self._drawn_at = None
        self._closed = False
        self._bar = None
        if self.mode == self.BAR:
            self._bar = tqdm.tqdm(
                total=total, desc=label, file=self.stream, leave=True,
                dynamic_ncols=True, mininterval=0, unit=unit,
                bar_format='{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/'
                '{total_fmt} ' + unit + ' [{elapsed} elapsed, ETA '
                '{remaining}{postfix}]')

    @property
    def enabled(self):
        """Whether the bar is drawn."""
        return self.mode == self.BAR

    def __enter__(self):
        return self

    def __exit__(self, exc_type, *exc_info):
        self.close(succeeded=exc_type is None)

    def follow(self, simulation):
        """An ``on_event`` callback for a :class:`runner.Simulation` that
        also reports its simulated time and events.
        """
        def on_event(submitted):
            self.update(submitted, simulation.clock.now(),
                        simulation.events)
        return on_event

    def update(self, done, simulated_s=None, events=None):
        """``done`` of ``total`` units are done; the simulated time and
        the events so far, if known.
        """
        self.done = done
        if simulated_s is not None:
            self.simulated_s = simulated_s
        if events is not None:
            self.events = events
        if self._bar is None or self._closed:
            return
        now = self._clock()
        if (self._drawn_at is not None and done < self.total and
                now - self._drawn_at < self.REDRAW_S):
            return
        self._drawn_at = now
        self._draw()

    def close(self, succeeded=True):
        """End the bar with the last state, or write the summary line
        (only if the run ``succeeded``).
        """
        if self._closed:
            return
        self._closed = True
        if self._bar is not None:
            self._draw()
            self._bar.close()
        elif self.mode == self.SUMMARY and succeeded:
            self.stream.write(self.summary() + '\n')
            self.stream.flush()

    def summary(self):
        """``label: 1,000 requests, 12,345 events in 3.2 s (3,858
        events/s), simulated 2.0 d`` (what is known of it).
        """
        wall = max(self._clock() - self._started, 0.0)
        text = '%s: %s %s' % (self.label, '{:,}'.format(self.done),
                              self.unit)
        if self.events is not None:
            text += ', %s events in %.1f s (%s events/s)' % (
                '{:,}'.format(self.events), wall,
                '{:,.0f}'.format(self.events / wall) if wall > 0 else 'n/a')
        else:
            text += ' in %.1f s' % wall
        if self.simulated_s is not None:
            text += ', simulated %s' % duration(self.simulated_s)
        return text

    def _details(self):
        details = []
        if self.simulated_s is not None:
            details.append('simulated %s' % duration(self.simulated_s))
        if self.events is not None:
            wall = self._clock() - self._started
            details.append('%s events/s' % (
                '{:,.0f}'.format(self.events / wall) if wall > 0
                else 'n/a'))
        return ', '.join(details)

    def _draw(self):
        self._bar.set_postfix_str(self._details(), refresh=False)
        delta = min(self.done, self.total) - self._bar.n
        if delta > 0:
            self._bar.update(delta)
        else:
            self._bar.refresh()
