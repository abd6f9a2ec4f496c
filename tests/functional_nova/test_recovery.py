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

"""A scheduler that dies half-way through a decision, and the next one.

A big server (4 vCPUs) needs two of host2's preemptible servers gone: s2c
and s2d (test_manager.LAYOUT). The scheduler journals the decision, claims
the room, deletes s2d and dies before s2c. The next scheduler to start
deletes s2c, and never asks for s2d again.
"""

from unittest import mock

from nova import context as nova_context

from preemptible_sched.nova import commit
from preemptible_sched.nova import terminator
from preemptible_sched.nova import victims
from tests.functional_nova import base
from tests.functional_nova import test_manager


class TestRecovery(base.NovaTestCase):

    FLAGS = {('filter_scheduler', 'weight_classes'): test_manager.WEIGHERS}

    def restart_scheduler(self):
        self.scheduler_service.stop()
        self.scheduler_service = self.start_service(
            'scheduler', manager=base.MANAGER)
        return self.scheduler_service.manager

    def test_next_scheduler_finishes_a_half_done_decision(self):
        spots = self.fill(test_manager.LAYOUT)
        self.at(test_manager.NOW)
        with mock.patch.object(terminator.Terminator, 'act'):
            server = self.boot(self.big, name='big')
        self.assertEqual('host2', server['OS-EXT-SRV-ATTR:host'])
        manager = self.scheduler_service.manager
        decision, = manager.journal.open_decisions()
        self.assertEqual('acting', decision.state)
        self.assertEqual(sorted([spots['s2c']['id'], spots['s2d']['id']]),
                         [victim.id for victim in decision.victims])
        # It deletes s2d, then dies.
        first = [v for v in decision.victims
                 if v.id == spots['s2d']['id']][0]
        self.assertTrue(manager.journal.take(decision.id, first.id))
        manager.victims.act(first)
        manager.journal.settle(decision.id, first.id, 'requested')
        self._wait_until_deleted(spots['s2d'])
        self.assertIn(spots['s2c']['id'], self.server_ids())

        acted = []
        original = victims.Victims.act

        def spy(port, victim):
            acted.append(victim.id)
            return original(port, victim)

        with mock.patch.object(victims.Victims, 'act', spy):
            manager = self.restart_scheduler()
        self.assertEqual([spots['s2c']['id']], acted)
        self._wait_until_deleted(spots['s2c'])
        manager._run_due(nova_context.get_admin_context())
        self.assertEqual('done', manager.journal.get(decision.id).state)
        self.assertEqual([], manager.journal.open_decisions())
        self.assert_usages_match_servers()

    def test_decision_whose_room_was_never_claimed_is_rolled_back(self):
        spots = self.fill(test_manager.LAYOUT)
        self.at(test_manager.NOW)
        manager = self.scheduler_service.manager
        # Journaled, then the scheduler died before the claim.
        with mock.patch.object(commit, '_claim',
                               side_effect=RuntimeError('died')):
            self.boot(self.normal, name='n1', expected_state='ERROR')
        decision, = manager.journal.open_decisions()
        self.assertEqual('decided', decision.state)
        manager = self.restart_scheduler()
        self.assertEqual('rolled_back',
                         manager.journal.get(decision.id).state)
        # Nothing was deleted.
        self.assertEqual(set(), {spot['id'] for spot in spots.values()} -
                         self.server_ids())
        # And the periodic task has nothing to do.
        manager._run_due(nova_context.get_admin_context())
        self.assertEqual(set(), {spot['id'] for spot in spots.values()} -
                         self.server_ids())

    def test_dead_request_gives_its_room_back(self):
        """Journaled and claimed (s2d's room emptied), then the scheduler
        died before it replied: the boot fails. The next scheduler sees
        the request buried in cell0: it deletes nothing, gives s2d its
        allocations back and frees the dead server's claim.
        """
        spots = self.fill(test_manager.LAYOUT)
        self.at(test_manager.NOW)
        manager = self.scheduler_service.manager
        with mock.patch.object(commit, '_start',
                               side_effect=RuntimeError('died')):
            server = self.boot(self.normal, name='n1',
                               expected_state='ERROR')
        decision, = manager.journal.open_decisions()
        self.assertEqual('decided', decision.state)
        self.assertEqual([spots['s2d']['id']],
                         [victim.id for victim in decision.victims])
        victim_rp = self._get_provider_uuid_by_host('host2')
        self.assertEqual({}, self._get_allocations_by_server_uuid(
            spots['s2d']['id']))
        manager = self.restart_scheduler()
        self.assertEqual('rolled_back',
                         manager.journal.get(decision.id).state)
        self.assertEqual({spot['id'] for spot in spots.values()},
                         {spot['id'] for spot in spots.values()} &
                         self.server_ids())
        self.assertEqual({}, self._get_allocations_by_server_uuid(
            server['id']))
        self.assertIn(victim_rp, self._get_allocations_by_server_uuid(
            spots['s2d']['id']))
        self.assert_usages_match_servers()
