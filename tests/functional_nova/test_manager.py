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

"""The preemption-aware manager in a whole Nova: who dies, and what's left.

Billing periods are an hour. Two hosts each carry four 2 vCPU / 2048 MB
preemptible servers, booted at T0 + the seconds below; the normal request
comes at T0 + 3000 s, so each server's termination cost (its run time
modulo 3600 s) is 3000 minus its boot time:

=======  =====  ====  =======  =====  ====
host1    boot   cost  host2    boot   cost
=======  =====  ====  =======  =====  ====
s1a          0  3000  s2a        300  2700
s1b        600  2400  s2b        900  2100
s1c       1200  1800  s2c       1500  1500
s1d       1800  1200  s2d       2100   900
=======  =====  ====  =======  =====  ====
"""

from unittest import mock

from nova import context as nova_context
from nova.scheduler import manager as nova_manager

from preemptible_sched.nova import manager
from tests.functional_nova import base

LAYOUT = {'s1a': ('host1', 0), 's1b': ('host1', 600),
          's1c': ('host1', 1200), 's1d': ('host1', 1800),
          's2a': ('host2', 300), 's2b': ('host2', 900),
          's2c': ('host2', 1500), 's2d': ('host2', 2100)}
NOW = 3000

WEIGHERS = ['preemptible_sched.nova.weighers.TerminationCostWeigher',
            'nova.scheduler.weights.all_weighers']


class TestPreemption(base.NovaTestCase):

    FLAGS = {('filter_scheduler', 'weight_classes'): WEIGHERS}

    def setUp(self):
        super().setUp()
        self.spots = self.fill(LAYOUT)
        self.at(NOW)

    def deleted(self, before):
        gone = before - self.server_ids()
        return sorted(name for name, server in self.spots.items()
                      if server['id'] in gone)

    def test_normal_server_displaces_the_cheapest_preemptible_one(self):
        before = self.server_ids()
        server = self.boot(self.normal, name='n1')
        # s2d forfeits 900 s, the least of all eight; host2 is the host
        # whose cheapest termination set costs least.
        self.assertEqual('host2', server['OS-EXT-SRV-ATTR:host'])
        self.assertEqual(['s2d'], self.deleted(before))
        self.assert_usages_match_servers()

    def test_bigger_server_displaces_the_cheapest_pair(self):
        before = self.server_ids()
        server = self.boot(self.big, name='n1')
        # Two servers must go: host1's cheapest pair costs 1200 + 1800,
        # host2's 900 + 1500.
        self.assertEqual('host2', server['OS-EXT-SRV-ATTR:host'])
        self.assertEqual(['s2c', 's2d'], self.deleted(before))
        self.assert_usages_match_servers()

    def test_multi_instance_request_displaces_one_server_per_instance(self):
        before = self.server_ids()
        servers = self.boot_many(self.normal, 2)
        # The first instance takes s2d's room (900); for the second, host1
        # offers s1d (1200) and host2 s2c (1500).
        self.assertEqual(['host1', 'host2'], sorted(
            server['OS-EXT-SRV-ATTR:host'] for server in servers))
        self.assertEqual(['s1d', 's2d'], self.deleted(before))
        self.assert_usages_match_servers()

    def test_victims_get_a_termination_notice_before_deletion(self):
        self.boot(self.normal, name='n1')
        notices = [message for message in self.notifier.notifications
                   if message.event_type == 'instance.termination_notice']
        self.assertEqual([self.spots['s2d']['id']],
                         [notice.payload['instance_id']
                          for notice in notices])
        decisions = [message for message in self.notifier.notifications
                     if message.event_type == 'preemptible_sched.preempt']
        self.assertEqual(1, len(decisions))
        placement, = decisions[0].payload['placements']
        self.assertEqual('host2', placement['host'])
        self.assertEqual([self.spots['s2d']['id']], placement['terminate'])
        self.assertEqual(900.0, placement['termination_cost'])

    def test_preemptible_server_on_full_hosts_deletes_nothing(self):
        before = self.server_ids()
        server = self.boot(self.spot, name='late', expected_state='ERROR')
        self.assertIn('No valid host', server['fault']['message'])
        self.assertEqual(before, self.server_ids() - {server['id']})
        self.assertEqual([], self.deleted(before))

    def test_request_larger_than_any_host_deletes_nothing(self):
        # More RAM than a host has, even empty.
        huge = self._create_flavor(name='huge', vcpu=2, memory_mb=10240,
                                   disk=10, ephemeral=0)
        before = self.server_ids()
        server = self.boot(huge, name='huge', expected_state='ERROR')
        self.assertIn('No valid host', server['fault']['message'])
        self.assertEqual([], self.deleted(before))


class TestHostsFullOfNormalServers(base.NovaTestCase):

    def test_normal_server_fails_as_in_stock_nova(self):
        for host in self.HOSTS:
            for index in range(4):
                self.boot(self.normal, host=host,
                          name='%s-%d' % (host, index))
        before = self.server_ids()
        server = self.boot(self.normal, name='late', expected_state='ERROR')
        self.assertIn('No valid host', server['fault']['message'])
        self.assertEqual(before, self.server_ids() - {server['id']})


class TestGracePeriod(base.NovaTestCase):
    """With a grace period the notice names the deletion time, the server
    is told through its metadata, and it is deleted after the grace.
    """

    FLAGS = {('filter_scheduler', 'weight_classes'): WEIGHERS,
             ('preemptible_sched', 'termination_grace_seconds'): 0.5}

    def test_victim_is_noticed_then_deleted_once_the_grace_ends(self):
        spots = self.fill(LAYOUT)
        self.at(NOW)
        server = self.boot(self.normal, name='n1')
        # The server is placed at once: nobody waited for the grace.
        self.assertEqual('host2', server['OS-EXT-SRV-ATTR:host'])
        notice, = [message for message in self.notifier.notifications
                   if message.event_type == 'instance.termination_notice']
        self.assertEqual(spots['s2d']['id'], notice.payload['instance_id'])
        self.assertEqual(0.5, notice.payload['grace_seconds'])
        # The clock is frozen at T0 + NOW: the deletion is due half a
        # second later.
        self.assertEqual('2026-11-02T08:50:00.500000',
                         notice.payload['terminate_at'])
        self.assertEqual('2026-11-02T08:50:00.500000', self.api.get_server(
            spots['s2d']['id'])['metadata'][
                'preemptible_sched:terminate_at'])
        manager = self.scheduler_service.manager
        context = nova_context.get_admin_context()
        manager._run_due(context)
        self.assertIn(spots['s2d']['id'], self.server_ids())
        self.at(NOW + 0.5)
        manager._run_due(context)
        self._wait_until_deleted(spots['s2d'])
        self.assert_usages_match_servers()
        log = self.stdlog.logger.output
        self.assertNotIn('Could not set the termination notice', log)
        self.assertIn('Deleted displaced server %s on host2'
                      % spots['s2d']['id'], log)
        decision, = manager.journal.open_decisions() or [None]
        self.assertIsNone(decision)


class TestPreemptionOnePass(TestPreemption):
    """Every case above again in the one-pass mode (the spot flavor on the
    preemptible classes), with the same victims; and the retry path is
    never taken.
    """

    ONE_PASS = True

    def setUp(self):
        super().setUp()
        retry = mock.patch.object(
            manager.PreemptibleSchedulerManager, '_preempt_and_select',
            side_effect=AssertionError('the retry path was taken'))
        retry.start()
        self.addCleanup(retry.stop)

    def test_victims_chosen_in_nova_own_pass(self):
        # Nova's select_destinations runs once, Placement answers once.
        client = self.scheduler_service.manager.placement_client
        nova_select = nova_manager.SchedulerManager.select_destinations
        calls = []

        def counted(manager_self, *args, **kwargs):
            calls.append(args)
            return nova_select(manager_self, *args, **kwargs)

        with mock.patch.object(
                client, 'get_allocation_candidates',
                wraps=client.get_allocation_candidates) as candidates, \
                mock.patch.object(nova_manager.SchedulerManager,
                                  'select_destinations', counted):
            before = self.server_ids()
            server = self.boot(self.normal, name='n1')
        self.assertEqual(1, len(calls))
        self.assertEqual(1, candidates.call_count)
        self.assertEqual('host2', server['OS-EXT-SRV-ATTR:host'])
        self.assertEqual(['s2d'], self.deleted(before))
        # The spot servers are on the preemptible classes, the normal one
        # on the standard ones.
        usages = self._get_provider_usages(
            self._get_provider_uuid_by_host('host2'))
        self.assertEqual(2, usages['VCPU'])
        self.assertEqual(6, usages['CUSTOM_PREEMPTIBLE_VCPU'])
        self.assert_usages_match_servers()

    def test_full_view_keeps_preemptible_servers_off_hosts_with_normal_room(
            self):
        # host2 loses s2d to a normal server: full again (8 of 10 vCPUs,
        # 8192 of 8192 MB), although Placement still offers 4 vCPUs and
        # 2048 MB of the preemptible classes there. A spot server fits
        # neither host's full view.
        self.boot(self.normal, name='n1')
        before = self.server_ids()
        server = self.boot(self.spot, name='late', expected_state='ERROR')
        self.assertIn('No valid host', server['fault']['message'])
        self.assertEqual(before, self.server_ids() - {server['id']})


class TestTwoInstancesOnOneHost(base.NovaTestCase):
    """Both instances of a request displace servers of host2, the cheapest
    for each: costs at T0 + 3000 s are 3000, 2700, 2400, 2100 on host1 and
    3000, 2700, 100 (s2c) and 200 (s2d) on host2. The first instance takes
    s2c's room; the second must see it taken and take s2d's, never s2c's
    again (which would leave host2 holding five servers' worth).
    """

    FLAGS = {('filter_scheduler', 'weight_classes'): WEIGHERS}
    LAYOUT = {'s1a': ('host1', 0), 's1b': ('host1', 300),
              's1c': ('host1', 600), 's1d': ('host1', 900),
              's2a': ('host2', 0), 's2b': ('host2', 300),
              's2c': ('host2', 2900), 's2d': ('host2', 2800)}

    def test_second_instance_sees_the_first_one_victims_gone(self):
        spots = self.fill(self.LAYOUT)
        self.at(NOW)
        before = self.server_ids()
        servers = self.boot_many(self.normal, 2)
        self.assertEqual(['host2', 'host2'], [
            server['OS-EXT-SRV-ATTR:host'] for server in servers])
        gone = before - self.server_ids()
        self.assertEqual(sorted([spots['s2c']['id'], spots['s2d']['id']]),
                         sorted(gone))
        # One victim each, named once.
        decision, = [message.payload for message
                     in self.notifier.notifications
                     if message.event_type == 'preemptible_sched.preempt']
        self.assertEqual(
            [[spots['s2c']['id']], [spots['s2d']['id']]],
            [placement['terminate']
             for placement in decision['placements']])
        self.assert_usages_match_servers()


class TestTwoInstancesOnOneHostOnePass(TestTwoInstancesOnOneHost):

    ONE_PASS = True


class TestCostHint(base.NovaTestCase):
    """The owners of s2d and s1d set ``preemptible_sched:termination_cost_
    hint`` to 1000 and -1000; with ``termination_costs = billing_period,
    cost_hint`` each server costs its billing cost plus 600 times
    (hint + 1000) / 2000: s2d 900 + 600 = 1500, s1d 1200 + 0 = 1200, every
    other server its billing cost + 300 (s2c 1800, s1c 2100, ...). s1d, on
    host1, goes instead of s2d.
    """

    FLAGS = {('filter_scheduler', 'weight_classes'): WEIGHERS,
             ('preemptible_sched', 'termination_costs'): [
                 'billing_period', 'cost_hint']}

    def test_owner_hints_move_the_choice(self):
        spots = self.fill(LAYOUT)
        self.api.post_server_metadata(
            spots['s2d']['id'], {'preemptible_sched:termination_cost_hint':
                                 '1000'})
        self.api.post_server_metadata(
            spots['s1d']['id'], {'preemptible_sched:termination_cost_hint':
                                 '-1000'})
        self.at(NOW)
        before = self.server_ids()
        server = self.boot(self.normal, name='n1')
        self.assertEqual('host1', server['OS-EXT-SRV-ATTR:host'])
        self.assertEqual({spots['s1d']['id']}, before - self.server_ids())
        decision, = [message.payload for message
                     in self.notifier.notifications
                     if message.event_type == 'preemptible_sched.preempt']
        self.assertEqual(1200.0,
                         decision['placements'][0]['termination_cost'])


class TestCostHintOnePass(TestCostHint):

    ONE_PASS = True
