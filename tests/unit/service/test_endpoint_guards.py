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

"""The guards of the endpoints: a bad call is refused, a bad cast dropped,
a bug answered as a service failure, each logged on one line.
"""

import logging

import fixtures
import oslo_messaging

from preemptible_sched import exception
from preemptible_sched.service import endpoint_guards
from tests import base


class Endpoint(endpoint_guards.GuardedEndpoint):

    target = oslo_messaging.Target(version='1.0')

    def __init__(self):
        self.calls = []

    @endpoint_guards.checked_call('scheduler')
    def show(self, ctxt, request_id):
        if request_id == 'boom':
            raise KeyError(request_id)
        self.calls.append(('show', ctxt, request_id))
        return request_id

    @endpoint_guards.checked_cast('compute')
    def terminate(self, ctxt, host, instance_id):
        if host == 'boom':
            raise KeyError(host)
        self.calls.append(('terminate', host, instance_id))


class TestGuards(base.TestCase):

    def setUp(self):
        super().setUp()
        self.log = self.useFixture(fixtures.FakeLogger(
            name='preemptible_sched.service.endpoint_guards',
            level=logging.INFO))
        self.endpoint = Endpoint()

    def lines(self):
        return self.log.output.splitlines()

    def assertExpected(self, error, cls):
        self.assertIsInstance(error, oslo_messaging.ExpectedException)
        self.assertIsInstance(error.exc_info[1], cls)

    def test_good_call(self):
        self.assertEqual('r', self.endpoint.show(
            {'project_id': 'p'}, request_id='r'))
        self.assertEqual([('show', {'project_id': 'p'}, 'r')],
                         self.endpoint.calls)
        self.assertEqual([], self.lines())

    def test_bad_call_is_an_expected_error_logged_on_one_line(self):
        error = self.assertRaises(oslo_messaging.ExpectedException,
                                  self.endpoint.show, {}, request_id=7)
        self.assertExpected(error, exception.InvalidInput)
        self.assertEqual(['Rejected show: show: request_id: expected '
                          'string, got int'], self.lines())
        for ctxt, kwargs in (({}, {}), ({}, {'request_id': 'r', 'x': 1}),
                             ({'roles': 'admin'}, {'request_id': 'r'})):
            error = self.assertRaises(oslo_messaging.ExpectedException,
                                      self.endpoint.show, ctxt, **kwargs)
            self.assertExpected(error, exception.InvalidInput)
        self.assertEqual([], self.endpoint.calls)
        self.assertEqual(4, len(self.lines()))

    def test_a_bug_is_a_service_failure(self):
        error = self.assertRaises(oslo_messaging.ExpectedException,
                                  self.endpoint.show, {},
                                  request_id='boom')
        self.assertExpected(error, endpoint_guards.ServiceFailure)
        self.assertNotIn('boom', str(error.exc_info[1]))
        self.assertIn('show failed', self.log.output)

    def test_bad_casts_are_dropped(self):
        self.assertIsNone(self.endpoint.terminate(
            {}, host='h', instance_id=float('nan')))
        self.assertIsNone(self.endpoint.terminate({}, host='boom',
                                                  instance_id='i'))
        self.assertIsNone(self.endpoint.terminate({}, host='h'))
        self.endpoint.terminate({}, host='h', instance_id='i')
        self.assertEqual([('terminate', 'h', 'i')], self.endpoint.calls)
        self.assertIn('Dropped terminate: terminate: instance_id: expected '
                      'a finite number, got nan', self.lines())
        self.assertIn('terminate failed; the message is dropped',
                      self.lines())

    def test_unknown_methods(self):
        error = self.assertRaises(oslo_messaging.ExpectedException,
                                  self.endpoint.launch, {}, name='x')
        self.assertExpected(error, exception.InvalidInput)
        self.assertEqual(['Rejected launch: launch: no such method'],
                         self.lines())
        self.assertRaises(AttributeError, getattr, self.endpoint, '_private')
        self.assertFalse(hasattr(self.endpoint, 'oslo_rpc_server_ping'))
