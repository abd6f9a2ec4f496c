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

    def test_victim_is_noticed_then_deleted(self):
        spots = self.fill(LAYOUT)
        self.at(NOW)
        server = self.boot(self.normal, name='n1')
        self.assertEqual('host2', server['OS-EXT-SRV-ATTR:host'])
        notice, = [message for message in self.notifier.notifications
                   if message.event_type == 'instance.termination_notice']
        self.assertEqual(spots['s2d']['id'], notice.payload['instance_id'])
        self.assertEqual(0.5, notice.payload['grace_seconds'])
        # The clock is frozen at T0 + NOW: the deletion is due half a
        # second later.
        self.assertEqual('2026-11-02T08:50:00.500000',
                         notice.payload['terminate_at'])
        self.assertNotIn(spots['s2d']['id'], self.server_ids())
        self.assert_usages_match_servers()
        log = self.stdlog.logger.output
        self.assertNotIn('Could not set the termination notice', log)
        self.assertIn('Deleted preemptible server %s on host2'
                      % spots['s2d']['id'], log)
