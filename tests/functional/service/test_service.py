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

from preemptible_sched.service import notifications
from preemptible_sched.service import rpcapi
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
        self.assertIn("'r1'", str(error))
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
