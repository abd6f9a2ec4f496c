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

"""The endpoint of the agents' reports on the scheduler's report topic."""

import logging

import fixtures

from preemptible_sched import objects
from preemptible_sched.service import compute_reports
from preemptible_sched.service import payload_checks
from preemptible_sched import wire
from tests import base

NAN = float('nan')


def blade(name):
    return objects.Host(name=name, vcpus=8, memory_mb=16384, disk_gb=500)


class TestReportsEndpoint(base.TestCase):

    def test_forwards_to_the_driver(self):
        calls = []

        class Driver:
            def register(self, host, boot_id):
                calls.append(('register', host.name, boot_id))

            def report(self, event, host, *args):
                calls.append((event, host) + args)

        endpoint = compute_reports.ComputeReportsEndpoint(Driver())
        endpoint.register_host({}, wire.host_to_dict(blade('h')), 'b')
        endpoint.instance_started({}, 'h', 'i', at=1.0)
        endpoint.instance_ended({}, 'h', 'i')
        endpoint.instance_failed({}, 'h', 'i', 'why')
        endpoint.instance_terminated({}, 'h', 'i')
        endpoint.termination_failed({}, 'h', 'i', 'why')
        endpoint.host_down({}, 'h')
        endpoint.host_up({}, 'h')
        self.assertEqual([('register', 'h', 'b'),
                          ('instance_started', 'h', 'i'),
                          ('instance_ended', 'h', 'i'),
                          ('instance_failed', 'h', 'i', 'why'),
                          ('instance_terminated', 'h', 'i'),
                          ('termination_failed', 'h', 'i', 'why'),
                          ('host_down', 'h'), ('host_up', 'h')], calls)


class TestCheckedReports(base.TestCase):
    """The agents' reports, checked by :func:`payload_checks.check_report`."""

    def setUp(self):
        super().setUp()
        self.log = self.useFixture(fixtures.FakeLogger(
            name='preemptible_sched.service.compute_reports',
            level=logging.INFO))
        self.calls = []
        test = self

        class Driver:
            def register(self, host, boot_id):
                test.calls.append(('register', host, boot_id))

            def report(self, event, host, *args):
                test.calls.append((event, host) + args)

        self.endpoint = compute_reports.ComputeReportsEndpoint(
            Driver(), check=payload_checks.check_report)

    def test_register_host_with_a_string_or_nan_size_is_dropped(self):
        # Each killed the scheduler.
        for value in ('8', NAN):
            host = wire.host_to_dict(objects.Host('host-A', 8, 16384))
            host['vcpus'] = value
            self.endpoint.register_host({}, host=host, boot_id='b')
        self.assertEqual([], self.calls)
        self.assertEqual(2, len(self.log.output.splitlines()))
        self.assertIn('Dropped report register_host: register_host: '
                      'host.vcpus:', self.log.output)

    def test_good_reports_pass(self):
        host = objects.Host('host-A', 8, 16384)
        self.endpoint.register_host({}, host=wire.host_to_dict(host),
                                    boot_id='b')
        self.endpoint.instance_failed({}, host='host-A', instance_id='i',
                                      reason='why', at=2.0)
        self.endpoint.host_down({}, host='host-A')
        self.assertEqual([('register', host, 'b'),
                          ('instance_failed', 'host-A', 'i', 'why'),
                          ('host_down', 'host-A')], self.calls)
        self.assertEqual('', self.log.output)

    def test_nothing_raises(self):
        hostile = [
            ('register_host', {}), ('register_host', {'host': None}),
            ('register_host', {'host': 'h', 'boot_id': 'b'}),
            ('instance_started', {'host': 'h', 'instance_id': 'i',
                                  'colour': 'red'}),
            ('instance_failed', {'host': 'h', 'instance_id': 'i',
                                 'reason': None}),
            ('host_up', {'host': {'name': 'h'}}),
            ('launch', {'host': 'h'}),
        ]
        for method, kwargs in hostile:
            self.assertIsNone(getattr(self.endpoint, method)({}, **kwargs))
        self.assertEqual([], self.calls)
        self.assertEqual(len(hostile), len(self.log.output.splitlines()))

    def test_without_check_the_wire_helpers_still_refuse(self):
        endpoint = compute_reports.ComputeReportsEndpoint(
            self.endpoint._driver)
        endpoint.register_host({}, host={'vcpus': 1}, boot_id='b')
        endpoint.register_host({}, host=[1], boot_id='b')
        self.assertEqual([], self.calls)
        self.assertIn('malformed', self.log.output)
        self.assertNotIn('Traceback', self.log.output)
