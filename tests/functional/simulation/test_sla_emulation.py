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

"""The published SLA-classes emulation, shipped and replayed.

etc/preemptible-sched/experiments/sla: 15 hosts of 32 cores, five per
reputation category; three users, one premium, one advanced and one best
effort in all four services, 30 moldable containers each of 300 s
sequential run time. Mode (a) submits the 90 at once (burst.csv), mode (b)
one per user every 3 s (staggered.csv). The real loop runs them under the
virtual clock with sla.conf.
"""

import collections
import dataclasses
import os

from preemptible_sched.conf import CONF
from preemptible_sched import objects
from preemptible_sched.service_classes import sla
from preemptible_sched.simulation import infrastructure
from preemptible_sched.simulation import runner
from preemptible_sched.simulation import sla_accounts
from preemptible_sched.simulation.traces import reading
from preemptible_sched.simulation.traces import records
from tests import base

EXPERIMENT = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir,
                          os.pardir, 'etc', 'preemptible-sched',
                          'experiments', 'sla')

#: N = 32: the bands of the resources service.
BANDS = {'premium': (22, 32), 'advanced': (11, 21), 'best_effort': (1, 10)}
COPIES = {'premium': 3, 'advanced': 2, 'best_effort': 1}


def path(name):
    return os.path.join(EXPERIMENT, name)


class EmulationChecks:
    """What both modes must show; the run is made once per mode."""

    workload_file = None
    replayed = None

    def setUp(self):
        super().setUp()
        if type(self).replayed is None:
            type(self).replayed = self.replay()
        (self.items, self.hosts, self.result, self.copies) = self.replayed
        self.records = {record.id: record for record in self.result.records}

    def replay(self):
        self.addCleanup(CONF.reset)
        CONF(['--config-file', path('sla.conf')], project='preemptible-sched')
        items = reading.read_workload(path(self.workload_file), 'csv')
        hosts = {host.name: host for host in
                 infrastructure.read_infrastructure(path('hosts.csv'))}
        simulation = runner.Simulation(items, list(hosts.values()))
        result = simulation.run()
        copies = collections.defaultdict(list)
        for row in simulation.store.list_instances():
            copies[row.request_id].append(row)
        return items, hosts, result, copies

    def level(self, request_id):
        return self.by_id[request_id].sla.resources

    @property
    def by_id(self):
        return {item.id: item for item in self.items}

    def test_the_shipped_set_up(self):
        self.assertEqual(90, len(self.items))
        self.assertEqual({'premium': 30, 'advanced': 30, 'best_effort': 30},
                         collections.Counter(item.user
                                             for item in self.items))
        categories = collections.Counter(
            host.attributes['reputation'] for host in self.hosts.values())
        self.assertEqual({'high': 5, 'average': 5, 'low': 5}, categories)
        self.assertEqual({32}, {host.vcpus for host in self.hosts.values()})

    def test_every_container_ran_in_its_band(self):
        self.assertEqual(90, len(self.result.records))
        for request_id, rows in self.copies.items():
            level = self.level(request_id)
            low, high = BANDS[level]
            for row in rows:
                self.assertEqual('ended', row.state, row.id)
                self.assertTrue(low <= row.vcpus <= high,
                                (row.id, row.vcpus, level))

    def test_mean_cores_ordered_by_class(self):
        mean = {user: entry['mean_cores'] for user, entry in
                sla_accounts.totals(self.result.invoices)['per_user']
                .items()}
        self.assertGreater(mean['premium'], mean['advanced'])
        self.assertGreater(mean['advanced'], mean['best_effort'])

    def test_copies_on_distinct_hosts_of_the_category(self):
        for request_id, rows in self.copies.items():
            item = self.by_id[request_id]
            hosts = [row.host for row in rows]
            self.assertEqual(COPIES[item.sla.replicas], len(hosts))
            self.assertEqual(len(hosts), len(set(hosts)), request_id)
            for host in hosts:
                self.assertEqual(sla.CATEGORY[item.sla.reputation],
                                 self.hosts[host].attributes['reputation'])
            self.assertEqual(sorted(hosts), sorted(
                self.records[request_id].copies.split(';')))

    def test_each_container_runs_sequential_over_cores(self):
        for rows in self.copies.values():
            for row in rows:
                self.assertAlmostEqual(300.0 / row.vcpus, row.running_s,
                                       places=9)
                self.assertAlmostEqual(300.0 / row.vcpus,
                                       row.ended_at - row.started_at,
                                       places=9)

    def test_invoices(self):
        self.assertEqual(90, len(self.result.invoices))
        for priced in self.result.invoices:
            invoice = priced.invoice
            # Every copy did 300 core-seconds of work.
            self.assertAlmostEqual(300.0 * len(invoice.copies),
                                   invoice.core_seconds, places=6)
            record = self.records[invoice.request]
            self.assertEqual(record.start_s - record.submit_s,
                             invoice.wait_s)
            rate = {'premium': 3.0, 'advanced': 2.0, 'best_effort': 1.0}[
                invoice.sla_class]
            self.assertAlmostEqual(rate * invoice.core_seconds / 3600.0,
                                   priced.price)

    def first_started(self):
        """Request ids by the start of their first copy, ties by the
        order their decisions were journaled.
        """
        def key(request_id):
            rows = self.copies[request_id]
            return (min(row.started_at for row in rows),
                    min(row.decision_id for row in rows))
        return sorted(self.copies, key=key)


class TestBurst(EmulationChecks, base.TestCase):
    """Mode (a): the 90 containers submitted at once."""

    workload_file = 'burst.csv'

    def test_a_premium_request_starts_first(self):
        self.assertEqual('premium', self.level(self.first_started()[0]))

    def test_the_queue_does_not_block(self):
        # Premium requests need three hosts with 22+ idle cores each: they
        # go one at a time, and best effort starts meanwhile.
        starts = {request_id: min(row.started_at for row in rows)
                  for request_id, rows in self.copies.items()}
        last_premium = max(start for request_id, start in starts.items()
                           if self.level(request_id) == 'premium')
        self.assertTrue(any(start < last_premium
                            for request_id, start in starts.items()
                            if self.level(request_id) == 'best_effort'))


class TestStaggered(EmulationChecks, base.TestCase):
    """Mode (b): one container per user every 3 s."""

    workload_file = 'staggered.csv'

    def test_submitted_one_per_user_every_three_seconds(self):
        by_time = collections.defaultdict(set)
        for item in self.items:
            by_time[item.submit_s].add(item.user)
        self.assertEqual([3.0 * k for k in range(30)], sorted(by_time))
        self.assertEqual({frozenset({'premium', 'advanced', 'best_effort'})},
                         {frozenset(users) for users in by_time.values()})


class TestWithPreemptibleInstances(base.TestCase):
    """SLA classes and preemptible requests in one run: five preemptible
    instances fill the high-reputation hosts, then the burst arrives; the
    first premium copies displace them (dual_state), and every SLA rule
    holds.
    """

    def test_one_run(self):
        self.addCleanup(CONF.reset)
        CONF(['--config-file', path('sla.conf')], project='preemptible-sched')
        self.flags(group='filter_scheduler', enabled_filters=[
            'compute', 'resources', 'attributes', 'reputation',
            'anti_affinity'])
        spot = [records.WorkloadItem(
            id='spot-%d' % index, submit_s=0.0, duration_s=3600.0,
            resources=objects.Resources(32, 1024, 0), preemptible=True,
            constraints={'reputation': 'high'}) for index in range(5)]
        burst = [dataclasses.replace(item, submit_s=10.0) for item in
                 reading.read_workload(path('burst.csv'), 'csv')]
        hosts = infrastructure.read_infrastructure(path('hosts.csv'))
        simulation = runner.Simulation(spot + burst, hosts)
        result = simulation.run()
        rows = simulation.store.list_instances()
        spots = [row for row in rows if row.preemptible]
        # The first premium request displaces three of them for its three
        # copies; later ones find the room it leaves (nothing more is
        # terminated when a request fits), so two spots run to their end.
        self.assertEqual({'terminated': 3, 'ended': 2},
                         collections.Counter(row.state for row in spots))
        self.assertEqual(3, result.terminations)
        self.assertEqual(
            {'high'}, {host.attributes['reputation'] for host in hosts
                       if host.name in {row.host for row in spots}})
        by_category = {host.name: host.attributes['reputation']
                       for host in hosts}
        levels = {item.id: item.sla for item in burst}
        per_request = collections.defaultdict(set)
        for row in rows:
            if row.preemptible:
                continue
            level = levels[row.request_id]
            self.assertEqual('ended', row.state)
            low, high = BANDS[level.resources]
            self.assertTrue(low <= row.vcpus <= high)
            self.assertEqual(sla.CATEGORY[level.reputation],
                             by_category[row.host])
            self.assertAlmostEqual(300.0 / row.vcpus, row.running_s)
            per_request[row.request_id].add(row.host)
        self.assertEqual(90, len(per_request))
        self.assertEqual(90, len(result.invoices))


class TestCategoryWithNoHostUp(base.TestCase):
    """The burst on the shipped cloud without its five low hosts: the 30
    best-effort containers (reputation low) never start, and each of
    their records in instances.csv says why; the others run as usual.
    """

    def test_every_best_effort_request_says_why(self):
        self.addCleanup(CONF.reset)
        CONF(['--config-file', path('sla.conf')], project='preemptible-sched')
        items = reading.read_workload(path('burst.csv'), 'csv')
        hosts = [host for host in
                 infrastructure.read_infrastructure(path('hosts.csv'))
                 if host.attributes['reputation'] != 'low']
        result = runner.Simulation(items, hosts).run()
        why = ('no host of reputation category low is up (its best_effort '
               'reputation runs only there)')
        reasons = collections.Counter(
            (record.user, record.start_s is None, record.reason)
            for record in result.records)
        self.assertEqual({('best_effort', True, why): 30,
                          ('advanced', False, None): 30,
                          ('premium', False, None): 30}, dict(reasons))
