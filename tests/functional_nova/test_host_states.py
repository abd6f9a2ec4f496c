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

"""Nova's records seen as the core's two views (no Nova services needed)."""

import datetime

from nova import objects as nova_objects
from nova.scheduler import host_manager
from nova import test
from oslo_utils.fixture import uuidsentinel as uuids

from preemptible_sched.hosts import manager as core_host_manager
from preemptible_sched.nova import extra_specs
from preemptible_sched.nova import host_states
from preemptible_sched.nova import host_views
from preemptible_sched.nova import resource_classes
from preemptible_sched.scheduler import termination_costs as termination
from preemptible_sched.scheduler.termination_costs import billing_period
from preemptible_sched.scheduler import termination_planner

T0 = datetime.datetime(2026, 11, 2, 8, 0, 0,
                       tzinfo=datetime.timezone.utc)

# 16 vCPUs (4 reserved, ratio 2.0 -> 24), 32768 MB (512 reserved),
# 500 GB disk.
INVENTORIES = {
    'VCPU': {'total': 16, 'reserved': 4, 'allocation_ratio': 2.0,
             'max_unit': 16},
    'MEMORY_MB': {'total': 32768, 'reserved': 512, 'allocation_ratio': 1.0,
                  'max_unit': 32768},
    'DISK_GB': {'total': 500, 'reserved': 0, 'allocation_ratio': 1.0,
                'max_unit': 500},
}


def flavor(name, preemptible=None, service_class=None):
    specs = {}
    if preemptible is not None:
        specs[extra_specs.PREEMPTIBLE] = preemptible
    if service_class is not None:
        specs[extra_specs.SERVICE_CLASS] = service_class
    return nova_objects.Flavor(name=name, extra_specs=specs)


def server(uuid, of, launched_minutes=0, task_state=None):
    return nova_objects.Instance(
        uuid=uuid, flavor=of, task_state=task_state, deleted=False,
        launched_at=T0 + datetime.timedelta(minutes=launched_minutes),
        created_at=T0)


def core_hosts():
    """An engine's host manager, costs by billing period."""
    return core_host_manager.HostManager(
        termination_planner.TerminationPlanner(
            termination.TerminationCostHandler(
                [billing_period.BillingPeriodCost()])))


def nova_host(name='host1'):
    host = host_manager.HostState(name, 'node-' + name, 'cell')
    host.uuid = getattr(uuids, name)
    return host


class TestFromPlacement(test.NoDBTestCase):

    def setUp(self):
        super().setUp()
        self.nova_host = nova_host()
        self.now = host_states.epoch(T0 + datetime.timedelta(minutes=90))
        spot = flavor('spot', preemptible='true', service_class='bronze')
        self.allocations = {
            uuids.spot_a: {'VCPU': 2, 'MEMORY_MB': 4096, 'DISK_GB': 20},
            uuids.spot_busy: {'VCPU': 2, 'MEMORY_MB': 4096, 'DISK_GB': 20},
            uuids.normal: {'VCPU': 4, 'MEMORY_MB': 8192, 'DISK_GB': 40},
            uuids.migration: {'VCPU': 1, 'MEMORY_MB': 1024, 'DISK_GB': 10},
            uuids.spot_b: {'VCPU': 2, 'MEMORY_MB': 4096, 'DISK_GB': 20},
        }
        self.servers = {
            uuids.spot_a: server(uuids.spot_a, spot, launched_minutes=0),
            uuids.spot_b: server(uuids.spot_b, spot, launched_minutes=80),
            uuids.spot_busy: server(uuids.spot_busy, spot,
                                    task_state='rebooting'),
            uuids.normal: server(uuids.normal,
                                 flavor('m1', preemptible='false')),
        }
        self.hosts = core_hosts()
        name = host_states.add_from_placement(
            self.hosts, self.nova_host, INVENTORIES, self.allocations,
            self.servers, {'bronze': 0.0}, self.now)
        self.assertEqual(uuids.host1, name)
        self.state = self.hosts.host_states[name]

    def test_capacity_is_placements(self):
        self.assertEqual((24.0, 32256.0, 500.0), tuple(self.state.capacity))

    def test_only_idle_servers_of_preemptible_flavors_are_candidates(self):
        # A server with a task under way and a consumer that is no server
        # (a migration) are normal usage.
        self.assertEqual({uuids.spot_a, uuids.spot_b},
                         set(self.state.preemptible_instances))

    def test_views_count_placement_allocations(self):
        self.assertEqual((11.0, 21504.0, 110.0), tuple(self.state.full.used))
        self.assertEqual((7.0, 13312.0, 70.0),
                         tuple(self.state.normal.used))

    def test_run_times_come_from_launched_at(self):
        # At T0 + 90 min: spot-a has run 90 min (costs 30 min of its
        # second hour), spot-b 10 min (10 min). 14 vCPUs need one of
        # them gone (13 are free).
        request = host_states.resources(
            {'VCPU': 14, 'MEMORY_MB': 1024, 'DISK_GB': 10})
        plan = self.state.termination_plan(request, self.now)
        self.assertEqual([uuids.spot_b], plan.victim_ids)
        self.assertEqual(600.0, plan.cost)

    def test_victims_of_open_decisions_are_left_out(self):
        hosts = core_hosts()
        host_states.add_from_placement(
            hosts, self.nova_host, INVENTORIES, self.allocations,
            self.servers, {'bronze': 0.0}, self.now, leaving={uuids.spot_a})
        state = hosts.host_states[uuids.host1]
        self.assertEqual({uuids.spot_b}, set(state.preemptible_instances))
        self.assertEqual((9.0, 17408.0, 90.0), tuple(state.full.used))

    def test_normal_view_copy_hides_preemptible_usage_from_filters(self):
        self.nova_host.instances = {uuid: None for uuid in self.allocations}
        hidden = {uuid for uuid, instance in self.state.instances.items()
                  if instance.preemptible}
        shown = host_views.show(self.nova_host, self.state.normal, hidden)
        self.assertEqual(7.0, shown.vcpus_used)
        self.assertEqual(32768 - 512 - 13312, shown.free_ram_mb)
        self.assertEqual(70 * 1024, shown.disk_mb_used)
        self.assertEqual(3, shown.num_instances)
        self.assertNotIn(uuids.spot_a, shown.instances)
        self.assertIs(self.state.normal, host_views.view_of(shown))
        # The original is untouched.
        self.assertEqual(0, self.nova_host.vcpus_used)

    def test_full_view_copy_shows_everything(self):
        self.nova_host.cpu_allocation_ratio = 2.0
        shown = host_views.show(self.nova_host, self.state.full,
                                added=[uuids.new])
        self.assertEqual(11.0, shown.vcpus_used)
        self.assertEqual(5, shown.num_instances)
        # Nova's CPU weigher multiplies by the ratio (2.0) itself.
        self.assertEqual(12.0, shown.vcpus_total)
        self.assertIn(uuids.new, shown.instances)
        self.assertIs(self.state.full, host_views.view_of(shown))


A = '00000000-0000-0000-0000-00000000000a'
B = '00000000-0000-0000-0000-00000000000b'


class TestFromSummary(test.NoDBTestCase):
    """One-pass mode: a node from its provider summary (standard classes
    hold the normal servers, the preemptible classes the rest).
    """

    def setUp(self):
        super().setUp()
        custom = resource_classes.CUSTOM
        self.summary = {'resources': {
            'VCPU': {'capacity': 8, 'used': 2},
            'MEMORY_MB': {'capacity': 8192, 'used': 2048},
            'DISK_GB': {'capacity': 100, 'used': 10},
            custom['VCPU']: {'capacity': 8, 'used': 6},
            custom['MEMORY_MB']: {'capacity': 8192, 'used': 6144},
            custom['DISK_GB']: {'capacity': 100, 'used': 30}}}
        specs = dict(resource_classes.flavor_extra_specs(2, 2048, 10))
        specs[extra_specs.PREEMPTIBLE] = 'true'
        spot = nova_objects.Flavor(
            name='spot', vcpus=2, memory_mb=2048, root_gb=10,
            ephemeral_gb=0, swap=0, extra_specs=specs)
        # a sorts before b: read first.
        self.servers = {uuid: server(uuid, spot, launched_minutes=minutes)
                        for uuid, minutes in ((A, 0), (B, 30))}
        self.now = host_states.epoch(T0 + datetime.timedelta(minutes=90))

    def add(self, servers, leaving=()):
        hosts = core_hosts()
        name = host_states.add_from_summary(
            hosts, nova_host(), self.summary, servers, {}, self.now,
            leaving)
        return hosts.host_states[name]

    def test_servers_read_become_candidates_the_rest_is_held(self):
        state = self.add(self.servers)
        self.assertEqual((8.0, 8192.0, 40.0), tuple(state.full.used))
        self.assertEqual((2.0, 2048.0, 10.0), tuple(state.normal.used))
        # Three preemptible servers' worth in Placement, two read: the
        # third is held (counted, never a victim).
        self.assertEqual({A, B}, set(state.preemptible_instances))

    def test_servers_not_read_are_all_held(self):
        state = self.add(None)
        self.assertEqual((8.0, 8192.0, 40.0), tuple(state.full.used))
        self.assertEqual({}, state.preemptible_instances)

    def test_leaving_victims_are_never_candidates(self):
        # Its allocations not emptied yet (its decision has not claimed):
        # held, counted in the full view.
        state = self.add(self.servers, leaving={A})
        self.assertEqual((8.0, 8192.0, 40.0), tuple(state.full.used))
        self.assertEqual({B}, set(state.preemptible_instances))

    def test_emptied_victims_do_not_hide_other_servers(self):
        # a's allocations are emptied (its decision claimed): Placement
        # counts b and one server not read. b stays a candidate, although
        # a is read first.
        custom = resource_classes.CUSTOM
        for rc, used in (('VCPU', 4), ('MEMORY_MB', 4096), ('DISK_GB', 20)):
            self.summary['resources'][custom[rc]]['used'] = used
        state = self.add(self.servers, leaving={A})
        self.assertEqual((6.0, 6144.0, 30.0), tuple(state.full.used))
        self.assertEqual({B}, set(state.preemptible_instances))


class TestExtraSpecs(test.NoDBTestCase):

    def test_preemptible_values(self):
        self.assertTrue(extra_specs.is_preemptible(flavor('a', 'true')))
        self.assertTrue(extra_specs.is_preemptible(flavor('a', 'Yes')))
        self.assertFalse(extra_specs.is_preemptible(flavor('a', 'false')))
        self.assertFalse(extra_specs.is_preemptible(flavor('a')))
        # Set before the validator was installed: never deleted.
        self.assertFalse(extra_specs.is_preemptible(flavor('a', 'maybe')))

    def test_service_class(self):
        self.assertEqual('gold', extra_specs.service_class(
            flavor('a', service_class='gold')))
        self.assertIsNone(extra_specs.service_class(flavor('a')))
