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

"""The host table's columns follow every change of every host."""

import numpy

from preemptible_sched.hosts import batch as host_batch
from preemptible_sched.hosts import manager as host_manager
from preemptible_sched import objects
from tests import base


class TestHostTable(base.TestCase):

    def setUp(self):
        super().setUp()
        self.manager = host_manager.HostManager(base.FakePlanner())
        for index in range(40):     # beyond the first growth
            self.manager.add_host(objects.Host('h%d' % index, 8, 16384, 500,
                                               attributes={'rack': index % 2}))

    def test_profiles_are_shared_by_hosts_alike(self):
        self.assertEqual(2, len(self.manager.table.profiles))

    def test_consume_release_and_holds_update_the_columns(self):
        table = self.manager.table
        slot = table.slot_of['h33']
        self.manager.add_instance('h33', base.make_instance('n'))
        self.manager.add_instance('h33', base.make_instance(
            'p', preemptible=True))
        self.assertEqual([4, 8000, 80], table.full_used[:, slot].tolist())
        self.assertEqual([2, 4000, 40], table.normal_used[:, slot].tolist())
        self.assertEqual((2, 1, 1), (table.full_count[slot],
                                     table.normal_count[slot],
                                     table.candidates[slot]))
        self.manager.hold_victim('h33', self.manager.host_states[
            'h33'].instances['p'], 'req')
        self.assertEqual(0, table.candidates[slot])
        self.assertEqual(0, len(table.victims))
        self.manager.release_hold('p')
        self.assertEqual(1, table.candidates[slot])
        self.manager.remove_instance('p')
        self.manager.remove_instance('n')
        self.assertEqual([0, 0, 0], table.full_used[:, slot].tolist())
        self.assertEqual((0, 0, 0), (table.full_count[slot],
                                     table.normal_count[slot],
                                     table.candidates[slot]))

    def test_no_host_state_until_asked(self):
        self.assertEqual({}, self.manager.table.states)
        state = self.manager.host_states['h5']
        self.assertIs(state, self.manager.host_states['h5'])
        self.assertEqual(['h5'], [s.name for s in
                                  self.manager.table.states.values()])

    def test_holds_asks_every_dimension_of_one_host(self):
        table = self.manager.table
        self.manager.add_host(objects.Host('wide', 32, 8192, 100))
        R = objects.Resources
        self.assertTrue(table.holds(R(8, 16384, 500)))     # a blade, exactly
        self.assertTrue(table.holds(R(32, 8192, 100)))     # 'wide', exactly
        # Each dimension fits some host, but no host fits all three.
        self.assertFalse(table.holds(R(32, 16384, 100)))
        self.assertFalse(table.holds(R(9, 16384, 500)))
        # Within the rounding margin, a host still holds it.
        self.assertTrue(table.holds(R(8 + 1e-6, 16384, 500)))
        self.assertFalse(table.holds(R(8 + 1e-5, 16384, 500)))

    def test_holds_changes_when_a_larger_host_registers(self):
        table = self.manager.table
        big = objects.Resources(16, 16384, 500)
        self.assertFalse(table.holds(big))
        self.manager.add_host(objects.Host('big', 16, 32768, 500))
        self.assertTrue(table.holds(big))

    def test_refused_counts_the_sizes_no_host_holds(self):
        table = self.manager.table
        self.assertEqual(0, table.refused)
        table.holds(objects.Resources(8, 16384, 500))
        table.holds(objects.Resources(16, 16384, 500))
        table.holds(objects.Resources(16, 16384, 500))     # memoised
        self.assertEqual(1, table.refused)
        self.manager.add_host(objects.Host('big', 16, 32768, 500))
        self.assertEqual(0, table.refused)

    def test_holds_ignores_usage_and_state(self):
        # Whether a host could ever hold it: a full or down host counts.
        self.manager.add_instance('h0', base.make_instance(
            'n', objects.Resources(8, 16384, 500)))
        for index in range(1, 40):
            self.manager.set_up('h%d' % index, False)
        self.assertTrue(self.manager.table.holds(
            objects.Resources(8, 16384, 500)))

    def test_set_up_reaches_the_batch(self):
        self.manager.set_up('h7', False)
        batch = self.manager.batch()
        self.assertEqual(['h7'], [batch.names[i] for i in
                                  numpy.flatnonzero(~batch.usable)])


class TestHostBatch(base.TestCase):

    def setUp(self):
        super().setUp()
        self.manager = host_manager.HostManager(base.FakePlanner())
        for index in range(5):
            self.manager.add_host(objects.Host('h%d' % index, 8, 16384, 500))
        self.manager.add_instance('h1', base.make_instance('a', group='g'))
        self.manager.add_instance('h3', base.make_instance(
            'b', preemptible=True, group='g'))

    def test_a_table_batch_and_a_batch_of_views_agree(self):
        table = self.manager.batch(normal=True)
        views = host_batch.HostBatch.of_views(
            state.normal for state in self.manager.get_all_host_states())
        for name in ('used', 'count', 'capacity', 'full_count', 'usable'):
            self.assertEqual(getattr(views, name).tolist(),
                             getattr(table, name).tolist(), name)
        resources = objects.Resources(6, 12000, 100)
        self.assertEqual(views.fits(resources).tolist(),
                         table.fits(resources).tolist())
        for batch in (table, views):
            self.assertEqual([False, True, False, True, False],
                             batch.with_group('g').tolist())
            self.assertEqual([True, False, False, False, True],
                             batch.named(['h0', 'h4', 'nowhere']).tolist())

    def test_take_and_other_view_keep_the_hosts(self):
        batch = self.manager.batch(normal=True).take(
            numpy.array([False, True, True, True, False]))
        self.assertEqual(['h1', 'h2', 'h3'], batch.names)
        full = batch.on_view(True)
        self.assertEqual([1, 0, 1], full.count.tolist())
        self.assertEqual([1, 0, 0], batch.count.tolist())
        self.assertEqual('h3', full.view(2).name)
        self.assertTrue(full.view(2).is_full)

    def test_other_view_fits_where_its_usage_differs_or_not(self):
        """h3 carries a preemptible instance: 8 vCPU asked fit its normal
        view only. Without it, the two views agree (and the full view
        reuses the normal one's answer).
        """
        resources = objects.Resources(8, 1000, 10)
        normal = self.manager.batch(normal=True)
        self.assertEqual([True, False, True, True, True],
                         normal.fits(resources).tolist())
        self.assertEqual([True, False, True, False, True],
                         normal.on_view(True).fits(resources).tolist())
        self.manager.remove_instance('b')
        normal = self.manager.batch(normal=True)
        normal.fits(resources)
        full = normal.on_view(True)
        self.assertIs(normal.fits(resources), full.fits(resources))
        self.assertEqual([True, False, True, True, True],
                         full.fits(resources).tolist())

    def test_name_at_a_position(self):
        """Of the whole table, of a subset (before and after its names
        were listed) and of a batch of views: the host at the position.
        """
        whole = self.manager.batch()
        self.assertEqual(['h0', 'h3'], [whole.name(0), whole.name(3)])
        subset = whole.take(numpy.array([4, 1]))
        self.assertEqual(['h4', 'h1'], [subset.name(0), subset.name(1)])
        self.assertEqual(['h4', 'h1'], subset.names)
        self.assertEqual('h1', subset.name(1))
        views = host_batch.HostBatch.of_views(
            self.manager.host_states[name].full for name in ('h2', 'h0'))
        self.assertEqual(['h2', 'h0'], [views.name(0), views.name(1)])
