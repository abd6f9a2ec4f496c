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

"""The wire format of requests, hosts, instances and instance reports."""

from preemptible_sched import objects
from preemptible_sched import wire
from tests import base


def blade(name):
    return objects.Host(name=name, vcpus=8, memory_mb=16384, disk_gb=500)


class TestSpecConversion(base.TestCase):

    def test_defaults_fill_missing_fields(self):
        spec = wire.spec_from_dict(
            {'id': 'r', 'resources': {'vcpus': 1, 'memory_mb': 2}})
        self.assertEqual(objects.RequestSpec('r', objects.Resources(1, 2)),
                         spec)

    def test_round_trip(self):
        spec = base.make_spec(constraints={'k': 'v'},
                              group_hosts=frozenset({'h'}))
        self.assertEqual(spec,
                         wire.spec_from_dict(wire.spec_to_dict(spec)))


class TestWireFormat(base.TestCase):

    def test_host_round_trip(self):
        host = objects.Host(
            name='h', vcpus=8, memory_mb=16384, disk_gb=500,
            attributes={'reputation': 'high'},
            aggregates=(objects.Aggregate('fast', {'ssd': 'true'}),),
            availability_zone='az1', cpu_allocation_ratio=2.0,
            metrics={'cpu_utilization': {'avg': 25.0}})
        data = wire.host_to_dict(host)
        self.assertEqual(host, wire.host_from_dict(data))

    def test_host_from_a_newer_agent(self):
        data = wire.host_to_dict(blade('h'))
        data['gpus'] = 2
        self.assertEqual(blade('h'), wire.host_from_dict(data))

    def test_instance_round_trip(self):
        instance = objects.Instance(
            id='i', resources=objects.Resources(1, 2000, 20),
            preemptible=True, started_at=5.0, flavor='small',
            service_class='gold', priority=2.0, group='g')
        data = wire.instance_to_dict(instance)
        self.assertEqual([1, 2000, 20], data['resources'])
        self.assertEqual(vars(instance), vars(wire.instance_from_dict(data)))

    def test_report_round_trip(self):
        report = objects.InstanceReport('i', 'running', 3.0, 0.25)
        self.assertEqual(report, wire.report_from_dict(
            wire.report_to_dict(report)))
