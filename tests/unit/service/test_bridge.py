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

"""Handing work to the clock's thread, and the messaging options."""

import threading

from preemptible_sched import clock as clock_mod
from preemptible_sched.conf import CONF
from preemptible_sched import service
from tests import base


class TestClockBridge(base.TestCase):

    def setUp(self):
        super().setUp()
        self.clock = clock_mod.RealClock()
        self.thread = threading.Thread(target=self.clock.run, daemon=True)
        self.thread.start()
        self.addCleanup(self.thread.join, 10)
        self.addCleanup(self.clock.stop)
        self.bridge = service.ClockBridge(self.clock, timeout=10)

    def test_runs_in_the_clock_thread(self):
        self.bridge.open()
        self.assertTrue(self.bridge.is_open())
        self.assertIs(self.thread, self.bridge.call(threading.current_thread))

    def test_exceptions_reach_the_caller_and_the_clock_goes_on(self):
        self.bridge.open()

        def fail():
            raise KeyError('nope')

        self.assertRaises(KeyError, self.bridge.call, fail)
        self.assertEqual(3, self.bridge.call(lambda a, b: a + b, 1, 2))

    def test_not_open(self):
        self.bridge.timeout = 0.01
        self.assertRaises(service.NotReady, self.bridge.call, int)

    def test_closed(self):
        self.bridge.open()
        self.bridge.close()
        self.assertFalse(self.bridge.is_open())
        self.assertRaises(service.NotReady, self.bridge.call, int)

    def test_close_releases_a_waiting_caller(self):
        self.bridge.open()
        self.clock.stop()
        self.thread.join(10)
        errors = []

        def call():
            try:
                self.bridge.call(int)
            except service.NotReady as error:
                errors.append(error)

        caller = threading.Thread(target=call)
        caller.start()
        self.wait_for_waiting_call()
        self.bridge.close()
        caller.join(10)
        self.assertEqual(1, len(errors))
        self.assertIn('stopping', str(errors[0]))

    def wait_for_waiting_call(self):
        """Until the call is scheduled on the (stopped) clock."""
        event = threading.Event()
        for _ in range(1000):
            if self.clock.pending():
                return
            event.wait(0.01)
        self.fail('the call was never scheduled')


class TestMessagingOptions(base.TestCase):

    def test_defaults(self):
        service.register_messaging_opts(CONF)
        service.register_messaging_opts(CONF)
        self.assertEqual('fake://', CONF.transport_url)
        self.assertEqual(['messagingv2'],
                         CONF.oslo_messaging_notifications.driver)
        self.assertEqual(service.DEFAULT_NOTIFICATION_RETRY,
                         CONF.oslo_messaging_notifications.retry)

    def test_configured_transport_wins(self):
        service.register_messaging_opts(CONF)
        self.flags(transport_url='rabbit://u:p@broker:5672/')
        self.assertEqual('rabbit://u:p@broker:5672/', CONF.transport_url)
