"""What a simulation leaves behind: instances.csv, summary.json, plots.

:func:`write_outputs` is all or nothing: every file is first written into a
hidden staging directory beside the output directory, and moved in only
once all of them are complete, so a failure (bad input, a plot that cannot
be drawn, a full disk) leaves no partial result behind. ``summary.json`` is
moved last: once it is there, the run's other files are too.

The layouts are those of ``preemptible-sched simulate`` in interfaces.md.
"""

import csv
import json
import math
import operator
import os
import shutil
import sys
import tempfile
import time

from preemptible_sched.loop import timing
from preemptible_sched.simulation import metrics
from preemptible_sched.simulation import plots as plotting

INSTANCES_FILE = 'instances.csv'
STAGES_FILE = 'stages.csv'
SUMMARY_FILE = 'summary.json'
AVAILABILITY_BY_INSTANCE_FILE = 'availability_by_instance.png'
AVAILABILITY_CDF_FILE = 'availability_cdf.png'
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
)

#: What ``plot_data`` of :func:`write_outputs` may hold.
PLOT_DATA_KEYS = frozenset(['runs', 'slos', 'utilisation'])


def build_summary(policy, records, slos, preemptions, terminations,
                  latencies_s, stage_time_ms, extra=None,
                  tolerance=metrics.SLO_TOLERANCE):
    """The content of summary.json.

    ``slos`` maps a class name to its SLO; ``latencies_s`` are the
    scheduling latencies of the decisions, in seconds; ``stage_time_ms``
    maps a pipeline stage to its time; ``tolerance`` is how far below
    its SLO an availability still fulfils it. ``extra`` adds run-wide figures
    (acceptance, utilisation, ...); it may not replace a standard key.
    """
    summary = {
        'policy': policy,
        'per_class': metrics.class_summary(records, slos, tolerance),
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
                  stages=None):
    """Write a run's results into ``directory``, all or nothing.

    Writes instances.csv (one row per record), summary.json (indented,
    keys sorted) and, when ``plots`` is true and matplotlib is installed,
    the figures. ``plot_data`` may hold ``runs`` (policy -> records, for
    the availability figure; default: this run alone), ``slos`` (class ->
    SLO; default: those in ``summary['per_class']``) and ``utilisation``
    (``(t, cpu_fraction, memory_fraction)`` tuples; no utilisation figure
    without it). ``stages``, if given, are the per-pass stage rows of
    :meth:`~preemptible_sched.loop.timing.StageStats.rows`, written to
    stages.csv.

    ``directory`` is created if missing; files of an earlier run not
    rewritten stay. Raises on bad input (a NaN, an unknown ``plot_data``
    key, ...) with nothing written. Returns the names of the files written.
    """
    records = list(records)
    plot_data = dict(plot_data or {})
    unknown = sorted(set(plot_data) - PLOT_DATA_KEYS)
    if unknown:
        raise ValueError('unknown plot data: %s' % ', '.join(unknown))

    directory = os.path.abspath(directory)
    parent = os.path.dirname(directory)
    os.makedirs(parent, exist_ok=True)
    staging = tempfile.mkdtemp(
        prefix='.%s.' % os.path.basename(directory), suffix='.tmp',
        dir=parent)
    try:
        _write_instances(os.path.join(staging, INSTANCES_FILE), records)
        if stages is not None:
            _write_stages(os.path.join(staging, STAGES_FILE), stages)
        if plots and plotting.available():
            _write_plots(staging, records, summary, plot_data)
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


def read_instances(path):
    """The records of an instances.csv written by :func:`write_outputs`.

    Floats come back rounded to the 6 decimals they were written with.
    """
    with open(path, newline='') as stream:
        reader = csv.DictReader(stream)
        expected = [name for name, _kind in INSTANCE_COLUMNS]
        if reader.fieldnames != expected:
            raise ValueError('%s: columns %s, expected %s'
                             % (path, reader.fieldnames, expected))
        return [_record(row) for row in reader]


def _record(row):
    fields = {name: _parse(row[name], kind) for name, kind in INSTANCE_COLUMNS}
    fields['id'] = row['id']
    return metrics.InstanceRecord(**fields)


def _write_instances(path, records):
    with open(path, 'w', newline='') as stream:
        writer = csv.writer(stream, lineterminator='\n')
        writer.writerow([name for name, _kind in INSTANCE_COLUMNS])
        for record in records:
            writer.writerow([_format(getattr(record, name), kind, name)
                             for name, kind in INSTANCE_COLUMNS])


def _write_stages(path, rows):
    with open(path, 'w', newline='') as stream:
        writer = csv.writer(stream, lineterminator='\n')
        writer.writerow(timing.COLUMNS + ('stage_name',))
        for number, at, stage, iterations, size, wall, cpu in rows:
            writer.writerow([number, '%.6f' % at, stage, iterations, size,
                             '%.6f' % wall, '%.6f' % cpu,
                             timing.STAGE_NAMES.get(stage, stage)])


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


def _parse(text, kind):
    if text == '':
        return None
    if kind == _BOOL:
        if text not in ('true', 'false'):
            raise ValueError('not a boolean: %r' % text)
        return text == 'true'
    if kind == _INT:
        return int(text)
    if kind == _FLOAT:
        return float(text)
    return text


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
    plotting.availability_by_instance(
        os.path.join(directory, AVAILABILITY_BY_INSTANCE_FILE),
        plot_data.get('runs') or {policy: records}, slos)
    plotting.availability_cdf(
        os.path.join(directory, AVAILABILITY_CDF_FILE), records, slos,
        'Availability per class (%s)' % policy)
    if plot_data.get('utilisation') is not None:
        plotting.utilisation_over_time(
            os.path.join(directory, UTILISATION_FILE),
            plot_data['utilisation'])


class Progress:
    """A one-line progress bar for long runs, for a human at a terminal.

    ``label [#######.......]  45% 1234/5678 events``, redrawn in place at
    most every :attr:`REDRAW_S` seconds of wall-clock time (this is UI,
    not simulation time) and always on reaching ``total``. Disabled, it
    writes nothing; by default it is enabled only when ``stream`` is a
    terminal, so logs and captured output stay clean.
    """

    WIDTH = 30
    REDRAW_S = 0.5

    def __init__(self, total, stream=None, label='simulate', enabled=None,
                 clock=time.monotonic):
        self.stream = sys.stderr if stream is None else stream
        if enabled is None:
            isatty = getattr(self.stream, 'isatty', None)
            enabled = bool(isatty and isatty())
        self.total = total
        self.label = label
        self.enabled = enabled
        self.done = 0
        self._clock = clock
        self._drawn_at = None
        self._drawn_done = None
        self._drawn_width = 0
        self._closed = False

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def update(self, done):
        """Report that ``done`` of ``total`` events are processed."""
        self.done = done
        if not self.enabled or self._closed:
            return
        now = self._clock()
        finished = done >= self.total and done != self._drawn_done
        if (self._drawn_at is None or finished
                or now - self._drawn_at >= self.REDRAW_S):
            self._drawn_at = now
            self._draw()

    def close(self):
        """Draw the last state and end the line."""
        if not self.enabled or self._closed:
            return
        self._closed = True
        if self.done != self._drawn_done:
            self._draw()
        self.stream.write('\n')
        self.stream.flush()

    def _draw(self):
        # Integer arithmetic: 29/100 must show 29%, not 28.999...%.
        done = min(self.done, self.total) if self.total else 1
        total = self.total or 1
        filled = done * self.WIDTH // total
        line = '%s [%s%s] %3d%% %d/%d events' % (
            self.label, '#' * filled, '.' * (self.WIDTH - filled),
            done * 100 // total, self.done, self.total)
        # Pad with blanks over whatever a longer previous line left.
        self.stream.write('\r' + line.ljust(self._drawn_width))
        self.stream.flush()
        self._drawn_done = self.done
        self._drawn_width = len(line)
