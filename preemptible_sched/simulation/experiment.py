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

"""A factorial experiment: workloads x policies x size factors x seeds.

Every combination is a *cell*, one simulation run (see :mod:`.runner`).
The hosts of a cell depend on its workload, size factor and seed only, not
on its policy: the policies of a (workload, size factor, seed) are compared
side by side on the same hosts. With hosts given outright (``--hosts`` or
``--infrastructure``) the size factor axis has the single level
:data:`FIXED`.

The seeds are replications: :func:`aggregate` folds the cells of a
(workload, size factor, policy) into one row of means over the seeds and,
with more than one seed, sample standard deviations (n - 1). A statistic a
cell does not have (a class absent from its workload, a fulfilment without
an SLO) is left out of that row's mean, not counted as zero.

Layout of the output directory::

    <workload-stem>/<policy>/<level>/seed<seed>/instances.csv
                                               /summary.json
    comparison.csv      one row per (workload, size factor, policy)
    comparison.md       the same for people: availability per class,
                        operations and time per scheduling stage, in
                        Markdown tables with readable headers and units
    paired.csv          with a definition: each policy minus the
                        baseline on the same replication, per row and
                        metric (:func:`paired_differences`)
    availability_<stem>_<level>.png   one panel per policy (first seed)
    fulfilment_<stem>.png             SLO fulfilment vs size factor

where ``<level>`` is ``sf<factor>`` (``sf0.9``) or ``fixed``.

:func:`staged_output` makes the whole directory all or nothing, as
:func:`.report.write_outputs` does for one run: everything is written into
a hidden directory beside it and moved in at the end, ``comparison.csv``
last.

Nothing here runs a simulation: :mod:`.cells` runs the cells (for
``preemptible-sched experiment``) and hands their summaries to these.
"""

import contextlib
import csv
import dataclasses
import os
import shutil
import typing

from preemptible_sched.simulation import metrics
from preemptible_sched.simulation import plots
from preemptible_sched.simulation import replications
from preemptible_sched.simulation import report_tables
from preemptible_sched.simulation import staging

#: The size factor level of hosts given outright.
FIXED = 'fixed'

COMPARISON_CSV = 'comparison.csv'
COMPARISON_MD = 'comparison.md'

#: Per class, from ``summary['per_class'][class]``.
CLASS_METRICS = ('mean_availability', 'slo_fulfillment',
                 'slo_fulfillment_strict', 'qos_deficit', 'gini',
                 'gini_windowed')

#: Run-wide, as (column, path of keys in summary.json).
RUN_METRICS = (('preemptions', ('preemptions',)),
               ('terminations', ('terminations',)),
               ('latency_p99_ms', ('scheduling_latency_ms', 'p99')),
               ('wall_time_s', ('wall_time_s',)))

#: The SC18 workflow metrics, from ``summary['workflow_metrics']``: in
#: the comparison only when some cell has workflows.
WORKFLOW_METRICS = (('jms_mean_s', ('workflow_metrics', 'jms_mean_s')),
                    ('jwt_mean_s', ('workflow_metrics', 'jwt_mean_s')),
                    ('trt_mean_s', ('workflow_metrics', 'trt_mean_s')),
                    ('njsl_mean', ('workflow_metrics', 'njsl_mean')))

KEY_COLUMNS = ('workload', 'size_factor', 'policy', 'seeds')

PAIRED_CSV = 'paired.csv'
PAIRED_COLUMNS = ('workload', 'size_factor', 'policy', 'baseline', 'metric',
                  'pairs', 'mean_difference', 'std_difference',
                  'ci95_low', 'ci95_high')

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


def level_label(size_factor):
    """``'0.9'`` for a size factor of 0.9, :data:`FIXED` for None."""
    return FIXED if size_factor is None else repr(float(size_factor))


def level_name(size_factor):
    """The level in file names: ``sf0.9``, or ``fixed``."""
    if size_factor is None:
        return FIXED
    return 'sf' + level_label(size_factor)


def workload_stem(path):
    """``trace`` for ``/data/trace.csv`` or ``trace.swf.gz``."""
    name = os.path.basename(path)
    if name.endswith('.gz'):
        name = name[:-len('.gz')]
    return os.path.splitext(name)[0] or name


@dataclasses.dataclass(frozen=True)
class Cell:
    """One run of the design; ``size_factor`` None means fixed hosts."""

    workload: str
    policy: str
    size_factor: typing.Optional[float]
    seed: int

    @property
    def path(self):
        """Its directory, relative to the output directory."""
        return os.path.join(self.workload, self.policy,
                            level_name(self.size_factor),
                            'seed%d' % self.seed)

    @property
    def group(self):
        """The (workload, size factor, policy) it is aggregated in."""
        return self.workload, self.size_factor, self.policy


def design(workloads, policies, size_factors, seeds):
    """Every cell of the full factorial design.

    The policies of one (workload, size factor, seed) come next to each
    other, so that a run stopped early has compared them on its first
    hosts.
    """
    return [Cell(workload, policy, size_factor, seed)
            for workload in workloads
            for size_factor in size_factors
            for seed in seeds
            for policy in policies]


def ordered_classes(configured, summaries):
    """The configured classes, then any other seen in ``summaries``.

    Others come by name; records of no class (``'none'``) last.
    """
    seen = set()
    for summary in summaries:
        seen.update(summary.get('per_class', {}))
    others = sorted(seen - set(configured) - {metrics.NO_CLASS})
    tail = [metrics.NO_CLASS] if metrics.NO_CLASS in seen else []
    return list(configured) + others + tail


def metric_names(classes, workflow=False):
    """The metric columns, in order: per class, then run-wide, then with
    ``workflow`` the workflow metrics.
    """
    return (['%s_%s' % (name, metric) for name in classes
             for metric in CLASS_METRICS] +
            [column for column, _keys in RUN_METRICS] +
            ([column for column, _keys in WORKFLOW_METRICS]
             if workflow else []))


def _has_workflows(rows):
    return bool(rows) and WORKFLOW_METRICS[0][0] in rows[0].values


def _metric_values(summary, classes, workflow=False):
    """``{metric column: value or None}`` of one summary."""
    values = {}
    for name in classes:
        entry = summary.get('per_class', {}).get(name, {})
        for metric in CLASS_METRICS:
            values['%s_%s' % (name, metric)] = entry.get(metric)
    for column, keys in RUN_METRICS + (WORKFLOW_METRICS if workflow
                                       else ()):
        value = summary
        for key in keys:
            value = value.get(key) if isinstance(value, dict) else None
        values[column] = value
    return values


def mean_std(values):
    """``(mean, sample std)`` of the values that are not None.

    The mean is None without a value, the std without two.
    """
    estimate = replications.estimate(values)
    return estimate.mean, estimate.std


@dataclasses.dataclass
class ComparisonRow:
    """The cells of a (workload, size factor, policy), over the seeds.

    ``values`` maps each metric column to ``(mean, std)``, ``ci95`` to
    the half-width of its 95 % confidence interval (None with fewer than
    two replications); ``seeds`` counts the replications; ``slos`` maps
    a class to its SLO, ``requests`` a class to its mean number of
    requests, and ``stages`` a stage code to ``(mean, std)`` of its mean
    wall time per pass in milliseconds (for comparison.md).
    """

    workload: str
    size_factor: typing.Optional[float]
    policy: str
    seeds: int
    values: dict
    slos: dict = dataclasses.field(default_factory=dict)
    requests: dict = dataclasses.field(default_factory=dict)
    stages: dict = dataclasses.field(default_factory=dict)
    ci95: dict = dataclasses.field(default_factory=dict)

    @property
    def level(self):
        """The size factor as shown: ``0.9``, or :data:`FIXED`."""
        return level_label(self.size_factor)


def by_seed(cell):
    """The row of a cell and its replication when the seeds replicate."""
    return cell.group, cell.seed


def aggregate(summaries, classes, key=by_seed):
    """One :class:`ComparisonRow` per (workload, size factor, policy).

    ``summaries`` maps each :class:`Cell` to its summary.json content;
    ``classes`` are the classes to report, in order (see
    :func:`ordered_classes`). Rows come in the order of the cells.
    ``key(cell)`` gives the ``(workload, size factor, policy)`` of the
    row a cell is folded into and its replication (default
    :func:`by_seed`: the seeds replicate).
    """
    groups = {}
    for cell, summary in summaries.items():
        groups.setdefault(key(cell)[0], []).append(summary)
    workflow = any('workflow_metrics' in summary
                   for summary in summaries.values())
    names = metric_names(classes, workflow)
    rows = []
    for (workload, size_factor, policy), group in groups.items():
        cells = [_metric_values(summary, classes, workflow)
                 for summary in group]
        estimates = {name: replications.estimate(cell[name]
                                                 for cell in cells)
                     for name in names}
        per_class = [summary.get('per_class', {}) for summary in group]
        stage_times = [summary.get('stage_time_ms') or {}
                       for summary in group]
        codes = dict.fromkeys(code for times in stage_times
                              for code in times)
        rows.append(ComparisonRow(
            workload=workload, size_factor=size_factor, policy=policy,
            seeds=len(cells),
            values={name: (estimate.mean, estimate.std)
                    for name, estimate in estimates.items()},
            ci95={name: estimate.ci95
                  for name, estimate in estimates.items()},
            slos={name: next((entry[name].get('slo') for entry in per_class
                              if name in entry), None)
                  for name in classes},
            requests={name: mean_std(
                (entry[name].get('count') or 0) +
                (entry[name].get('unmeasured') or 0)
                for entry in per_class if name in entry)[0]
                for name in classes},
            stages={code: mean_std(times[code].get('mean_ms')
                                   for times in stage_times
                                   if code in times)
                    for code in codes}))
    return rows


def _number(value):
    """A CSV number: empty for None, at most 6 decimals."""
    if value is None:
        return ''
    text = ('%.6f' % value).rstrip('0').rstrip('.')
    return '0' if text == '-0' else text


def comparison_columns(classes, with_std, workflow=False, with_ci=False):
    """The header of comparison.csv; ``<metric>_std`` after each metric
    when ``with_std``, then ``<metric>_ci95`` (the half-width of the 95 %
    confidence interval of the mean) when ``with_ci``.
    """
    columns = list(KEY_COLUMNS)
    for name in metric_names(classes, workflow):
        columns += ([name] + ([name + '_std'] if with_std else []) +
                    ([name + '_ci95'] if with_ci else []))
    return columns


def write_comparison_csv(path, rows, classes, with_std, with_ci=False):
    workflow = _has_workflows(rows)
    with open(path, 'w', newline='') as stream:
        writer = csv.writer(stream, lineterminator='\n')
        writer.writerow(comparison_columns(classes, with_std, workflow,
                                           with_ci))
        for row in rows:
            cells = [row.workload, level_label(row.size_factor), row.policy,
                     row.seeds]
            for name in metric_names(classes, workflow):
                mean, std = row.values[name]
                cells += ([_number(mean)] +
                          ([_number(std)] if with_std else []) +
                          ([_number(row.ci95.get(name))] if with_ci
                           else []))
            writer.writerow(cells)


@dataclasses.dataclass
class PairedRow:
    """A policy against the baseline, on one metric, over the
    replications both ran (:func:`replications.paired`).
    """

    workload: str
    size_factor: typing.Optional[float]
    policy: str
    baseline: str
    metric: str
    difference: replications.Estimate


def paired_differences(summaries, classes, baseline, key=by_seed):
    """Every policy but ``baseline`` against it, per row and metric.

    ``key`` is :func:`aggregate`'s: cells of one replication are paired.
    Metrics no pair has are left out.
    """
    workflow = any('workflow_metrics' in summary
                   for summary in summaries.values())
    names = metric_names(classes, workflow)
    table = {}
    for cell, summary in summaries.items():
        (workload, size_factor, policy), replication = key(cell)
        table.setdefault((workload, size_factor), {}).setdefault(
            policy, {})[replication] = _metric_values(summary, classes,
                                                      workflow)
    rows = []
    for (workload, size_factor), policies in table.items():
        reference = policies.get(baseline)
        if reference is None:
            continue
        for policy, runs in policies.items():
            if policy == baseline:
                continue
            for name in names:
                difference = replications.paired(
                    {rep: values[name] for rep, values in runs.items()},
                    {rep: values[name] for rep, values in reference.items()})
                if difference.n:
                    rows.append(PairedRow(workload, size_factor, policy,
                                          baseline, name, difference))
    return rows


def write_paired_csv(path, rows):
    with open(path, 'w', newline='') as stream:
        writer = csv.writer(stream, lineterminator='\n')
        writer.writerow(PAIRED_COLUMNS)
        for row in rows:
            diff = row.difference
            writer.writerow([row.workload, level_label(row.size_factor),
                             row.policy, row.baseline, row.metric, diff.n,
                             _number(diff.mean), _number(diff.std),
                             _number(diff.low), _number(diff.high)])


def _cell(mean, std, show):
    """``mean ± std`` as ``show`` formats them; ``n/a`` without a mean."""
    if mean is None:
        return 'n/a'
    text = show(mean)
    if std is not None:
        text += ' ± ' + show(std)
    return text


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
    hosts = ('hosts given outright' if levels == [FIXED] else
             'clouds of %s × the peak demand' % ', '.join(
                 level for level in levels if level != FIXED))
    noun = 'seeds' if replication == 'seeds' else 'runs (workloads x seeds)'
    what = ('the mean over %s %s ± the sample standard deviation'
            % ('/'.join(map(str, seeds)), noun) if seeds != [1]
            else 'one run (one seed)')
    return ('Workload%s %s, %s; each row is %s.' % (
        's' if len(workloads) > 1 else '', ', '.join(workloads), hosts,
        what))


def comparison_tables(rows, classes):
    """The comparison for people (:class:`report_tables.Table`):
    availability per class, operations, and time per scheduling stage.

    Rows of the per-class table are grouped by class, so that the
    policies of a class come one under the other; classes come in the
    order of ``classes`` (see :func:`ordered_classes`).
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
                    mean, std = row.values['%s_%s' % (name, key)]
                    cells.append(_cell(mean, std, show))
                class_rows.append(cells)
    operations = [
        _keys(row, varying) + [row.policy] + [
            _cell(*row.values[column], show)
            for column, (_header, show) in RUN_METRIC_HEADERS.items()]
        for row in rows]
    tables = [
        report_tables.Table(
            'Availability per class',
            keys + ['Class', 'Policy', 'Requests'] +
            [header for _key, header, _show in report_tables.CLASS_COLUMNS],
            class_rows,
            ['left'] * (len(keys) + 2) +
            ['right'] * (1 + len(report_tables.CLASS_COLUMNS)),
            report_tables.CLASS_NOTE),
        report_tables.Table(
            'Operations',
            keys + ['Policy'] + [header for header, _show
                                 in RUN_METRIC_HEADERS.values()],
            operations,
            ['left'] * (len(keys) + 1) + ['right'] * len(RUN_METRIC_HEADERS),
            'Per run: preemptions and terminations made, the 99th '
            'percentile of the time one scheduling decision took, and the '
            'wall time of the whole run.'),
    ]
    if _has_workflows(rows):
        tables.append(report_tables.Table(
            'Workflows',
            keys + ['Policy'] + [header for header, _show
                                 in WORKFLOW_METRIC_HEADERS.values()] +
            ['JMS 95 % CI (s)'],
            [_keys(row, varying) + [row.policy] + [
                _cell(*row.values[column], show)
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
            'task the response time TRT. Mean ± standard deviation over '
            'the replications; the interval is the 95 % confidence '
            'interval of the mean JMS (Student t).'))
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
            report_tables.STAGE_NOTE))
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
        ([level_label(row.size_factor)] if many_levels else []) +
        [row.policy, _metric_label(row.metric, classes),
         str(row.difference.n), show(row.difference.mean),
         show(row.difference.std),
         '' if row.difference.ci95 is None else '[%s, %s]' % (
             show(row.difference.low), show(row.difference.high))]
        for row in rows]
    keys = ((['Workload'] if many_workloads else []) +
            (['Size factor (× peak demand)'] if many_levels else []))
    baseline = rows[0].baseline if rows else ''
    return report_tables.Table(
        'Paired differences against %s' % baseline,
        keys + ['Policy', 'Metric', 'Pairs', 'Mean difference',
                'Std of the differences', '95 % CI of the mean'],
        cells, ['left'] * (len(keys) + 2) + ['right'] * 4,
        'Policy minus %s on the same replication (same seed, same hosts, '
        'same workload), then mean, sample standard deviation and 95 %% '
        'confidence interval (Student t) over the pairs; an interval '
        'that excludes 0 is a difference the replications support. Values '
        'in the units of comparison.csv (fractions for availability and '
        'fulfilment).' % baseline)


def write_comparison_md(path, rows, classes, paired=None,
                        replication='seeds'):
    """comparison.md: :func:`comparison_tables` in Markdown, ``mean ±
    std`` in a cell, under a title and :func:`comparison_intro`; with
    ``paired`` (:class:`PairedRow`), their table last.
    """
    tables = comparison_tables(rows, classes)
    if paired:
        tables.append(paired_table(paired, classes))
    text = '# Policy comparison\n\n%s\n\n%s' % (
        comparison_intro(rows, replication),
        report_tables.render_markdown(tables))
    with open(path, 'w') as stream:
        stream.write(text)


@contextlib.contextmanager
def staged_output(directory):
    """A staging directory, moved into ``directory`` if the block succeeds.

    The staging directory is hidden beside ``directory``
    (``.<name>.<pid>.<random>.tmp``); on failure, Ctrl-C or SIGTERM (see
    :func:`preemptible_sched.cmd.common.stoppable`) it is removed and
    ``directory`` is left as it was. One left by a process killed outright
    (its pid no longer runs) is removed first (:mod:`.staging`). On
    success each entry replaces its namesake in ``directory`` (a
    workload's sub-directory as a whole, so no cell of an earlier run is
    mixed with the new ones); entries of an earlier run that the new one
    does not write stay.
    ``comparison.csv`` goes first out and last in: while it is there, it
    describes the cells beside it.
    """
    directory = os.path.abspath(directory)
    staged = staging.make(directory)
    try:
        content = os.path.join(staged, 'content')
        os.mkdir(content)
        yield content
        _publish(content, directory, os.path.join(staged, 'replaced'))
    finally:
        shutil.rmtree(staged, ignore_errors=True)


def _publish(content, directory, trash):
    os.makedirs(directory, exist_ok=True)
    os.mkdir(trash)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(os.path.join(directory, COMPARISON_CSV))
    names = sorted(os.listdir(content),
                   key=lambda name: (name == COMPARISON_CSV, name))
    for name in names:
        target = os.path.join(directory, name)
        if os.path.isdir(target) and not os.path.islink(target):
            os.rename(target, os.path.join(trash, name))
        os.replace(os.path.join(content, name), target)
