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

"""Compute drivers: what the scheduler loop asks of the hosts.

A driver owns hosts and the instances on them. Requests to it are
asynchronous: :meth:`ComputeDriver.spawn` and :meth:`ComputeDriver.terminate`
return at once, and the outcome arrives later as a call on the
:class:`ComputeEvents` sink the driver was given (from the clock's thread).
Drivers are registered in the ``preemptible_sched.compute_drivers``
namespace; ``fake`` emulates the blade testbed of the original evaluation.
"""


class ComputeEvents:
    """What a compute driver reports; the scheduler loop implements it.

    ``at`` is the clock time the event happened at. ``boot``, when the
    driver knows it, is the :attr:`~preemptible_sched.objects.Instance.boot`
    of the spawn the event is about.
    """

    def instance_started(self, host, instance_id, at, boot=None):
        """The instance finished booting and is running."""

    def instance_ended(self, host, instance_id, at, boot=None):
        """The instance's workload finished on its own."""

    def instance_failed(self, host, instance_id, at, reason, boot=None):
        """Spawning failed, or the instance crashed."""

    def instance_terminated(self, host, instance_id, at, boot=None):
        """A termination requested by the scheduler is done."""

    def termination_failed(self, host, instance_id, at, reason, boot=None):
        """A termination requested by the scheduler did not happen."""

    def host_down(self, host, at):
        """The host stopped answering; its instances are lost."""

    def host_up(self, host, at):
        """The host is back and may take instances.

        After ``host_down`` it is empty; after ``host_unreachable`` it may
        still run what it ran: the loop asks it (``list_instances``) and
        reconciles.
        """

    def host_unreachable(self, host, at):
        """The host's agent stopped answering (missed heartbeats).

        Unlike ``host_down`` its instances are not known to be lost: they
        are kept as they are until the host is back or reported down.
        """

    def host_added(self, host, at):
        """A host (an :class:`objects.Host`) joined after the start."""


#: How a finished instance ended: on its own, failed (crashed, or its boot
#: failed), or terminated at the scheduler's request.
FINISHED_STATES = ('ended', 'failed', 'terminated')


class ComputeDriver:
    """Base of every compute driver.

    ``clock`` is the :class:`~preemptible_sched.clock.Clock` to schedule on;
    ``events`` receives outcomes. Drivers never block the caller.
    """

    #: Its entry-point name: each class declares it (``name = 'fake'``).
    #: A third-party class that declares none still loads; the scheduler
    #: service sets the configured name on the object it builds.
    name = None

    def __init__(self, clock, events=None):
        self.clock = clock
        self.events = events or ComputeEvents()

    def host_specs(self):
        """The hosts this driver owns, as :class:`objects.Host`."""
        raise NotImplementedError()

    def list_instances(self, host):
        """The instances on ``host`` now:
        ``[objects.InstanceReport]``.
        """
        raise NotImplementedError()

    def finished_instances(self, host):
        """The instances ``host`` remembers finishing, newest last:
        ``[objects.InstanceReport]`` in one of :data:`FINISHED_STATES`, with
        their ``boot``, ``ended_at`` and ``reason``.

        The scheduler asks when an instance it expects on ``host`` is not
        there and its report was lost or is late: an instance that ran and
        ended is then recorded ``ended``, not taken for a spawn that never
        arrived (and booted a second time). A driver that remembers
        nothing returns ``[]``, the default.
        """
        return []

    def host_utilization(self, host):
        """``(cpu %, memory %)`` that ``host`` uses now, in % of its
        physical capacity (None for what the driver cannot tell), for the
        load watcher's ``compute`` source. The default tells nothing.
        """
        return None, None

    def stop(self):
        """The service stops: cut short what waits on a remote host (see
        :class:`preemptible_sched.exception.Stopping`). Nothing to do for a
        driver whose hosts answer at once.
        """

    def spawn(self, host, instance, image=None, duration=None):
        """Start booting ``instance`` (an :class:`objects.Instance`).

        ``image`` names what it boots from (drivers may boot faster from an
        image the host already has); ``duration``, when known (a trace, an
        emulated workload), is how long it runs before ending on its own.
        Reports ``instance_started`` or ``instance_failed``.
        """
        raise NotImplementedError()

    def terminate(self, host, instance_id):
        """Start terminating ``instance_id`` on ``host``.

        Idempotent: terminating an instance that is not there reports
        ``instance_terminated`` at once. Reports ``instance_terminated`` or
        ``termination_failed``.
        """
        raise NotImplementedError()
