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

"""Handing work to the clock's thread, the service base, and the
messaging options."""

import threading
from unittest import mock

import fixtures

from preemptible_sched import clock as clock_mod
from preemptible_sched.conf import CONF
from preemptible_sched import exception
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


class TestService(base.TestCase):

    def setUp(self):
        super().setUp()
        self.service = service.Service(CONF, clock_mod.RealClock(),
                                       transport=mock.Mock())
        # Records, in order, what is done to the servers (named as their
        # topic) and the steps.
        self.calls = mock.Mock()
        self.useFixture(fixtures.MockPatch(
            'oslo_messaging.get_rpc_server', side_effect=lambda transport,
            target, endpoints: getattr(self.calls, target.topic)))
        self.service.on_shutdown(self.calls.released)

    def assertShutDownOnce(self, *steps):
        """Server a started, then stopped, ``steps``, the rest; not ready."""
        self.assertEqual([mock.call.a.start(), mock.call.a.stop(),
                          mock.call.a.wait()] + list(steps) +
                         [mock.call.released()], self.calls.mock_calls)
        self.assertFalse(self.service.ready)

    def test_servers_stop_at_once_then_each_is_waited_for(self):
        # A server's stop waits up to 5 s for its listener (RabbitMQ): the
        # stops are made together, so each one starts before the other
        # returns; the waits follow, then the other steps.
        self.service.serve('a', 'host', None, override_pool_size=1)
        self.service.serve('b', 'host', None)
        stopping = {'a': threading.Event(), 'b': threading.Event()}

        def stop(name, other):
            stopping[name].set()
            self.assertTrue(stopping[other].wait(10),
                            'stop of %s waited for that of %s' % (
                                other, name))
        self.calls.a.stop.side_effect = lambda: stop('a', 'b')
        self.calls.b.stop.side_effect = lambda: stop('b', 'a')
        self.service.shutdown()
        calls = self.calls.mock_calls
        self.assertEqual([mock.call.a.start(override_pool_size=1),
                          mock.call.b.start()], calls[:2])
        self.assertCountEqual([mock.call.a.stop(), mock.call.b.stop()],
                              calls[2:4])
        self.assertEqual([mock.call.a.wait(), mock.call.b.wait(),
                          mock.call.released()], calls[4:])

    def test_stop_while_starting(self):
        # As a signal handler does: run() returns as soon as started,
        # what had started is stopped, calls are no longer taken.
        def start():
            self.service.serve('a', 'host', None)
            self.service.stop()
            self.service.bridge.open()

        self.service.start = start
        self.service.run()
        self.assertShutDownOnce()

    def test_a_wait_cut_short_by_the_stop_ends_run_quietly(self):
        # A callback waiting for a remote peer when the signal came raises
        # Stopping: run() shuts down and returns, as after any stop.
        def start():
            self.service.serve('a', 'host', None)
            self.service.bridge.open()
            self.service.clock.call_soon(cut_short)

        def cut_short():
            self.service.stop()
            raise exception.Stopping()

        self.service.start = start
        self.service.run()
        self.assertShutDownOnce()

    def test_shutdown_twice_does_each_step_once(self):
        self.service.serve('a', 'host', None)
        self.service.bridge.open()
        self.assertTrue(self.service.ready)
        self.service.shutdown()
        self.service.shutdown()
        self.assertShutDownOnce()

    def test_a_step_interrupted_does_not_keep_the_others(self):
        self.calls.interrupted.side_effect = KeyboardInterrupt
        self.service.on_shutdown(self.calls.interrupted)
        self.service.serve('a', 'host', None)
        self.assertRaises(KeyboardInterrupt, self.service.shutdown)
        self.assertShutDownOnce(mock.call.interrupted())


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
