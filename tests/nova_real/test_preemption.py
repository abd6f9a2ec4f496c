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

"""Preemption in the real cloud: both modes, two schedulers at once, and a
scheduler killed during a grace period.

Each compute node holds four 2 vCPU / 2048 MB servers (8 vCPUs at a ratio
of 4, 8192 MB). The hosts are filled with preemptible servers; a normal
server must go ACTIVE and the cheapest preemptible server (the one that
has run least of its billing period: the last launched) go, deleted once,
no host ever left over capacity.
"""

from tests.nova_real import base


class PreemptionCase:
    """The scenario, for a test case that names the mode."""

    #: The spot flavor that fills the hosts.
    SPOT = 'spot'

    def launched(self, server):
        return server['OS-SRV-USG:launched_at']

    def test_normal_server_displaces_the_cheapest(self):
        spots = self.fill(self.SPOT)
        normal = self.boot('normal', 'normal')
        self.wait_for_status(normal, 'ACTIVE')
        gone = self.wait_for(
            lambda: set(spots) - {s['id'] for s in self.compute.servers()},
            'a preemptible server deleted')
        self.assertEqual(1, len(gone), 'victims')
        victim = spots[gone.pop()]
        # The billing_period cost: the last launched is the cheapest
        # (launched_at has whole seconds: ties are equal).
        self.assertEqual(max(map(self.launched, spots.values())),
                         self.launched(victim))
        self.assert_deleted_once([victim['id']])
        self.assert_within_capacity()
        active = {s['id'] for s in self.compute.servers()
                  if s['status'] == 'ACTIVE'}
        self.assertEqual(len(spots) - 1, len(active & set(spots)))


class TestRetryMode(PreemptionCase, base.NovaRealTestCase):

    SCHEDULER = {'preemptible_sched': {'mode': 'retry'}}


class TestOnePassMode(PreemptionCase, base.NovaRealTestCase):

    SCHEDULER = {'preemptible_sched': {'mode': 'one_pass'}}
    SPOT = 'spot1p'


class TestTwoSchedulers(base.NovaRealTestCase):
    """Two preemptible-nova-scheduler processes on the same topic, the
    Redis decision lock and the MariaDB journal, under a burst of normal
    boots onto hosts full of preemptible servers.
    """

    SCHEDULER = {'preemptible_sched': {'mode': 'retry'}}
    BURST = 6
    #: The preemptible flavor the hosts are filled with.
    FILL = 'spot'

    def burst(self):
        """``BURST`` normal boots at once onto hosts full of preemptible
        servers: a victim for each, each named and deleted once; the
        decisions.
        """
        spots = self.fill(self.FILL)
        normals = self.boot_concurrently('normal', self.BURST)
        self.wait_for_status(normals, 'ACTIVE')
        gone = self.wait_for(
            lambda: (lambda left: left if len(left) >= self.BURST else None)(
                set(spots) - {s['id'] for s in self.compute.servers()}),
            'a victim for each normal server')
        self.assertEqual(self.BURST, len(gone), 'victims')
        self.assert_deleted_once(sorted(gone))
        decisions = self.new_decisions('preempt')
        self.assertEqual(self.BURST, len(decisions))
        return decisions

    def test_burst_every_victim_single(self):
        self.start_scheduler('scheduler-2', host='scheduler-2')
        decisions = self.burst()
        # RabbitMQ hands the requests to both consumers in turn.
        self.assertEqual({'scheduler', 'scheduler-2'},
                         {row['scheduler'] for row in decisions.values()})
        self.assert_within_capacity()


class TestTwoSchedulersOnePass(TestTwoSchedulers):
    """The same in the one-pass mode, preemptible servers on their own
    classes (issue 25: victims deleted a moment ago were named again, and
    two normal servers took the room of one).
    """

    SCHEDULER = {'preemptible_sched': {'mode': 'one_pass'}}
    FILL = 'spot1p'


class TestKilledDuringGrace(base.NovaRealTestCase):
    """kill -9 of the scheduler while a victim waits out its grace."""

    #: Long enough for the boot to be answered before the victim is due,
    #: on a loaded machine.
    GRACE = 15
    SCHEDULER = {'preemptible_sched': {
        'mode': 'retry', 'termination_grace_seconds': GRACE}}

    def test_victim_deleted_once_after_restart(self):
        spots = self.fill('spot')
        [normal] = self.boot('normal', 'normal')
        # Answered: the conductor has the host (the decision is acting
        # before the reply is sent, so the journal does not tell).
        self.wait_for(lambda: self.compute.server(normal)[
            'OS-EXT-SRV-ATTR:host'], 'the boot scheduled')
        self.kill_scheduler()
        decision = self.decision_for(normal)
        self.assertEqual('acting', decision['state'])
        [victim] = decision['victims']
        self.assertEqual('pending', decision['victims'][victim]['state'],
                         'the victim was acted on before the kill: the '
                         'grace period is too short for this machine')
        self.wait_for_status([normal], 'ACTIVE')
        self.assertIn(victim, spots)
        self.start_scheduler()
        self.assert_deleted_once([victim])
        self.wait_for(lambda: self.journal.decisions()[decision['id']][
            'state'] == 'done', 'the decision done')
        self.assert_within_capacity()
