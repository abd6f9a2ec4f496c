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

"""Tables for people: what ``simulate`` and ``experiment`` show a person.

The tables (:func:`run_tables`, rendered by :func:`render_text` for a
terminal or :func:`render_markdown`) name every metric in words with its
unit, and every stage with its code and name (``T2 queue order
(J3/T2)``); :func:`number`, :func:`count`, :func:`percent` and
:func:`duration` format their cells.
"""

import dataclasses

from preemptible_sched import extras
from preemptible_sched.loop import timing
from preemptible_sched.simulation import metrics
from preemptible_sched.simulation import plots

tabulate = extras.optional_module('tabulate')


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
    return [name for name in plots.class_colours(names) if name in names]


def run_tables(summary):
    """The tables ``simulate`` prints: availability per class, operations
    and the time per scheduling stage of one run's summary.json.
    """
    per_class = summary.get('per_class', {})
    class_rows = []
    for name in class_order(per_class):
        entry = per_class[name]
        requests = (entry.get('count') or 0) + (entry.get('unmeasured') or 0)
        class_rows.append([plots.label(name), '{:,}'.format(requests)] +
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
    # What the run is for first: its workflows, its SLA requests, or its
    # classes; availability per class only where there are classes.
    tables = workflow_tables(summary.get('workflow_metrics'))
    tables += sla_tables(summary.get('sla'))
    if has_classes(per_class):
        tables.append(Table(
            'Availability per class',
            ['Class', 'Requests'] + [header for _key, header, _show
                                     in CLASS_COLUMNS],
            class_rows, ['left'] + ['right'] * (1 + len(CLASS_COLUMNS)),
            CLASS_NOTE))
    tables.append(Table('Operations', ['Measure', 'Value'],
                        [list(row) for row in operations
                         if row[1] not in ('n/a', 'n/a / n/a / n/a')],
                        ['left', 'right']))
    if stage_rows:
        tables.append(Table(
            'Scheduling time per stage',
            ['Stage', 'Passes', 'Mean per pass (ms)', 'Max in a pass (ms)',
             'Total (ms)'], stage_rows, ['left'] + ['right'] * 4,
            STAGE_NOTE))
    return tables


def has_classes(names):
    """Whether ``names`` (of the classes in a summary) hold a class:
    records of no class (``'none'``) do not count.
    """
    return any(name != metrics.NO_CLASS for name in names)


#: The workflow measures: (summary key, label, formatter).
WORKFLOW_MEASURES = (
    ('jobs', 'Jobs (workflows)', count),
    ('unfinished_jobs', 'Jobs not finished', count),
    ('tasks', 'Tasks', count),
    ('jms_mean_s', 'Mean job makespan JMS (s)', lambda v: number(v, 1)),
    ('jwt_mean_s', 'Mean job waiting time JWT (s)', lambda v: number(v, 1)),
    ('njsl_mean', 'Mean normalised job schedule length NJSL',
     lambda v: number(v, 3)),
    ('njsl_critical_path_mean', 'Mean NJSL over the critical path',
     lambda v: number(v, 3)),
    ('trt_mean_s', 'Mean task response time TRT (s)',
     lambda v: number(v, 1)),
)


def workflow_tables(measures):
    """The workflow measures of one run (summary.json's
    ``workflow_metrics``), or no table.
    """
    if not measures:
        return []
    return [Table('Workflows', ['Measure', 'Value'],
                  [[label, show(measures.get(key))]
                   for key, label, show in WORKFLOW_MEASURES],
                  ['left', 'right'],
                  'Per job (workflow), the mean over the jobs: makespan '
                  'JMS from its first submission to its last task\'s end, '
                  'waiting time JWT from its first submission to its first '
                  'start, NJSL as the SC18 artifact computes it (JMS over '
                  'the time from first start to last end, whole seconds) '
                  'and over the job\'s critical path; per task the '
                  'response time TRT.')]


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
