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

"""Versioned notifications through oslo.messaging's ``test`` driver."""

from oslo_messaging.notify import _impl_test

from preemptible_sched.conf import CONF
from preemptible_sched import service
from preemptible_sched.service import notifications
from tests import base


class TestNotifier(base.TestCase):

    def setUp(self):
        super().setUp()
        transport = service.get_notification_transport(CONF)
        self.addCleanup(transport.cleanup)
        _impl_test.reset()
        self.addCleanup(_impl_test.reset)
        self.notifier = notifications.Notifier(transport, driver='test',
                                               publisher='test:host')

    def sent(self):
        return [(priority, message['event_type'], message['publisher_id'],
                 message['payload'])
                for _, message, priority, _ in _impl_test.NOTIFICATIONS]

    def test_payload_carries_its_version(self):
        payload = {'instance_id': 'i1', 'host': 'h', 'decision_id': 3}
        self.notifier.info('instance.termination_notice', payload)
        self.assertEqual(
            [('INFO', 'instance.termination_notice', 'test:host',
              dict(payload, version=notifications.PAYLOAD_VERSION))],
            self.sent())
        self.assertNotIn('version', payload)

    def test_failures_are_errors(self):
        self.notifier.info('request.failed', {'request_id': 'r',
                                              'reason': 'no room'})
        self.notifier.info('instance.failed', {'instance_id': 'i'})
        self.notifier.info('host.down', {'host': 'h'})
        self.assertEqual(['ERROR', 'ERROR', 'WARN'],
                         [priority for priority, *_ in self.sent()])

    def test_unknown_event_types_go_out_at_info(self):
        self.notifier.info('instance.resized', {'instance_id': 'i'})
        self.assertEqual([('INFO', 'instance.resized', 'test:host',
                           {'instance_id': 'i', 'version': '1.0'})],
                         self.sent())

    def test_default_publisher_names_the_service_and_host(self):
        self.assertRegex(notifications.publisher_id(),
                         r'^preemptible-scheduler:.+')
