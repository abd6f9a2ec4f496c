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

"""What every figure of the simulator is drawn on: matplotlib, imported
on first use; a figure saved as a PNG file; the axis formats all figures
share.

matplotlib is a requirement of the package, but it is imported on first
use (it is slow to import and most commands never draw), and a broken or
missing installation must not stop a simulation: :func:`matplotlib_parts`
is then None, and the commands print :func:`skipped_note` once on stderr.
Figures are :class:`matplotlib.figure.Figure` objects drawn by the Agg
backend without going through pyplot (:func:`saved_figure`), so no global
backend is switched and no figure stays registered anywhere: thousands of
runs in one process do not accumulate figures.

Shares are drawn as percentages (:func:`percent_axis`), times in hours or
days, whichever suits the span (:func:`time_scale`).
"""

import contextlib
import functools
import types

DPI = 100

SECONDS_PER_HOUR = 3600.0
SECONDS_PER_DAY = 86400.0
#: Spans up to this many hours are drawn in hours, longer ones in days.
HOURS_UP_TO = 72.0


#: Why matplotlib could not be imported, once :func:`matplotlib_parts`
#: tried.
_import_error = None


@functools.lru_cache(maxsize=None)
def matplotlib_parts():
    """The parts of matplotlib the figures use, or None if it cannot be
    imported (then :data:`_import_error` says why).
    """
    global _import_error
    # Imported here, not at the top: matplotlib is slow to import, most
    # commands never draw, and a broken installation must not stop a run.
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        from matplotlib.lines import Line2D
        from matplotlib.ticker import PercentFormatter
    except ImportError as error:
        _import_error = error
        return None
    return types.SimpleNamespace(
        Figure=Figure, FigureCanvasAgg=FigureCanvasAgg, Line2D=Line2D,
        PercentFormatter=PercentFormatter)


def skipped_note():
    """The line a command prints, once, when it cannot draw its plots."""
    reason = ' (%s)' % _import_error if _import_error else ''
    return ('plots skipped: matplotlib cannot be imported%s; install the '
            'plots extra (pip install \'.[plots]\' from a checkout) to get '
            'the figures, or pass --no-plots to do without them' % reason)


@contextlib.contextmanager
def saved_figure(path, **figure_kw):
    """A figure to draw on, saved at ``path`` if drawing succeeds."""
    mpl = matplotlib_parts()
    figure = mpl.Figure(**figure_kw)
    mpl.FigureCanvasAgg(figure)
    yield figure
    figure.savefig(path, format='png', dpi=DPI)


def time_scale(span_s):
    """``(seconds per unit, unit)`` for a time axis spanning ``span_s``:
    hours up to :data:`HOURS_UP_TO` hours, days beyond.
    """
    if span_s <= HOURS_UP_TO * SECONDS_PER_HOUR:
        return SECONDS_PER_HOUR, 'h'
    return SECONDS_PER_DAY, 'days'


def percent_axis(axis):
    """Shares (0..1) shown as percentages, without an offset."""
    axis.set_major_formatter(
        matplotlib_parts().PercentFormatter(xmax=1.0, decimals=0))


def plain_axis(ax, which):
    """No offset or scientific notation on a numeric axis."""
    ax.ticklabel_format(axis=which, style='plain', useOffset=False)
