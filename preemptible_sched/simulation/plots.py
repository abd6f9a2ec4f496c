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

"""Figures of simulated runs, written as PNG files.

The figures are drawn on :mod:`.plot_canvas`: when matplotlib cannot be
imported, :func:`available` is False and every writer draws nothing. Every
writer returns its figure (None when it draws nothing), for a test or a
notebook to look at.

Every figure shows a class in the same colour and in the same place of its
legend: :func:`class_colours` orders the classes (``[qos]
service_classes`` in their configured order, then any other class by name,
then the requests without a class) and gives each a fixed colour. Shares
are drawn as percentages, times in hours or days (whichever suits the
span), and every axis label carries its unit.

The figures an experiment writes beside its comparison (and the one only
an experiment draws, fulfilment by size factor) are in
:mod:`.comparison_plots`.
"""

import numpy

from preemptible_sched.conf import CONF
from preemptible_sched.simulation import metrics
from preemptible_sched.simulation import plot_canvas

#: Groups of the records without a service class, split by kind.
NO_CLASS_NORMAL = 'no class, normal'
NO_CLASS_PREEMPTIBLE = 'no class, preemptible'

#: The colour-blind-safe palette of Okabe and Ito, in the order the
#: classes take it (the configured ones first: gold, silver and bronze
#: by default get orange, sky blue and vermilion). Yellow, too pale on
#: white, and black, kept for what is no class, are left out.
PALETTE = ('#e69f00', '#56b4e9', '#d55e00', '#009e73', '#cc79a7',
           '#0072b2', '#8c564b', '#17becf', '#bcbd22', '#9467bd')

#: The colours of the users of the SLA Gantt chart: none of the classes'
#: (a user is not a class, and must not look like one).
USER_PALETTE = ('#332288', '#88ccee', '#44aa99', '#117733', '#999933',
                '#ddcc77', '#cc6677', '#882255', '#aa4499', '#6f6f9f')

#: Fixed greys for what has no class, after every class.
NO_CLASS_COLOURS = {NO_CLASS_NORMAL: '#404040',
                    NO_CLASS_PREEMPTIBLE: '#a0a0a0',
                    metrics.NO_CLASS: '#707070'}

#: How the legends name the groups that have no class.
_LABELS = {metrics.NO_CLASS: 'no class'}


def available():
    """Whether matplotlib can be imported, so the writers draw anything."""
    return plot_canvas.matplotlib_parts() is not None


# -- Classes and their colours ----------------------------------------------

def group_of(record):
    """The class a record is drawn as: its service class, or for a record
    without one, :data:`NO_CLASS_NORMAL` or :data:`NO_CLASS_PREEMPTIBLE`.
    """
    if record.service_class:
        return record.service_class
    return NO_CLASS_PREEMPTIBLE if record.preemptible else NO_CLASS_NORMAL


def label(name):
    """How a legend or a table names class ``name``."""
    return _LABELS.get(name, name)


def class_colours(names=(), configured=None):
    """Class name -> colour, in the order every figure and legend uses.

    The configured classes (``configured``, by default ``[qos]
    service_classes``) come first, in their configured order and whether
    they appear in ``names`` or not; then the other classes of ``names``
    by name; then those of the groups without a class
    (:data:`NO_CLASS_NORMAL`, :data:`NO_CLASS_PREEMPTIBLE`,
    :data:`metrics.NO_CLASS`) that appear in ``names``, in grey. A
    configured class keeps its colour whatever else is drawn; to give the
    other classes the same colour in several figures, compute the mapping
    once from all their names and hand it to each figure.
    """
    if configured is None:
        configured = CONF.qos.service_classes
    configured = list(dict.fromkeys(configured))
    names = set(names)
    others = sorted(names - set(configured) - set(NO_CLASS_COLOURS))
    colours = {}
    for index, name in enumerate(configured + others):
        colours[name] = PALETTE[index % len(PALETTE)]
    for name, colour in NO_CLASS_COLOURS.items():
        if name in names and name not in colours:
            colours[name] = colour
    return colours


def colours_for(names, colours):
    """``colours`` completed with any name of ``names`` it lacks (same
    rules as :func:`class_colours`), or by default one for ``names``.
    """
    if colours is None:
        return class_colours(names)
    missing = set(names) - set(colours)
    if not missing:
        return colours
    extended = dict(colours)
    extra = class_colours(set(colours) | missing, configured=list(colours))
    for name in extra:
        extended.setdefault(name, extra[name])
    return extended


# -- Figures -----------------------------------------------------------------

def _availabilities_by_group(records):
    """Class -> sorted availabilities (unmeasured records left out)."""
    grouped = {}
    for record in records:
        if record.availability is not None:
            grouped.setdefault(group_of(record), []).append(
                record.availability)
    return {name: sorted(values) for name, values in grouped.items()}


def record_groups(records):
    """The classes :func:`group_of` finds in ``records``."""
    return {group_of(record) for record in records}


def has_classes(groups):
    """Whether ``groups`` (of :func:`record_groups`) hold a class: the
    groups of records without one do not count.
    """
    return any(group not in NO_CLASS_COLOURS for group in groups)


def availability_by_instance(path, runs, slos, colours=None):
    """Availability of every instance, one panel per policy.

    ``runs`` maps a policy name to its records. Along x, instances sorted
    by class, then by availability; one point each, coloured by class; a
    dashed line at each class's SLO. ``colours`` is the mapping of
    :func:`class_colours` (by default, one for these runs).
    """
    if not available():
        return None
    if not runs:
        raise ValueError('no run to plot')
    grouped_runs = {policy: _availabilities_by_group(records)
                    for policy, records in runs.items()}
    present = set().union(*grouped_runs.values())
    colours = colours_for(present, colours)
    classes = [name for name in colours if name in present]
    # Bigger points when there are few of them.
    most = max(sum(map(len, grouped.values()))
               for grouped in grouped_runs.values())
    size = 6 if most < 50 else 4 if most < 500 else 2.5
    with plot_canvas.saved_figure(path, figsize=(3 + 4.5 * len(runs), 4.2),
                                  layout='constrained') as figure:
        axes = figure.subplots(1, len(runs), sharey=True, squeeze=False)[0]
        for ax, (policy, grouped) in zip(axes, grouped_runs.items()):
            start = 0
            for name in classes:
                values = grouped.get(name, [])
                ax.plot(range(start, start + len(values)), values,
                        linestyle='none', marker='.', markersize=size,
                        color=colours[name], label=label(name))
                if slos.get(name) is not None and values:
                    # Across the whole panel: over the class's own points
                    # it would not show.
                    ax.axhline(slos[name], linestyle='--', linewidth=1.0,
                               color=colours[name])
                start += len(values)
            ax.set_title('policy %s' % policy if len(runs) > 1 else
                         'Availability of every instance (policy %s)'
                         % policy)
            ax.set_xlabel('Instances, by class then availability (count)')
            ax.set_xlim(-0.5, max(start, 1) - 0.5)
            ax.grid(axis='y', linewidth=0.3)
        axes[0].set_ylabel('Availability (% of time since submission)')
        axes[0].set_ylim(-0.02, 1.05)
        plot_canvas.percent_axis(axes[0].yaxis)
        if classes:
            figure.legend(*axes[0].get_legend_handles_labels(),
                          loc='outside right upper',
                          markerscale=12.0 / size, title='class (- - SLO)')
        if len(runs) > 1:
            # Left-aligned: centred, it would run into the legend.
            figure.suptitle('Availability of every instance', x=0.02,
                            horizontalalignment='left')
    return figure


def availability_cdf(path, records, slos, title, colours=None):
    """Cumulative distribution of availability, one curve per class.

    A dashed vertical line marks each class's SLO: the curve's height just
    left of it is the share of the class that missed its SLO.
    """
    if not available():
        return None
    grouped = _availabilities_by_group(records)
    colours = colours_for(grouped, colours)
    with plot_canvas.saved_figure(path, figsize=(7, 4.2),
                                  layout='constrained') as figure:
        ax = figure.subplots()
        for name in (name for name in colours if name in grouped):
            values = grouped[name]
            shares = numpy.arange(len(values) + 1) / len(values)
            ax.step([values[0]] + values, shares, where='post',
                    color=colours[name],
                    label='%s (n=%d)' % (label(name), len(values)))
            if slos.get(name) is not None:
                ax.axvline(slos[name], linestyle='--', linewidth=1.0,
                           color=colours[name])
        ax.set_xlim(-0.02, 1.02)
        ax.set_ylim(0, 1.02)
        plot_canvas.percent_axis(ax.xaxis)
        plot_canvas.percent_axis(ax.yaxis)
        ax.set_xlabel('Availability (% of time since submission)')
        ax.set_ylabel('Instances at or below it (% of class)')
        ax.grid(linewidth=0.3)
        ax.set_title(title)
        if grouped:
            figure.legend(loc='outside right upper',
                          title='class (- - SLO)')
    return figure


def utilisation_over_time(path, series):
    """Share of CPU and memory in use over time, as a step plot.

    ``series`` holds ``(t, cpu_fraction, memory_fraction)`` tuples in time
    order, ``t`` in simulated seconds (see
    :func:`metrics.utilisation_fractions`); the time axis is in hours or
    days (:func:`.plot_canvas.time_scale`). CPU and memory are drawn in
    black and grey: the palette's colours mean classes.
    """
    if not available():
        return None
    with plot_canvas.saved_figure(path, figsize=(7, 3.5),
                                  layout='constrained') as figure:
        ax = figure.subplots()
        span = series[-1][0] if series else 0.0
        scale, unit = plot_canvas.time_scale(span)
        if series:
            times, cpu, memory = zip(*series)
            hours = [t / scale for t in times]
            ax.step(hours, cpu, where='post', color='black', label='CPU')
            ax.step(hours, memory, where='post', color='#909090',
                    linestyle='--', label='memory')
            ax.legend(loc='best')
            ax.set_xlim(0, max(hours[-1], 1e-9))
        ax.set_ylim(0, 1.05)
        plot_canvas.percent_axis(ax.yaxis)
        plot_canvas.plain_axis(ax, 'x')
        ax.grid(linewidth=0.3)
        ax.set_xlabel('Simulated time (%s)' % unit)
        ax.set_ylabel('Capacity in use (%)')
        ax.set_title('Cloud utilisation')
    return figure


def sla_gantt(path, records, title):
    """When each SLA request ran, one bar per request, coloured by user.

    ``records`` are the run's per-request records; those with ``copies``
    (SLA requests) are drawn, in order of start (the largest first among
    those that started together), from their first copy's
    start to their last copy's end, each bar as thick as its share of the
    largest allocation (its cores). Requests that never started are left
    out.
    """
    if not available():
        return None
    shown = sorted((r for r in records if r.copies and r.start_s is not None),
                   key=lambda r: (r.start_s, -(r.cores or 0.0), r.id))
    users = sorted({r.user or '' for r in shown})
    colours = {user: USER_PALETTE[index % len(USER_PALETTE)]
               for index, user in enumerate(users)}
    largest = max([r.cores or 0.0 for r in shown] + [1.0])
    with plot_canvas.saved_figure(
            path, figsize=(7, max(3.0, 0.06 * len(shown) + 1.5)),
            layout='constrained') as figure:
        ax = figure.subplots()
        for row, record in enumerate(shown):
            end = record.end_s if record.end_s is not None else \
                record.start_s + record.running_s
            ax.barh(row, end - record.start_s, left=record.start_s,
                    height=0.9 * (record.cores or 0.0) / largest,
                    color=colours[record.user or ''])
        mpl = plot_canvas.matplotlib_parts()
        ax.legend(handles=[mpl.Line2D([], [], color=colours[user],
                                      linewidth=6, label=user or 'no user')
                           for user in users], loc='best')
        ax.set_ylim(-1, max(len(shown), 1))
        ax.invert_yaxis()
        ax.set_yticks([])
        ax.grid(axis='x', linewidth=0.3)
        ax.set_xlabel('Simulated time (s)')
        ax.set_ylabel('Requests, by start (bar height: cores)')
        ax.set_title(title)
    return figure
