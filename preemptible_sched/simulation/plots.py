"""Figures of a simulated run, written as PNG files.

matplotlib is optional: it is imported on first use, and when it is not
installed :func:`available` is False and every writer does nothing.
Figures are :class:`matplotlib.figure.Figure` objects drawn by the Agg
backend without going through pyplot, so no global backend is switched and
no figure stays registered anywhere: thousands of runs in one process do
not accumulate figures.

Classes keep one colour across figures: the configured classes in the
order of ``slos``, then any others by name, then records without a class.
"""

import contextlib
import functools

import numpy

from preemptible_sched.simulation import metrics

DPI = 100


@functools.lru_cache(maxsize=None)
def _matplotlib():
    """``(Figure, FigureCanvasAgg)``, or None without matplotlib."""
    # Imported here, not at the top: matplotlib is an optional dependency
    # and slow to import, and most commands never draw.
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        return None
    return Figure, FigureCanvasAgg


def available():
    """Whether matplotlib is installed, so the writers draw anything."""
    return _matplotlib() is not None


@contextlib.contextmanager
def _figure(path, **figure_kw):
    """A figure to draw on, saved at ``path`` if drawing succeeds."""
    figure_class, canvas_class = _matplotlib()
    figure = figure_class(**figure_kw)
    canvas_class(figure)
    try:
        yield figure
        figure.savefig(path, format='png', dpi=DPI)
    finally:
        figure.clear()


def _class_of(record):
    return record.service_class or metrics.NO_CLASS


def _availabilities_by_class(records):
    """Class name -> sorted availabilities (unmeasured records left out)."""
    grouped = {}
    for record in records:
        if record.availability is not None:
            grouped.setdefault(_class_of(record), []).append(
                record.availability)
    return {name: sorted(values) for name, values in grouped.items()}


def _class_colours(names, slos):
    """Class name -> colour, the same whatever subset is drawn."""
    others = sorted(set(names) - set(slos) - {metrics.NO_CLASS})
    order = list(slos) + others + [metrics.NO_CLASS]
    return {name: 'C%d' % i for i, name in enumerate(order)}


def availability_by_instance(path, runs, slos):
    """Availability of every instance, one panel per policy.

    ``runs`` maps a policy name to its records. Along x, instances sorted
    by class, then by availability; one point each, coloured by class; a
    dashed line at each class's SLO.
    """
    if not available():
        return
    if not runs:
        raise ValueError('no run to plot')
    grouped_runs = {policy: _availabilities_by_class(records)
                    for policy, records in runs.items()}
    present = set().union(*grouped_runs.values())
    colours = _class_colours(present, slos)
    classes = [name for name in colours if name in present]
    with _figure(path, figsize=(1 + 4 * len(runs), 4),
                 layout='constrained') as figure:
        axes = figure.subplots(1, len(runs), sharey=True, squeeze=False)[0]
        for ax, (policy, grouped) in zip(axes, grouped_runs.items()):
            start = 0
            for name in classes:
                values = grouped.get(name, [])
                ax.plot(range(start, start + len(values)), values,
                        linestyle='none', marker='.', markersize=2,
                        color=colours[name], label=name)
                start += len(values)
                if slos.get(name) is not None:
                    ax.axhline(slos[name], linestyle='--', linewidth=0.8,
                               color=colours[name])
            ax.set_title(policy)
            ax.set_xlabel('instance (by class, then availability)')
        axes[0].set_ylabel('availability')
        axes[0].set_ylim(-0.02, 1.05)
        if classes:
            axes[0].legend(loc='lower right', markerscale=4)


def availability_cdf(path, records, slos, title):
    """Cumulative distribution of availability, one curve per class.

    A dashed vertical line marks each class's SLO: the curve's height just
    left of it is the share of the class that missed its SLO.
    """
    if not available():
        return
    grouped = _availabilities_by_class(records)
    colours = _class_colours(grouped, slos)
    with _figure(path, figsize=(6, 4), layout='constrained') as figure:
        ax = figure.subplots()
        for name in (name for name in colours if name in grouped):
            values = grouped[name]
            shares = numpy.arange(len(values) + 1) / len(values)
            ax.step([values[0]] + values, shares, where='post',
                    color=colours[name],
                    label='%s (n=%d)' % (name, len(values)))
            if slos.get(name) is not None:
                ax.axvline(slos[name], linestyle='--', linewidth=0.8,
                           color=colours[name])
        ax.set_xlim(-0.02, 1.02)
        ax.set_ylim(0, 1.02)
        ax.set_xlabel('availability')
        ax.set_ylabel('share of instances')
        ax.set_title(title)
        if grouped:
            ax.legend(loc='upper left')


def utilisation_over_time(path, series):
    """Share of CPU and memory in use over time, as a step plot.

    ``series`` holds ``(t, cpu_fraction, memory_fraction)`` tuples in time
    order (see :func:`metrics.utilisation_fractions`).
    """
    if not available():
        return
    with _figure(path, figsize=(7, 3.5), layout='constrained') as figure:
        ax = figure.subplots()
        if series:
            times, cpu, memory = zip(*series)
            ax.step(times, cpu, where='post', label='CPU')
            ax.step(times, memory, where='post', label='memory')
            ax.legend(loc='upper right')
        ax.set_ylim(0, 1.05)
        ax.set_xlabel('time (s)')
        ax.set_ylabel('share of capacity in use')
