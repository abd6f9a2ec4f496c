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

"""The fallback decision lock, within one process (between processes and
on tooz's backends: tests/functional/nova/test_coordination.py), and the
check of the backend at start.
"""

import logging
import socket
import sys
from unittest import mock

import fixtures

from preemptible_sched.nova import coordination
from tests import base


class TestHostLock(base.TestCase):

    def setUp(self):
        super().setUp()
        self.lock_path = self.useFixture(fixtures.TempDir()).path
        self.log = self.useFixture(fixtures.FakeLogger(
            name=coordination.__name__, level=logging.INFO))

    def test_without_url_says_once_that_the_lock_is_local(self):
        lock = coordination.DecisionLock(None, 1.0, self.lock_path)
        for _ in range(3):
            with lock():
                pass
        self.assertEqual(1, self.log.output.count(
            'decisions are serialised among the workers of this host'))

    def test_held_lock_times_out_instead_of_waiting(self):
        """Two locks of one process share oslo.concurrency's semaphore: a
        second holder with timeout 0 is refused at once, and gets in once
        the first has left.
        """
        first = coordination.DecisionLock(None, 0.0, self.lock_path)
        second = coordination.DecisionLock(None, 0.0, self.lock_path)
        entered = []

        def enter():
            with second():
                entered.append('second')

        with first():
            error = self.assertRaises(coordination.LockTimeout, enter)
        self.assertEqual('the decision lock (this process) was not '
                         'acquired in 0.0 s', str(error))
        enter()
        self.assertEqual(['second'], entered)


class TestCheckBackend(base.TestCase):

    def test_no_url_is_the_local_lock(self):
        coordination.check_backend(None)
        coordination.check_backend('')

    def test_file_backend_answers(self):
        folder = self.useFixture(fixtures.TempDir()).path
        coordination.check_backend('file://%s' % folder, timeout=5)

    def test_missing_client_library_names_option_backend_and_extra(self):
        with mock.patch.dict(sys.modules):
            # As on an install without the redis package.
            sys.modules.pop('tooz.drivers.redis', None)
            sys.modules['redis'] = None
            error = self.assertRaises(coordination.BackendUnavailable,
                                      coordination.check_backend,
                                      'redis://:secret@127.0.0.1:6379')
        message = str(error)
        self.assertFalse(error.installed)
        self.assertEqual(1, len(message.splitlines()))
        self.assertTrue(message.startswith(
            '[preemptible_sched] coordination_url: the redis backend needs '
            'the Python package redis, which is not installed'), message)
        self.assertIn("pip install '.[redis]'", message)
        self.assertNotIn('secret', message)

    def test_unknown_backend(self):
        error = self.assertRaises(coordination.BackendUnavailable,
                                  coordination.check_backend,
                                  'rediss://127.0.0.1:6379')
        self.assertIn("unknown tooz backend 'rediss' (valid: ", str(error))
        self.assertIn('redis, ', str(error))

    def test_backend_that_refuses_in_one_line_without_password(self):
        port = base.closed_port()
        error = self.assertRaises(
            coordination.BackendUnavailable, coordination.check_backend,
            'redis://:secret@127.0.0.1:%d' % port, timeout=1)
        message = str(error)
        self.assertTrue(error.installed)
        self.assertIn('the redis backend at 127.0.0.1:%d does not answer'
                      % port, message)
        self.assertEqual(1, len(message.splitlines()))
        self.assertNotIn('secret', message)

    def test_backend_that_never_answers_times_out(self):
        """A server that accepts the connection and says nothing."""
        server = socket.socket()
        self.addCleanup(server.close)
        server.bind(('127.0.0.1', 0))
        server.listen(1)
        port = server.getsockname()[1]
        error = self.assertRaises(
            coordination.BackendUnavailable, coordination.check_backend,
            'redis://127.0.0.1:%d' % port, timeout=0.5)
        self.assertIn('does not answer: no answer within 0.5 s',
                      str(error))
