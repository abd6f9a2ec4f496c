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

"""The narrow ports through which the parts of the loop reach the rest.

The executor (:mod:`.executor`), the lifecycle (:mod:`.lifecycle`) and the
recovery (:mod:`.recovery`) never hold the loop object. Each takes what it
uses, as one of these ports or as a plain collaborator (the journal, which
is the :class:`~preemptible_sched.db.api.Store`; the host manager; the
preemption strategy):

:class:`Compute`
    the compute driver, and what a host says it runs or finished;
:class:`DecisionEvents`
    the journal's event log and the notifier;
:class:`Scheduling`
    the clock, timers that die with the loop and the request for a pass;
:class:`Requeue`
    the pending queue, seen from outside: put a request back;
:class:`Requests`
    the request bookkeeping that belongs to the loop (a request placed as
    a whole, a request whose instances all ended).

The loop builds them in its constructor (:class:`~preemptible_sched.loop.
scheduler_loop.SchedulerLoop`); a test can build a part with stand-ins.
"""

import logging

LOG = logging.getLogger(__name__)


class Compute:
    """The compute driver, with the loop's way of asking a host.

    ``hosts`` is the host manager: a host that is gone or down is not
    asked.
    """

    def __init__(self, driver, hosts):
        self.driver = driver
        self._hosts = hosts

    def spawn(self, host, instance, image=None, duration=None):
        self.driver.spawn(host, instance, image=image, duration=duration)

    def terminate(self, host, instance_id):
        self.driver.terminate(host, instance_id)

    def host_specs(self):
        return self.driver.host_specs()

    def work_done(self, host, seconds):
        """Reference seconds of work that ``seconds`` on ``host`` were;
        the host seconds when the driver does not convert them.
        """
        convert = getattr(self.driver, 'work_done', None)
        if convert is None or host is None:
            return seconds
        return convert(host, seconds)

    def instances_on(self, host):
        """``{id: InstanceReport}`` on ``host``; None if it is gone or
        cannot be asked now.
        """
        return self._ask(host, self.driver.list_instances, 'runs')

    def finished_on(self, host):
        """``{id: InstanceReport}`` of what ``host`` remembers finishing
        (see :meth:`ComputeDriver.finished_instances`); {} if it is gone or
        cannot be asked now.
        """
        return self._ask(host, self.driver.finished_instances,
                         'finished') or {}

    def _ask(self, host, method, what):
        state = self._hosts.host_states.get(host)
        if state is None or not state.up:
            return None
        try:
            reports = method(host)
        except Exception as error:  # noqa: B902 any driver's "unreachable"
            LOG.warning('Cannot ask host %s what it %s: %s', host, what,
                        error)
            return None
        return {report.id: report for report in reports}


class DecisionEvents:
    """Every event of a decision and an instance, journaled in ``store``
    and, when a ``notifier`` is given (``info(event_type, payload)``, as
    oslo.messaging's), sent as a notification.
    """

    def __init__(self, store, clock, notifier=None):
        self._store = store
        self._clock = clock
        self.notifier = notifier

    def notify(self, event_type, payload):
        self._store.record_event(event_type, self._clock.now(),
                                 request_id=payload.get('request_id'),
                                 instance_id=payload.get('instance_id'),
                                 host=payload.get('host'), payload=payload)
        if self.notifier is not None:
            self.notifier.info(event_type, payload)


class Scheduling:
    """The clock, timers that die with the loop, and passes.

    ``call_later(delay, callback, *args, priority=None)`` schedules a
    callback that becomes a no-op once the loop stops; ``request_pass()``
    asks for a scheduling pass.
    """

    def __init__(self, clock, call_later, request_pass):
        self.clock = clock
        self.call_later = call_later
        self.request_pass = request_pass

    def now(self):
        return self.clock.now()


class Requeue:
    """Put a request back in the pending queue and ask for a pass."""

    def __init__(self, queue, request_pass):
        self._queue = queue
        self._request_pass = request_pass

    def add(self, spec, *args, **kwargs):
        """Queue ``spec`` (the arguments of :meth:`PendingQueue.add`) and
        ask for a pass; the queue entry.
        """
        entry = self._queue.add(spec, *args, **kwargs)
        self._request_pass()
        return entry


class Requests:
    """The request bookkeeping the loop keeps.

    ``mark_placed_if_complete(request_id, at)`` marks a request placed
    once all its instances run; ``instance_finished(request_id, state)``
    ends a request whose instances have all ended.
    """

    def __init__(self, mark_placed_if_complete, instance_finished):
        self.mark_placed_if_complete = mark_placed_if_complete
        self.instance_finished = instance_finished
