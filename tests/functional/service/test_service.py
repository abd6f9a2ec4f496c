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

"""The scheduler service with four in-process agents over ``fake://``."""

import logging
import time

import fixtures
import oslo_messaging

from preemptible_sched.conf import CONF
from preemptible_sched.conf import service as service_conf
from preemptible_sched import exception
from preemptible_sched import objects
from preemptible_sched.service import notifications
from preemptible_sched.service import rpcapi
from preemptible_sched import wire
from tests.functional.service import base

#: What fills one emulated blade: four medium instances.
PER_HOST = 4


class TestPlacement(base.ServiceTestCase):

    def fill_with_preemptible(self):
        ids = ['p%02d' % i for i in range(PER_HOST * len(self.HOSTS))]
        for request_id in ids:
            self.submit(request_id, preemptible=True, flavor='medium')
        self.wait_running(*ids)
        return ids

    def cheapest_running_preemptible(self):
        """The oracle: with the default ``billing_period`` cost (run time
        modulo one hour, and the test lasts far less than an hour of
        clock time) and equal sizes, the cheapest victim is the
        preemptible instance that started last.
        """
        running = [row for row in self.instances(states='running').values()
                   if row.preemptible]
        return max(running, key=lambda row: row.started_at)

    def test_normal_request_terminates_the_cheapest_preemptible(self):
        preemptible = self.fill_with_preemptible()
        hosts = {row.host for row in self.instances().values()}
        self.assertEqual(set(self.HOSTS), hosts)

        for request_id in ('n0', 'n1'):
            victim = self.cheapest_running_preemptible()
            request = self.submit(request_id, flavor='medium')
            self.assertEqual('pending', request['status'])
            self.wait_running(request_id)
            rows = self.instances()
            self.assertEqual('terminated', rows[victim.id].state)
            self.assertEqual(victim.host, rows[request_id].host)
            decision = self.store.get_decision(rows[request_id].decision_id)
            self.assertEqual([victim.id], decision.victims)
            self.assertEqual('done', decision.state)

        rows = self.instances()
        self.assertEqual(len(preemptible) - 2, sum(
            1 for i in preemptible if rows[i].state == 'running'))
        self.assertEqual('placed', self.api.show('n1')['status'])
        self.assertStoreAgreesWithAgents()

    def test_preemptible_request_does_not_terminate(self):
        self.fill_with_preemptible()
        request = self.submit('late', preemptible=True, flavor='medium')
        self.wait_for(lambda: self.api.show('late')['status'] == 'failed',
                      'the preemptible request failed')
        self.assertIn('No host', self.api.show(request['id'])['reason'])
        self.assertEqual([], [r for r in self.instances().values()
                              if r.state == 'terminated'])

    def test_normal_requests_fill_free_blades_first(self):
        for i in range(len(self.HOSTS)):
            self.submit('n%d' % i, flavor='medium')
        self.wait_running(*('n%d' % i for i in range(len(self.HOSTS))))
        hosts = {row.host for row in self.instances().values()}
        # The ram and cpu weighers spread: one instance per blade.
        self.assertEqual(set(self.HOSTS), hosts)


class TestClientAPI(base.ServiceTestCase):

    def test_show(self):
        submitted = self.submit('r1', flavor='medium', num_instances=2)
        self.assertEqual('r1', submitted['id'])
        self.wait_running('r1-0', 'r1-1')
        shown = self.api.show('r1')
        self.assertEqual('placed', shown['status'])
        self.assertEqual(['r1-0', 'r1-1'],
                         [i['id'] for i in shown['instances']])
        self.assertEqual({'running'},
                         {i['state'] for i in shown['instances']})
        self.assertTrue(all(i['host'] in self.HOSTS
                            for i in shown['instances']))
        self.assertEqual(base.MEDIUM, shown['spec']['resources'])

    def test_generated_id(self):
        submitted = self.api.submit({'resources': base.MEDIUM})
        self.assertTrue(submitted['id'].startswith('req-'))
        self.wait_running(submitted['id'])

    def test_list(self):
        self.submit('a', flavor='medium')
        self.submit('b', preemptible=True, flavor='medium')
        self.submit('huge', resources={'vcpus': 64, 'memory_mb': 1,
                                       'disk_gb': 0})
        self.wait_running('a', 'b')
        self.wait_for(lambda: self.api.show('huge')['status'] == 'failed',
                      'huge failed')
        self.assertEqual(['a', 'b', 'huge'],
                         [r['id'] for r in self.api.list()])
        self.assertEqual(['huge'],
                         [r['id'] for r in self.api.list(status='failed')])
        self.assertRaises(rpcapi.BadRequest, self.api.list, 'nonsense')

    def test_delete_running(self):
        self.submit('r1', flavor='medium')
        self.wait_running('r1')
        host = self.instances()['r1'].host
        deleted = self.api.delete('r1')
        self.assertEqual('deleted', deleted['status'])
        self.wait_for(lambda: self.instances()['r1'].state == 'deleted',
                      'r1 deleted')
        self.wait_for(lambda: 'r1' not in self.agent_instances()[host],
                      'r1 gone from its agent')
        self.assertStoreAgreesWithAgents()

    def test_delete_pending(self):
        self.flags(group='scheduler', on_no_valid_host='wait')
        self.submit('huge', resources={'vcpus': 64, 'memory_mb': 1,
                                       'disk_gb': 0})
        self.assertEqual('deleted', self.api.delete('huge')['status'])
        self.assertEqual(['deleted'], [i['state'] for i in
                                       self.api.show('huge')['instances']])

    def test_unknown_request(self):
        self.assertRaises(rpcapi.RequestNotFound, self.api.show, 'nope')
        self.assertRaises(rpcapi.RequestNotFound, self.api.delete, 'nope')

    def test_bad_requests(self):
        self.submit('r1', flavor='medium')
        error = self.assertRaises(rpcapi.BadRequest, self.submit, 'r1')
        self.assertIn('request r1: exists already with a different flavor',
                      str(error))
        error = self.assertRaises(
            rpcapi.BadRequest, self.api.submit,
            {'id': 'x', 'resources': {'vcpus': -1}, 'num_instances': 0})
        self.assertIn('num_instances', str(error))
        self.assertIn('resources.vcpus', str(error))
        error = self.assertRaises(rpcapi.BadRequest, self.api.submit,
                                  {'id': 'x', 'resources': {},
                                   'colour': 'blue'})
        self.assertIn('colour', str(error))
        self.assertRaises(rpcapi.BadRequest, self.api.submit,
                          {'id': 'x', 'resources': base.MEDIUM}, -5)
        error = self.assertRaises(rpcapi.BadRequest, self.api.submit,
                                  {'id': 'x', 'resources': base.MEDIUM,
                                   'group': 'g', 'group_policy': 'mostly'})
        self.assertIn('group_policy', str(error))
        self.assertEqual(['r1'], [r['id'] for r in self.api.list()])


class TestNotifications(base.ServiceTestCase):

    def test_versioned_notifications(self):
        for i in range(PER_HOST * len(self.HOSTS)):
            self.submit('p%02d' % i, preemptible=True, flavor='medium')
        self.wait_for(lambda: len(self.notifications.of_type(
            'instance.started')) == PER_HOST * len(self.HOSTS),
            'every preemptible instance started')
        self.submit('n0', flavor='medium')
        self.submit('huge', resources={'vcpus': 64, 'memory_mb': 1,
                                       'disk_gb': 0})
        self.wait_running('n0')
        self.wait_for(lambda: self.notifications.of_type('request.failed'),
                      'request.failed notified')

        placement = [n for n in self.notifications.of_type(
            'instance.placement') if n['payload']['instance_id'] == 'n0']
        self.assertEqual(1, len(placement))
        payload = placement[0]['payload']
        self.assertEqual(notifications.PAYLOAD_VERSION, payload['version'])
        self.assertEqual('n0', payload['request_id'])
        victims = payload['terminate']
        self.assertEqual(1, len(victims))
        self.assertEqual('INFO', placement[0]['priority'])
        self.assertTrue(placement[0]['publisher_id'].startswith(
            'preemptible-scheduler:'))

        self.wait_for(lambda: self.notifications.of_type(
            'instance.terminated'), 'instance.terminated notified')
        for event_type in ('instance.termination_notice',
                           'instance.terminated'):
            sent, = self.notifications.of_type(event_type)
            self.assertEqual(victims, [sent['payload']['instance_id']])
            self.assertEqual(payload['host'], sent['payload']['host'])
            self.assertEqual(payload['decision_id'],
                             sent['payload']['decision_id'])
            self.assertEqual('1.0', sent['payload']['version'])

        failed, = self.notifications.of_type('request.failed')
        self.assertEqual('ERROR', failed['priority'])
        self.assertEqual('huge', failed['payload']['request_id'])
        self.assertIn('No host', failed['payload']['reason'])

    def test_instance_failed(self):
        self.agents['host-A'].clock.call_soon(
            self.agents['host-A'].driver.fail_next_spawns, 10)
        self.flags(group='scheduler', max_attempts=1)
        for i in range(len(self.HOSTS)):
            self.submit('n%d' % i, flavor='medium')
        self.wait_for(lambda: self.notifications.of_type('instance.failed'),
                      'instance.failed notified')
        failed, = self.notifications.of_type('instance.failed')
        self.assertEqual('ERROR', failed['priority'])
        self.assertEqual('host-A', failed['payload']['host'])
        self.assertEqual('injected boot failure',
                         failed['payload']['reason'])


class TestRestart(base.ServiceTestCase):
    """The scheduler stops in the middle of a termination and restarts."""

    GRACE = 60.0

    def test_restart_during_termination_grace(self):
        self.flags(group='preemptible', termination_grace_seconds=self.GRACE)
        preemptible = ['p%02d' % i for i in range(PER_HOST * len(self.HOSTS))]
        for request_id in preemptible:
            self.submit(request_id, preemptible=True, flavor='medium')
        self.wait_running(*preemptible)
        self.submit('n0', flavor='medium')
        self.wait_for(lambda: self.instances()['n0'].decision_id is not None,
                      'n0 journaled')
        decision_id = self.instances()['n0'].decision_id
        self.crash_scheduler()
        decision = self.store.get_decision(decision_id)
        self.assertIn(decision.state, ('journaled', 'terminating'))

        self.scheduler = self.start_scheduler()
        self.wait_running('n0')
        decision = self.store.get_decision(decision_id)
        self.assertEqual('done', decision.state)
        rows = self.instances()
        victim, = decision.victims
        self.assertEqual('terminated', rows[victim].state)
        self.assertEqual(len(preemptible) - 1, sum(
            1 for i in preemptible if rows[i].state == 'running'))
        self.assertStoreAgreesWithAgents()

    def test_restart_keeps_the_timeline(self):
        self.submit('r1', flavor='medium')
        self.wait_running('r1')
        self.scheduler.stop()
        self.scheduler.runner.join(self.WAIT)
        # The clock ran TIME_SCALE times faster than the wall clock: the
        # new one starts from the latest time recorded, not from now.
        recorded = self.store.latest_time()
        self.scheduler = self.start_scheduler()
        self.assertGreaterEqual(self.scheduler.clock.now(), recorded)
        self.wait_for(lambda: self.scheduler.ready,
                      'the restarted scheduler is ready')
        self.submit('r2', flavor='medium')
        self.wait_running('r2')
        self.assertEqual('running', self.instances()['r1'].state)
        self.assertStoreAgreesWithAgents()


NAN = float('nan')
INF = float('inf')


def _spec(**fields):
    spec = {'id': 'bad', 'resources': dict(base.MEDIUM)}
    spec.update(fields)
    return spec


def _resources(**fields):
    return _spec(resources=dict(base.MEDIUM, **fields))


def _host(**fields):
    host = wire.host_to_dict(objects.Host('host-A', 8, 16384, 500))
    host.update(fields)
    return host


def _instance(**fields):
    instance = wire.instance_to_dict(
        objects.Instance('fuzz', objects.Resources(1, 100, 1)))
    instance.update(fields)
    return instance


#: Calls of the client API: (context, method, arguments). Each is
#: answered BadRequest.
HOSTILE_CALLS = [
    ({}, 'submit', {}),
    ({}, 'submit', {'spec': None}),
    ({}, 'submit', {'spec': [1]}),
    ({}, 'submit', {'spec': 'r1'}),
    ({}, 'submit', {'spec': _spec(priority=[1])}),
    ({}, 'submit', {'spec': _spec(priority=NAN)}),
    ({}, 'submit', {'spec': _spec(priority=INF)}),
    ({}, 'submit', {'spec': _spec(priority=-INF)}),
    ({}, 'submit', {'spec': _spec(priority='high')}),
    ({}, 'submit', {'spec': _spec(priority=True)}),
    ({}, 'submit', {'spec': _spec(priority=10 ** 400)}),
    ({}, 'submit', {'spec': _resources(vcpus='8')}),
    ({}, 'submit', {'spec': _resources(vcpus=NAN)}),
    ({}, 'submit', {'spec': _resources(memory_mb=INF)}),
    ({}, 'submit', {'spec': _resources(disk_gb=-1)}),
    ({}, 'submit', {'spec': _resources(vcpus=1e300)}),
    ({}, 'submit', {'spec': _resources(vcpus=[2])}),
    ({}, 'submit', {'spec': _resources(gpus=1)}),
    ({}, 'submit', {'spec': _spec(resources={})}),
    ({}, 'submit', {'spec': _spec(resources=None)}),
    ({}, 'submit', {'spec': _spec(num_instances=0)}),
    ({}, 'submit', {'spec': _spec(num_instances=-1)}),
    ({}, 'submit', {'spec': _spec(num_instances=100000)}),
    ({}, 'submit', {'spec': _spec(num_instances=2.0)}),
    ({}, 'submit', {'spec': _spec(num_instances=True)}),
    ({}, 'submit', {'spec': _spec(num_instances='3')}),
    ({}, 'submit', {'spec': _spec(id='')}),
    ({}, 'submit', {'spec': _spec(id='a b')}),
    ({}, 'submit', {'spec': _spec(id='a\nb')}),
    ({}, 'submit', {'spec': _spec(id='x' * 300)}),
    ({}, 'submit', {'spec': _spec(id=5)}),
    ({}, 'submit', {'spec': _spec(id=['r'])}),
    ({}, 'submit', {'spec': _spec(flavor='x' * 1000)}),
    ({}, 'submit', {'spec': _spec(flavor='a\x00b')}),
    ({}, 'submit', {'spec': _spec(flavor=123)}),
    ({}, 'submit', {'spec': _spec(constraints=['gpu'])}),
    ({}, 'submit', {'spec': _spec(constraints={'k': {'deep': 1}})}),
    ({}, 'submit', {'spec': _spec(group='g', group_policy='mostly')}),
    ({}, 'submit', {'spec': _spec(group='g')}),
    ({}, 'submit', {'spec': _spec(instance_ids=['a', 'b'])}),
    ({}, 'submit', {'spec': _spec(colour='blue')}),
    ({}, 'submit', {'spec': _spec(service_class='unobtainium')}),
    ({}, 'submit', {'spec': _spec(), 'duration': NAN}),
    ({}, 'submit', {'spec': _spec(), 'duration': INF}),
    ({}, 'submit', {'spec': _spec(), 'duration': -5}),
    ({}, 'submit', {'spec': _spec(), 'duration': 0}),
    ({}, 'submit', {'spec': _spec(), 'duration': 'long'}),
    ({}, 'submit', {'spec': _spec(), 'image': 'x' * 300}),
    ({}, 'submit', {'spec': _spec(), 'image': 5}),
    ({}, 'submit', {'spec': _spec(), 'retries': 3}),
    ({'project_id': 'a b'}, 'submit', {'spec': _spec()}),
    ({'project_id': 5}, 'submit', {'spec': _spec()}),
    ({'roles': 'admin'}, 'submit', {'spec': _spec()}),
    ({'is_admin': 'yes'}, 'submit', {'spec': _spec()}),
    ({}, 'show', {}),
    ({}, 'show', {'request_id': None}),
    ({}, 'show', {'request_id': 5}),
    ({}, 'show', {'request_id': []}),
    ({}, 'show', {'request_id': 'x' * 300}),
    ({}, 'show', {'request_id': 'r\x00'}),
    ({}, 'show', {'request_id': 'r', 'verbose': True}),
    ({}, 'list', {'status': 'nonsense'}),
    ({}, 'list', {'status': 5}),
    ({}, 'list', {'status': ['pending']}),
    ({}, 'list', {'project_id': 'other'}),
    ({}, 'delete', {}),
    ({}, 'delete', {'request_id': None}),
    ({}, 'delete', {'request_id': {'id': 'r'}}),
    ({}, 'drop_database', {}),
    ({}, 'shutdown', {'now': True}),
]

#: Reports to the scheduler (casts): (method, arguments). Each is
#: dropped.
HOSTILE_REPORTS = [
    ('register_host', {}),
    ('register_host', {'host': _host(vcpus='8'), 'boot_id': 'b'}),
    ('register_host', {'host': _host(vcpus=NAN), 'boot_id': 'b'}),
    ('register_host', {'host': _host(memory_mb=INF), 'boot_id': 'b'}),
    ('register_host', {'host': _host(disk_gb=-1), 'boot_id': 'b'}),
    ('register_host', {'host': _host(name='a b'), 'boot_id': 'b'}),
    ('register_host', {'host': _host(name=None), 'boot_id': 'b'}),
    ('register_host', {'host': _host(up='yes'), 'boot_id': 'b'}),
    ('register_host', {'host': _host(aggregates={'a': 1}),
                       'boot_id': 'b'}),
    ('register_host', {'host': _host(attributes={'k': {'x': 1}}),
                       'boot_id': 'b'}),
    ('register_host', {'host': _host(cpu_allocation_ratio=NAN),
                       'boot_id': 'b'}),
    ('register_host', {'host': _host(), 'boot_id': None}),
    ('register_host', {'host': _host(), 'boot_id': 'x' * 100}),
    ('register_host', {'host': ['host-A'], 'boot_id': 'b'}),
    ('instance_started', {'host': 'host-A'}),
    ('instance_started', {'host': None, 'instance_id': 'i'}),
    ('instance_started', {'host': 'host-A', 'instance_id': 5}),
    ('instance_started', {'host': 'host-A', 'instance_id': 'i',
                          'at': NAN}),
    ('instance_ended', {'host': ['host-A'], 'instance_id': 'i'}),
    ('instance_failed', {'host': 'host-A', 'instance_id': 'i'}),
    ('instance_failed', {'host': 'host-A', 'instance_id': 'i',
                         'reason': 'x' * 5000}),
    ('instance_failed', {'host': 'host-A', 'instance_id': 'i',
                         'reason': ['why']}),
    ('instance_terminated', {'host': 'host-A', 'instance_id': {}}),
    ('termination_failed', {'host': 'host-A', 'instance_id': 'i',
                            'reason': None}),
    ('host_down', {'host': None}),
    ('host_down', {'host': 'host-A', 'at': 'now'}),
    ('host_up', {'host': {'name': 'host-A'}}),
    ('host_up', {'host': 'host-A', 'colour': 'red'}),
    ('host_exploded', {'host': 'host-A'}),
]

#: Messages to the agent of host-A: (cast or call, method, arguments).
HOSTILE_AGENT_MESSAGES = [
    ('cast', 'spawn', {}),
    ('cast', 'spawn', {'host': 'host-A', 'instance': None}),
    ('cast', 'spawn', {'host': 'host-A', 'instance': _instance(
        resources=[NAN, 1, 1])}),
    ('cast', 'spawn', {'host': 'host-A', 'instance': _instance(
        resources=['4', 1, 1])}),
    ('cast', 'spawn', {'host': 'host-A', 'instance': _instance(
        resources=[1, 1])}),
    ('cast', 'spawn', {'host': 'host-A', 'instance': _instance(
        resources=[INF, 1, 1])}),
    ('cast', 'spawn', {'host': 'host-A', 'instance': _instance(id='a b')}),
    ('cast', 'spawn', {'host': 'host-A', 'instance': _instance(
        started_at=NAN)}),
    ('cast', 'spawn', {'host': 'host-A', 'instance': _instance(),
                       'duration': -1}),
    ('cast', 'spawn', {'host': 'host-A', 'instance': _instance(),
                       'duration': NAN}),
    ('cast', 'spawn', {'host': 'host-A', 'instance': _instance(),
                       'image': ['cirros']}),
    ('cast', 'spawn', {'host': ['host-A'], 'instance': _instance()}),
    ('cast', 'spawn', {'host': 'host-B', 'instance': _instance()}),
    ('cast', 'terminate', {}),
    ('cast', 'terminate', {'host': None, 'instance_id': 'i'}),
    ('cast', 'terminate', {'host': 'host-A', 'instance_id': ['i']}),
    ('cast', 'terminate', {'host': 'host-B', 'instance_id': 'i'}),
    ('cast', 'report_host', {'host': 'host-A'}),
    ('cast', 'reboot', {'host': 'host-A'}),
    ('call', 'list_instances', {}),
    ('call', 'list_instances', {'host': 7}),
    ('call', 'list_instances', {'host': 'host-B'}),
    ('call', 'list_instances', {'host': 'host-A', 'all': True}),
]

#: How many malformed messages the test sends.
HOSTILE_MESSAGES = (len(HOSTILE_CALLS) + len(HOSTILE_REPORTS) +
                    len(HOSTILE_AGENT_MESSAGES))


class TestHostileMessages(base.ServiceTestCase):
    """Malformed messages on every topic: each is refused (calls) or
    dropped (casts) with one WARNING line; the scheduler and the agents
    keep serving.
    """

    def setUp(self):
        super().setUp()
        self.log = self.useFixture(fixtures.FakeLogger(
            name='preemptible_sched', level=logging.WARNING))

    def refusals(self):
        return [line for line in self.log.output.splitlines()
                if line.startswith(('Rejected ', 'Dropped '))]

    def client(self, topic, server=None):
        return oslo_messaging.get_rpc_client(
            self.transport, oslo_messaging.Target(
                topic=topic, server=server, version='1.0'),
            timeout=CONF.service.rpc_timeout)

    def test_malformed_messages_on_every_topic(self):
        self.assertGreaterEqual(HOSTILE_MESSAGES, 90)
        self.submit('before', flavor='medium')
        self.wait_running('before')
        hosts = {h.name: h.to_object() for h in self.store.hosts()}

        for ctxt, method, kwargs in HOSTILE_CALLS:
            api = rpcapi.SchedulerAPI(self.transport, CONF, context=ctxt)
            self.assertRaises(rpcapi.BadRequest, api._call, method,
                              **kwargs)
        reports = self.client(service_conf.report_topic(CONF))
        for method, kwargs in HOSTILE_REPORTS:
            reports.cast({}, method, **kwargs)
        agent = self.client(CONF.service.compute_topic, server='host-A')
        for kind, method, kwargs in HOSTILE_AGENT_MESSAGES:
            if kind == 'cast':
                agent.cast({}, method, **kwargs)
            else:
                # fake:// hands the agent's exception over as it is.
                self.assertRaises(exception.InvalidInput, agent.call, {},
                                  method, **kwargs)

        # One line each: a refused call, a dropped cast.
        self.wait_for(lambda: len(self.refusals()) >= HOSTILE_MESSAGES,
                      'every malformed message logged')
        time.sleep(1.0)
        self.assertEqual(HOSTILE_MESSAGES, len(self.refusals()),
                         self.log.output)
        self.assertNotIn('Traceback', self.log.output)
        # Nothing reached the store.
        self.assertEqual(['before'],
                         [r.id for r in self.store.list_requests()])
        self.assertEqual(['before'],
                         [i.id for i in self.store.list_instances()])
        self.assertEqual(hosts, {h.name: h.to_object()
                                 for h in self.store.hosts()})
        # Everybody is alive and serves.
        for component in [self.scheduler] + list(self.agents.values()):
            self.assertTrue(component.runner.is_alive())
            self.assertIsNone(component.runner.error)
        self.submit('after', flavor='medium')
        self.wait_running('after')
        self.assertEqual(['before', 'after'],
                         [r['id'] for r in self.api.list()])
        self.assertStoreAgreesWithAgents()


class TestProjects(base.ServiceTestCase):
    """A project cannot show or delete another project's request through
    the RPC API (the answer is ``NotFound``, as for a request that does
    not exist); an administrator can.
    """

    def api_of(self, project_id, *roles):
        return rpcapi.SchedulerAPI(self.transport, CONF, context={
            'project_id': project_id, 'roles': list(roles)})

    def test_projects_are_isolated_and_admins_see_all(self):
        alice, bob = self.api_of('alice'), self.api_of('bob')
        admin = self.api_of('ops', 'admin')
        alice.submit({'id': 'a1', 'resources': base.MEDIUM})
        bob.submit({'id': 'b1', 'resources': base.MEDIUM})
        self.wait_running('a1', 'b1')

        for call in (bob.show, bob.delete, self.api.show):
            self.assertRaises(rpcapi.RequestNotFound, call, 'a1')
        self.assertEqual(['b1'], [r['id'] for r in bob.list()])
        self.assertEqual([], self.api.list())
        self.assertEqual('running', self.instances()['a1'].state)

        self.assertEqual('alice', admin.show('a1')['project_id'])
        self.assertEqual(['a1', 'b1'], [r['id'] for r in admin.list()])
        self.assertEqual('deleted', admin.delete('a1')['status'])
        self.wait_for(lambda: self.instances()['a1'].state == 'deleted',
                      'a1 deleted')
        self.assertEqual('deleted', alice.show('a1')['status'])
        self.assertStoreAgreesWithAgents()
