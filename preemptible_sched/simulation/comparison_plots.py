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

"""The figures of an experiment's comparison, written as PNG files.

Beside comparison.csv, ``preemptible-sched experiment`` draws (:func:`write`)
the availability of each instance under each policy, for every workload
and size factor at the first seed (:func:`.plots.availability_by_instance`),
and the SLO fulfilment of each class by size factor, a line per policy
(:func:`fulfilment_by_size_factor`). Every figure of one experiment gives
a class the same colour (:func:`.plots.class_colours`), and like every
writer of :mod:`.plots` they draw nothing when matplotlib cannot be
imported (:func:`.plots.available`).
"""

import os

import numpy

from preemptible_sched.simulation import experiment
from preemptible_sched.simulation import plot_canvas
from preemptible_sched.simulation import plots

#: Line styles and markers that tell policies apart where the colour
#: says the class.
POLICY_STYLES = (('-', 'o'), ('--', 's'), (':', '^'), ('-.', 'D'),
                 ((0, (5, 1, 1, 1)), 'v'))


def fulfilment_by_size_factor(path, rows, classes, colours=None):
    """SLO fulfilment vs size factor: a panel per class, a line per policy.

    ``rows`` are the :class:`~.experiment.ComparisonRow` of one workload
    (their ``values``, ``size_factor``, ``level`` and ``policy``).
    Lines are in their class's colour; the policies differ by line style
    and marker (the legend shows them in black). Error bars show the
    standard deviation over the seeds. Classes without an SLO have no
    panel; with hosts given outright the x axis holds the single level
    :data:`~.experiment.FIXED`.
    """
    if not plots.available():
        return None
    panels = [name for name in classes
              if any(row.values['%s_slo_fulfillment' % name][0] is not None
                     for row in rows)]
    colours = plots.colours_for(classes, colours)
    levels = sorted({row.size_factor for row in rows},
                    key=lambda factor: (factor is None, factor or 0.0))
    numeric = None not in levels
    position = {level: (level if numeric else index)
                for index, level in enumerate(levels)}
    policies = list(dict.fromkeys(row.policy for row in rows))
    # Policies side by side around each level, so that equal values of
    # two policies do not hide one another.
    gaps = numpy.diff(sorted(position.values()))
    if len(gaps):
        spacing = float(min(gaps))
    else:
        spacing = levels[0] if numeric else 1.0
    step = 0.04 * spacing
    dodge = {policy: (index - (len(policies) - 1) / 2.0) * step
             for index, policy in enumerate(policies)}
    styles = {policy: POLICY_STYLES[index % len(POLICY_STYLES)]
              for index, policy in enumerate(policies)}
    with plot_canvas.saved_figure(
            path, figsize=(1.5 + 3.5 * max(1, len(panels)), 3.8),
            layout='constrained') as figure:
        axes = figure.subplots(1, max(1, len(panels)), sharey=True,
                               squeeze=False)[0]
        for ax, name in zip(axes, panels):
            column = '%s_slo_fulfillment' % name
            for policy in policies:
                points = sorted(
                    (position[row.size_factor] + dodge[policy],) +
                    row.values[column]
                    for row in rows if row.policy == policy and
                    row.values[column][0] is not None)
                if not points:
                    continue
                xs, means, stds = zip(*points)
                linestyle, marker = styles[policy]
                # Hollow markers of different shapes: policies with the
                # same fulfilment stay visible on top of each other.
                ax.errorbar(xs, means,
                            yerr=[std or 0.0 for std in stds],
                            linestyle=linestyle, marker=marker,
                            markerfacecolor='none', capsize=3,
                            color=colours[name], label=policy)
            ax.set_title(plots.label(name), color=colours[name])
            ax.grid(axis='y', linewidth=0.3)
            if numeric:
                ax.set_xlabel('Size factor (× peak demand)')
                plot_canvas.plain_axis(ax, 'x')
                if len(levels) == 1:
                    ax.set_xlim(0.75 * levels[0], 1.25 * levels[0])
            else:
                ax.set_xlim(-0.5, len(levels) - 0.5)
                ax.set_xlabel('Size factor (hosts given outright)')
                labels = {row.size_factor: row.level for row in rows}
                ax.set_xticks(range(len(levels)),
                              [labels[level] for level in levels])
        axes[0].set_ylabel('SLO fulfilment (% of class)')
        axes[0].set_ylim(-0.02, 1.05)
        plot_canvas.percent_axis(axes[0].yaxis)
        if panels:
            line = plot_canvas.matplotlib_parts().Line2D
            handles = [line([], [], color='black', linestyle=style[0],
                            marker=style[1], markerfacecolor='none')
                       for style in styles.values()]
            figure.legend(handles, policies, loc='outside right upper',
                          title='policy')
        figure.suptitle('SLO fulfilment by cloud size', x=0.02,
                        horizontalalignment='left')
    return figure


def write(directory, plan, rows, classes, first_records):
    """The figures of ``plan`` (an :class:`.experiment_plan.Plan`) into
    ``directory``: the availability of each instance under each policy
    (first seed) and the fulfilment by size factor.
    """
    groups = set().union(*(plots.record_groups(records)
                           for records in first_records.values()))
    if not plots.has_classes(groups):
        # Availability per class means nothing without classes (a
        # workflow trace, SLA requests).
        return
    # One mapping for every figure: a class has one colour in all of them.
    colours = plots.class_colours(set(classes).union(groups))
    levels = {}
    for cell in plan.cells():
        levels.setdefault(cell.workload, {})[cell.size_factor] = None
    for stem in plan.workloads:
        for factor in levels[stem]:
            runs = {policy: first_records[experiment.Cell(
                stem, policy, factor, plan.seeds[0])]
                for policy in plan.policies}
            plots.availability_by_instance(
                os.path.join(directory, 'availability_%s_%s.png' % (
                    stem, experiment.level_name(factor))),
                runs, plan.slos, colours=colours)
        members = [row for row in rows if row.workload == stem]
        if members:
            fulfilment_by_size_factor(
                os.path.join(directory, 'fulfilment_%s.png' % stem),
                members, classes, colours=colours)
