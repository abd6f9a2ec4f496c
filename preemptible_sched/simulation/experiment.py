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
                                               /instances.parquet
                                               /stages.csv
                                               /stages.parquet
                                               /summary.json
                                               /cell.json
    comparison.csv      one row per (workload, size factor, policy)
                        (:mod:`.comparison_csv`)
    comparison.md       the same for people: availability per class,
                        operations and time per scheduling stage, in
                        Markdown tables with readable headers and units
                        (:mod:`.comparison_tables`)
    paired.csv          with a definition: each policy minus the
                        baseline on the same replication, per row and
                        metric (:func:`paired_differences`)
    availability_<stem>_<level>.png   one panel per policy (first seed)
    fulfilment_<stem>.png             SLO fulfilment vs size factor

where ``<level>`` is ``sf<factor>`` (``sf0.9``) or ``fixed``. Each cell's
directory is written whole as the cell ends (:mod:`.cell_files`; its
manifest ``cell.json`` says for which inputs), so a stopped experiment
resumes. :func:`staged_output` writes the files beside the cells all or
nothing, as :func:`.report.write_outputs` does for one run: into a hidden
directory beside the output, moved in at the end, ``comparison.csv``
last.

Nothing here runs a simulation: :mod:`.cells` runs the cells (for
``preemptible-sched experiment``) and hands their summaries to these.
"""

import contextlib
import dataclasses
import os
import shutil
import typing

from preemptible_sched.simulation import metrics
from preemptible_sched.simulation import replications
from preemptible_sched.simulation import staging

#: The size factor level of hosts given outright.
FIXED = 'fixed'

COMPARISON_CSV = 'comparison.csv'
COMPARISON_MD = 'comparison.md'
PAIRED_CSV = 'paired.csv'

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


def has_workflows(rows):
    """Whether the rows have the workflow metrics."""
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
