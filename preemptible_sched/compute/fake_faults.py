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


"""Failures on demand of the fake compute driver, for tests and chaos runs.

:class:`FailureInjection` gives
:class:`~preemptible_sched.compute.fake.FakeDriver` its
:meth:`~FailureInjection.fail_next_spawns`,
:meth:`~FailureInjection.fail_next_terminations`,
:meth:`~FailureInjection.crash_instance`,
:meth:`~FailureInjection.host_down` and :meth:`~FailureInjection.host_up`.
None of them runs on the request path: the driver consults the failures
they inject when it spawns or terminates (``FakeDriver._take_injected``).
"""

from preemptible_sched.compute import fake_hosts


class FailureInjection:
    """The failure injection of the fake driver (a mixin of
    :class:`~preemptible_sched.compute.fake.FakeDriver`, whose hosts,
    clock and event delivery it uses).
    """

    def fail_next_spawns(self, count=1, host=None):
        """Make the next ``count`` spawns (on ``host``, or on any) fail.

        A spawn refused for another reason (capacity, duplicate id, host
        down) does not use up an injected failure.
        """
        self._inject('fail_spawns', count, host)

    def fail_next_terminations(self, count=1, host=None):
        """Make the next ``count`` terminations (on ``host``, or any) fail.

        Only terminations of an instance that is there use up an injected
        failure; the instance keeps running, and its ``duration`` still
        ends it.
        """
        self._inject('fail_terminations', count, host)

    def crash_instance(self, host, instance_id, reason='crashed'):
        """The instance dies now (building or running): ``instance_failed``.

        Terminations pending on it are answered ``instance_terminated`` at
        their time, as for an absent instance.
        """
        fake_host = self._host(host)
        fake = fake_host.instances.pop(instance_id, None)
        if fake is None:
            raise LookupError('no instance %s on %s' % (instance_id, host))
        fake.cancel_lifecycle()
        fake_host.remember(fake, 'failed', self.clock.now(), reason)
        self._report('instance_failed', host, instance_id, reason,
                     **fake_hosts.boot_of(fake.instance))

    def host_down(self, host):
        """``host`` stops now: its instances vanish, ``host_down``.

        Boots, ends and terminations pending on the host are dropped: the
        ``host_down`` event answers them all. Until :meth:`host_up`, spawns
        to the host fail and terminations fail (nothing can be confirmed).
        Taking down a host that is down does nothing.
        """
        fake_host = self._host(host)
        if not fake_host.up:
            return
        fake_host.up = False
        for fake in fake_host.instances.values():
            fake.cancel_all()
        fake_host.instances.clear()
        fake_host.finished.clear()
        self._report('host_down', host)

    def host_up(self, host):
        """``host`` is back, empty, and takes instances: ``host_up``.

        Its image cache survives (the disk was not wiped), so the next boots
        of images it ran before are hot. Bringing up a host that is up does
        nothing.
        """
        fake_host = self._host(host)
        if fake_host.up:
            return
        fake_host.up = True
        self._report('host_up', host)

    def _inject(self, counter, count, host):
        if count < 0:
            raise ValueError('count must be >= 0, got %r' % count)
        if host is None:
            setattr(self, '_' + counter, getattr(self, '_' + counter) + count)
        else:
            fake_host = self._host(host)
            setattr(fake_host, counter, getattr(fake_host, counter) + count)
