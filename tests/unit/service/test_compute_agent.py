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

"""A compute agent on ``fake://``: what it serves and what it reports."""

import threading
import time
import uuid

import oslo_messaging

from preemptible_sched.conf import CONF
from preemptible_sched.conf import service as service_conf
from preemptible_sched import exception
from preemptible_sched import objects
from preemptible_sched import service
from preemptible_sched.service import compute_agent
from preemptible_sched.service import compute_reports
from preemptible_sched.service import payload_checks
from preemptible_sched.service import rpcapi
from preemptible_sched import wire
from tests import base


class Reports:
    """Stands for the scheduler's driver behind the reports endpoint."""

    def __init__(self):
        self.log = []
        self.lock = threading.Lock()

    def register(self, host, boot_id):
        with self.lock:
            self.log.append(('register', host.name, boot_id))

    def report(self, event, host, *args, boot=None):
        with self.lock:
            self.log.append((event, host) + args)

    def seen(self, entry):
        with self.lock:
            return entry in self.log


class AgentTestCase(base.TestCase):

    HEARTBEAT = 0.2

    def setUp(self):
        super().setUp()
        self.flags(group='service', time_scale=50.0,
                   heartbeat_interval=self.HEARTBEAT)
        service.register_messaging_opts(CONF)
        # fake:// queues are shared by the process, per exchange.
        self.flags(control_exchange='test-%s' % uuid.uuid4().hex)
        self.transport = service.get_rpc_transport(CONF)
        self.addCleanup(self.transport.cleanup)
        self.reports = Reports()
        server = oslo_messaging.get_rpc_server(
            self.transport,
            oslo_messaging.Target(topic=service_conf.report_topic(CONF),
                                  server='scheduler'),
            [compute_reports.ComputeReportsEndpoint(
                self.reports, check=payload_checks.check_report)])
        server.start()
        self.addCleanup(server.wait)
        self.addCleanup(server.stop)
        self.agent = compute_agent.ComputeAgent(
            CONF, compute_agent.blade('host-A', CONF),
            transport=self.transport, seed=1)
        thread = threading.Thread(target=self.agent.run, daemon=True)
        thread.start()
        self.addCleanup(thread.join, 30)
        self.addCleanup(self.agent.stop)
        self.api = rpcapi.ComputeAPI(self.transport, CONF)

    def wait_for(self, predicate, what):
        deadline = time.monotonic() + 30
        while not predicate():
            if time.monotonic() > deadline:
                self.fail('timed out waiting for %s' % what)
            time.sleep(0.02)


class TestComputeAgent(AgentTestCase):

    def test_blade_from_the_configuration(self):
        self.assertEqual(objects.Host('host-A', 8, 16384, 500),
                         compute_agent.blade('host-A', CONF))

    def test_registers_and_beats(self):
        entry = ('register', 'host-A', self.agent.boot_id)
        self.wait_for(lambda: self.reports.log.count(entry) >= 2,
                      'two registrations')

    def test_spawn_list_and_terminate(self):
        instance = objects.Instance('i1', objects.Resources(2, 4000, 40))
        self.api.spawn('host-A', wire.instance_to_dict(instance))
        self.wait_for(lambda: self.reports.seen(
            ('instance_started', 'host-A', 'i1')), 'i1 started')
        answer = self.api.list_instances('host-A')
        self.assertEqual(['i1'], [r['id'] for r in answer['instances']])
        self.assertEqual('running', answer['instances'][0]['state'])
        self.assertLessEqual(answer['instances'][0]['started_at'],
                             answer['now'])
        self.api.terminate('host-A', 'i1')
        self.wait_for(lambda: self.reports.seen(
            ('instance_terminated', 'host-A', 'i1')), 'i1 terminated')
        self.assertEqual([], self.api.list_instances('host-A')['instances'])
        finished = self.api.list_instances('host-A', finished=True)
        self.assertEqual([('i1', 'terminated')], [
            (r['id'], r['state']) for r in finished['finished']])

    def test_spawn_beyond_capacity_fails(self):
        large = objects.Instance('big', objects.Resources(16, 1, 1))
        self.api.spawn('host-A', wire.instance_to_dict(large))
        self.wait_for(lambda: any(e[:3] == ('instance_failed', 'host-A',
                                            'big')
                                  for e in list(self.reports.log)),
                      'big failed')


class TestStaleSpawns(AgentTestCase):
    """A spawn meant for an earlier run of the agent (left on the bus when
    it restarted) is refused, with a failure report of its boot; one for
    this run, or naming none (an older scheduler), is spawned (issue 26:
    the new run booted them, the scheduler terminated them as strays and
    placed them again).
    """

    def spawn(self, instance_id, agent_boot):
        instance = objects.Instance(instance_id,
                                    objects.Resources(2, 4000, 40), boot=7)
        self.api.spawn('host-A', wire.instance_to_dict(instance),
                       agent_boot=agent_boot)

    def test_earlier_run_refused(self):
        self.spawn('stale', 'a' * 32)
        self.spawn('fresh', self.agent.boot_id)
        self.spawn('unnamed', None)
        for instance_id in ('fresh', 'unnamed'):
            self.wait_for(lambda: self.reports.seen(
                ('instance_started', 'host-A', instance_id)),
                '%s started' % instance_id)
        self.wait_for(lambda: any(
            entry[:3] == ('instance_failed', 'host-A', 'stale')
            for entry in list(self.reports.log)), 'stale refused')
        failure, = [entry for entry in list(self.reports.log)
                    if entry[:3] == ('instance_failed', 'host-A', 'stale')]
        self.assertIn('stale spawn', failure[3])
        self.assertNotIn('stale', [
            report['id'] for report in
            self.api.list_instances('host-A')['instances']])


class TestDeposedSchedulers(AgentTestCase):
    """Commands carry the term (epoch) of the scheduler that sent them:
    once the agent heard from epoch 5, a spawn, a termination or an
    announce of epoch 4 (a leader that lost the lead and does not know it
    yet) is refused; epoch 5, a newer one, or none (an unfenced sender)
    is obeyed (issue 31: fencing).
    """

    HEARTBEAT = 3600.0

    def api_of(self, epoch):
        return rpcapi.ComputeAPI(self.transport, CONF, epoch=epoch)

    def spawn(self, api, instance_id):
        api.spawn('host-A', wire.instance_to_dict(objects.Instance(
            instance_id, objects.Resources(1, 1000, 10))))

    def started(self, instance_id):
        return self.reports.seen(('instance_started', 'host-A',
                                  instance_id))

    def test_older_terms_refused(self):
        old, new = self.api_of(4), self.api_of(5)
        registered = ('register', 'host-A', self.agent.boot_id)
        self.wait_for(lambda: self.reports.seen(registered), 'registered')
        self.spawn(old, 'before')
        self.wait_for(lambda: self.started('before'), 'epoch 4 obeyed')
        new.announce()
        self.wait_for(lambda: self.reports.log.count(registered) == 2,
                      'the announce of epoch 5')
        self.spawn(old, 'stale')
        old.terminate('host-A', 'before')
        old.announce()
        self.spawn(new, 'fresh')
        self.spawn(self.api_of(None), 'unfenced')
        for instance_id in ('fresh', 'unfenced'):
            self.wait_for(lambda: self.started(instance_id),
                          '%s started' % instance_id)
        running = {report['id'] for report in
                   self.api.list_instances('host-A')['instances']}
        self.assertEqual({'before', 'fresh', 'unfenced'}, running)
        self.assertFalse(self.started('stale'))
        self.assertEqual(2, self.reports.log.count(registered))
        new.terminate('host-A', 'before')
        self.wait_for(lambda: self.reports.seen(
            ('instance_terminated', 'host-A', 'before')),
            'the termination of epoch 5')

    def test_a_deposed_sender_sends_nothing(self):
        api = self.api_of(3)
        api.deposed = True
        self.spawn(api, 'never')
        self.spawn(self.api_of(3), 'sent')
        self.wait_for(lambda: self.started('sent'), 'the other one')
        self.assertFalse(self.started('never'))


class TestAnnounce(AgentTestCase):

    # No heartbeat during the test: only the start and the announce.
    HEARTBEAT = 3600.0

    def test_announce_makes_it_register(self):
        entry = ('register', 'host-A', self.agent.boot_id)
        self.wait_for(lambda: self.reports.seen(entry), 'registration')
        self.api.announce()
        self.wait_for(lambda: self.reports.log.count(entry) == 2,
                      'a registration on request')


class TestHostileMessages(AgentTestCase):
    """Regression tests: malformed messages killed the agent, and a NaN
    size defeated its capacity check.
    """

    def spawn(self, instance_id, vcpus):
        self.api.spawn('host-A', wire.instance_to_dict(objects.Instance(
            instance_id, objects.Resources(vcpus, 100, 1))))

    def test_a_nan_spawn_does_not_disable_the_capacity_check(self):
        # 12 x 4 vCPU then ran on the 8-vCPU blade.
        self.spawn('nan', float('nan'))
        for i in range(12):
            self.spawn('i%d' % i, 4)
        self.wait_for(lambda: sum(
            1 for e in list(self.reports.log)
            if e[0] in ('instance_started', 'instance_failed')) == 12,
            'every spawn answered')
        started = [e[2] for e in self.reports.log
                   if e[0] == 'instance_started']
        self.assertEqual(2, len(started))
        self.assertEqual(sorted(started), sorted(
            r['id'] for r in self.api.list_instances('host-A')['instances']))
        self.assertFalse(self.reports.seen(('instance_started', 'host-A',
                                            'nan')))

    def test_malformed_casts_and_calls_do_not_kill_the_agent(self):
        # Five malformed casts killed it.
        client = oslo_messaging.get_rpc_client(
            self.transport, oslo_messaging.Target(
                topic=CONF.service.compute_topic, server='host-A',
                version='1.0'))
        casts = [
            ('spawn', {}), ('spawn', {'host': 'host-A', 'instance': None}),
            ('spawn', {'host': 'host-A', 'instance': {'id': 'x'}}),
            ('spawn', {'host': ['host-A'], 'instance': {}}),
            ('spawn', {'host': 'host-B', 'instance': wire.instance_to_dict(
                objects.Instance('b', objects.Resources(1, 1, 1)))}),
            ('spawn', {'host': 'host-A', 'instance': wire.instance_to_dict(
                objects.Instance('d', objects.Resources(1, 1, 1))),
                'duration': -5}),
            ('terminate', {'host': None, 'instance_id': 'i'}),
            ('terminate', {'host': 'host-A', 'instance_id': ['i']}),
            ('terminate', {'host': 'host-A'}),
            ('report_host', {'now': 'please'}),
            ('reboot', {'host': 'host-A'}),
        ]
        for method, kwargs in casts:
            client.cast({}, method, **kwargs)
        for kwargs in ({}, {'host': 'host-B'}, {'host': 7}):
            self.assertRaises(exception.InvalidInput, client.call, {},
                              'list_instances', **kwargs)
        self.assertEqual({'now', 'instances'}, set(
            self.api.list_instances('host-A')))
        self.assertEqual({'now', 'instances', 'finished'}, set(
            self.api.list_instances('host-A', finished=True)))
        self.spawn('good', 1)
        self.wait_for(lambda: self.reports.seen(
            ('instance_started', 'host-A', 'good')), 'good started')
        self.assertFalse(any(e[0] == 'instance_failed'
                             for e in list(self.reports.log)))
