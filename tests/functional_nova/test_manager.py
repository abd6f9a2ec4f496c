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

import os
from unittest import mock

from nova import context as nova_context
from nova.scheduler import manager as nova_manager

from preemptible_sched.nova import coordination
from preemptible_sched.nova import manager
from preemptible_sched.nova import retry_path
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

    def deleted(self, before, count=0):
        """The names of the spot servers gone since ``before``, once
        ``count`` are.
        """
        gone = self.gone_since(before, count)
        return sorted(name for name, server in self.spots.items()
                      if server['id'] in gone)

    def test_normal_server_displaces_the_cheapest_preemptible_one(self):
        before = self.server_ids()
        server = self.boot(self.normal, name='n1')
        # s2d forfeits 900 s, the least of all eight; host2 is the host
        # whose cheapest termination set costs least.
        self.assertEqual('host2', server['OS-EXT-SRV-ATTR:host'])
        self.assertEqual(['s2d'], self.deleted(before, 1))
        self.assert_usages_match_servers()

    def test_bigger_server_displaces_the_cheapest_pair(self):
        before = self.server_ids()
        server = self.boot(self.big, name='n1')
        # Two servers must go: host1's cheapest pair costs 1200 + 1800,
        # host2's 900 + 1500.
        self.assertEqual('host2', server['OS-EXT-SRV-ATTR:host'])
        self.assertEqual(['s2c', 's2d'], self.deleted(before, 2))
        self.assert_usages_match_servers()

    def test_multi_instance_request_displaces_one_server_per_instance(self):
        before = self.server_ids()
        servers = self.boot_many(self.normal, 2)
        # The first instance takes s2d's room (900); for the second, host1
        # offers s1d (1200) and host2 s2c (1500).
        self.assertEqual(['host1', 'host2'], sorted(
            server['OS-EXT-SRV-ATTR:host'] for server in servers))
        self.assertEqual(['s1d', 's2d'], self.deleted(before, 2))
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
        self.assertIn('Deleting displaced server %s on host2'
                      % spots['s2d']['id'], log)
        # Asked for, then confirmed gone by the periodic task: the
        # decision is done.
        decision, = manager.journal.open_decisions()
        self.assertEqual(['requested'], [v.state for v in decision.victims])
        manager._run_due(context)
        self.assertEqual([], manager.journal.open_decisions())
        self.assertEqual('done', manager.journal.get(decision.id).state)


class TestPreemptionOnePass(TestPreemption):
    """Every case above again in the one-pass mode (the spot flavor on the
    preemptible classes), with the same victims; and the retry path (the
    fallback for requests Placement finds no room for) never places one.
    """

    ONE_PASS = True

    def setUp(self):
        super().setUp()
        real = retry_path.decide

        def must_fail(manager_self, *args, **kwargs):
            real(manager_self, *args, **kwargs)
            raise AssertionError('the retry path placed a request')
        retry = mock.patch.object(retry_path, 'decide', must_fail)
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
        self.assertEqual(['s2d'], self.deleted(before, 1))
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
        gone = self.gone_since(before, 2)
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


class TestNextInstanceMustDisplace(base.NovaTestCase):
    """Both hosts full but one free slot each (three servers of 2048 MB on
    8192 MB): three normal instances in one request. The first two take
    the free slots, the third must displace, and no host ends over its
    capacity (issue 25: one host held five servers, nothing displaced).
    """

    FLAGS = {('filter_scheduler', 'weight_classes'): WEIGHERS}
    LAYOUT = {'s1a': ('host1', 0), 's1b': ('host1', 600),
              's1c': ('host1', 1200), 's2a': ('host2', 300),
              's2b': ('host2', 900), 's2c': ('host2', 1500)}

    def test_third_instance_displaces_one_server(self):
        spots = self.fill(self.LAYOUT)
        self.at(NOW)
        before = self.server_ids()
        servers = self.boot_many(self.normal, 3)
        self.assertEqual(3, len(servers))
        gone = self.gone_since(before, 1)
        self.assertEqual(1, len(gone))
        self.assertLessEqual(gone, {spot['id'] for spot in spots.values()})
        self.assert_no_host_over_capacity()
        self.assert_usages_match_servers()


class TestNextInstanceMustDisplaceOnePass(TestNextInstanceMustDisplace):

    ONE_PASS = True


class TestOnePassFallback(base.NovaTestCase):
    """The one-pass mode with preemptible servers of a flavor left on the
    standard classes: Placement finds no room for a normal server, and the
    retry path makes it (issue 25: NoValidHost came back wrapped, and the
    boot went to ERROR).
    """

    ONE_PASS = True
    FLAGS = {('filter_scheduler', 'weight_classes'): WEIGHERS}

    def test_normal_server_takes_the_retry_path(self):
        standard = self._create_flavor(
            name='spot-std', vcpu=2, memory_mb=2048, disk=10, ephemeral=0,
            extra_spec=dict(base.SPOT))
        spots = {}
        for name, (host, when) in sorted(LAYOUT.items(),
                                         key=lambda item: item[1][1]):
            self.at(when)
            spots[name] = self.boot(standard, host=host, name=name)
        self.at(NOW)
        before = self.server_ids()
        server = self.boot(self.normal, name='n1')
        self.assertEqual('host2', server['OS-EXT-SRV-ATTR:host'])
        self.assertEqual({spots['s2d']['id']}, self.gone_since(before, 1))
        self.assert_no_host_over_capacity()


class TestVictimNamedOnce(base.NovaTestCase):
    """With a grace period, the first normal server's victim (s2d) is still
    running when the second normal server comes: it must not be named
    again (issue 25: it was, its cost counted twice, and the second boot
    failed), and the second server displaces the next cheapest, s1d (1200)
    on host1.
    """

    FLAGS = {('filter_scheduler', 'weight_classes'): WEIGHERS,
             ('preemptible_sched', 'termination_grace_seconds'): 60}

    def test_second_decision_names_another_victim(self):
        spots = self.fill(LAYOUT)
        self.at(NOW)
        first = self.boot(self.normal, name='n1')
        second = self.boot(self.normal, name='n2')
        self.assertEqual(['host2', 'host1'],
                         [first['OS-EXT-SRV-ATTR:host'],
                          second['OS-EXT-SRV-ATTR:host']])
        decisions = [message.payload for message
                     in self.notifier.notifications
                     if message.event_type == 'preemptible_sched.preempt']
        self.assertEqual(
            [[spots['s2d']['id']], [spots['s1d']['id']]],
            [decision['placements'][0]['terminate']
             for decision in decisions])
        manager = self.scheduler_service.manager
        self.at(NOW + 60)
        manager._run_due(nova_context.get_admin_context())
        for name in ('s1d', 's2d'):
            self._wait_until_deleted(spots[name])
        self.assert_no_host_over_capacity()
        self.assert_usages_match_servers()


class TestVictimNamedOnceOnePass(TestVictimNamedOnce):

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
        self.assertEqual({spots['s1d']['id']}, self.gone_since(before, 1))
        decision, = [message.payload for message
                     in self.notifier.notifications
                     if message.event_type == 'preemptible_sched.preempt']
        self.assertEqual(1200.0,
                         decision['placements'][0]['termination_cost'])


class TestCostHintOnePass(TestCostHint):

    ONE_PASS = True


class TestShutdown(base.NovaTestCase):
    """Nova's periodic loop needs a delay even while the service shuts
    down (issue 25: most shutdowns logged an ERROR traceback).
    """

    def test_workers_of_one_host_share_a_file_lock_by_default(self):
        # Neither coordination_url nor lock_path set (issue 26: each
        # worker process then held a lock of its own).
        scheduler = self.scheduler_service.manager
        self.assertIsNone(scheduler.lock.url)
        self.assertEqual(os.path.join(manager.CONF.state_path,
                                      'preemptible_sched_locks'),
                         scheduler.lock.lock_path)

    def test_periodic_tasks_always_name_the_next_run(self):
        manager = self.scheduler_service.manager
        context = nova_context.get_admin_context()
        self.assertIsNotNone(manager.periodic_tasks(context))
        manager.set_shutdown_in_progress()
        self.assertEqual(1, manager.periodic_tasks(context))


class TestLocks(base.NovaTestCase):
    """Which locks a one-pass decision takes: a request that fits a node as
    it is takes only that node's lock, even when the other node is full of
    preemptible servers; one that must displace takes the cloud-wide lock
    too.
    """

    ONE_PASS = True
    FLAGS = {('filter_scheduler', 'weight_classes'): WEIGHERS}

    def setUp(self):
        super().setUp()
        self.taken = []
        real = coordination.DecisionLock.__call__
        test = self

        def recorded(lock, names=None):
            test.taken.append(None if names is None else sorted(names))
            return real(lock, names)
        patcher = mock.patch.object(coordination.DecisionLock, '__call__',
                                    recorded)
        patcher.start()
        self.addCleanup(patcher.stop)

    def node(self, host):
        return self._get_provider_uuid_by_host(host)

    def test_fits_as_is_takes_only_its_node_lock(self):
        self.fill({name: where for name, where in LAYOUT.items()
                   if where[0] == 'host1'})
        self.at(NOW)
        del self.taken[:]
        server = self.boot(self.normal, name='n1')
        self.assertEqual('host2', server['OS-EXT-SRV-ATTR:host'])
        self.assertEqual([[self.node('host2')]], self.taken)

    def test_displacing_takes_the_cloud_wide_lock_first(self):
        self.fill(LAYOUT)
        self.at(NOW)
        del self.taken[:]
        server = self.boot(self.normal, name='n1')
        self.assertEqual('host2', server['OS-EXT-SRV-ATTR:host'])
        self.assertEqual([None, [self.node('host2')]], self.taken)


class TestVictimResizedInItsGrace(base.NovaTestCase):
    """s2d, the victim of a normal server, is resized by its owner to a
    normal flavor during its grace period, and moves to host3: when the
    grace ends it is a normal server on another host, and it is left
    alone (issue 26: it was deleted, the log naming its old host).
    """

    HOSTS = ('host1', 'host2', 'host3')
    FLAGS = {('filter_scheduler', 'weight_classes'): WEIGHERS,
             ('preemptible_sched', 'termination_grace_seconds'): 60}

    def compute_service(self, host):
        service, = self.api.get_services(binary='nova-compute', host=host)
        return service['id']

    def test_victim_that_changed_is_left_alone(self):
        host3 = self.compute_service('host3')
        self.api.put_service(host3, {'status': 'disabled'})
        spots = self.fill(LAYOUT)
        self.at(NOW)
        self.boot(self.normal, name='n1')
        victim = spots['s2d']
        self.api.put_service(host3, {'status': 'enabled'})
        self._resize_server(victim, self.normal)
        self._confirm_resize(victim)
        moved = self.api.get_server(victim['id'])
        self.assertEqual('host3', moved['OS-EXT-SRV-ATTR:host'])
        manager = self.scheduler_service.manager
        self.at(NOW + 60)
        manager._run_due(nova_context.get_admin_context())
        self.assertEqual('ACTIVE', self.api.get_server(victim['id'])['status'])
        decision, = [d for d in manager.journal.decisions()
                     if victim['id'] in [v.id for v in d.victims]]
        self.assertEqual('gone', decision.victims[0].state)
        self.assertIn('Victim %s of decision %s is left alone: it is on '
                      'host3 now, not host2' % (victim['id'], decision.id),
                      self.stdlog.logger.output)
        self.assert_no_host_over_capacity()


class TestRecheckUnderTheNodeLock(base.NovaTestCase):
    """A one-pass decision checks its node again under the node's lock:
    more in use than its provider summary said (another request's claim)
    is fine while the node still has room; without room, the decision is
    made again from fresh reads.
    """

    ONE_PASS = True
    FLAGS = {('filter_scheduler', 'weight_classes'): WEIGHERS}

    def boot_with_others_claim(self, extra_mb):
        """Boot a normal server while the first usage read of host2 shows
        ``extra_mb`` more in use (and, for vCPUs, 2 per 2048 MB).
        """
        self.fill({name: where for name, where in LAYOUT.items()
                   if where[0] == 'host1' or name in ('s2a', 's2b')})
        self.at(NOW)
        node = self._get_provider_uuid_by_host('host2')
        reader = self.scheduler_service.manager.reader
        real = reader.usages
        calls = []

        def usages(context, provider):
            found = dict(real(context, provider))
            if provider == node and not calls:
                found['MEMORY_MB'] = found.get('MEMORY_MB', 0) + extra_mb
                found['VCPU'] = found.get('VCPU', 0) + extra_mb // 1024
            calls.append(provider)
            return found
        with mock.patch.object(reader, 'usages', usages):
            server = self.boot(self.normal, name='n1')
        self.assertEqual('host2', server['OS-EXT-SRV-ATTR:host'])
        return calls

    def test_room_left_goes_on(self):
        self.assertEqual(1, len(self.boot_with_others_claim(2048)))
        self.assertNotIn('Deciding again', self.stdlog.logger.output)

    def test_no_room_left_decides_again(self):
        self.assertEqual(2, len(self.boot_with_others_claim(4096)))
        self.assertIn('Deciding again', self.stdlog.logger.output)
