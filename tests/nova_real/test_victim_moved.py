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

"""A victim its owner resizes to a normal flavor during its grace period,
so that it moves to the other host, is a normal server when the grace
ends: it is left alone (issue 26: it was deleted, the log naming its old
host). The real-deployment twin of the in-process
TestVictimResizedInItsGrace.
"""

from tests.nova_real import base


class TestVictimResizedInItsGrace(base.NovaRealTestCase):

    #: Long enough for a resize and its confirmation on a loaded machine.
    GRACE = 60
    SCHEDULER = {'preemptible_sched': {
        'mode': 'retry', 'termination_grace_seconds': GRACE}}

    def action(self, server_id, body):
        self.compute.post('/servers/%s/action' % server_id, body)

    def test_victim_that_moved_is_left_alone(self):
        spots = self.fill('spot')
        [normal] = self.boot('normal', 'normal')
        self.wait_for(lambda: self.compute.server(normal)[
            'OS-EXT-SRV-ATTR:host'], 'the boot scheduled')
        decision = self.decision_for(normal)
        [victim] = decision['victims']
        there = spots[victim]['OS-EXT-SRV-ATTR:host']
        # Its owner frees a slot on the other host, where the resize goes.
        [elsewhere] = [host for host in base.cloud_mod.HOSTS
                       if host != there]
        freed = next(server for server in spots
                     if spots[server]['OS-EXT-SRV-ATTR:host'] == elsewhere)
        self.compute.delete_server(freed)
        self.wait_until_deleted([freed])

        self.action(victim, {'resize': {
            'flavorRef': self.flavors['normal']}})
        self.wait_for_status([victim], 'VERIFY_RESIZE')
        self.action(victim, {'confirmResize': None})
        moved = self.wait_for_status([victim], 'ACTIVE')[victim]
        self.assertEqual(elsewhere, moved['OS-EXT-SRV-ATTR:host'])
        self.assertEqual('pending', self.journal.decisions()[
            decision['id']]['victims'][victim]['state'],
            'the grace period ended before the resize was confirmed')

        self.wait_for(lambda: self.journal.decisions()[decision['id']][
            'state'] == 'done', 'the decision done', timeout=self.GRACE * 3)
        self.assertEqual('gone', self.journal.decisions()[decision['id']][
            'victims'][victim]['state'])
        self.assertEqual('ACTIVE', self.compute.server(victim)['status'])
        self.assertEqual([], self.delete_actions(victim))
        self.wait_for_status([normal], 'ACTIVE')
        self.assert_within_capacity()
