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

"""Host states: capacity, the two views, incremental accounting."""

from preemptible_sched import objects
from tests import base


class CountingPlanner(base.FakePlanner):
    def __init__(self, plans=None):
        super().__init__(plans)
        self.calls = 0

    def plan(self, state, resources, now, cost=None):
        self.calls += 1
        return super().plan(state, resources, cost)


class TestCapacity(base.TestCase):

    def test_placement_formula(self):
        state = base.make_host_state(
            vcpus=8, memory_mb=16384, disk_gb=500, cpu_allocation_ratio=4.0,
            reserved_vcpus=1, reserved_memory_mb=384, ram_allocation_ratio=1.5,
            reserved_disk_gb=100, disk_allocation_ratio=1.0)
        self.assertEqual((28.0, 24000.0, 400.0), tuple(state.capacity))

    def test_defaults_come_from_config(self):
        self.flags(group='compute', cpu_allocation_ratio=2.0,
                   reserved_host_memory_mb=512)
        state = base.make_host_state(vcpus=8, memory_mb=16384)
        self.assertEqual((16.0, 15872.0, 500.0), tuple(state.capacity))

    def test_availability_zone_from_aggregate_or_default(self):
        self.flags(group='compute', default_availability_zone='zone0')
        self.assertEqual('zone0', base.make_host_state().availability_zone)
        state = base.make_host_state(aggregates=[objects.Aggregate(
            'agg', {'availability_zone': 'az1'})])
        self.assertEqual('az1', state.availability_zone)
        self.assertEqual({'az1'},
                         state.aggregate_metadata['availability_zone'])


class TestViews(base.TestCase):

    def test_consume_updates_only_the_views_concerned(self):
        state = base.make_host_state(instances=[
            base.make_instance('n1'),
            base.make_instance('p1', preemptible=True)])
        self.assertEqual((4, 8000, 80), tuple(state.full.used))
        self.assertEqual((2, 4000, 40), tuple(state.normal.used))
        self.assertEqual(2, state.full.num_instances)
        self.assertEqual(1, state.normal.num_instances)
        self.assertEqual(['p1'], list(state.preemptible_instances))
        self.assertEqual((4, 8384, 420), tuple(state.full.free))

    def test_release_is_the_inverse_of_consume(self):
        state = base.make_host_state()
        instances = [base.make_instance('i%d' % i, (0.1, 10, 1), i % 2 == 0)
                     for i in range(30)]
        for instance in instances:
            state.consume(instance)
        for instance in instances:
            self.assertIs(instance, state.release(instance.id))
        for view in (state.full, state.normal):
            for used in view.used:
                self.assertAlmostEqual(0.0, used, places=9)
            self.assertEqual(0, view.num_instances)
        self.assertEqual({}, state.preemptible_instances)

    def test_fractional_cpus_fill_a_host_exactly(self):
        state = base.make_host_state(vcpus=4, memory_mb=3750, disk_gb=0)
        request = objects.Resources(0.375, 375, 0)
        for i in range(10):
            self.assertTrue(state.full.fits(request))
            state.consume(base.make_instance('i%d' % i, request))
        self.assertFalse(state.full.fits(request))

    def test_same_instance_twice_is_refused(self):
        state = base.make_host_state(instances=[base.make_instance('a')])
        self.assertRaises(ValueError, state.consume, base.make_instance('a'))

    def test_groups_are_counted(self):
        state = base.make_host_state(instances=[
            base.make_instance('a', group='g'),
            base.make_instance('b', group='g')])
        self.assertEqual(2, state.groups['g'])
        state.release('a')
        state.release('b')
        self.assertNotIn('g', state.groups)


class TestTerminationPlanMemo(base.TestCase):

    def test_plan_is_memoised_until_the_host_changes(self):
        plan = objects.TerminationPlan('host', (), (5.0,))
        planner = CountingPlanner({'host': plan})
        state = base.make_host_state(
            planner=planner,
            instances=[base.make_instance('p%d' % i, preemptible=True)
                       for i in range(4)])
        self.assertIs(plan, state.termination_plan(base.MEDIUM, 0.0))
        self.assertIs(plan, state.termination_plan(base.MEDIUM, 0.0))
        self.assertEqual(1, planner.calls)
        state.termination_plan(base.MEDIUM, 10.0)
        self.assertEqual(2, planner.calls)
        state.release('p0')
        self.assertEqual(0, state.termination_count(base.MEDIUM, 10.0))
        self.assertEqual(
            0, len(state.termination_plan(base.MEDIUM, 10.0).victims))
        self.assertEqual(2, planner.calls)

    def test_no_plan_when_it_fits(self):
        planner = CountingPlanner()
        state = base.make_host_state(planner=planner)
        self.assertEqual((), state.termination_plan(base.MEDIUM, 10.0).victims)
        self.assertEqual(0, planner.calls)


class TestTerminating(base.TestCase):

    def test_a_held_victim_keeps_its_room_and_is_no_candidate(self):
        spot = base.make_instance('spot', preemptible=True)
        normal = base.make_instance('normal')
        state = base.make_host_state(instances=[spot, normal])
        used = tuple(state.full.used)
        state.mark_terminating('spot', 'req')
        self.assertEqual(used, tuple(state.full.used))
        self.assertEqual({}, state.preemptible_instances)
        self.assertEqual(['normal'],
                         [i.id for i in state.displaceable_instances()])
        state.unmark_terminating('spot')
        self.assertEqual(['spot'], list(state.preemptible_instances))
        self.assertEqual({'spot', 'normal'},
                         {i.id for i in state.displaceable_instances()})

    def test_release_forgets_the_hold(self):
        spot = base.make_instance('spot', preemptible=True)
        state = base.make_host_state(instances=[spot])
        state.mark_terminating('spot', 'req')
        state.release('spot')
        self.assertEqual({}, state.terminating)
        self.assertEqual((0.0, 0.0, 0.0), tuple(state.full.used))
        state.unmark_terminating('spot')    # nothing held: no-op
