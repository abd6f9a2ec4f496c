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

"""SLA requests through the scheduler loop: sizing, copies, reputation."""

import logging

import fixtures as fixtures_lib

from preemptible_sched import objects
from tests.functional.loop import fixtures


def host(name, category, cores=9):
    return objects.Host(name=name, vcpus=cores, memory_mb=65536,
                        disk_gb=500, attributes={'reputation': category})


def request(name, resources, replicas='best_effort', reputation='premium',
            satisfaction='premium', sequential_s=90.0):
    return objects.RequestSpec(
        name, objects.Resources(0, 1024, 0), sequential_s=sequential_s,
        user='u', sla=objects.SLALevels(satisfaction, reputation, resources,
                                        replicas))


class SLALoopTestCase(fixtures.LoopTestCase):

    cloud = [host('h1', 'high'), host('h2', 'high'), host('h3', 'high'),
             host('l1', 'low')]

    def setUp(self):
        super().setUp()
        self.flags(group='filter_scheduler',
                   enabled_filters=['compute', 'resources', 'reputation',
                                    'anti_affinity'],
                   weighers=['cpu'], cpu_weight_multiplier=-1.0)
        self.flags(group='scheduler', queue_policy='promethee',
                   on_no_valid_host='wait')
        self.loop.stop()
        self.driver = fixtures.CountingDriver(self.clock, hosts=self.cloud,
                                              seed=1)
        self.loop = self.new_loop()

    def instance(self, instance_id):
        return self.loop.store.get_instance(instance_id)


class TestSizingInTheLoop(SLALoopTestCase):

    def test_published_example_sized_one_after_another(self):
        # Three premium-reputation hosts of 9 idle cores (wc = 27, N = 9):
        # c1 gets min(13, 9) = 9, then wc = 18 and c2 min(12, 6) = 6, then
        # wc = 12 and c3 min(12, 3) = 3.
        for name, level in (('c3', 'best_effort'), ('c1', 'premium'),
                            ('c2', 'advanced')):
            self.loop.submit(request(name, level))
        self.run_for(1)
        cores = {name: self.instance(name).vcpus
                 for name in ('c1', 'c2', 'c3')}
        self.assertEqual({'c1': 9, 'c2': 6, 'c3': 3}, cores)
        # One pass; its T1 ran four times: the release of dependent
        # requests (none held: input 0) and the sizing of each request
        # (input 1 each).
        rows = self.loop.stats.rows()
        self.assertEqual([(4, 3)], [row[3:5] for row in rows
                                    if row[2] == 'T1'])
        # Bin packing: c3 goes where c2 left 3 cores, not to an idle host.
        self.assertEqual(self.instance('c2').host, self.instance('c3').host)
        self.assertNotEqual(self.instance('c1').host,
                            self.instance('c2').host)
        self.run_for(100)
        for name in ('c1', 'c2', 'c3'):
            row = self.instance(name)
            self.assertEqual('ended', row.state)
            # A moldable request runs sequential_s / cores.
            self.assertAlmostEqual(90.0 / cores[name], row.running_s)
            self.assertEqual(90.0 / cores[name],
                             self.loop.store.get_request(name).duration_s)
            self.assertTrue(
                self.loop.store.get_request(name).request_spec().sized)

    def test_only_hosts_of_its_category(self):
        self.loop.submit(request('b', 'best_effort',
                                 reputation='best_effort'))
        self.run_for(1)
        row = self.instance('b')
        self.assertEqual('l1', row.host)
        # Alone on a 9-core low host: min(9, 3) = 3 cores.
        self.assertEqual(3, row.vcpus)

    def test_sized_request_displaces_preemptible_instances(self):
        # Every host full of preemptible instances: wc = 0, so the request
        # gets the bottom of its band (7 of N = 9) and dual_state
        # terminates an instance of its category for each of its copies.
        for index in range(4):
            self.loop.submit(objects.RequestSpec(
                'spot-%d' % index, objects.Resources(9, 1024, 0),
                preemptible=True), duration=3600)
        self.run_for(5)
        self.loop.submit(request('c', 'premium', replicas='advanced'))
        self.run_for(10)
        copies = self.loop.store.list_instances(request_id='c')
        self.assertEqual([('running', 7.0)] * 2,
                         [(row.state, row.vcpus) for row in copies])
        terminated = [self.instance('spot-%d' % index) for index in range(4)
                      if self.state('spot-%d' % index) == 'terminated']
        self.assertEqual(sorted(row.host for row in copies),
                         sorted(spot.host for spot in terminated))
        # Right the first time: the victims were planned for 7 cores, not
        # for the 0 the request was submitted with.
        self.assertEqual([], self.driver.refused)
        self.assertEqual(0, self.loop.store.get_request('c').attempts)


class TestCopies(SLALoopTestCase):

    def copies(self, name):
        return [row for row in self.loop.store.list_instances(
            request_id=name)]

    def test_copies_on_distinct_hosts_of_the_category(self):
        self.loop.submit(request('r1', 'premium', replicas='premium'))
        self.loop.submit(request('r2', 'premium', replicas='premium'))
        self.run_for(1)
        first = self.copies('r1')
        self.assertEqual(3, len(first))
        self.assertEqual({'h1', 'h2', 'h3'}, {row.host for row in first})
        self.assertEqual({9}, {row.vcpus for row in first})
        # r2 needs three hosts with 7+ free cores: it waits, pending.
        self.assertEqual({None}, {row.host for row in self.copies('r2')})
        self.run_for(60)
        second = self.copies('r2')
        self.assertEqual({'h1', 'h2', 'h3'}, {row.host for row in second})
        ends = max(row.ended_at for row in self.copies('r1'))
        self.assertGreaterEqual(min(row.started_at for row in second),
                                ends)
        # Sized again when it was placed: alone then, 27 idle -> 9.
        self.assertEqual({9}, {row.vcpus for row in second})

    def test_waits_while_too_few_hosts_fit(self):
        self.loop.submit(request('r', 'advanced', replicas='premium',
                                 reputation='best_effort'))
        self.run_for(30)
        # Three copies, one low host: it waits (on_no_valid_host = wait).
        self.assertEqual('pending', self.request_status('r'))
        self.assertEqual({None}, {row.host for row in self.copies('r')})

    def test_lost_copy_reported_and_recreated_elsewhere(self):
        self.loop.submit(request('r', 'advanced', replicas='advanced',
                                 sequential_s=600.0))
        self.run_for(5)
        before = {row.id: row.host for row in self.copies('r')}
        self.assertEqual(2, len(set(before.values())))
        lost_id, lost_host = sorted(before.items())[0]
        kept_id, kept_host = sorted(before.items())[1]
        self.driver.host_down(lost_host)
        self.run_for(5)
        events = self.loop.store.list_events(kind='instance.copy_lost')
        self.assertEqual([(lost_id, 'r', lost_host)],
                         [(event.instance_id, event.request_id, event.host)
                          for event in events])
        rows = {row.id: row for row in self.copies('r')}
        # The other copy ran on meanwhile; the lost one runs again on the
        # one high host left, with the cores it had.
        self.assertEqual(('running', kept_host),
                         (rows[kept_id].state, rows[kept_id].host))
        third = ({'h1', 'h2', 'h3'} - set(before.values())).pop()
        self.assertEqual(('running', third, 6.0),
                         (rows[lost_id].state, rows[lost_id].host,
                          rows[lost_id].vcpus))


class TestCopiesWithoutAntiAffinity(SLALoopTestCase):
    """The copies of a request share no host even when the
    ``anti_affinity`` filter is not enabled.

    Three high hosts of 9 cores. Best-effort resources sized alone:
    N = 9, band [1, 3], wc = 27, p = 1, sum p = 1: min(27, 3) = 3 cores
    per copy, so one host could hold all three copies of r1; they go on
    three hosts. r2's three copies (sized on wc = 18 with r2 alone: 3
    cores) also take one host each: every host then holds one copy of
    each.
    """

    def setUp(self):
        super().setUp()
        self.flags(group='filter_scheduler',
                   enabled_filters=['compute', 'resources', 'reputation'])
        self.loop.stop()
        self.loop = self.new_loop()

    def test_copies_on_distinct_hosts(self):
        for name in ('r1', 'r2'):
            self.loop.submit(request(name, 'best_effort',
                                     replicas='premium'))
        self.run_for(1)
        for name in ('r1', 'r2'):
            copies = self.loop.store.list_instances(request_id=name)
            self.assertEqual([3.0] * 3, [row.vcpus for row in copies])
            self.assertEqual({'h1', 'h2', 'h3'},
                             {row.host for row in copies})

    def test_waits_when_fewer_hosts_than_copies(self):
        # Four copies, three high hosts: it waits, nothing placed.
        self.flags(group='sla', premium_replicas=4)
        self.loop.submit(request('r', 'best_effort', replicas='premium'))
        self.run_for(5)
        copies = self.loop.store.list_instances(request_id='r')
        self.assertEqual([None] * 4, [row.host for row in copies])


class TestNoHostOfTheCategoryUp(SLALoopTestCase):
    """A request whose reputation category has no host up waits, and says
    why once: a warning and the request's reason, cleared once placed.
    """

    WHY = ('no host of reputation category low is up (its best_effort '
           'reputation runs only there)')

    def setUp(self):
        super().setUp()
        self.log = self.useFixture(fixtures_lib.FakeLogger(
            name='preemptible_sched.loop.wait_reasons',
            level=logging.WARNING))
        self.driver.host_down('l1')
        self.run_for(1)
        self.passes_before = self.loop.passes

    def warnings(self):
        return [line for line in self.log.output.splitlines()
                if 'waits: ' in line]

    def test_said_once_then_cleared(self):
        self.loop.submit(request('b', 'best_effort',
                                 reputation='best_effort'))
        self.loop.submit(request('b2', 'best_effort',
                                 reputation='best_effort',
                                 sequential_s=None))
        # Other requests come and go: a pass each time.
        for index in range(3):
            self.run_for(100)
            self.loop.submit(request('p%d' % index, 'premium'))
        self.run_for(100)
        self.assertGreater(self.loop.passes, 6)
        self.assertEqual(['Request b waits: %s' % self.WHY,
                          'Request b2 waits: %s' % self.WHY],
                         sorted(self.warnings()))
        for name in ('b', 'b2'):
            request_row = self.loop.store.get_request(name)
            self.assertEqual(('pending', self.WHY),
                             (request_row.status, request_row.reason))
            self.assertIsNone(self.instance(name).host)
        self.driver.host_up('l1')
        self.run_for(5)
        for name in ('b', 'b2'):
            self.assertEqual('l1', self.instance(name).host)
            self.assertIsNone(self.loop.store.get_request(name).reason)
        self.assertEqual(2, len(self.warnings()))

    def test_the_pass_goes_on_past_it(self):
        # The request no host of its category can take does not hold up
        # the others of the same pass: sized on its category's hosts
        # (none up), it cannot be sized, and the pass goes on. 'b' ranks
        # first (premium but for its reputation).
        self.flags(group='sla', reference_cores='per_category')
        self.loop.submit(request('b', 'premium', replicas='premium',
                                 reputation='best_effort'))
        for index in range(3):
            self.loop.submit(request('p%d' % index, 'best_effort',
                                     satisfaction='best_effort'))
        self.run_for(1)
        self.assertEqual(1, self.loop.passes - self.passes_before)
        self.assertEqual({None}, {row.host for row in
                                  self.loop.store.list_instances(
                                      request_id='b')})
        self.assertEqual(['building'] * 3,
                         [self.state('p%d' % index) for index in range(3)])

    def test_said_again_when_it_waits_again(self):
        # Placed once its host is back, then lost with it: it waits for
        # the same reason again, and says so again.
        self.loop.submit(request('b', 'best_effort',
                                 reputation='best_effort',
                                 sequential_s=6000.0))
        self.run_for(5)
        self.driver.host_up('l1')
        self.run_for(5)
        self.assertEqual('l1', self.instance('b').host)
        self.assertIsNone(self.loop.store.get_request('b').reason)
        self.driver.host_down('l1')
        self.run_for(5)
        request_row = self.loop.store.get_request('b')
        self.assertEqual(('pending', self.WHY),
                         (request_row.status, request_row.reason))
        self.assertEqual(['Request b waits: %s' % self.WHY] * 2,
                         self.warnings())

    def test_reason_cleared_when_it_no_longer_holds(self):
        # 'b' needs more memory than any host has: it waits, first for
        # its category's host, then, that host back, for room it will not
        # find there either. The first reason is said, then withdrawn.
        self.loop.submit(objects.RequestSpec(
            'b', objects.Resources(0, 100000, 0), sequential_s=90.0,
            user='u', sla=objects.SLALevels('best_effort', 'best_effort',
                                            'best_effort', 'best_effort')))
        self.run_for(5)
        self.assertEqual(('pending', self.WHY),
                         (self.loop.store.get_request('b').status,
                          self.loop.store.get_request('b').reason))
        self.driver.host_up('l1')
        self.run_for(5)
        request_row = self.loop.store.get_request('b')
        self.assertEqual(('pending', None),
                         (request_row.status, request_row.reason))
        self.assertEqual({}, self.loop._waiting_why)
        self.assertEqual(1, len(self.warnings()))

    def test_deleted_or_failed_while_it_waits_nothing_is_kept(self):
        # The reasons said are kept for the requests that wait, not for
        # the ones deleted or failed meanwhile (a long-running service
        # would keep them all).
        for name in ('b', 'c'):
            self.loop.submit(request(name, 'best_effort',
                                     reputation='best_effort',
                                     sequential_s=6000.0))
        self.run_for(5)
        self.assertEqual({'b', 'c'}, set(self.loop._waiting_why))
        self.loop.delete('b')
        self.loop.fail_request('c', 'given up by its owner')
        self.assertEqual({}, self.loop._waiting_why)
        self.assertEqual(('deleted', 'failed'), (
            self.loop.store.get_request('b').status,
            self.loop.store.get_request('c').status))

    def test_fails_with_the_reason(self):
        self.flags(group='scheduler', on_no_valid_host='fail')
        self.loop.submit(request('b', 'best_effort',
                                 reputation='best_effort',
                                 sequential_s=None))
        self.run_for(5)
        request_row = self.loop.store.get_request('b')
        self.assertEqual(('failed', self.WHY),
                         (request_row.status, request_row.reason))


class TestRerank(SLALoopTestCase):
    """PROMETHEE II ranks again after each placement with ``[sla]
    rerank``: rank reversal changes who starts first.

    Four containers of one vCPU running 25 s, submitted together, on one
    high host of 2 vCPUs (two at a time); one copy each. Criteria
    (satisfaction, reputation, resources, replicas), 3 premium, 2
    advanced, 1 best effort, equal weights (1/4 each)::

        a0 = (1, 3, 1, 3)   a1 = (1, 3, 1, 1)
        a2 = (1, 3, 3, 2)   a3 = (1, 3, 2, 2)

    pi(x, y), the share of criteria on which x beats y:

        pi(a0, a1) = 1/4 (replicas)   pi(a1, a0) = 0
        pi(a0, a2) = 1/4 (replicas)   pi(a2, a0) = 1/4 (resources)
        pi(a0, a3) = 1/4 (replicas)   pi(a3, a0) = 1/4 (resources)
        pi(a1, a2) = 0                pi(a2, a1) = 1/2
        pi(a1, a3) = 0                pi(a3, a1) = 1/2
        pi(a2, a3) = 1/4 (resources)  pi(a3, a2) = 0

    All four (n - 1 = 3): phi(a0) = 3/4 / 3 - 1/2 / 3 = 1/12,
    phi(a1) = 0 - 5/4 / 3 = -5/12, phi(a2) = 1 / 3 - 1/4 / 3 = 1/4,
    phi(a3) = 3/4 / 3 - 1/2 / 3 = 1/12: order a2, a0, a3, a1 (a0 and a3
    tie, a0 was admitted first). Once a2 is placed, a0, a1, a3 (n - 1 =
    2): phi(a0) = 1/2 / 2 - 1/4 / 2 = 1/8, phi(a1) = 0 - 3/4 / 2 = -3/8,
    phi(a3) = 3/4 / 2 - 1/4 / 2 = 1/4: order a3, a0, a1.
    """

    cloud = [host('h1', 'high', cores=2)]

    LEVELS = {'a0': ('best_effort', 'premium', 'best_effort', 'premium'),
              'a1': ('best_effort', 'premium', 'best_effort',
                     'best_effort'),
              'a2': ('best_effort', 'premium', 'premium', 'advanced'),
              'a3': ('best_effort', 'premium', 'advanced', 'advanced')}

    def setUp(self):
        super().setUp()
        for level in ('premium', 'advanced', 'best_effort'):
            self.flags(group='sla', **{'%s_replicas' % level: 1})

    def first_started(self):
        """The containers that started first, and those that started
        once one of them had ended.
        """
        for name in sorted(self.LEVELS):
            self.loop.submit(objects.RequestSpec(
                name, objects.Resources(1, 1024, 0), user='u',
                sla=objects.SLALevels(*self.LEVELS[name])), duration=25)
        self.run_for(200)
        rows = {name: self.instance(name) for name in self.LEVELS}
        first = min(row.started_at for row in rows.values())
        first_end = min(row.ended_at for row in rows.values())
        self.assertEqual(25.0, first_end - first)
        return ({name for name, row in rows.items()
                 if row.started_at == first},
                {name for name, row in rows.items()
                 if row.started_at >= first_end})

    def test_once_per_pass_starts_a0_first(self):
        first, later = self.first_started()
        self.assertEqual({'a2', 'a0'}, first)
        self.assertEqual({'a3', 'a1'}, later)

    def test_rerank_starts_a3_first(self):
        self.flags(group='sla', rerank=True)
        first, later = self.first_started()
        self.assertEqual({'a2', 'a3'}, first)
        self.assertEqual({'a0', 'a1'}, later)


class TestLostCopyWhenNoHostIsLeft(SLALoopTestCase):
    """A lost copy that no host can take waits for one even when requests
    that find no host fail (``on_no_valid_host = fail``): it was running,
    and its request is served meanwhile by its other copies.
    """

    def setUp(self):
        super().setUp()
        self.flags(group='scheduler', on_no_valid_host='fail')
        self.loop.stop()
        self.loop = self.new_loop()

    def test_waits_for_a_host_then_runs_again(self):
        self.loop.submit(request('r', 'advanced', replicas='premium',
                                 sequential_s=6000.0))
        self.run_for(5)
        copies = {row.id: row.host for row in self.loop.store.list_instances(
            request_id='r')}
        self.assertEqual({'h1', 'h2', 'h3'}, set(copies.values()))
        lost_id = [name for name, where in copies.items()
                   if where == 'h1'][0]
        self.driver.host_down('h1')
        self.run_for(30)
        # The two high hosts left hold a copy each: the lost one waits.
        self.assertEqual('pending', self.request_status('r'))
        self.assertEqual(('pending', None),
                         (self.state(lost_id),
                          self.loop.store.get_instance(lost_id).host))
        self.driver.host_up('h1')
        self.run_for(30)
        rows = {row.id: row for row in self.loop.store.list_instances(
            request_id='r')}
        self.assertEqual({'running'}, {row.state for row in rows.values()})
        self.assertEqual('h1', rows[lost_id].host)
        self.assertNotEqual('failed', self.request_status('r'))
