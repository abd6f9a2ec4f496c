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

"""Clocks: the only place time comes from.

The scheduler loop, the compute drivers and the plugins never read the wall
clock; they ask the :class:`Clock` they were given. The same loop therefore
runs in the service (:class:`RealClock`) and in the simulator
(:class:`VirtualClock`), and a test can run hours of scheduling in
milliseconds, deterministically.

Callbacks run one at a time, in the order ``(time, priority, sequence)``:
at equal times a lower ``priority`` runs first, and at equal priorities the
callback scheduled first runs first. An exception raised by a callback is
never swallowed: it propagates out of :meth:`Clock.run`.
"""

import heapq
import itertools
import threading
import time as _time

#: Priorities of callbacks scheduled for the same instant.
URGENT = 0     # state changes reported by compute (an instance ended)
NORMAL = 1     # requests, decisions
LATE = 2       # passes and watchdogs: run after the state they look at


class Handle:
    """A scheduled callback; :meth:`cancel` stops it from running."""

    __slots__ = ('when', 'callback', 'args', 'cancelled')

    def __init__(self, when, callback, args):
        self.when = when
        self.callback = callback
        self.args = args
        self.cancelled = False

    def cancel(self):
        self.cancelled = True

    def __repr__(self):
        return '<Handle %s at %.3f%s>' % (
            getattr(self.callback, '__qualname__', self.callback), self.when,
            ' cancelled' if self.cancelled else '')


class Clock:
    """What the loop needs of time: read it, and be called back later."""

    def __init__(self):
        self._queue = []
        self._sequence = itertools.count()

    def now(self):
        raise NotImplementedError()

    def call_at(self, when, callback, *args, priority=NORMAL):
        """Run ``callback(*args)`` at ``when`` (never before ``now()``)."""
        handle = Handle(max(when, self.now()), callback, args)
        self._push(handle, priority)
        return handle

    def call_later(self, delay, callback, *args, priority=NORMAL):
        return self.call_at(self.now() + max(0.0, delay), callback, *args,
                            priority=priority)

    def call_soon(self, callback, *args, priority=NORMAL):
        return self.call_at(self.now(), callback, *args, priority=priority)

    def _push(self, handle, priority):
        heapq.heappush(self._queue, (handle.when, priority,
                                     next(self._sequence), handle))

    def _pop_due(self, until):
        """Pop the next live handle due at or before ``until`` (or None)."""
        while self._queue:
            when, _, _, handle = self._queue[0]
            if handle.cancelled:
                heapq.heappop(self._queue)
                continue
            if until is not None and when > until:
                return None
            heapq.heappop(self._queue)
            return handle
        return None

    def pending(self):
        """Number of live callbacks waiting to run."""
        return sum(1 for entry in self._queue if not entry[3].cancelled)

    def run(self, until=None):
        raise NotImplementedError()


class VirtualClock(Clock):
    """Simulated time: jumps from one callback to the next.

    ``run(until)`` runs every callback due at or before ``until`` and leaves
    the clock at ``until``; ``run()`` runs until nothing is left.
    """

    def __init__(self, start=0.0):
        super().__init__()
        self._now = float(start)

    def now(self):
        return self._now

    def step(self, until=None):
        """Run the next callback (due at or before ``until``, if given);
        False when there is none.
        """
        handle = self._pop_due(until)
        if handle is None:
            return False
        self._now = max(self._now, handle.when)
        handle.callback(*handle.args)
        return True

    def run(self, until=None):
        while True:
            handle = self._pop_due(until)
            if handle is None:
                break
            self._now = max(self._now, handle.when)
            handle.callback(*handle.args)
        if until is not None:
            self._now = max(self._now, float(until))


class RealClock(Clock):
    """Wall-clock time, optionally sped up by ``time_scale``.

    ``now()`` is seconds since the epoch at start plus the elapsed monotonic
    time times ``time_scale`` (2.0 makes a minute pass in 30 s). Callbacks
    may be scheduled from any thread; they all run in the thread that calls
    :meth:`run`.
    """

    def __init__(self, time_scale=1.0):
        super().__init__()
        if time_scale <= 0:
            raise ValueError('time_scale must be > 0, got %r' % time_scale)
        self.time_scale = float(time_scale)
        self._epoch = _time.time()
        self._start = _time.monotonic()
        self._condition = threading.Condition()
        self._stopped = False

    def now(self):
        return self._epoch + (_time.monotonic() - self._start) * \
            self.time_scale

    def _push(self, handle, priority):
        with self._condition:
            super()._push(handle, priority)
            self._condition.notify()

    def stop(self):
        """Make :meth:`run` return (from any thread)."""
        with self._condition:
            self._stopped = True
            self._condition.notify()

    def run(self, until=None):
        """Run callbacks as they fall due until ``until`` or :meth:`stop`.

        A :meth:`stop` that came before ``run`` makes it return at once.
        """
        while True:
            with self._condition:
                while True:
                    if self._stopped:
                        return
                    now = self.now()
                    if until is not None and now >= until:
                        return
                    handle = self._pop_due(now)
                    if handle is not None:
                        break
                    wake = self._queue[0][0] if self._queue else None
                    if until is not None:
                        wake = until if wake is None else min(wake, until)
                    timeout = (None if wake is None else
                               max(0.0, (wake - now) / self.time_scale))
                    self._condition.wait(timeout)
            handle.callback(*handle.args)
