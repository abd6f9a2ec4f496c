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

"""The progress of a long run, on stderr, for a human.

:class:`Progress` reports a long run (``simulate``'s requests,
``experiment``'s runs): a bar at a terminal, one summary line elsewhere.
"""

import sys
import time

from preemptible_sched import extras
from preemptible_sched.simulation import report_tables

tqdm = extras.optional_module('tqdm')


class Progress:
    """Progress of a long run, on stderr, for a human.

    At a terminal, a tqdm bar: the units done out of ``total`` (requests
    submitted, runs finished), the simulated time, the events and events
    per second, and an ETA, redrawn at most every :attr:`REDRAW_S`
    seconds of wall-clock time (this is UI, not simulation time).
    Elsewhere (a log, a pipe, a test), one summary line once the run has
    succeeded::

        simulate qos: 1,000 requests, 12,345 events in 3.2 s (3,858
        events/s), simulated 2.0 d

    ``enabled`` True forces the bar, False silences both, None (default)
    picks by whether ``stream`` is a terminal.
    """

    REDRAW_S = 0.5
    BAR, SUMMARY, OFF = 'bar', 'summary', 'off'

    def __init__(self, total, stream=None, label='simulate', enabled=None,
                 clock=time.monotonic, unit='requests'):
        self.stream = sys.stderr if stream is None else stream
        if enabled is None:
            isatty = getattr(self.stream, 'isatty', None)
            self.mode = self.BAR if isatty and isatty() else self.SUMMARY
        else:
            self.mode = self.BAR if enabled else self.OFF
        self.total = total
        self.label = label
        self.unit = unit
        self.done = 0
        self.simulated_s = None
        self.events = None
        self._clock = clock
        self._started = clock()
        self._drawn_at = None
        self._closed = False
        self._bar = None
        if self.mode == self.BAR:
            self._bar = tqdm.tqdm(
                total=total, desc=label, file=self.stream, leave=True,
                dynamic_ncols=True, mininterval=0, unit=unit,
                bar_format='{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/'
                '{total_fmt} ' + unit + ' [{elapsed} elapsed, ETA '
                '{remaining}{postfix}]')

    @property
    def enabled(self):
        """Whether the bar is drawn."""
        return self.mode == self.BAR

    def __enter__(self):
        return self

    def __exit__(self, exc_type, *exc_info):
        self.close(succeeded=exc_type is None)

    def follow(self, simulation):
        """An ``on_event`` callback for a :class:`runner.Simulation` that
        also reports its simulated time and events.
        """
        def on_event(submitted):
            self.update(submitted, simulation.clock.now(),
                        simulation.events)
        return on_event

    def update(self, done, simulated_s=None, events=None):
        """``done`` of ``total`` units are done; the simulated time and
        the events so far, if known.
        """
        self.done = done
        if simulated_s is not None:
            self.simulated_s = simulated_s
        if events is not None:
            self.events = events
        if self._bar is None or self._closed:
            return
        now = self._clock()
        if (self._drawn_at is not None and done < self.total and
                now - self._drawn_at < self.REDRAW_S):
            return
        self._drawn_at = now
        self._draw()

    def close(self, succeeded=True):
        """End the bar with the last state, or write the summary line
        (only if the run ``succeeded``).
        """
        if self._closed:
            return
        self._closed = True
        if self._bar is not None:
            self._draw()
            self._bar.close()
        elif self.mode == self.SUMMARY and succeeded:
            self.stream.write(self.summary() + '\n')
            self.stream.flush()

    def summary(self):
        """``label: 1,000 requests, 12,345 events in 3.2 s (3,858
        events/s), simulated 2.0 d`` (what is known of it).
        """
        wall = max(self._clock() - self._started, 0.0)
        text = '%s: %s %s' % (self.label, '{:,}'.format(self.done),
                              self.unit)
        if self.events is not None:
            text += ', %s events in %.1f s (%s events/s)' % (
                '{:,}'.format(self.events), wall,
                '{:,.0f}'.format(self.events / wall) if wall > 0 else 'n/a')
        else:
            text += ' in %.1f s' % wall
        if self.simulated_s is not None:
            text += ', simulated %s' % report_tables.duration(
                self.simulated_s)
        return text

    def _details(self):
        details = []
        if self.simulated_s is not None:
            details.append('simulated %s' % report_tables.duration(
                self.simulated_s))
        if self.events is not None:
            wall = self._clock() - self._started
            details.append('%s events/s' % (
                '{:,.0f}'.format(self.events / wall) if wall > 0
                else 'n/a'))
        return ', '.join(details)

    def _draw(self):
        self._bar.set_postfix_str(self._details(), refresh=False)
        delta = min(self.done, self.total) - self._bar.n
        if delta > 0:
            self._bar.update(delta)
        else:
            self._bar.refresh()
