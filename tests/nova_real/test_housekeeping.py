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

"""``max_lifetime`` and ``watermark`` in the real cloud: the scheduler's
periodic task (every ``housekeeping_interval`` s) terminates the right
preemptible servers, each by one decision, and never a normal one.
"""

import os

from tests.nova_real import base

#: oslo.service's debug line for each run of the periodic task.
HOUSEKEEPING_RUN = 'Running periodic task PreemptibleSchedulerManager.' \
                   '_housekeeping'


class TestMaxLifetime(base.NovaRealTestCase):

    LIFETIME = 15
    SCHEDULER = {'preemptible_sched': {'max_lifetime': LIFETIME,
                                       'housekeeping_interval': 2}}

    def test_preemptible_servers_terminated_at_their_lifetime(self):
        spots = self.boot('spot', 'spot', count=2)
        [normal] = self.boot('normal', 'normal')
        servers = self.wait_for_status(spots + [normal], 'ACTIVE')
        self.wait_until_deleted(spots)
        for spot in spots:
            [deleted] = self.delete_actions(spot)
            ran = (base.epoch(deleted['start_time']) -
                   base.epoch(
                       servers[spot]['OS-SRV-USG:launched_at']))
            # Both stamps are in whole seconds.
            self.assertGreaterEqual(ran, self.LIFETIME - 1, spot)
        named = [victim for row in self.new_decisions(
            'max_lifetime').values() for victim in row['victims']]
        self.assertEqual(sorted(spots), sorted(named))
        self.assertEqual('ACTIVE', self.compute.server(normal)['status'])
        self.assertEqual([], self.delete_actions(normal))
        self.assert_within_capacity()


class TestWatermark(base.NovaRealTestCase):
    """A quarter of the cloud kept free: 4 of 16 vCPUs and 4096 of 16384
    MB. Seven 2 vCPU / 2048 MB preemptible servers leave 2 vCPUs and 2048
    MB: one must go, the cheapest (the last launched).
    """

    WATERMARK = {'preemptible_sched': {'watermark': 0.25,
                                       'housekeeping_interval': 2}}

    def runs_since(self, offset):
        return self.log_since('scheduler', offset).count(HOUSEKEEPING_RUN)

    def test_cheapest_terminated_until_the_headroom_is_back(self):
        spots = self.fill('spot', per_host=4, hosts=self.cloud.hosts[:1])
        spots.update(self.fill('spot', per_host=3,
                               hosts=self.cloud.hosts[1:]))
        self.use_scheduler(self.WATERMARK)
        gone = self.wait_for(
            lambda: set(spots) - {s['id'] for s in self.compute.servers()},
            'a preemptible server terminated')
        # Two more runs of the task terminate nothing more.
        offset = os.path.getsize(self.cloud.path('logs', 'scheduler.log'))
        self.wait_for(lambda: self.runs_since(offset) >= 2,
                      'two more housekeeping runs')
        left = {s['id'] for s in self.compute.servers()}
        self.assertEqual(1, len(set(spots) - left), 'terminated')
        [victim] = gone
        launched = [s['OS-SRV-USG:launched_at'] for s in spots.values()]
        self.assertEqual(max(launched),
                         spots[victim]['OS-SRV-USG:launched_at'])
        self.assertEqual([victim], [v for row in self.new_decisions(
            'watermark').values() for v in row['victims']])
        self.assert_deleted_once([victim])
        self.assert_within_capacity()
