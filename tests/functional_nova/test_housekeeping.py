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

"""What operators of preemptible clouds ask for: ``max_lifetime``, the
``watermark`` and quotas for preemptible capacity (unified limits on the
preemptible classes of the one-pass mode).
"""

import fixtures
from nova import context as nova_context
from nova.limit import local as local_limit
from nova.tests.functional.api import client
from oslo_limit import fixture as limit_fixture

from tests.functional_nova import base
from tests.functional_nova import test_manager


class HousekeepingCase(base.NovaTestCase):

    def run_housekeeping(self):
        self.scheduler_service.manager._housekeeping(
            nova_context.get_admin_context())

    def terminated(self):
        """``[(instance_id, reason)]`` of every housekeeping decision."""
        return [(item['instance_id'], item['reason'])
                for message in self.notifier.notifications
                if message.event_type == 'preemptible_sched.housekeeping'
                for item in message.payload['terminate']]


class TestMaxLifetime(HousekeepingCase):
    """An hour at most: s1 started at T0 and s2 at T0 + 1800 s."""

    FLAGS = {('preemptible_sched', 'max_lifetime'): 3600}

    def test_servers_terminated_once_they_reach_the_limit(self):
        spots = self.fill({'s1': ('host1', 0), 's2': ('host1', 1800)})
        normal = self.boot(self.normal, host='host2', name='n1')
        self.at(3599)
        self.run_housekeeping()
        self.assertEqual([], self.terminated())
        self.at(3600)
        self.run_housekeeping()
        self.assertEqual([(spots['s1']['id'], 'max_lifetime')],
                         self.terminated())
        self._wait_until_deleted(spots['s1'])
        self.at(5400)
        self.run_housekeeping()
        self._wait_until_deleted(spots['s2'])
        # The normal server is never a candidate, however old.
        self.at(10 ** 6)
        self.run_housekeeping()
        self.assertEqual({normal['id']}, self.server_ids())
        self.assertEqual(2, len(self.terminated()))


class TestWatermark(HousekeepingCase):
    """A quarter of 20 vCPUs and 16384 MB kept free: at least 5 vCPUs and
    4096 MB. The eight 2 vCPU / 2048 MB servers of test_manager.LAYOUT
    leave 4 vCPUs and no RAM free: 1 vCPU and 4096 MB short. Cheapest
    first at T0 + 3000 s: s2d (900) frees 2 vCPUs and 2048 MB, s1d (1200)
    the remaining 2048 MB; s2c (1500) and the others stay.
    """

    FLAGS = {('preemptible_sched', 'watermark'): 0.25}

    def test_cheapest_servers_terminated_until_the_headroom_is_back(self):
        spots = self.fill(test_manager.LAYOUT)
        self.at(test_manager.NOW)
        self.run_housekeeping()
        self.assertEqual([(spots['s2d']['id'], 'watermark'),
                          (spots['s1d']['id'], 'watermark')],
                         self.terminated())
        for name in ('s2d', 's1d'):
            self._wait_until_deleted(spots[name])
        self.assert_usages_match_servers()
        # The headroom is back: the next run terminates nothing.
        self.run_housekeeping()
        self.assertEqual(2, len(self.terminated()))

    def test_a_run_while_placement_still_holds_the_victims_room(self):
        # Nova shows the victims deleted before Placement frees their
        # room: a run in between terminates no other server for it.
        spots = self.fill(test_manager.LAYOUT)
        self.at(test_manager.NOW)
        context = nova_context.get_admin_context()
        reader = self.scheduler_service.manager.reader
        held = {provider: reader.allocations(context, provider)
                for provider in reader.compute_nodes(context)}
        self.run_housekeeping()
        for name in ('s2d', 's1d'):
            self._wait_until_deleted(spots[name])
        self.useFixture(fixtures.MockPatchObject(
            reader, 'allocations',
            side_effect=lambda context, provider: held[provider]))
        self.run_housekeeping()
        self.assertEqual([(spots['s2d']['id'], 'watermark'),
                          (spots['s1d']['id'], 'watermark')],
                         self.terminated())


class TestPreemptibleQuota(base.NovaTestCase):
    """Unified limits count the preemptible classes apart from the
    standard ones: 4 preemptible vCPUs and 4 normal vCPUs per project.
    """

    ONE_PASS = True

    def setUp(self):
        super().setUp()
        self.flags(driver='nova.quota.UnifiedLimitsDriver', group='quota')
        self.useFixture(limit_fixture.LimitFixture({
            local_limit.SERVER_METADATA_ITEMS: 128,
            local_limit.INJECTED_FILES: 5,
            local_limit.INJECTED_FILES_CONTENT: 10 * 1024,
            local_limit.INJECTED_FILES_PATH: 255,
            local_limit.KEY_PAIRS: 100,
            local_limit.SERVER_GROUPS: 10,
            local_limit.SERVER_GROUP_MEMBERS: 10,
            'servers': 100,
            'class:VCPU': 4, 'class:MEMORY_MB': 100000,
            'class:DISK_GB': 1000,
            'class:CUSTOM_PREEMPTIBLE_VCPU': 4,
            'class:CUSTOM_PREEMPTIBLE_MEMORY_MB': 100000,
            'class:CUSTOM_PREEMPTIBLE_DISK_GB': 1000}, {}))

    def refused(self, flavor):
        error = self.assertRaises(
            client.OpenStackApiException, self.api.post_server,
            {'server': self._build_server(flavor_id=flavor,
                                          networks='none')})
        self.assertEqual(403, error.response.status_code)
        self.assertIn('CUSTOM_PREEMPTIBLE_VCPU' if flavor == self.spot
                      else 'VCPU', str(error))

    def test_preemptible_vcpus_counted_apart(self):
        self.boot(self.spot, name='s1')
        self.boot(self.spot, name='s2')
        self.refused(self.spot)
        # Four preemptible vCPUs in use take nothing from the normal quota.
        self.boot(self.normal, name='n1')
        self.boot(self.normal, name='n2')
        self.refused(self.normal)


class TestPeriodicTasks(base.NovaTestCase):

    def test_manager_runs_both_tasks_at_their_intervals(self):
        # oslo.service finds periodic tasks in the manager class itself.
        manager = self.scheduler_service.manager
        spacing = dict(manager._periodic_spacing)
        self.assertEqual(60, spacing.get('_housekeeping'))
        self.assertEqual(60, spacing.get('_requeue_displaced'))
