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

"""The RPC clients: what they send, and how errors come back."""

from unittest import mock

import oslo_messaging

from preemptible_sched.conf import CONF
from preemptible_sched.db import errors as db_errors
from preemptible_sched import exception
from preemptible_sched import objects
from preemptible_sched import service
from preemptible_sched.service import endpoint_guards
from preemptible_sched.service import policy
from preemptible_sched.service import rpcapi
from tests import base


class ClientTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.transport = service.get_rpc_transport(CONF)
        self.addCleanup(self.transport.cleanup)
        self.client = mock.Mock()
        self.client.prepare.return_value = self.client
        patcher = mock.patch.object(oslo_messaging, 'get_rpc_client',
                                    return_value=self.client)
        self.get_rpc_client = patcher.start()
        self.addCleanup(patcher.stop)


class TestSchedulerAPI(ClientTestCase):

    def setUp(self):
        super().setUp()
        self.api = rpcapi.SchedulerAPI(self.transport, CONF, retry=2)

    def test_target_and_timeout(self):
        _, target = self.get_rpc_client.call_args.args
        self.assertEqual(CONF.service.scheduler_topic, target.topic)
        self.assertEqual('1.0', target.version)
        self.assertEqual({'timeout': CONF.service.rpc_timeout, 'retry': 2},
                         self.get_rpc_client.call_args.kwargs)

    def test_calls(self):
        self.api.submit({'id': 'r'}, 60.0, 'img')
        self.api.show('r')
        self.api.list('failed')
        self.api.delete('r')
        self.assertEqual(
            [mock.call({}, 'submit', spec={'id': 'r'}, duration=60.0,
                       image='img'),
             mock.call({}, 'show', request_id='r'),
             mock.call({}, 'list', status='failed'),
             mock.call({}, 'delete', request_id='r')],
            self.client.call.call_args_list)

    def test_context(self):
        api = rpcapi.SchedulerAPI(self.transport, CONF, context={
            'project_id': 'p', 'roles': ['admin']})
        api.list()
        self.client.call.assert_called_once_with(
            {'project_id': 'p', 'roles': ['admin']}, 'list', status=None)

    def assertTranslated(self, raised, expected, message):
        self.client.call.side_effect = raised
        error = self.assertRaises(expected, self.api.show, 'r')
        self.assertIn(message, str(error))

    def test_remote_errors(self):
        self.assertTranslated(
            oslo_messaging.RemoteError('NotFound', "request 'r' not found"),
            rpcapi.RequestNotFound, "request 'r' not found")
        self.assertTranslated(
            oslo_messaging.RemoteError('Duplicate', 'exists'),
            rpcapi.BadRequest, 'exists')
        self.assertTranslated(
            oslo_messaging.RemoteError('InvalidInput', 'bad'),
            rpcapi.BadRequest, 'bad')
        self.assertTranslated(
            oslo_messaging.RemoteError('NotReady', 'starting'),
            rpcapi.ServiceUnavailable, 'starting')
        self.assertTranslated(
            oslo_messaging.RemoteError('PolicyNotAuthorized', 'no'),
            rpcapi.Forbidden, 'no')
        self.assertTranslated(
            oslo_messaging.RemoteError('ServiceFailure', 'bug'),
            rpcapi.ServiceError, 'bug')
        self.assertTranslated(
            oslo_messaging.RemoteError('ZeroDivisionError', 'oops'),
            rpcapi.ServiceError, 'oops')

    def test_errors_of_the_fake_transport(self):
        self.assertTranslated(db_errors.NotFound('request', 'r'),
                              rpcapi.RequestNotFound, "'r'")
        self.assertTranslated(exception.InvalidInput('request', None, 'x'),
                              rpcapi.BadRequest, 'request: x')
        self.assertTranslated(policy.PolicyNotAuthorized('a:b'),
                              rpcapi.Forbidden, 'a:b')
        self.assertTranslated(endpoint_guards.ServiceFailure('show'),
                              rpcapi.ServiceError, 'show failed')
        # Any other error of the service's own is a ServiceError.
        self.assertTranslated(exception.NoValidHost('none'),
                              rpcapi.ServiceError, 'none')

    def test_no_answer(self):
        self.assertTranslated(oslo_messaging.MessagingTimeout('late'),
                              rpcapi.ServiceTimeout,
                              CONF.service.scheduler_topic)
        self.assertTrue(issubclass(rpcapi.ServiceTimeout,
                                   rpcapi.ServiceUnavailable))
        self.assertTranslated(
            oslo_messaging.MessageDeliveryFailure('no broker'),
            rpcapi.ServiceUnavailable, 'no broker')


class TestComputeAPI(ClientTestCase):

    def test_casts_and_calls_to_one_host(self):
        api = rpcapi.ComputeAPI(self.transport, CONF)
        self.client.call.return_value = {'now': 1.0, 'instances': []}
        api.spawn('host-A', {'id': 'i'}, image='img', duration=5.0,
                  agent_boot='boot-1')
        api.terminate('host-A', 'v')
        api.list_instances('host-B')
        api.announce()
        self.assertEqual(
            [mock.call(server='host-A'), mock.call(server='host-A'),
             mock.call(server='host-B'), mock.call(fanout=True)],
            self.client.prepare.call_args_list)
        self.assertEqual(
            [mock.call({}, 'spawn', host='host-A', instance={'id': 'i'},
                       image='img', duration=5.0, agent_boot='boot-1'),
             mock.call({}, 'terminate', host='host-A', instance_id='v'),
             mock.call({}, 'report_host')],
            self.client.cast.call_args_list)
        self.client.call.assert_called_once_with({}, 'list_instances',
                                                 host='host-B')


class TestListInstancesAnswer(ClientTestCase):

    def test_the_answer_is_checked(self):
        api = rpcapi.ComputeAPI(self.transport, CONF)
        good = {'now': 10.0, 'instances': [
            {'id': 'i', 'state': 'running', 'started_at': 5.0,
             'cpu_utilization': 0.5}]}
        self.client.call.return_value = good
        self.assertEqual(good, api.list_instances('host-A'))
        for bad in ({'now': float('nan'), 'instances': []},
                    {'now': 1.0, 'instances': [{'id': 5,
                                                'state': 'running'}]},
                    {'now': 1.0}, None):
            self.client.call.return_value = bad
            error = self.assertRaises(exception.InvalidInput,
                                      api.list_instances, 'host-A')
            self.assertEqual('list_instances answer', error.source)


class TestSchedulerReportsAPI(ClientTestCase):

    def test_reports_on_the_report_topic(self):
        api = rpcapi.SchedulerReportsAPI(self.transport, CONF)
        _, target = self.get_rpc_client.call_args.args
        self.assertEqual(CONF.service.scheduler_topic + '_reports',
                         target.topic)
        api.register_host(objects.Host('h', 8, 16384), 'boot')
        api.instance_started('h', 'i', 1.0)
        api.instance_failed('h', 'i', 2.0, 'why')
        api.host_down('h', 3.0)
        method, kwargs = self.client.cast.call_args_list[0].args[1:], \
            self.client.cast.call_args_list[0].kwargs
        self.assertEqual(('register_host',), method)
        self.assertEqual('h', kwargs['host']['name'])
        self.assertEqual(
            [mock.call({}, 'instance_started', host='h', instance_id='i',
                       at=1.0),
             mock.call({}, 'instance_failed', host='h', instance_id='i',
                       at=2.0, reason='why'),
             mock.call({}, 'host_down', host='h', at=3.0)],
            self.client.cast.call_args_list[1:])
