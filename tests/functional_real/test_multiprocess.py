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
report. Another test submits 1,000 requests in a burst from 16 clients
while the leading scheduler is killed three times and standbys take over,
and checks that nothing was lost or double-booked and that the database
equals the agents. Others start a standby beside the leader and kill or
freeze (SIGSTOP) the leader: the standby takes over, the frozen one is
fenced.

Every run uses topics and a control exchange of its own, with queues that
RabbitMQ deletes when their last consumer leaves (the burst's outlive
their consumers, as in a deployment, and are deleted at its end), so
parallel and stale runs never meet. A test is skipped, with the reason,
only when nothing listens at the broker's or the database server's
address. Set
``PSCHED_TEST_RABBIT_URL``, ``PSCHED_TEST_MYSQL_URL`` or
``PSCHED_TEST_POSTGRESQL_URL`` to use other servers;
``PSCHED_TEST_KEEP_LOGS`` to a directory to keep the processes' logs.
"""

import collections
import concurrent.futures
import configparser
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid

import fixtures
import kombu
import oslo_messaging
import sqlalchemy as sa
from testtools import content

from preemptible_sched.conf import CONF
from preemptible_sched.conf import service as service_conf
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

#: The burst: requests, client threads, clock seconds per wall second,
#: how many submits have been answered when the scheduler is killed (the
#: first and the second time), and the longest wait for it to settle.
BURST = 1000
BURST_CLIENTS = 16
BURST_TIME_SCALE = 20.0
BURST_KILLS = (250, 500, 750)
BURST_SETTLE = 600.0
#: How long a client waits for one answer, and retries at most.
BURST_RPC_TIMEOUT = 15.0
BURST_SUBMIT_WAIT = 400.0
TINY = {'vcpus': 1, 'memory_mb': 1024, 'disk_gb': 10}
SMALL = {'vcpus': 2, 'memory_mb': 2048, 'disk_gb': 20}


def burst_request(index):
    """(spec, duration) of the burst's request ``index``: half of them
    preemptible, one in five of two vCPUs, one in 25 for two instances,
    every 63rd running until the end of the test, the others 5 to 30
    clock seconds.
    """
    rng = random.Random('burst:%d' % index)
    preemptible = rng.random() < 0.5
    resources, flavor = (SMALL, 'small') if rng.random() < 0.2 \
        else (TINY, 'tiny')
    spec = {'id': 'b%04d' % index, 'resources': resources,
            'preemptible': preemptible, 'flavor': flavor,
            'num_instances': 2 if index % 25 == 7 else 1}
    duration = None if index % 63 == 0 else round(rng.uniform(5.0, 30.0),
                                                  1)
    return spec, duration


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


class CuttableRelay:
    """A TCP relay to ``host:port`` on a port of 127.0.0.1 (``port``) that
    can be cut: from :meth:`cut` on, nothing passes either way and no
    connection is closed, as when a network drops every packet.
    """

    def __init__(self, host, port):
        self.target = (host, port)
        self._cut = threading.Event()
        self._sockets = []
        self._listener = socket.create_server(('127.0.0.1', 0))
        self.port = self._listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def cut(self):
        self._cut.set()

    def close(self):
        self._listener.close()
        for sock in self._sockets:
            sock.close()

    def _accept(self):
        while True:
            try:
                client, _ = self._listener.accept()
                upstream = socket.create_connection(self.target, timeout=10)
            except OSError:
                if self._listener.fileno() < 0:
                    return
                continue
            upstream.settimeout(None)
            self._sockets += [client, upstream]
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink),
                                 daemon=True).start()

    def _pump(self, source, sink):
        try:
            while True:
                data = source.recv(65536)
                while self._cut.is_set():
                    # Held for ever: neither the data nor the close pass.
                    time.sleep(0.05)
                if not data:
                    sink.shutdown(socket.SHUT_WR)
                    return
                sink.sendall(data)
        except OSError:
            return


def api_instances(transport, host):
    """The instances the agent of ``host`` runs now."""
    return rpcapi.ComputeAPI(transport, CONF).list_instances(host)[
        'instances']


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

    def start(self, name, module, *args, config_file=None):
        config = ('--config-file', config_file or self.config_file)
        process = Process(name, module, config + args, self.tmp)
        self.processes[name] = process
        self.addCleanup(self._attach_log, process)
        self.addCleanup(process.stop)
        return process

    def _attach_log(self, process):
        self.addDetail('%s-log' % process.name,
                       content.text_content(process.log()))
        keep = os.environ.get('PSCHED_TEST_KEEP_LOGS')
        if keep:
            # The logs of a test that passed are not shown: keep them.
            os.makedirs(keep, exist_ok=True)
            shutil.copyfile(process.log_path, os.path.join(
                keep, '%s-%s.log' % (self.id().rsplit('.', 2)[-2],
                                     process.name)))

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

    def wait_for(self, predicate, what, timeout=WAIT, interval=0.02):
        deadline = time.monotonic() + timeout
        while not predicate():
            for process in self.processes.values():
                if not process.alive():
                    self.fail('%s exited (%s) while waiting for: %s' % (
                        process.name, process.popen.returncode, what))
            if time.monotonic() > deadline:
                self.fail('timed out after %g s waiting for: %s'
                          % (timeout, what))
            time.sleep(interval)

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

    def leader(self):
        """The name of the scheduler process leading now (None if none
        is ready yet).
        """
        for name, process in self.processes.items():
            if name.startswith('scheduler') and process.alive() and \
                    'Scheduler service ready' in process.log():
                return name
        return None

    def report(self, **figures):
        """Attach ``figures`` to the test; also append them as a JSON line
        to the file ``PSCHED_TEST_BURST_FIGURES`` names.
        """
        figures = dict(figures, db=self.LABEL,
                       test=self.id().rsplit('.', 1)[-1])
        self.addDetail('figures', content.text_content(json.dumps(figures)))
        path = os.environ.get('PSCHED_TEST_BURST_FIGURES')
        if path:
            with open(path, 'a') as stream:
                stream.write(json.dumps(figures) + '\n')

    def await_takeover(self, since):
        """Wait until a scheduler serves again; its name and the seconds
        from ``since`` (monotonic) to its 'ready' line.
        """
        self.wait_for(lambda: self.leader() is not None,
                      'a standby to take over', interval=0.05)
        return self.leader(), round(time.monotonic() - since, 2)

    def test_a_second_scheduler_waits_as_a_standby(self):
        """A second scheduler on the same database and topic waits as a
        standby (issue 31; it used to be refused, and before that shared
        the requests and reports with the first); when the leader is
        killed it takes over within 10 s, recovers and serves: the
        instances of the first run and new requests.
        """
        self.start_all()
        api = self.fill_with_preemptible()
        second = self.start_scheduler('scheduler-2')
        self.wait_for(lambda: 'Standby: scheduler' in second.log(),
                      'the second scheduler a standby')
        self.assertIn('leads topic %s'
                      % self.options['service']['scheduler_topic'],
                      second.log())
        self.assertNotIn('Scheduler service ready', second.log())
        self.assertTrue(second.alive())
        # A standby stops at once on SIGTERM, exit 0.
        third = self.start_scheduler('scheduler-3')
        self.wait_for(lambda: 'Standby: scheduler' in third.log(),
                      'a third scheduler a standby')
        self.assertStopsWithin('scheduler-3', 5.0)
        killed_at = time.monotonic()
        self.processes.pop('scheduler').kill()
        leader, took = self.await_takeover(killed_at)
        self.assertEqual('scheduler-2', leader)
        self.report(killed_to_ready_s=took)
        self.assertLess(took, 10.0)
        self.assertIn('epoch 2 (after', second.log())
        self.wait_for(lambda: self.answers(api), 'the new leader answering')
        for request_id in NORMAL:
            api.submit({'id': request_id, 'resources': MEDIUM,
                        'flavor': 'medium'})
        self.wait_for(lambda: self.all_running(NORMAL),
                      'the normal requests placed by the new leader')
        self.wait_for(lambda: not self.store.unfinished_decisions(),
                      'every decision finished')
        self.assertNoNormalInstanceTerminated()
        self.assertVictimsTerminatedOnce()
        self.assertStoreAgreesWithAgents()
        self.assertNotIn('Traceback', second.log())

    def test_a_leader_cut_off_from_the_database_is_replaced(self):
        """The leader reaches the database through a relay that is then
        cut (nothing passes, nothing is closed): its lock check hangs, it
        deposes itself and exits 1 (within the lease, though its calls to
        the database never return); the server drops its lock once the
        lease is over, the standby takes over and preempts. No victim is
        terminated twice, no normal instance is.
        """
        self.reconfigure(service={'leader_lease_seconds': 4.0})
        server = sa.engine.make_url(self.db_url)
        relay = CuttableRelay(server.host or '127.0.0.1',
                              server.port or self.DEFAULT_PORT)
        self.addCleanup(relay.close)
        cut_file = os.path.join(self.tmp, 'through-the-relay.conf')
        direct = self.options['database']['connection']
        self.options['database']['connection'] = server.set(
            host='127.0.0.1', port=relay.port).render_as_string(
                hide_password=False)
        self.write_config(cut_file)
        self.options['database']['connection'] = direct
        for host in HOSTS:
            self.start_agent(host)
        self.start('scheduler', 'preemptible_sched.cmd.scheduler',
                   config_file=cut_file)
        self.wait_for(lambda: sorted(h.name for h in self.store.hosts()
                                     if h.up) == list(HOSTS),
                      'every agent registered')
        self.fill_with_preemptible()
        standby = self.start_scheduler('scheduler-2')
        self.wait_for(lambda: 'Standby: scheduler' in standby.log(),
                      'the standby waiting')
        leader = self.processes.pop('scheduler')
        self.addCleanup(leader.kill)
        relay.cut()
        cut_at = time.monotonic()
        self.assertEqual(1, leader.popen.wait(WAIT))
        exited = round(time.monotonic() - cut_at, 2)
        log = leader.log()
        self.assertIn('lost the lead of its topic', log)
        name, took = self.await_takeover(cut_at)
        self.assertEqual('scheduler-2', name)
        self.report(cut_to_exit_s=exited, cut_to_ready_s=took)
        self.submit_normal_until_taken()
        self.wait_for(lambda: not self.store.unfinished_decisions(),
                      'every decision finished')
        self.assertNoNormalInstanceTerminated()
        self.assertVictimsTerminatedOnce()
        self.assertStoreAgreesWithAgents()

    def test_a_frozen_leader_is_fenced(self):
        """The leader is frozen (SIGSTOP) past its lease: the database
        drops its lock, a standby takes over and preempts; thawed, the
        old leader finds it lost the lead and exits 1 without acting (its
        writes are fenced by the new term, its commands refused by the
        agents). Every victim is terminated once, no normal instance is.
        """
        self.reconfigure(service={'leader_lease_seconds': 3.0})
        self.start_all()
        self.fill_with_preemptible()
        standby = self.start_scheduler('scheduler-2')
        self.wait_for(lambda: 'Standby: scheduler' in standby.log(),
                      'the standby waiting')
        frozen = self.processes.pop('scheduler')
        self.addCleanup(frozen.kill)
        frozen.popen.send_signal(signal.SIGSTOP)
        frozen_at = time.monotonic()
        leader, took = self.await_takeover(frozen_at)
        self.assertEqual('scheduler-2', leader)
        self.report(frozen_to_ready_s=took)
        # The frozen one still holds its place among the consumers of the
        # scheduler's topic (until the broker drops it).
        self.submit_normal_until_taken()
        frozen.popen.send_signal(signal.SIGCONT)
        self.assertEqual(1, frozen.popen.wait(WAIT))
        log = frozen.log()
        self.assertIn('lost the lead of its topic', log)
        self.assertNotIn('Traceback', log)
        self.wait_for(lambda: not self.store.unfinished_decisions(),
                      'every decision finished')
        self.assertNoNormalInstanceTerminated()
        self.assertVictimsTerminatedOnce()
        self.assertStoreAgreesWithAgents()

    def test_spawns_queued_for_a_restarted_agent(self):
        """The agent of host-A is stopped with four spawns on its queue,
        killed, and started again: the spawns still on the bus reach the
        new run, which refuses them (they name the earlier run); the
        scheduler, which took them for lost when the agent registered
        again, places them anew. Every request ends running, each
        instance booted once on the new run, none failed (issue 26: all
        four failed, and six spawns went to a blade the scheduler thought
        empty).
        """
        # The agent's queue outlives it, as in a deployment.
        self.reconfigure(oslo_messaging_rabbit={'amqp_auto_delete': False})
        self.addCleanup(self.delete_queues)
        agent = self.start_agent('host-A')
        self.start_scheduler()
        self.wait_for(lambda: [h.name for h in self.store.hosts()
                               if h.up] == ['host-A'], 'host-A registered')
        agent.popen.send_signal(signal.SIGSTOP)
        api = rpcapi.SchedulerAPI(self.transport, CONF)
        requests = ['q%d' % i for i in range(4)]
        for request_id in requests:
            api.submit({'id': request_id, 'resources': MEDIUM,
                        'flavor': 'medium'})
        self.wait_for(lambda: all(state == 'building' for state in
                                  self.states().values()) and
                      len(self.states()) == len(requests),
                      'four spawns cast to the stopped agent')
        self.processes.pop('host-A').kill()
        self.start_agent('host-A')
        self.wait_for(lambda: self.all_running(requests),
                      'every instance running on the new run')
        code, out, err = self.client('list', '--format', 'json')
        self.assertEqual(0, code, err)
        self.assertEqual({'placed'}, {request['status'] for request
                                      in json.loads(out)})
        log = self.processes['host-A'].log()
        self.assertEqual(len(requests), log.count(
            'meant for an earlier run of this agent'))
        self.assertEqual(len(requests), len(
            api_instances(self.transport, 'host-A')))

    def submit_normal_until_taken(self):
        """Submit the normal requests, each again until the service
        answers (a call a frozen or cut-off leader took is never
        answered: clients submit again), and wait until they run.
        """
        self.flags(group='service', rpc_timeout=5.0)
        api = rpcapi.SchedulerAPI(self.transport, CONF)
        for request_id in NORMAL:
            self.wait_for(lambda: self.submitted(api, {
                'id': request_id, 'resources': MEDIUM, 'flavor': 'medium'}),
                'request %s taken' % request_id)
        self.wait_for(lambda: self.all_running(NORMAL),
                      'the normal requests placed by the new leader')

    @staticmethod
    def submitted(api, spec):
        """Submit ``spec``: whether the service answered."""
        try:
            api.submit(spec)
        except rpcapi.ServiceUnavailable:
            return False
        return True

    @staticmethod
    def answers(api):
        """Whether the scheduler service answers a call now."""
        try:
            api.list()
        except rpcapi.ServiceUnavailable:
            return False
        return True

    def fill_with_preemptible(self):
        """Every blade full of preemptible instances; the scheduler API."""
        api = rpcapi.SchedulerAPI(self.transport, CONF)
        for request_id in PREEMPTIBLE:
            api.submit({'id': request_id, 'resources': MEDIUM,
                        'preemptible': True, 'flavor': 'medium'})
        self.wait_for(lambda: self.all_running(PREEMPTIBLE),
                      'the blades full of preemptible instances')
        return api

    def assertStopsWithin(self, name, seconds=10.0):
        """SIGTERM ``name``: it exits 0 within ``seconds``, no traceback."""
        process = self.processes.pop(name)
        started = time.monotonic()
        process.popen.send_signal(signal.SIGTERM)
        try:
            code = process.popen.wait(seconds)
        except subprocess.TimeoutExpired:
            process.kill()
            self.fail('%s still running %g s after SIGTERM; its log '
                      'ends:\n%s' % (name, seconds, process.log()[-3000:]))
        took = time.monotonic() - started
        log = process.log()
        self.assertEqual(0, code, log[-2000:])
        self.assertNotIn('Traceback', log)
        return took

    def test_every_process_stops_within_10_s_of_sigterm(self):
        """SIGTERM in every state a process spends time in: the scheduler
        during a grace period, then in the middle of a burst of submits;
        the agents with instances running and victims terminating. Each
        stops within 10 s with exit 0, and the restarted scheduler
        finishes what the stopped ones left (issue 26).
        """
        self.start_all()
        api = self.fill_with_preemptible()
        for request_id in NORMAL:
            api.submit({'id': request_id, 'resources': MEDIUM,
                        'flavor': 'medium'})
        self.wait_for(self.terminating_decision,
                      'a decision terminating its victims')
        in_flight = self.store.get_decision(self.terminating_decision().id)
        self.assertStopsWithin('scheduler')

        # A burst on the bus and in the scheduler's queue.
        second = self.start_scheduler('scheduler-2')
        # A call sent before the service's queue exists is lost.
        self.wait_for(lambda: 'Scheduler service ready' in second.log(),
                      'the second scheduler ready')
        self.wait_for(lambda: self.answers(api), 'the second one answering')
        burst = ['b%03d' % i for i in range(150)]
        sent = []

        def submit_burst():
            for request_id in burst:
                try:
                    api.submit({'id': request_id, 'resources': MEDIUM,
                                'preemptible': True, 'flavor': 'medium'})
                except Exception as e:
                    # Refused by the stopping service, or no one listens
                    # any more: the end of the burst.
                    sent.append(e)
                    return
                sent.append(request_id)
        sender = threading.Thread(target=submit_burst, daemon=True)
        sender.start()
        self.wait_for(lambda: len(sent) >= 30, 'the burst under way')
        self.assertIn('b000', {row.id for row in
                               self.store.list_requests()}, sent[:3])
        self.assertStopsWithin('scheduler-2')
        sender.join(WAIT)

        self.start_scheduler('scheduler-3')
        self.wait_for(lambda: self.all_running(NORMAL),
                      'every normal instance running after the restarts')
        self.wait_for(lambda: not self.store.unfinished_decisions(),
                      'every decision finished')
        self.assertNoNormalInstanceTerminated()
        self.assertVictimsTerminatedOnce(in_flight)
        for host in HOSTS:
            self.assertStopsWithin(host)
        self.assertStopsWithin('scheduler-3')

    def test_kill_scheduler_during_termination(self):
        self.start_all()
        self.fill_with_preemptible()
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

    def test_burst_with_the_leader_killed_three_times(self):
        """1,000 requests from 16 clients at once, with a leading scheduler
        and a standby; the leader is killed (SIGKILL) three times in the
        middle, a standby takes over each time and a new standby is
        started in the killed one's place (issue 31; the takeover times
        are in the figures).

        A client whose submit failed (no answer, or the scheduler not
        ready) submits the same request id again until it is answered:
        submit is idempotent on the id. Normal and preemptible requests
        are mixed on four 8-vCPU blades, so normal ones terminate
        preemptible ones all along. Then, once everything has settled:
        nothing lost (every id submitted is in the database, every request
        placed), nothing double-booked (no spawn refused by an agent for
        want of room, which is what a real host would have been
        overcommitted by; no agent seen holding more than its capacity, no
        instance seen on two hosts at once, none recorded started twice
        and none seen booted twice by the agents, no victim terminated
        twice, no normal instance terminated) and the database equals what
        the agents run.

        No instance ends in error: a restarted scheduler settles an
        instance whose reports it did not get from what its agent
        remembers of it, and waits for a spawn the killed scheduler sent
        (it may still be on its way) until its deadline. The figures
        (detail ``burst-figures``; also appended as a JSON line to the
        file ``PSCHED_TEST_BURST_FIGURES`` names) list, besides, the
        instances the agents were seen boot twice (asserted none: the
        agents handle a spawn delivered twice once; see the reliability
        page), the stray instances the scheduler
        terminated and the reports it ignored.
        """
        # Queues outlive their consumers, as in a deployment: what is
        # sent to the scheduler while it is dead (submits, the agents'
        # reports) waits for the next one. They are deleted at the end,
        # after the processes stopped (cleanups run last first).
        self.addCleanup(self.delete_queues)
        self.reconfigure(
            service={'time_scale': BURST_TIME_SCALE},
            scheduler={'preemption_strategy': 'dual_state',
                       'on_no_valid_host': 'wait'},
            preemptible={'termination_grace_seconds': 2.0},
            fake_driver={'termination_seconds': 2.0},
            oslo_messaging_rabbit={'amqp_auto_delete': False})
        # This process's clients give up on one answer sooner than the
        # services (their rpc_timeout is in the file), on a transport of
        # the new options.
        self.flags(group='service', rpc_timeout=BURST_RPC_TIMEOUT)
        transport = service.get_rpc_transport(CONF)
        self.addCleanup(transport.cleanup)
        started = time.monotonic()
        self.start_all()
        self.start_scheduler('scheduler-standby-1')
        requests = [burst_request(index) for index in range(BURST)]
        sizes = {}
        for spec, duration in requests:
            for n in range(spec['num_instances']):
                instance_id = spec['id'] if spec['num_instances'] == 1 \
                    else '%s-%d' % (spec['id'], n)
                sizes[instance_id] = spec['resources']
        forever = {spec['id'] for spec, duration in requests
                   if duration is None}

        answered = []
        figures = collections.Counter()
        lock = threading.Lock()
        apis = threading.local()

        def submit(spec, duration):
            if not hasattr(apis, 'api'):
                apis.api = rpcapi.SchedulerAPI(transport, CONF)
            deadline = time.monotonic() + BURST_SUBMIT_WAIT
            attempts = 0
            while True:
                attempts += 1
                try:
                    apis.api.submit(spec, duration=duration)
                    break
                except rpcapi.BadRequest as error:
                    # A retry of a submit that was taken: the same spec
                    # is no error (whether the service answers it with
                    # the request, as now, or with 'already exists').
                    if 'exists already' in str(error) and \
                            'different' not in str(error):
                        with lock:
                            figures['duplicate_answers'] += 1
                        break
                    raise
                except rpcapi.ServiceUnavailable as error:
                    with lock:
                        figures[type(error).__name__] += 1
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.5)
            with lock:
                answered.append(spec['id'])
                figures['retries'] += attempts - 1
                figures['max_attempts'] = max(figures['max_attempts'],
                                              attempts)

        # What the agents run, seen every half second: no host above its
        # capacity, no instance on two hosts.
        seen = {'snapshots': 0, 'overfull': [], 'two_hosts': [],
                'max_vcpus': 0, 'boots': collections.defaultdict(set)}
        watching = threading.Event()
        watching.set()
        capacity = CONF.fake_driver.vcpus, CONF.fake_driver.memory_mb

        def watch():
            compute_api = rpcapi.ComputeAPI(transport, CONF)
            while watching.is_set():
                where = collections.defaultdict(list)
                for host in HOSTS:
                    try:
                        reports = compute_api.list_instances(
                            host)['instances']
                    except Exception:  # noqa: B902 a busy agent: next time
                        continue
                    vcpus = sum(sizes[r['id']]['vcpus'] for r in reports)
                    memory = sum(sizes[r['id']]['memory_mb']
                                 for r in reports)
                    seen['max_vcpus'] = max(seen['max_vcpus'], vcpus)
                    if vcpus > capacity[0] or memory > capacity[1]:
                        seen['overfull'].append((host, vcpus, memory))
                    for report in reports:
                        where[report['id']].append(host)
                        if report['started_at'] is not None:
                            seen['boots'][report['id']].add(
                                (host, report['started_at']))
                seen['two_hosts'] += [(i, hosts) for i, hosts
                                      in where.items() if len(hosts) > 1]
                seen['snapshots'] += 1
                time.sleep(0.5)

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        self.addCleanup(watching.clear)

        burst_started = time.monotonic()
        kills = []
        pool = concurrent.futures.ThreadPoolExecutor(BURST_CLIENTS)
        try:
            futures = [pool.submit(submit, spec, duration)
                       for spec, duration in requests]
            for index, threshold in enumerate(BURST_KILLS):
                self.wait_for(lambda: len(answered) >= threshold,
                              '%d submits answered' % threshold,
                              timeout=BURST_SUBMIT_WAIT, interval=0.005)
                name = self.leader()
                self.processes.pop(name).kill()
                killed_at = time.monotonic()
                # A new standby in its place, as a supervisor restarts a
                # killed service.
                self.start_scheduler('scheduler-standby-%d' % (index + 2))
                leader, took = self.await_takeover(killed_at)
                kills.append({'answered': len(answered),
                              'at_s': round(killed_at - burst_started, 1),
                              'killed': name, 'took_over': leader,
                              'takeover_s': took})
            for future in futures:
                future.result()
        finally:
            # On a failure, the submits not started yet are not sent.
            pool.shutdown(cancel_futures=True)
        burst_s = time.monotonic() - burst_started
        self.assertEqual(BURST, len(answered))
        self.assertEqual(BURST, len(set(answered)))

        # Nothing lost: every request answered is in the database, once.
        stored = {r.id for r in self.store.list_requests()}
        self.assertEqual(set(answered), stored)

        def settled():
            rows = self.store.list_instances()
            return not self.store.unfinished_decisions() and all(
                row.state not in ('pending', 'building', 'terminating',
                                  'preempted') and
                (row.state != 'running' or row.request_id in forever)
                for row in rows)
        self.wait_for(settled, 'every request settled',
                      timeout=BURST_SETTLE, interval=1.0)
        watching.clear()
        watcher.join(WAIT)
        settled_s = time.monotonic() - burst_started

        rows = self.store.list_instances()
        requests_ = self.store.list_requests()
        # Nothing double-booked: no agent refused a spawn for want of room
        # (the fake driver's 'cannot hold': a real host would have been
        # overcommitted), none was seen over its capacity, no instance on
        # two hosts or started twice, no victim terminated twice.
        refusals = [(event.instance_id, event.payload['reason'])
                    for event in self.store.list_events(
                        kind='instance.failed')
                    if 'cannot hold' in (event.payload or {}).get(
                        'reason', '')]
        refusals += [(row.id, row.reason) for row in rows
                     if row.reason and 'cannot hold' in row.reason]
        refusals += [(r.id, r.reason) for r in requests_
                     if r.reason and 'cannot hold' in r.reason]
        started_events = collections.Counter(
            event.instance_id for event in
            self.store.list_events(kind='instance.started'))
        confirmations = collections.Counter(
            event.instance_id for event in self.store.list_events(
                kind='decision.termination_confirmed'))
        statuses = collections.Counter(r.status for r in requests_)
        states = collections.Counter(row.state for row in rows)
        ignored = collections.Counter(
            (event.payload or {}).get('event') for event in
            self.store.list_events(kind='instance.report_ignored'))
        errors = collections.Counter(row.reason for row in rows
                                     if row.state == 'error')
        booted_twice = sorted(i for i, boots in seen['boots'].items()
                              if len(boots) > 1)
        strays = [event.instance_id for event in
                  self.store.list_events(kind='instance.stray')]
        result = {
            'db': self.LABEL, 'requests': BURST, 'instances': len(sizes),
            'clients': BURST_CLIENTS, 'kills': kills,
            'submit_errors_retried': dict(figures),
            'request_statuses': dict(statuses),
            'instance_states': dict(states),
            'error_reasons': dict(errors),
            'preemptions_confirmed': sum(confirmations.values()),
            'reports_ignored': dict(ignored),
            'strays': strays,
            'instances_seen_booted_twice': booted_twice,
            'refused_cannot_hold': len(refusals),
            'agent_snapshots': seen['snapshots'],
            'agent_seen_overfull': len(seen['overfull']),
            'instance_seen_on_two_hosts': len(seen['two_hosts']),
            'max_vcpus_seen_on_a_host': seen['max_vcpus'],
            'burst_s': round(burst_s, 1),
            'settled_s': round(settled_s, 1),
            'total_s': round(time.monotonic() - started, 1)}
        self.addDetail('burst-figures',
                       content.text_content(json.dumps(result, indent=1)))
        path = os.environ.get('PSCHED_TEST_BURST_FIGURES')
        if path:
            with open(path, 'a') as stream:
                stream.write(json.dumps(result) + '\n')

        self.assertEqual(set(sizes), {row.id for row in rows})
        self.assertEqual([], refusals[:10])
        self.assertEqual([], seen['overfull'][:10])
        self.assertEqual([], seen['two_hosts'][:10])
        self.assertEqual([], booted_twice[:10])
        self.assertGreater(seen['snapshots'], 10)
        self.assertEqual({}, {i: n for i, n in started_events.items()
                              if n > 1})
        self.assertEqual({}, {i: n for i, n in confirmations.items()
                              if n > 1})
        self.assertEqual([], [row.id for row in rows if not
                              row.preemptible and row.state == 'terminated'])
        # Every request ended placed (its instances ran), none failed.
        self.assertEqual({'placed': BURST}, dict(statuses),
                         [(r.id, r.status, r.reason) for r in requests_
                          if r.status != 'placed'][:10])
        # An instance ends running (those without a duration), ended or
        # terminated (a victim): one whose reports were lost with the
        # killed process (a message is acknowledged to the broker before
        # it is handled) or had not arrived when the restarted scheduler
        # settled it is settled from what its agent remembers, never
        # booted a second time nor taken for lost.
        self.assertEqual(set(), set(states) - {'running', 'ended',
                                               'terminated'}, dict(errors))
        self.assertGreater(states['terminated'], 0)
        # The database equals the agents.
        self.assertStoreAgreesWithAgents(transport)

    def delete_queues(self):
        """Delete the queues and the exchange of this run that do not go
        by themselves (``amqp_auto_delete = False``).
        """
        conf = self.options['service']
        topics = (conf['scheduler_topic'], conf['compute_topic'],
                  service_conf.report_topic(CONF))
        servers = (socket.gethostname(),) + HOSTS
        url = oslo_messaging.TransportURL.parse(CONF, RABBIT_URL).hosts[0]
        with kombu.Connection(hostname=url.hostname, port=url.port or 5672,
                              userid=url.username, password=url.password,
                              virtual_host=self.rabbit_vhost()) as broker:
            channel = broker.channel()
            try:
                for topic in topics:
                    for name in (topic,) + tuple('%s.%s' % (topic, server)
                                                 for server in servers):
                        channel.queue_delete(name)
                channel.exchange_delete(self.options['DEFAULT'][
                    'control_exchange'])
            finally:
                channel.close()

    @staticmethod
    def rabbit_vhost():
        virtual_host = oslo_messaging.TransportURL.parse(
            CONF, RABBIT_URL).virtual_host
        return virtual_host or '/'

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

    def assertVictimsTerminatedOnce(self, in_flight=None):
        """One victim per normal request, each confirmed once; those of
        the decision ``in_flight`` (if given) among them.
        """
        confirmations = [event.instance_id for event in
                         self.store.list_events(
                             kind='decision.termination_confirmed')]
        self.assertEqual(sorted(set(confirmations)), sorted(confirmations))
        self.assertEqual(len(NORMAL), len(confirmations))
        for victim in in_flight.victims if in_flight else ():
            self.assertIn(victim, confirmations)

    def assertStoreAgreesWithAgents(self, transport=None):
        compute_api = rpcapi.ComputeAPI(transport or self.transport, CONF)
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
