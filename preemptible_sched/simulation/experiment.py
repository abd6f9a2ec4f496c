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
    comparison.md       the same as a Markdown table
    availability_<stem>_<level>.png   one panel per policy (first seed)
    fulfilment_<stem>.png             SLO fulfilment vs size factor

where ``<level>`` is ``sf<factor>`` (``sf0.9``) or ``fixed``.

:func:`staged_output` makes the whole directory all or nothing, as
:func:`.report.write_outputs` does for one run: everything is written into
a hidden directory beside it and moved in at the end, ``comparison.csv``
last.

Nothing here runs a simulation: the command (``preemptible-sched
experiment``) runs the cells and hands their summaries to these functions.
"""

import contextlib
import csv
import dataclasses
import functools
import os
import shutil
import statistics
import tempfile
import typing

from preemptible_sched.simulation import metrics

#: The size factor level of hosts given outright.
FIXED = 'fixed'

COMPARISON_CSV = 'comparison.csv'
COMPARISON_MD = 'comparison.md'

#: Per class, from ``summary['per_class'][class]``.
CLASS_METRICS = ('mean_availability', 'slo_fulfillment', 'qos_deficit',
                 'gini')

#: Run-wide, as (column, path of keys in summary.json).
RUN_METRICS = (('preemptions', ('preemptions',)),
               ('terminations', ('terminations',)),
               ('latency_p99_ms', ('scheduling_latency_ms', 'p99')),
               ('wall_time_s', ('wall_time_s',)))

KEY_COLUMNS = ('workload', 'size_factor', 'policy', 'seeds')

DPI = 100
MARKERS = ('o', 's', '^', 'D', 'v')


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


def metric_names(classes):
    """The metric columns, in order: per class, then run-wide."""
    return (['%s_%s' % (name, metric) for name in classes
             for metric in CLASS_METRICS] +
            [column for column, _keys in RUN_METRICS])


def _metric_values(summary, classes):
    """``{metric column: value or None}`` of one summary."""
    values = {}
    for name in classes:
        entry = summary.get('per_class', {}).get(name, {})
        for metric in CLASS_METRICS:
            values['%s_%s' % (name, metric)] = entry.get(metric)
    for column, keys in RUN_METRICS:
        value = summary
        for key in keys:
            value = value.get(key) if isinstance(value, dict) else None
        values[column] = value
    return values


def mean_std(values):
    """``(mean, sample std)`` of the values that are not None.

    The mean is None without a value, the std without two.
    """
    values = [float(value) for value in values if value is not None]
    mean = statistics.fmean(values) if values else None
    std = statistics.stdev(values) if len(values) > 1 else None
    return mean, std


@dataclasses.dataclass
class ComparisonRow:
    """The cells of a (workload, size factor, policy), over the seeds.

    ``values`` maps each metric column to ``(mean, std)``.
    """

    workload: str
    size_factor: typing.Optional[float]
    policy: str
    seeds: int
    values: dict


def aggregate(summaries, classes):
    """One :class:`ComparisonRow` per (workload, size factor, policy).

    ``summaries`` maps each :class:`Cell` to its summary.json content;
    ``classes`` are the classes to report, in order (see
    :func:`ordered_classes`). Rows come in the order of the cells.
    """
    groups = {}
    for cell, summary in summaries.items():
        groups.setdefault(cell.group, []).append(
            _metric_values(summary, classes))
    names = metric_names(classes)
    return [ComparisonRow(
        workload=workload, size_factor=size_factor, policy=policy,
        seeds=len(cells),
        values={name: mean_std(cell[name] for cell in cells)
                for name in names})
        for (workload, size_factor, policy), cells in groups.items()]


def _number(value):
    """A CSV number: empty for None, at most 6 decimals."""
    if value is None:
        return ''
    text = ('%.6f' % value).rstrip('0').rstrip('.')
    return '0' if text == '-0' else text


def comparison_columns(classes, with_std):
    """The header of comparison.csv; ``<metric>_std`` after each metric
    when ``with_std``."""
    columns = list(KEY_COLUMNS)
    for name in metric_names(classes):
        columns += [name, name + '_std'] if with_std else [name]
    return columns


def write_comparison_csv(path, rows, classes, with_std):
    with open(path, 'w', newline='') as stream:
        writer = csv.writer(stream, lineterminator='\n')
        writer.writerow(comparison_columns(classes, with_std))
        for row in rows:
            cells = [row.workload, level_label(row.size_factor), row.policy,
                     row.seeds]
            for name in metric_names(classes):
                mean, std = row.values[name]
                cells += ([_number(mean), _number(std)] if with_std
                          else [_number(mean)])
            writer.writerow(cells)


def _short(value):
    """A Markdown number: four significant digits, integers in full."""
    if value is None:
        return 'n/a'
    if abs(value) >= 1000 or float(value).is_integer():
        return '%.0f' % value
    return '%.4g' % value


def write_comparison_md(path, rows, classes, with_std):
    """comparison.csv as a Markdown table, ``mean ± std`` in a cell."""
    names = metric_names(classes)
    lines = ['| %s |' % ' | '.join(list(KEY_COLUMNS) + names),
             '|%s|' % '|'.join([' --- '] * 3 + [' ---: '] * (
                 len(names) + 1))]
    for row in rows:
        cells = [row.workload, level_label(row.size_factor), row.policy,
                 str(row.seeds)]
        for name in names:
            mean, std = row.values[name]
            text = _short(mean)
            if with_std and std is not None:
                text += ' ± ' + _short(std)
            cells.append(text)
        lines.append('| %s |' % ' | '.join(cells))
    with open(path, 'w') as stream:
        stream.write('\n'.join(lines) + '\n')


@functools.lru_cache(maxsize=None)
def _matplotlib():
    """``(Figure, FigureCanvasAgg)``, or None without matplotlib."""
    # An optional dependency, slow to import; see plots.py.
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        return None
    return Figure, FigureCanvasAgg


def fulfilment_by_size_factor(path, rows, classes):
    """SLO fulfilment vs size factor: a panel per class, a line per policy.

    ``rows`` are the :class:`ComparisonRow` of one workload. Error bars
    show the standard deviation over the seeds. Classes without an SLO
    have no panel; with hosts given outright the x axis holds the single
    level :data:`FIXED`. Draws nothing without matplotlib.
    """
    if _matplotlib() is None:
        return
    panels = [name for name in classes
              if any(row.values['%s_slo_fulfillment' % name][0] is not None
                     for row in rows)]
    levels = sorted({row.size_factor for row in rows},
                    key=lambda factor: (factor is None, factor or 0.0))
    numeric = None not in levels
    position = {level: (level if numeric else index)
                for index, level in enumerate(levels)}
    policies = list(dict.fromkeys(row.policy for row in rows))
    figure_class, canvas_class = _matplotlib()
    figure = figure_class(figsize=(1 + 3.5 * max(1, len(panels)), 3.5),
                          layout='constrained')
    canvas_class(figure)
    try:
        axes = figure.subplots(1, max(1, len(panels)), sharey=True,
                               squeeze=False)[0]
        for ax, name in zip(axes, panels):
            column = '%s_slo_fulfillment' % name
            for index, policy in enumerate(policies):
                points = sorted(
                    (position[row.size_factor],) + row.values[column]
                    for row in rows if row.policy == policy
                    and row.values[column][0] is not None)
                if not points:
                    continue
                xs, means, stds = zip(*points)
                # Hollow markers of different shapes: policies with the
                # same fulfilment stay visible on top of each other.
                ax.errorbar(xs, means,
                            yerr=[std or 0.0 for std in stds],
                            marker=MARKERS[index % len(MARKERS)],
                            markerfacecolor='none', capsize=3,
                            color='C%d' % index, label=policy)
            ax.set_title(name)
            ax.set_xlabel('size factor')
            if not numeric:
                ax.set_xticks(range(len(levels)),
                              [level_label(level) for level in levels])
        axes[0].set_ylabel('SLO fulfilment')
        axes[0].set_ylim(-0.02, 1.05)
        if panels:
            axes[0].legend(loc='lower right')
        figure.savefig(path, format='png', dpi=DPI)
    finally:
        figure.clear()


@contextlib.contextmanager
def staged_output(directory):
    """A staging directory, moved into ``directory`` if the block succeeds.

    The staging directory is hidden beside ``directory``; on failure it is
    removed and ``directory`` is left as it was. On success each entry
    replaces its namesake in ``directory`` (a workload's sub-directory as
    a whole, so no cell of an earlier run is mixed with the new ones);
    entries of an earlier run that the new one does not write stay.
    ``comparison.csv`` goes first out and last in: while it is there, it
    describes the cells beside it.
    """
    directory = os.path.abspath(directory)
    parent = os.path.dirname(directory)
    os.makedirs(parent, exist_ok=True)
    staging = tempfile.mkdtemp(
        prefix='.%s.' % os.path.basename(directory), suffix='.tmp',
        dir=parent)
    try:
        content = os.path.join(staging, 'content')
        os.mkdir(content)
        yield content
        _publish(content, directory, os.path.join(staging, 'replaced'))
    finally:
        shutil.rmtree(staging, ignore_errors=True)


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
