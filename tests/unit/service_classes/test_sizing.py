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

"""Sizing in the loop: the host table's columns, as the host states say."""

import itertools
import logging
from unittest import mock

import fixtures

from preemptible_sched.hosts import manager as host_manager
from preemptible_sched import objects
from preemptible_sched.queue import pending as queue_mod
from preemptible_sched.queue.queue_policies import fifo
from preemptible_sched.service_classes import sizing
from preemptible_sched.service_classes import sla
from tests import base


def moldable(spec_id, resources, reputation):
    return objects.RequestSpec(
        spec_id, objects.Resources(0, 512, 0), sequential_s=300.0,
        sla=objects.SLALevels('advanced', reputation, resources, 'premium'))


class TestSizing(base.TestCase):

    def setUp(self):
        super().setUp()
        self.manager = host_manager.HostManager(base.FakePlanner())
        hosts = [('h1', 32, 'high', 10), ('h2', 24, 'high', 0),
                 ('h3', 40, 'high', 35), ('a1', 30, 'average', 3),
                 ('down', 12, 'high', 0), ('bare', 16, None, 0)]
        for name, cores, category, used in hosts:
            self.manager.add_host(objects.Host(
                name, cores, 65536, 500, attributes={} if category is None
                else {'reputation': category}))
            if used:
                self.manager.add_instance(name, base.make_instance(
                    name + '-used', (used, 512, 0)))
        self.manager.set_up('down', False)
        self.queue = queue_mod.PendingQueue(fifo.FifoPolicy())
        for spec in (moldable('p', 'premium', 'premium'),
                     moldable('a', 'advanced', 'premium'),
                     moldable('b', 'best_effort', 'advanced'),
                     objects.RequestSpec('fixed', objects.Resources(1, 1))):
            self.queue.add(spec, 0.0)
        self.queue.admit(lambda entry: True)

    def test_table_agrees_with_the_host_states(self):
        states = self.manager.get_all_host_states()
        queued = [entry.spec for entry in self.queue.entries.values()]
        for option, entry in itertools.product(
                ('smallest', 'per_category'), self.queue.entries.values()):
            self.flags(group='sla', reference_cores=option)
            spec, got = sizing.size(entry, self.queue, self.manager)
            if not entry.spec.moldable:
                self.assertIs(entry.spec, spec)
                self.assertIsNone(got)
                continue
            self.assertEqual(sla.size(entry.spec, states, queued), got)
            self.assertEqual(float(got.cores), spec.resources.vcpus)

    def test_figures(self):
        entry = next(iter(self.queue.entries.values()))
        _, got = sizing.size(entry, self.queue, self.manager)
        # Idle on the up high hosts: 22 + 24 + 5; N: the smallest up host
        # (16 cores, the one without a category); p and a share them.
        self.assertEqual((51, 16, 5, 3, 30, 16),
                         (got.idle, got.reference_cores, got.total_priority,
                          got.priority, got.raw, got.cores))
        self.flags(group='sla', reference_cores='per_category')
        _, got = sizing.size(entry, self.queue, self.manager)
        self.assertEqual((24, (17, 24), 24), (got.reference_cores, got.band,
                                              got.cores))

    def test_fixing_the_size(self):
        self.assertIsNone(sizing.size(self.queue.entries[3], self.queue,
                                      self.manager)[1])
        plain = objects.RequestSpec('m', objects.Resources(4, 512),
                                    sequential_s=100.0)
        entry = self.queue.add(plain, 0.0)
        spec, got = sizing.size(entry, self.queue, self.manager)
        # Moldable without an SLA: the cores it asked for, 100 / 4 s.
        self.assertEqual((4.0, True, None, 25.0),
                         (spec.resources.vcpus, spec.sized, got,
                          sla.run_time(spec)))

    def test_running_sums_follow_the_queue(self):
        # Two entries of one request (its share counted once for the
        # others, never for itself), one that leaves, one that arrives.
        for spec in (moldable('p', 'premium', 'premium'),
                     moldable('x', 'advanced', 'premium'),
                     moldable('y', 'premium', 'advanced')):
            self.queue.add(spec, 0.0)
        self.queue.admit(lambda entry: True)

        def check():
            specs = [entry.spec for entry in self.queue.entries.values()]
            for spec in specs:
                if sla.sharing(spec) is None:
                    continue
                self.assertEqual(sla.queued_priority(spec, specs),
                                 self.queue.sharing_priority(spec), spec.id)

        check()
        # The others of p at premium reputation: a (2) and x (2).
        first_p = self.queue.entries[0]
        self.assertEqual(4, self.queue.sharing_priority(first_p.spec))
        self.queue.remove(self.queue.entries[1])          # a leaves
        check()
        self.assertEqual(2, self.queue.sharing_priority(first_p.spec))
        # One of p's entries leaves: p's share still does not count for
        # its other entry.
        entries_of_p = [entry for entry in self.queue.entries.values()
                        if entry.id == 'p']
        self.assertEqual(2, len(entries_of_p))
        self.queue.remove(entries_of_p[0])
        check()
        self.assertEqual(2, self.queue.sharing_priority(entries_of_p[1].spec))
        self.queue.remove_request('p')
        check()
        # A newcomer at premium reputation shares with x alone.
        self.assertEqual(2, self.queue.sharing_priority(
            moldable('z', 'best_effort', 'premium')))


class TestFix(base.TestCase):

    def test_the_size_kept_and_said_in_a_sentence(self):
        # Issue 30: INFO output is readable sentences, not Python dicts.
        logs = self.useFixture(fixtures.FakeLogger(level=logging.INFO))
        store = mock.Mock()
        entry = mock.Mock(id='r1')
        spec = mock.Mock(sequential_s=120.0)
        how = sla.Sizing(category='high', reference_cores=8,
                         band=sla.Band(2, 8), idle=12, total_priority=10,
                         priority=3, raw=3, cores=3)
        with mock.patch.object(sla, 'run_time', return_value=40.0):
            sizing.fix(entry, spec, how, store, 5.0)
        self.assertIs(spec, entry.spec)
        self.assertEqual(40.0, entry.duration)
        store.set_request_size.assert_called_once_with('r1', spec, 40.0,
                                                       5.0)
        self.assertIn('Request r1 sized to 3 core(s): priority 3 of 10 '
                      'among the requests sharing the 12 idle core(s) of '
                      'category high (fair share 3, kept within 2-8)',
                      logs.output)
        self.assertNotIn('{', logs.output)
