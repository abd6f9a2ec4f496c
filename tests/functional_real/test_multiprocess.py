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

"""The scheduler service and four agents as processes, over RabbitMQ.

``preemptible-scheduler`` and four ``preemptible-compute --driver fake
--host host-X`` run as separate processes on the local RabbitMQ, with the
state in a throwaway database on the local MariaDB (then PostgreSQL). The
test fills the blades with preemptible instances, submits normal requests
with the ``preemptible-sched`` client, ``kill -9``-s the scheduler while a
termination is in flight, restarts it, and checks that every request ends
placed and running, that no normal instance was terminated, that no victim
was terminated twice, and that the database agrees with what the agents
report.

Every run uses topics and a control exchange of its own, with queues that
RabbitMQ deletes when their last consumer leaves, so parallel and stale
runs never meet. A test is skipped, with the reason, only when nothing
listens at the broker's or the database server's address. Set
``PSCHED_TEST_RABBIT_URL``, ``PSCHED_TEST_MYSQL_URL`` or
``PSCHED_TEST_POSTGRESQL_URL`` to use other servers.
"""

import configparser
import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid

import fixtures
import oslo_messaging
import sqlalchemy as sa
from testtools import content

from preemptible_sched.conf import CONF
from preemptible_sched.db import api as db_api
from preemptible_sched import service
from preemptible_sched.service import rpcapi
from tests import base

RABBIT_URL = os.environ.get('PSCHED_TEST_RABBIT_URL',
                            'rabbit://guest:guest@127.0.0.1:5672/')
MYSQL_URL = os.environ.get(
    'PSCHED_TEST_MYSQL_URL',
    'mysql+pymysql://root@127.0.0.1:3306/?charset=utf8mb4')
POSTGRESQL_URL = os.environ.get(
    'PSCHED_TEST_POSTGRESQL_URL',
    'postgresql+psycopg2://postgres@127.0.0.1:5432/postgres')

HOSTS = ('host-A', 'host-B', 'host-C', 'host-D')
PREEMPTIBLE = ['p%02d' % i for i in range(4 * len(HOSTS))]
NORMAL = ['n0', 'n1', 'n2']
#: One bronze request filling the blades, for the QoS scenario.
BRONZE = ['bronze-%d' % i for i in range(4 * len(HOSTS))]
MEDIUM = {'vcpus': 2, 'memory_mb': 4000, 'disk_gb': 40}

#: Clock seconds per wall second in every process.
TIME_SCALE = 10.0
#: Longest wall-clock wait for any one condition.
WAIT = 120.0


def reachable(host, port):
    """None if something listens at ``host:port``, else why not."""
    try:
        socket.create_connection((host, port), timeout=5).close()
        return None
    except OSError as error:
        return '%s:%s: %s' % (host, port, error)


class ThrowawayDatabase(fixtures.Fixture):
    """A new database on the server at ``server_url``, dropped at cleanup;
    ``url`` is its URL.
    """

    def __init__(self, server_url, create, drop):
        super().__init__()
        self.server_url = sa.engine.make_url(server_url)
        self.create = create
        self.drop = drop

    def _setUp(self):
        name = 'psched_real_%s' % uuid.uuid4().hex[:12]
        server = sa.create_engine(self.server_url,
                                  isolation_level='AUTOCOMMIT',
                                  poolclass=sa.pool.NullPool)
        self.addCleanup(server.dispose)
        with server.connect() as connection:
            connection.exec_driver_sql(self.create % name)
        self.addCleanup(self._drop, server, name)
        self.url = self.server_url.set(database=name)

    def _drop(self, server, name):
        with server.connect() as connection:
            connection.exec_driver_sql(self.drop % name)


class Process:
    """A console script of ours run as ``python -m``, logging to a file."""

    def __init__(self, name, module, args, log_dir):
        self.name = name
        self.log_path = os.path.join(log_dir, '%s.log' % name)
        with open(self.log_path, 'ab') as log:
            self.popen = subprocess.Popen(
                [sys.executable, '-m', module] + list(args),
                stdout=log, stderr=subprocess.STDOUT)

    def alive(self):
        return self.popen.poll() is None

    def kill(self):
        """``kill -9``."""
        if self.alive():
            self.popen.send_signal(signal.SIGKILL)
        self.popen.wait(WAIT)

    def stop(self):
        """SIGTERM, then SIGKILL if it does not stop in time."""
        if self.alive():
            self.popen.send_signal(signal.SIGTERM)
            try:
                self.popen.wait(30)
            except subprocess.TimeoutExpired:
                self.kill()

    def log(self):
        with open(self.log_path, errors='replace') as stream:
            return stream.read()


class MultiProcessBehaviour:
    """The test; subclasses name the database server."""

    SERVER_URL = None
    DEFAULT_PORT = None
    CREATE = DROP = None

    def setUp(self):
        super().setUp()
        self.skip_unless_reachable()
        self.tmp = self.useFixture(fixtures.TempDir()).path
        database = self.useFixture(ThrowawayDatabase(
            self.SERVER_URL, self.CREATE, self.DROP))
        self.db_url = database.url.render_as_string(hide_password=False)
        self.store = db_api.Store(self.db_url)
        self.addCleanup(self.store.dispose)
        self.store.upgrade()
        self.options = self.configuration('psched-%s' % uuid.uuid4().hex[:10])
        self.config_file = os.path.join(self.tmp, 'preemptible-sched.conf')
        self.write_config(self.config_file)
        self.processes = {}
        self.transport = service.get_rpc_transport(CONF)
        self.addCleanup(self.transport.cleanup)

    def skip_unless_reachable(self):
        broker = oslo_messaging.TransportURL.parse(CONF, RABBIT_URL).hosts[0]
        why = reachable(broker.hostname, broker.port or 5672)
        if why:
            self.skipTest('RabbitMQ not reachable at %s' % why)
        server = sa.engine.make_url(self.SERVER_URL)
        why = reachable(server.host or '127.0.0.1',
                        server.port or self.DEFAULT_PORT)
        if why:
            self.skipTest('%s not reachable at %s' % (self.LABEL, why))

    def configuration(self, run_id):
        """The options of every process of this run: ``{group: {name:
        value}}``; also applied to this process.
        """
        options = {
            'DEFAULT': {'transport_url': RABBIT_URL,
                        'control_exchange': run_id},
            'database': {'connection': self.db_url},
            'service': {'scheduler_topic': run_id + '-scheduler',
                        'compute_topic': run_id + '-compute',
                        'time_scale': TIME_SCALE,
                        'heartbeat_interval': 1.0,
                        'rpc_timeout': 30.0,
                        'host_wait_seconds': 60.0},
            # A termination takes 5 s of wall time after a 1 s notice: the
            # window in which the scheduler is killed.
            'preemptible': {'termination_grace_seconds': 10.0},
            'fake_driver': {'termination_seconds': 50.0},
            'scheduler': {'watchdog_interval': 10.0},
            # Queues go when their consumers do; those of a killed process
            # (fanout, replies) a minute later.
            'oslo_messaging_rabbit': {'amqp_auto_delete': True,
                                      'rabbit_transient_queues_ttl': 60},
            'oslo_messaging_notifications': {'driver': 'noop'},
        }
        service.register_messaging_opts(CONF)
        for group, values in options.items():
            self.flags(group=None if group == 'DEFAULT' else group,
                       **values)
        return options

    def reconfigure(self, **groups):
        """Change options of this run (``group={name: value}``), before
        its processes start; also applied to this process.
        """
        for group, values in groups.items():
            self.options.setdefault(group, {}).update(values)
            self.flags(group=None if group == 'DEFAULT' else group,
                       **values)
        self.write_config(self.config_file)

    def write_config(self, path):
        parser = configparser.ConfigParser()
        for group, values in self.options.items():
            parser[group] = {name: str(value) for name, value
                             in values.items()}
        with open(path, 'w') as stream:
            parser.write(stream)

    # -- processes -----------------------------------------------------------

    def start(self, name, module, *args):
        process = Process(name, module,
                          ('--config-file', self.config_file) + args,
                          self.tmp)
        self.processes[name] = process
        self.addCleanup(self._attach_log, process)
        self.addCleanup(process.stop)
        return process

    def _attach_log(self, process):
        self.addDetail('%s-log' % process.name,
                       content.text_content(process.log()))

    def start_scheduler(self, name='scheduler'):
        return self.start(name, 'preemptible_sched.cmd.scheduler')

    def start_agent(self, host):
        return self.start(host, 'preemptible_sched.cmd.compute',
                          '--driver', 'fake', '--host', host)

    def start_all(self):
        """The four agents and the scheduler, once every agent is up."""
        for host in HOSTS:
            self.start_agent(host)
        self.start_scheduler()
        self.wait_for(lambda: sorted(h.name for h in self.store.hosts()
                                     if h.up) == list(HOSTS),
                      'every agent registered')

    def client(self, *args):
        """Run ``preemptible-sched ARGS``; (exit code, stdout, stderr)."""
        result = subprocess.run(
            [sys.executable, '-m', 'preemptible_sched.cmd.sched'] +
            list(args) + ['--config-file', self.config_file],
            capture_output=True, text=True, timeout=WAIT)
        return result.returncode, result.stdout, result.stderr

    # -- waiting -------------------------------------------------------------

    def wait_for(self, predicate, what):
        deadline = time.monotonic() + WAIT
        while not predicate():
            for process in self.processes.values():
                if not process.alive():
                    self.fail('%s exited (%s) while waiting for: %s' % (
                        process.name, process.popen.returncode, what))
            if time.monotonic() > deadline:
                self.fail('timed out after %g s waiting for: %s'
                          % (WAIT, what))
            time.sleep(0.02)

    def states(self):
        return {row.id: row.state for row in self.store.list_instances()}

    def all_running(self, ids):
        states = self.states()
        return all(states.get(i) == 'running' for i in ids)

    def terminating_decision(self):
        for decision in self.store.unfinished_decisions():
            if decision.state == 'terminating':
                return decision
        return None

    # -- the test ------------------------------------------------------------

    def test_kill_scheduler_during_termination(self):
        for host in HOSTS:
            self.start_agent(host)
        self.start_scheduler()
        self.wait_for(lambda: sorted(h.name for h in self.store.hosts()
                                     if h.up) == list(HOSTS),
                      'every agent registered')

        api = rpcapi.SchedulerAPI(self.transport, CONF)
        for request_id in PREEMPTIBLE:
            api.submit({'id': request_id, 'resources': MEDIUM,
                        'preemptible': True, 'flavor': 'medium'})
        self.wait_for(lambda: self.all_running(PREEMPTIBLE),
                      'the blades full of preemptible instances')

        for request_id in NORMAL:
            code, out, err = self.client('submit', '--flavor', 'medium',
                                         '--id', request_id)
            self.assertEqual(0, code, err)
        self.wait_for(self.terminating_decision,
                      'a decision terminating its victims')
        killed = self.processes.pop('scheduler')
        killed.kill()
        in_flight = self.store.get_decision(
            self.terminating_decision().id)
        self.assertEqual('terminating', in_flight.state)

        self.start_scheduler('scheduler-restarted')
        self.wait_for(lambda: self.all_running(NORMAL),
                      'every normal instance running after the restart')
        self.wait_for(lambda: not self.store.unfinished_decisions(),
                      'every decision finished')

        self.assertEveryRequestPlaced()
        self.assertNoNormalInstanceTerminated()
        self.assertVictimsTerminatedOnce(in_flight)
        self.assertStoreAgreesWithAgents()
        code, out, err = self.client('list', '--format', 'table')
        self.assertEqual(0, code, err)
        self.assertEqual(len(PREEMPTIBLE) + len(NORMAL) + 1,
                         len(out.splitlines()))

    def test_gold_displaces_bronze_under_qos(self):
        # Victims are requeued (the strategy's default); a request no host
        # can take yet waits: the gold one until the bronze instances have
        # run their exempt time ([qos] preempt_exempt_seconds, 120 s by
        # default), the displaced bronze one until the gold one goes.
        self.reconfigure(
            scheduler={'preemption_strategy': 'qos',
                       'on_no_valid_host': 'wait'},
            preemptible={'termination_grace_seconds': 0.0},
            fake_driver={'termination_seconds': 0.5})
        self.start_all()

        code, out, err = self.client(
            'submit', '--flavor', 'medium', '--num-instances',
            str(len(BRONZE)), '--service-class', 'bronze', '--id', 'bronze',
            '--wait')
        self.assertEqual(0, code, err)
        submitted = json.loads(out)
        self.assertEqual('placed', submitted['status'])
        self.assertEqual('bronze', submitted['spec']['service_class'])
        # The class's priority, as no --priority was given.
        self.assertEqual(1.0, submitted['spec']['priority'])
        self.assertFalse(submitted['spec']['preemptible'])
        self.wait_for(lambda: self.all_running(BRONZE),
                      'the blades full of bronze instances')

        code, out, err = self.client('submit', '--flavor', 'medium',
                                     '--service-class', 'platinum')
        self.assertEqual(2, code, err)
        self.assertEqual('', out)
        self.assertIn("unknown service class 'platinum'", err)
        self.assertEqual(1, len(err.splitlines()), err)

        code, out, err = self.client(
            'submit', '--flavor', 'medium', '--service-class', 'gold',
            '--id', 'gold', '--wait', '--timeout', str(WAIT - 10))
        self.assertEqual(0, code, err)
        self.assertEqual('placed', json.loads(out)['status'])
        self.wait_for(lambda: self.all_running(['gold']),
                      'the gold instance running')
        gold = self.store.get_instance('gold')
        decision = self.store.get_decision(gold.decision_id)
        self.assertEqual('qos', decision.strategy)
        self.assertEqual(1, len(decision.victims), decision.victims)
        victim_id, = decision.victims
        self.assertIn(victim_id, BRONZE)
        self.assertEqual([victim_id], [v['id'] for v in
                                       decision.explanation['victims']])
        # Requeued: it waits while the gold instance holds its slot.
        api = rpcapi.SchedulerAPI(self.transport, CONF)
        waiting, = [i for i in api.show('bronze')['instances']
                    if i['id'] == victim_id]
        self.assertIn(waiting['state'], ('preempted', 'pending'))
        self.assertEqual(1, waiting['preemptions'])

        code, out, err = self.client('delete', 'gold')
        self.assertEqual(0, code, err)
        self.assertEqual('deleted', json.loads(out)['status'])
        self.wait_for(lambda: self.states().get('gold') == 'deleted',
                      'the gold instance deleted')
        self.wait_for(lambda: self.all_running(BRONZE),
                      'the displaced bronze instance running again')

        code, out, err = self.client('show', 'bronze')
        self.assertEqual(0, code, err)
        shown = json.loads(out)
        self.assertEqual('placed', shown['status'])
        instances = {i['id']: i for i in shown['instances']}
        self.assertEqual(sorted(BRONZE), sorted(instances))
        self.assertEqual({'running'},
                         {i['state'] for i in instances.values()})
        self.assertEqual({i: int(i == victim_id) for i in BRONZE},
                         {i: instances[i]['preemptions'] for i in BRONZE})
        self.assertEqual([victim_id], [i for i in BRONZE
                                       if instances[i]['displaced_by']])
        by = instances[victim_id]['displaced_by']
        self.assertEqual('gold', by['request_id'])
        self.assertEqual('gold', by['instance_id'])
        self.assertEqual(decision.id, by['decision_id'])
        self.assertEqual(gold.host, by['host'])
        self.assertEqual('qos', by['strategy'])
        self.assertIn('qos', by['reason'])
        self.assertEqual('bronze', instances[victim_id]['service_class'])
        self.assertGreater(instances[victim_id]['running_s'], 0)
        self.assertStoreAgreesWithAgents()

    def assertEveryRequestPlaced(self):
        self.assertEqual(
            {request_id: 'placed' for request_id in PREEMPTIBLE + NORMAL},
            {r.id: r.status for r in self.store.list_requests()})
        states = self.states()
        victims = [i for i in PREEMPTIBLE if states[i] == 'terminated']
        self.assertEqual(len(NORMAL), len(victims), states)
        self.assertEqual(
            {'running'},
            {states[i] for i in PREEMPTIBLE + NORMAL if i not in victims})

    def assertNoNormalInstanceTerminated(self):
        for row in self.store.list_instances():
            if not row.preemptible:
                self.assertEqual('running', row.state, row.id)
                self.assertIsNone(row.terminated_by, row.id)

    def assertVictimsTerminatedOnce(self, in_flight):
        confirmations = [event.instance_id for event in
                         self.store.list_events(
                             kind='decision.termination_confirmed')]
        self.assertEqual(sorted(set(confirmations)), sorted(confirmations))
        self.assertEqual(len(NORMAL), len(confirmations))
        for victim in in_flight.victims:
            self.assertIn(victim, confirmations)

    def assertStoreAgreesWithAgents(self):
        compute_api = rpcapi.ComputeAPI(self.transport, CONF)
        reported = {host: sorted(report['id'] for report in
                                 compute_api.list_instances(host)['instances'])
                    for host in HOSTS}
        stored = {host: [] for host in HOSTS}
        for row in self.store.list_instances(
                states=('building', 'running', 'terminating')):
            stored[row.host].append(row.id)
        self.assertEqual(reported, {host: sorted(ids)
                                    for host, ids in stored.items()})


class TestMariaDB(MultiProcessBehaviour, base.TestCase):

    LABEL = 'MariaDB'
    SERVER_URL = MYSQL_URL
    DEFAULT_PORT = 3306
    CREATE = 'CREATE DATABASE %s CHARACTER SET utf8mb4'
    DROP = 'DROP DATABASE IF EXISTS %s'


class TestPostgreSQL(MultiProcessBehaviour, base.TestCase):

    LABEL = 'PostgreSQL'
    SERVER_URL = POSTGRESQL_URL
    DEFAULT_PORT = 5432
    CREATE = 'CREATE DATABASE %s'
    # FORCE: a connection of a killed scheduler must not keep it alive.
    DROP = 'DROP DATABASE IF EXISTS %s WITH (FORCE)'
