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

"""Moves in the one-pass mode: they are scheduled like any move, on the
full view, displace nothing, and carry the preemptible classes with them.
"""

from tests.functional_nova import base


class TestMoves(base.NovaTestCase):

    ONE_PASS = True

    def test_resize_from_preemptible_to_normal_changes_the_classes(self):
        spot = self.boot(self.spot, host='host1', name='s')
        self._resize_server(spot, self.normal)
        self._confirm_resize(spot)
        moved = self.api.get_server(spot['id'])
        self.assertEqual('host2', moved['OS-EXT-SRV-ATTR:host'])
        self.assertEqual(
            {'VCPU': 2, 'MEMORY_MB': 2048, 'DISK_GB': 10,
             'CUSTOM_PREEMPTIBLE_VCPU': 0,
             'CUSTOM_PREEMPTIBLE_MEMORY_MB': 0,
             'CUSTOM_PREEMPTIBLE_DISK_GB': 0},
            self._get_provider_usages(
                self._get_provider_uuid_by_host('host2')))
        self.assert_usages_match_servers()

    def test_migration_keeps_the_preemptible_classes(self):
        spot = self.boot(self.spot, host='host1', name='s')
        self._migrate_server(spot)
        self._confirm_resize(spot)
        usages = self._get_provider_usages(
            self._get_provider_uuid_by_host('host2'))
        self.assertEqual(2, usages['CUSTOM_PREEMPTIBLE_VCPU'])
        self.assertEqual(0, usages['VCPU'])
        self.assert_usages_match_servers()

    def test_move_displaces_nothing(self):
        # host2 full of preemptible servers; a normal server moves off
        # host1: no host can take it, nothing is deleted.
        for index in range(4):
            self.boot(self.spot, host='host2', name='s%d' % index)
        normal = self.boot(self.normal, host='host1', name='n')
        before = self.server_ids()
        self.api.post_server_action(normal['id'], {'migrate': None})
        self._wait_for_action_fail_completion(
            server=normal, expected_action='migrate',
            event_name='conductor_migrate_server')
        self.assertEqual(before, self.server_ids())
        self.assertEqual('host1', self.api.get_server(normal['id'])[
            'OS-EXT-SRV-ATTR:host'])
