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

"""comparison.md: an experiment's rows for people.

:func:`comparison_tables` are the tables (:class:`.report_tables.Table`)
of the :class:`.experiment.ComparisonRow`: availability per class,
operations, workflows and time per scheduling stage, with readable headers
and units, ``mean ± h`` in a cell (h the half-width of the 95 %
confidence interval of the mean); :func:`paired_table` those of the
:class:`.experiment.PairedRow`. :func:`write_comparison_md` writes them
in Markdown under :func:`comparison_intro`; ``preemptible-sched
experiment`` prints the first two at the terminal.
"""

from preemptible_sched.simulation import experiment
from preemptible_sched.simulation import plots
from preemptible_sched.simulation import report_tables

#: Headers of the run-wide metrics in comparison.md, with their units, and
#: how their values are shown.
RUN_METRIC_HEADERS = {
    'preemptions': ('Preemptions', report_tables.count),
    'terminations': ('Terminations', report_tables.count),
    'latency_p99_ms': ('Scheduling latency p99 (ms)',
                       lambda value: report_tables.number(value, 2)),
    'wall_time_s': ('Wall time of a run (s)',
                    lambda value: report_tables.number(value, 1)),
}

#: Headers of the workflow metrics in comparison.md.
WORKFLOW_METRIC_HEADERS = {
    'jms_mean_s': ('Job makespan JMS (s)',
                   lambda value: report_tables.number(value, 0)),
    'jwt_mean_s': ('Job waiting time JWT (s)',
                   lambda value: report_tables.number(value, 0)),
    'trt_mean_s': ('Task response time TRT (s)',
                   lambda value: report_tables.number(value, 0)),
    'njsl_mean': ('NJSL', lambda value: report_tables.number(value, 2)),
}


def _cell(mean, spread, show):
    """``mean ± spread`` as ``show`` formats them (no spread: the mean
    alone); ``n/a`` without a mean.
    """
    if mean is None:
        return 'n/a'
    text = show(mean)
    if spread is not None:
        text += ' ± ' + show(spread)
    return text


def _estimate(row, column):
    """``(mean, 95 % half-width)`` of a metric column of ``row``."""
    return row.values[column][0], row.ci95.get(column)


def _varying(rows):
    """Whether the rows span several workloads, and several size
    factors: the tables have those columns only then.
    """
    return (len({row.workload for row in rows}) > 1,
            len({row.size_factor for row in rows}) > 1)


def _keys(row, varying):
    many_workloads, many_levels = varying
    return (([row.workload] if many_workloads else []) +
            ([row.level] if many_levels else []))


def _key_headers(varying):
    many_workloads, many_levels = varying
    return ((['Workload'] if many_workloads else []) +
            (['Size factor (× peak demand)'] if many_levels else []))


def comparison_intro(rows, replication='seeds'):
    """What every row of the comparison tables stands for; the
    ``replication`` (``seeds`` or ``workloads``) it is the mean over.
    """
    workloads = list(dict.fromkeys(row.workload for row in rows))
    levels = list(dict.fromkeys(row.level for row in rows))
    seeds = sorted({row.seeds for row in rows})
    hosts = ('hosts given outright' if levels == [experiment.FIXED] else
             'clouds of %s × the peak demand' % ', '.join(
                 level for level in levels if level != experiment.FIXED))
    noun = 'seeds' if replication == 'seeds' else 'runs (workloads x seeds)'
    what = ('the mean over %s %s ± the half-width of its 95 %% '
            'confidence interval (Student t)'
            % ('/'.join(map(str, seeds)), noun) if seeds != [1]
            else 'one run (one seed)')
    return ('Workload%s %s, %s; each row is %s.' % (
        's' if len(workloads) > 1 else '', ', '.join(workloads), hosts,
        what))


def comparison_tables(rows, classes):
    """The comparison for people (:class:`report_tables.Table`): the
    workflows first when the runs have them, availability per class when
    they have classes, operations, and time per scheduling stage.

    Rows of the per-class table are grouped by class, so that the
    policies of a class come one under the other; classes come in the
    order of ``classes`` (see :func:`.experiment.ordered_classes`).
    """
    varying = _varying(rows)
    keys = _key_headers(varying)
    class_rows = []
    for group in dict.fromkeys((row.workload, row.size_factor)
                               for row in rows):
        members = [row for row in rows
                   if (row.workload, row.size_factor) == group]
        for name in classes:
            for row in members:
                if row.requests.get(name) is None:
                    continue
                cells = _keys(row, varying) + [
                    plots.label(name), row.policy,
                    report_tables.number(row.requests[name], 0),
                    report_tables.percent(row.slos.get(name))]
                for key, _header, show in report_tables.CLASS_COLUMNS[1:]:
                    cells.append(_cell(
                        *_estimate(row, '%s_%s' % (name, key)), show))
                class_rows.append(cells)
    operations = [
        _keys(row, varying) + [row.policy] + [
            _cell(*_estimate(row, column), show)
            for column, (_header, show) in RUN_METRIC_HEADERS.items()]
        for row in rows]
    tables = []
    if report_tables.has_classes(
            name for name in classes
            if any(row.requests.get(name) is not None for row in rows)):
        tables.append(report_tables.Table(
            'Availability per class',
            keys + ['Class', 'Policy', 'Requests'] +
            [header for _key, header, _show in report_tables.CLASS_COLUMNS],
            class_rows,
            ['left'] * (len(keys) + 2) +
            ['right'] * (1 + len(report_tables.CLASS_COLUMNS)),
            report_tables.CLASS_NOTE))
    tables.append(report_tables.Table(
        'Operations',
        keys + ['Policy'] + [header for header, _show
                             in RUN_METRIC_HEADERS.values()],
        operations,
        ['left'] * (len(keys) + 1) + ['right'] * len(RUN_METRIC_HEADERS),
        'Per run: preemptions and terminations made, the 99th '
        'percentile of the time one scheduling decision took, and the '
        'wall time of the whole run.'))
    if experiment.has_workflows(rows):
        # What a workflow run is for comes first.
        tables.insert(0, report_tables.Table(
            'Workflows',
            keys + ['Policy'] + [header for header, _show
                                 in WORKFLOW_METRIC_HEADERS.values()] +
            ['JMS 95 % CI (s)'],
            [_keys(row, varying) + [row.policy] + [
                _cell(*_estimate(row, column), show)
                for column, (_header, show)
                in WORKFLOW_METRIC_HEADERS.items()] + [
                _interval(row.values['jms_mean_s'][0],
                          row.ci95.get('jms_mean_s'),
                          WORKFLOW_METRIC_HEADERS['jms_mean_s'][1])]
             for row in rows],
            ['left'] * (len(keys) + 1) +
            ['right'] * (len(WORKFLOW_METRIC_HEADERS) + 1),
            'Per job (workflow), the mean over the jobs of a run: makespan '
            'JMS, waiting time JWT, normalised schedule length NJSL; per '
            'task the response time TRT. Mean ± the half-width of its '
            '95 % confidence interval over the replications; the '
            'interval of the mean JMS is spelt out.'))
    codes = report_tables.stage_order({code for row in rows
                                       for code in row.stages})
    if codes:
        policies = list(dict.fromkeys(row.policy for row in rows))
        stage_rows = []
        for group in dict.fromkeys((row.workload, row.size_factor)
                                   for row in rows):
            members = {row.policy: row for row in rows
                       if (row.workload, row.size_factor) == group}
            some = next(iter(members.values()))
            for code in codes:
                cells = _keys(some, varying) + [
                    report_tables.stage_label(code)]
                for policy in policies:
                    row = members.get(policy)
                    mean, std = (row.stages.get(code, (None, None))
                                 if row else (None, None))
                    cells.append(_cell(
                        mean, std,
                        lambda value: report_tables.number(value, 3)))
                stage_rows.append(cells)
        tables.append(report_tables.Table(
            'Scheduling time per stage (ms per pass)',
            keys + ['Stage'] + ['%s (ms)' % policy for policy in policies],
            stage_rows,
            ['left'] * (len(keys) + 1) + ['right'] * len(policies),
            report_tables.STAGE_NOTE + ' Mean ± the sample standard '
            'deviation over the replications: machine time, which the '
            'policy does not fix.'))
    return tables


def _interval(mean, half_width, show):
    """``[low, high]`` as ``show`` formats them; empty without one."""
    if mean is None or half_width is None:
        return ''
    return '[%s, %s]' % (show(mean - half_width), show(mean + half_width))


def _metric_label(name, classes):
    """A metric column as people read it: ``gold: SLO fulfilment (%)``."""
    headers = dict(RUN_METRIC_HEADERS, **WORKFLOW_METRIC_HEADERS)
    if name in headers:
        return headers[name][0]
    for cls in classes:
        for key, header, _show in report_tables.CLASS_COLUMNS:
            if name == '%s_%s' % (cls, key):
                return '%s: %s' % (plots.label(cls), header)
    return name


def _supported(difference):
    """``yes`` when the 95 % interval of a mean difference excludes 0
    (the replications support a difference), ``no`` when it holds 0, empty
    without an interval.
    """
    if difference.ci95 is None:
        return ''
    return 'yes' if difference.low > 0 or difference.high < 0 else 'no'


def paired_table(rows, classes):
    """:class:`report_tables.Table` of the paired differences (raw units:
    the availability metrics are fractions here, as in comparison.csv).
    """
    many_workloads = len({row.workload for row in rows}) > 1
    many_levels = len({row.size_factor for row in rows}) > 1

    def show(value):
        return '' if value is None else report_tables.number(value, 4)

    cells = [
        ([row.workload] if many_workloads else []) +
        ([experiment.level_label(row.size_factor)] if many_levels else []) +
        [row.policy, _metric_label(row.metric, classes),
         str(row.difference.n), show(row.difference.mean),
         show(row.difference.std),
         '' if row.difference.ci95 is None else '[%s, %s]' % (
             show(row.difference.low), show(row.difference.high)),
         _supported(row.difference)]
        for row in rows]
    keys = ((['Workload'] if many_workloads else []) +
            (['Size factor (× peak demand)'] if many_levels else []))
    baseline = rows[0].baseline if rows else ''
    return report_tables.Table(
        'Paired differences against %s' % baseline,
        keys + ['Policy', 'Metric', 'Pairs', 'Mean difference',
                'Std of the differences', '95 % CI of the mean',
                'Excludes 0'],
        cells, ['left'] * (len(keys) + 2) + ['right'] * 4 + ['left'],
        'Policy minus %s on the same replication (same seed, same hosts, '
        'same workload), then mean, sample standard deviation and 95 %% '
        'confidence interval (Student t) over the pairs; an interval '
        'that excludes 0 is a difference the replications support. Values '
        'in the units of comparison.csv (fractions for availability and '
        'fulfilment).' % baseline)


def write_comparison_md(path, rows, classes, paired=None,
                        replication='seeds'):
    """comparison.md: :func:`comparison_tables` in Markdown, ``mean ±
    h`` in a cell, under a title and :func:`comparison_intro`; with
    ``paired`` (:class:`.experiment.PairedRow`), their table last. Returns
    the tables.
    """
    tables = comparison_tables(rows, classes)
    if paired:
        tables.append(paired_table(paired, classes))
    text = '# Policy comparison\n\n%s\n\n%s' % (
        comparison_intro(rows, replication),
        report_tables.render_markdown(tables))
    with open(path, 'w') as stream:
        stream.write(text)
    return tables
