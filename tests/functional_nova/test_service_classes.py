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

"""Service classes in Nova: the ``qos`` and ``priority`` strategies, and
displaced servers shelved, offloaded and brought back.

One host (10 vCPUs, 8192 MB) holds four 2 vCPU / 2048 MB bronze servers,
booted at T0: it is full (memory). The default classes: gold (SLO 1.0,
importance 1), bronze (SLO 0.5, importance 3), a safety margin of 10 s and
an exempt time of 120 s.

At T0 + 3600 s a new gold request has run 0 s since its admission 0 s ago:
its time to violation is 0 / 1.0 - 0 = 0 < 10, it is at risk. Each bronze
server has run 3600 s since T0: 3600 / 0.5 - 3600 = 3600 s of slack, not
at risk, past its exempt time, with no overhead (launched when created):
the gold request may displace any of them, and one is enough. The plan
keeps them in slack order, ties by uuid, and drops the last: the bronze
server with the greatest uuid.
"""

from nova import context as nova_context

from preemptible_sched.nova import extra_specs
from preemptible_sched.nova import host_states
from tests.functional_nova import base


class ServiceClassCase(base.NovaTestCase):

    HOSTS = ('host1',)

    def setUp(self):
        super().setUp()
        self.gold = self.class_flavor('gold')
        self.bronze = self.class_flavor('bronze')

    def class_flavor(self, name):
        return self._create_flavor(
            name=name, vcpu=2, memory_mb=2048, disk=10, ephemeral=0,
            extra_spec={extra_specs.SERVICE_CLASS: name})

    def status(self, server):
        return self.api.get_server(server['id'])['status']

    def run_requeue(self):
        manager = self.scheduler_service.manager
        manager._requeue_displaced(nova_context.get_admin_context())


class TestQoS(ServiceClassCase):

    FLAGS = {('preemptible_sched', 'preemption_strategy'): 'qos'}

    def test_gold_displaces_bronze_which_returns_when_gold_leaves(self):
        bronze = [self.boot(self.bronze, name='b%d' % i) for i in range(4)]
        self.at(3600)
        gold = self.boot(self.gold, name='gold')
        self.assertEqual('host1', gold['OS-EXT-SRV-ATTR:host'])
        victim = max(bronze, key=lambda server: server['id'])
        self._wait_for_state_change(victim, 'SHELVED_OFFLOADED')
        self.assertEqual(['ACTIVE'] * 3, [
            self.status(server) for server in bronze if server is not victim])
        # The server is kept, its allocations are freed.
        self.assertEqual({}, self._get_allocations_by_server_uuid(
            victim['id']))
        self.assert_usages_match_servers()
        # Its account: 3600 s run, no overhead, displaced at T0 + 3600.
        system = self._system_metadata(victim)
        self.assertEqual(3600.0, float(system[host_states.RUNNING_S]))
        self.assertEqual(0.0, float(system[host_states.OVERHEAD_S]))
        self.assertEqual('true', system[host_states.REQUEUED])

        # No room yet: it stays shelved.
        self.run_requeue()
        self.assertEqual('SHELVED_OFFLOADED', self.status(victim))
        self.at(4000)
        self._delete_server(gold)
        self.run_requeue()
        self._wait_for_state_change(victim, 'ACTIVE')
        self.assertEqual('host1', self.api.get_server(victim['id'])[
            'OS-EXT-SRV-ATTR:host'])
        self.assert_usages_match_servers()
        # Back: the next run clears its mark.
        self.run_requeue()
        self.assertNotIn(host_states.REQUEUED, self._system_metadata(victim))

    def test_bronze_request_displaces_nothing(self):
        for index in range(4):
            self.boot(self.gold, name='g%d' % index)
        self.at(3600)
        before = self.server_ids()
        late = self.boot(self.bronze, name='late', expected_state='ERROR')
        self.assertIn('No valid host', late['fault']['message'])
        self.assertEqual(before, self.server_ids() - {late['id']})
        self.assertEqual(['ACTIVE'] * 4, [
            server['status'] for server in self.api.get_servers()
            if server['id'] != late['id']])

    def _system_metadata(self, server):
        context = nova_context.get_admin_context()
        found = self._get_instance(context, server['id'])
        return dict(found.system_metadata)

    @staticmethod
    def _get_instance(context, uuid):
        from nova import objects
        mapping = objects.InstanceMapping.get_by_instance_uuid(context, uuid)
        with nova_context.target_cell(context,
                                      mapping.cell_mapping) as cell_context:
            return objects.Instance.get_by_uuid(
                cell_context, uuid, expected_attrs=['system_metadata'])


class TestPriority(ServiceClassCase):
    """Priorities gold 1000, bronze 0 (``[preemptible_sched]
    service_classes``): gold displaces strictly lower priorities; with
    ``on_victim = terminate`` the victim is deleted.
    """

    FLAGS = {('preemptible_sched', 'preemption_strategy'): 'priority',
             ('preemptible_sched', 'on_victim'): 'terminate'}

    def test_gold_deletes_one_bronze_server(self):
        bronze = [self.boot(self.bronze, name='b%d' % i) for i in range(4)]
        self.at(60)
        before = self.server_ids()
        gold = self.boot(self.gold, name='gold')
        self.assertEqual('ACTIVE', gold['status'])
        gone = self.gone_since(before, 1)
        # Same priority and admission time: kept by uuid, the greatest goes.
        self.assertEqual({max(server['id'] for server in bronze)}, gone)
        self.assert_usages_match_servers()
