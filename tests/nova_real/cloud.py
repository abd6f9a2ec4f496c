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

"""A small multi-process Nova 34 on this machine, set up as an operator
would, scheduled by ``preemptible-nova-scheduler``.

:meth:`Cloud.up` runs the steps in order, one method each, so that the
deployer's guide can follow them: databases and a RabbitMQ vhost of the
run's own, the configuration files (from ``etc/`` beside this file),
``nova-manage api_db sync``, ``cell_v2 map_cell0`` and ``create_cell``,
``db sync``, ``placement-manage db sync``, ``preemptible-sched-manage db
sync`` (the journal); then ``placement-api``, the Glance and Neutron
stand-ins and ``nova-api`` under gunicorn, ``preemptible-sched-status
upgrade check``, ``nova-conductor``, the scheduler (by default
``preemptible-nova-scheduler`` in the retry mode), the provider
configuration of each compute host, ``nova-compute`` on Nova's fake driver
for each (two by default), ``cell_v2 discover_hosts`` once they have
registered, and the flavors through the compute API. :meth:`Cloud.down`
stops every process by its PID and drops what the run created.

The scheduler is chosen at ``up`` or swapped on a running cloud
(:meth:`Cloud.use_schedulers`): stock ``nova-scheduler`` (``stock``), or
``preemptible-nova-scheduler`` in the ``retry`` or the ``one_pass`` mode;
one process or two (``scheduler`` and ``scheduler-2``, the second with a
host name of its own).

Every process binds 127.0.0.1 and logs to ``DIR/logs/NAME.log``;
``DIR/cloud.json`` holds what ``down`` needs. By hand::

    python -m tests.nova_real.cloud up --dir /tmp/cloud
    python -m tests.nova_real.cloud up --dir /tmp/bench --computes 8
    python -m tests.nova_real.cloud scheduler --dir /tmp/bench \
        --scheduler one_pass --schedulers 2
    python -m tests.nova_real.cloud down --dir /tmp/cloud

The servers: MariaDB, RabbitMQ (``rabbitmqctl`` for the vhost) and Redis
on 127.0.0.1, or ``PSCHED_TEST_MYSQL_URL``, ``PSCHED_TEST_RABBIT_URL`` and
``PSCHED_TEST_REDIS_URL``.
"""

import argparse
import json
import os
import shlex
import socket
import string
import subprocess
import sys
import time
import urllib.parse
import uuid

import redis
import sqlalchemy as sa

from tests.nova_real import api
from tests.nova_real import processes
from tests.nova_real import standins

MYSQL_URL = os.environ.get('PSCHED_TEST_MYSQL_URL',
                           'mysql+pymysql://root@127.0.0.1:3306/')
RABBIT_URL = os.environ.get('PSCHED_TEST_RABBIT_URL',
                            'rabbit://guest:guest@127.0.0.1:5672/')
REDIS_URL = os.environ.get('PSCHED_TEST_REDIS_URL', 'redis://127.0.0.1:6379')

ETC = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'etc')
#: The checkout, so that every process can import tests.nova_real.
TOP = os.path.dirname(os.path.dirname(os.path.dirname(ETC)))
#: The compute hosts of a cloud of two (the default).
HOSTS = ('compute1', 'compute2')
COMPUTES = len(HOSTS)
#: The schedulers: stock nova-scheduler, or ours in one of its modes.
#: Each runs with ``nova.conf``, ``scheduler.conf`` and ``KIND.conf``
#: (from ``etc/``), and for a second process a file naming its host.
SCHEDULERS = ('stock', 'retry', 'one_pass')
#: The names (and hosts) of the scheduler processes, first to last.
SCHEDULER_NAMES = ('scheduler', 'scheduler-2')
#: PredictableNodeUUIDDriver's node, and nova.conf's allocation ratios.
NODE = {'vcpus': 2, 'memory_mb': 8192, 'disk_gb': 1028}
RATIOS = {'VCPU': 4.0, 'MEMORY_MB': 1.0, 'DISK_GB': 1.0}
#: name: (vCPUs, RAM MB, disk GB, extra specs). 'spot' stays on the
#: standard classes (the retry mode), 'spot1p' is moved to the
#: preemptible classes (the one-pass mode) in create_flavors.
FLAVORS = {
    'normal': (2, 2048, 10, {}),
    'spot': (2, 2048, 10, {'preemptible_sched:preemptible': 'true'}),
    'spot1p': (2, 2048, 10, None),
    'gold': (2, 2048, 10, {'preemptible_sched:service_class': 'gold'}),
    'bronze': (2, 2048, 10, {'preemptible_sched:service_class': 'bronze'}),
}
DATABASES = ('api', 'cell0', 'cell1', 'placement', 'journal')
#: Longest wait for a process or the cloud to get somewhere.
WAIT = 240.0


def unreachable():
    """Why the cloud cannot start here (MariaDB or RabbitMQ not
    listening), or None.
    """
    mysql = sa.engine.make_url(MYSQL_URL)
    rabbit = urllib.parse.urlsplit(RABBIT_URL)
    for what, host, port in (
            ('MariaDB', mysql.host or '127.0.0.1', mysql.port or 3306),
            ('RabbitMQ', rabbit.hostname or '127.0.0.1',
             rabbit.port or 5672)):
        try:
            socket.create_connection((host, port), timeout=5).close()
        except OSError as error:
            return '%s not listening at %s:%s: %s' % (what, host, port,
                                                      error)
    return None


def free_port():
    with socket.socket() as probe:
        probe.bind(('127.0.0.1', 0))
        return probe.getsockname()[1]


def command(name):
    """A console script of the environment this Python runs in."""
    return os.path.join(os.path.dirname(sys.executable), name)


def wait_for(predicate, what, timeout=WAIT, interval=0.5, alive=None):
    """Poll ``predicate`` until it returns something true, and return it;
    fail after ``timeout`` s, or at once when ``alive()`` names a process
    that died.
    """
    deadline = time.monotonic() + timeout
    while True:
        found = predicate()
        if found:
            return found
        dead = alive() if alive else None
        if dead:
            raise RuntimeError('%s died while waiting for %s' % (dead, what))
        if time.monotonic() > deadline:
            raise RuntimeError('timed out after %g s waiting for %s'
                               % (timeout, what))
        time.sleep(interval)


class Cloud:
    """The cloud of the run folder ``directory``."""

    def __init__(self, directory, tied=True, computes=COMPUTES):
        self.dir = os.path.abspath(directory)
        #: Tied to this process (a test) or left running (``up``).
        self.tied = tied
        if computes < 1:
            raise ValueError('a cloud needs a compute host, not %r'
                             % computes)
        self.state = {'processes': {}, 'hosts': [
            'compute%d' % index for index in range(1, computes + 1)]}
        self.running = {}

    @property
    def hosts(self):
        """The compute hosts (and their nodes), in order."""
        return tuple(self.state.get('hosts', HOSTS))

    # -- the run's identity ---------------------------------------------

    def plan(self):
        """Names and ports of this run: unique, so runs never meet."""
        run = 'psnr%s' % uuid.uuid4().hex[:10]
        ports = {name: free_port() for name in
                 ('placement', 'compute', 'glance', 'neutron')}
        mysql = sa.engine.make_url(MYSQL_URL)
        rabbit = urllib.parse.urlsplit(RABBIT_URL)
        self.state.update(
            run=run, dir=self.dir, ports=ports,
            databases={name: '%s_%s' % (run, name) for name in DATABASES},
            mysql=mysql.render_as_string(hide_password=False),
            vhost=run, rabbit_user=rabbit.username or 'guest',
            transport_url=urllib.parse.urlunsplit(
                rabbit._replace(path='/' + run)),
            redis_url=REDIS_URL, redis_namespace=run,
            image=standins.IMAGE_ID,
            endpoints={
                'compute': 'http://127.0.0.1:%d/v2.1' % ports['compute'],
                'placement': 'http://127.0.0.1:%d' % ports['placement'],
                'glance': 'http://127.0.0.1:%d' % ports['glance'],
                'neutron': 'http://127.0.0.1:%d' % ports['neutron']})
        for folder in ('logs', 'etc', 'state'):
            os.makedirs(self.path(folder), exist_ok=True)
        self.save()

    def path(self, *parts):
        return os.path.join(self.dir, *parts)

    def save(self):
        with open(self.path('cloud.json'), 'w') as out:
            json.dump(self.state, out, indent=2, sort_keys=True)

    @classmethod
    def load(cls, directory):
        cloud = cls(directory, tied=False)
        with open(cloud.path('cloud.json')) as stream:
            cloud.state = json.load(stream)
        return cloud

    def db_url(self, name, charset='utf8'):
        url = sa.engine.make_url(self.state['mysql'])
        return url.set(database=self.state['databases'][name],
                       query={'charset': charset}).render_as_string(
                           hide_password=False)

    @property
    def compute(self):
        return api.Compute(self.state['endpoints']['compute'])

    @property
    def placement(self):
        return api.Placement(self.state['endpoints']['placement'])

    # -- the steps, in an operator's order ---------------------------------

    def up(self, scheduler='retry', schedulers=1, timed=False):
        """Start the cloud, with ``schedulers`` scheduler processes of the
        kind ``scheduler`` (see :meth:`use_schedulers`).
        """
        self.plan()
        self.create_databases()
        self.create_vhost()
        self.write_configs()
        self.sync_api_db()
        self.map_cell0()
        self.create_cell1()
        self.sync_cell_dbs()
        self.sync_placement_db()
        self.sync_journal_db()
        self.start_placement()
        self.start_standins()
        self.start_compute_api()
        self.upgrade_check()
        self.start_conductor()
        self.use_schedulers(scheduler, schedulers, timed=timed, wait=False)
        for host in self.hosts:
            self.write_provider_config(host)
            self.start_compute(host)
        self.discover_hosts()
        self.wait_for_providers()
        self.create_flavors()
        self.save()
        self.wait_for_schedulers(schedulers)

    def create_databases(self):
        """nova_api, nova_cell0, nova (cell1), placement, and the journal
        of preemptible-nova-scheduler, which nothing creates for us.
        """
        with self._mysql() as server:
            for name, database in self.state['databases'].items():
                charset = 'utf8mb4' if name == 'journal' else 'utf8'
                server.exec_driver_sql('CREATE DATABASE `%s` CHARACTER SET %s'
                                       % (database, charset))

    def create_vhost(self):
        """A RabbitMQ vhost of the run's own: Nova's queues have fixed
        names (``conductor``, ``scheduler``, ``compute.HOST``).
        """
        vhost, user = self.state['vhost'], self.state['rabbit_user']
        self.run('rabbitmqctl', 'add_vhost', vhost)
        self.run('rabbitmqctl', 'set_permissions', '-p', vhost, user,
                 '.*', '.*', '.*')

    def write_configs(self):
        values = {
            'transport_url': self.state['transport_url'],
            'state_path': self.path('state'),
            'etc': self.path('etc'),
            'api_db': self.db_url('api'),
            'cell1_db': self.db_url('cell1'),
            'placement_db': self.db_url('placement'),
            'journal_db': self.db_url('journal', 'utf8mb4'),
            'placement_url': self.state['endpoints']['placement'],
            'glance_url': self.state['endpoints']['glance'],
            'neutron_url': self.state['endpoints']['neutron'],
            'coordination_url': '%s?namespace=%s' % (
                self.state['redis_url'], self.state['redis_namespace']),
            'host': 'scheduler'}
        for name in ('nova.conf', 'placement.conf', 'api-paste.ini',
                     'conductor.conf', 'scheduler.conf') + tuple(
                         '%s.conf' % kind for kind in SCHEDULERS):
            self.template(name, self.path('etc', name), values)

    def template(self, name, target, values):
        with open(os.path.join(ETC, name)) as stream:
            text = string.Template(stream.read()).substitute(values)
        with open(target, 'w') as out:
            out.write(text)

    def sync_api_db(self):
        self.nova_manage('api_db', 'sync')

    def map_cell0(self):
        self.nova_manage('cell_v2', 'map_cell0', '--database_connection',
                         self.db_url('cell0'))

    def create_cell1(self):
        self.nova_manage('cell_v2', 'create_cell', '--name', 'cell1',
                         '--database_connection', self.db_url('cell1'),
                         '--transport-url', self.state['transport_url'],
                         '--verbose')

    def sync_cell_dbs(self):
        """The cell databases: cell1 ([database]) and cell0."""
        self.nova_manage('db', 'sync')

    def sync_placement_db(self):
        self.run(command('placement-manage'), '--config-file',
                 self.path('etc', 'placement.conf'), 'db', 'sync')

    def sync_journal_db(self):
        """The journal's tables, as the deployer's guide has it (given a
        nova.conf, the command acts on ``journal_connection`` only).
        """
        self.run(command('preemptible-sched-manage'), '--config-file',
                 self.path('etc', 'nova.conf'), 'db', 'sync')

    def upgrade_check(self):
        """``preemptible-sched-status upgrade check`` on nova.conf: fails
        the start on a warning (exit 1) or a failure (exit 2).
        """
        self.run(command('preemptible-sched-status'), '--config-file',
                 self.path('etc', 'nova.conf'), 'upgrade', 'check')

    def start_placement(self):
        self.gunicorn('placement-api', 'placement.wsgi.api:application',
                      self.state['ports']['placement'],
                      {'OS_PLACEMENT_CONFIG_DIR': self.path('etc')})
        wait_for(lambda: self._answers(self.state['endpoints']['placement']),
                 'placement-api', alive=self.dead)

    def start_standins(self):
        for name in ('glance', 'neutron'):
            self.gunicorn(name, 'tests.nova_real.standins:%s' % name,
                          self.state['ports'][name])
        for name in ('glance', 'neutron'):
            wait_for(lambda: self._answers(self.state['endpoints'][name]),
                     name, alive=self.dead)

    def start_compute_api(self):
        # nova.wsgi.osapi_compute reads api-paste.ini and nova.conf from
        # these (the first file is the paste file).
        self.gunicorn('nova-api', 'nova.wsgi.osapi_compute:application',
                      self.state['ports']['compute'],
                      {'OS_NOVA_CONFIG_DIR': self.path('etc'),
                       'OS_NOVA_CONFIG_FILES': 'api-paste.ini;nova.conf'})
        wait_for(lambda: self._answers(self.state['endpoints']['compute']),
                 'nova-api', alive=self.dead)

    def start_conductor(self):
        self.service('nova-conductor', command('nova-conductor'),
                     'nova.conf', 'conductor.conf')

    def start_scheduler(self, name='scheduler', mode=None, host=None,
                        stock=False, timed=False):
        """``preemptible-nova-scheduler`` in place of nova-scheduler (or,
        ``stock``, nova-scheduler itself); with ``mode``, a file in
        ``DIR/etc`` layered on top (say ``one_pass`` for
        ``one_pass.conf``); ``host`` for another scheduler host.
        ``timed`` runs it through :mod:`.timed`, which logs the time of
        each ``select_destinations``.
        """
        files = ['nova.conf', 'scheduler.conf']
        if host:
            target = self.path('etc', 'scheduler-%s.conf' % host)
            with open(target, 'w') as out:
                out.write('[DEFAULT]\nhost = %s\n' % host)
            files.append(os.path.basename(target))
        if mode:
            files.append('%s.conf' % mode)
        binary = 'nova-scheduler' if stock else 'preemptible-nova-scheduler'
        if timed:
            argv = [sys.executable, '-m', 'tests.nova_real.timed', binary]
        else:
            argv = [command(binary)]
        return self.launch(name, argv + self._config_args(files))

    def schedulers(self):
        """The names of the scheduler processes running, in order."""
        return [name for name in SCHEDULER_NAMES
                if name in self.state['processes']]

    def use_schedulers(self, kind='retry', count=1, timed=False, wait=True):
        """Run ``count`` (1 or 2) scheduler processes of ``kind`` (one of
        :data:`SCHEDULERS`) in place of those running: stop them all by
        their PIDs, start the new ones, and (``wait``) return once
        RabbitMQ has ``count`` consumers on the ``scheduler`` queue.
        """
        if kind not in SCHEDULERS:
            raise ValueError('scheduler %r: one of %s' % (
                kind, ', '.join(SCHEDULERS)))
        if not 1 <= count <= len(SCHEDULER_NAMES):
            raise ValueError('%r schedulers: 1 or 2' % count)
        running = self.schedulers()
        if running:
            self.stop(*running)
        for index, name in enumerate(SCHEDULER_NAMES[:count]):
            self.start_scheduler(name, kind, host=name if index else None,
                                 stock=kind == 'stock', timed=timed)
        self.state['schedulers'] = {'kind': kind, 'count': count,
                                    'timed': timed}
        # Tests that layer a configuration of their own (base.py) know
        # theirs is gone.
        self.state.pop('scheduler_mode', None)
        self.save()
        if wait:
            self.wait_for_schedulers(count)

    def wait_for_schedulers(self, count):
        """Until ``count`` schedulers consume the ``scheduler`` queue."""
        wait_for(lambda: self.consumers('scheduler') == count,
                 '%d scheduler(s) consuming requests' % count,
                 alive=self.dead)

    def consumers(self, queue):
        """The consumers of RabbitMQ queue ``queue`` of the run's vhost
        (0 when there is no such queue).
        """
        listing = self.run('rabbitmqctl', '-q', 'list_queues', '-p',
                           self.state['vhost'], 'name', 'consumers',
                           log=False)
        for line in listing.splitlines():
            fields = line.split()
            if len(fields) == 2 and fields[0] == queue:
                return int(fields[1])
        return 0

    def write_provider_config(self, host):
        """The CUSTOM_PREEMPTIBLE_* inventory of the one-pass mode, with
        the node's own totals and ratios, and the compute_id file that
        pins the node's uuid across restarts.
        """
        state = self.path('state', host)
        os.makedirs(os.path.join(state, 'provider_config'), exist_ok=True)
        self.run(command('preemptible-nova-one-pass'), 'provider-config',
                 '--vcpus', str(NODE['vcpus']),
                 '--memory-mb', str(NODE['memory_mb']),
                 '--disk-gb', str(NODE['disk_gb']),
                 '--cpu-allocation-ratio', str(RATIOS['VCPU']),
                 '--ram-allocation-ratio', str(RATIOS['MEMORY_MB']),
                 '--disk-allocation-ratio', str(RATIOS['DISK_GB']),
                 '--output', os.path.join(state, 'provider_config',
                                          'preemptible.yaml'))
        with open(os.path.join(state, 'compute_id'), 'w') as out:
            out.write(str(uuid.uuid5(uuid.NAMESPACE_DNS, host)))

    def start_compute(self, host):
        target = self.path('etc', 'compute-%s.conf' % host)
        self.template('compute.conf', target, {
            'host': host, 'state_path': self.path('state', host)})
        self.service(host, command('nova-compute'), 'nova.conf',
                     os.path.basename(target))

    def discover_hosts(self):
        """Map the compute hosts to cell1, as an operator does once they
        have registered; again until the compute API lists both nodes
        (a node appears a moment after its service, and only mapped
        nodes are listed).
        """
        def mapped():
            self.nova_manage('cell_v2', 'discover_hosts', '--verbose')
            names = sorted(h['hypervisor_hostname']
                           for h in self.compute.hypervisors())
            return names == sorted(self.hosts)
        wait_for(mapped, 'every compute node mapped', interval=1,
                 alive=self.dead)

    def wait_for_providers(self):
        """Every node in Placement, with the preemptible classes."""
        def ready():
            found = {}
            for provider in self.placement.providers():
                classes = self.placement.inventories(provider['uuid'])
                if 'CUSTOM_PREEMPTIBLE_MEMORY_MB' in classes:
                    found[provider['name']] = provider['uuid']
            return found if sorted(found) == sorted(self.hosts) else None
        self.state['providers'] = wait_for(
            ready, 'every provider with the preemptible classes',
            alive=self.dead)

    def create_flavors(self):
        """Through the compute API; the one-pass spot flavor takes the
        properties ``preemptible-nova-one-pass flavor-properties`` prints.
        """
        flavors = {}
        for name, (vcpus, ram, disk, specs) in FLAVORS.items():
            if specs is None:
                specs = self.one_pass_properties(vcpus, ram, disk)
            flavors[name] = self.compute.create_flavor(name, vcpus, ram,
                                                       disk, specs)
        self.state['flavors'] = flavors

    def one_pass_properties(self, vcpus, ram, disk):
        printed = self.run(command('preemptible-nova-one-pass'),
                           'flavor-properties', '--vcpus', str(vcpus),
                           '--ram', str(ram), '--disk', str(disk))
        words = shlex.split(printed)
        return dict(value.split('=', 1) for flag, value
                    in zip(words[::2], words[1::2]))

    # -- processes ------------------------------------------------------

    def environment(self, extra=None):
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            filter(None, [TOP, os.environ.get('PYTHONPATH')])))
        env.update(extra or {})
        return env

    def launch(self, name, argv, cwd=None, env=None):
        process = processes.Process(
            name, argv, self.path('logs', '%s.log' % name), cwd=cwd,
            env=self.environment(env), tied=self.tied)
        self.running[name] = process
        self.state['processes'][name] = [process.pid, process.started]
        self.save()
        return process

    def service(self, name, binary, *config_files):
        return self.launch(name, [binary] + self._config_args(config_files))

    def _config_args(self, config_files):
        argv = []
        for config_file in config_files:
            argv += ['--config-file', self.path('etc', config_file)]
        return argv

    def gunicorn(self, name, app, port, env=None):
        """``app`` under gunicorn on 127.0.0.1:``port``.

        Its settings are in ``DIR/NAME/gunicorn.conf.py``, which gunicorn
        reads from its working folder, because Nova's WSGI application
        parses the process's command line (``sys.argv``) as its own and
        would refuse gunicorn's options.
        """
        folder = self.path(name)
        os.makedirs(folder, exist_ok=True)
        settings = {
            'wsgi_app': app, 'bind': '127.0.0.1:%d' % port,
            'workers': 1, 'worker_class': 'gthread', 'threads': 8,
            # Longer than any client keeps an idle connection (Nova's
            # keystoneauth sessions): a connection gunicorn closes after
            # its default 2 s makes the next Placement call fail.
            'keepalive': 75, 'timeout': 300, 'graceful_timeout': 10,
            'accesslog': '-', 'errorlog': '-',
            'access_log_format': '%(h)s "%(r)s" %(s)s %(b)s %(M)sms'}
        with open(os.path.join(folder, 'gunicorn.conf.py'), 'w') as out:
            for key, value in settings.items():
                out.write('%s = %r\n' % (key, value))
        return self.launch(name, [command('gunicorn')], cwd=folder, env=env)

    def dead(self):
        """The name of a process of ours that has exited, or None (those
        an earlier command started are known by their PID and start time).
        """
        for name, process in self.running.items():
            if not process.alive():
                return '%s (exit %s)' % (name, process.popen.returncode)
        for name, (pid, started) in self.state['processes'].items():
            if name not in self.running and processes.start_time(
                    pid) != started:
                return '%s (PID %d gone)' % (name, pid)
        return None

    def stop(self, *names):
        """Stop the processes ``names`` together, by their PIDs."""
        targets = []
        for name in names:
            process = self.running.pop(name, None)
            pid, started = self.state['processes'].pop(name)
            targets.append((pid, started,
                            process.popen if process else None))
        self.save()
        processes.stop_all(targets)

    def kill(self, name):
        """``kill -9`` the process ``name``."""
        process = self.running.pop(name)
        del self.state['processes'][name]
        self.save()
        process.kill()

    # -- commands -------------------------------------------------------

    def run(self, *argv, log=True):
        """Run a command to completion; its output, logged to
        ``logs/commands.log`` (unless not ``log``).
        """
        result = subprocess.run(
            argv, capture_output=True, text=True, timeout=WAIT,
            env=self.environment(), stdin=subprocess.DEVNULL)
        if log or result.returncode:
            with open(self.path('logs', 'commands.log'), 'a') as out:
                out.write('$ %s\n%s%s(exit %d)\n' % (
                    ' '.join(argv), result.stdout, result.stderr,
                    result.returncode))
        if result.returncode:
            raise RuntimeError('%s failed (%d): %s%s' % (
                ' '.join(argv), result.returncode, result.stdout,
                result.stderr))
        return result.stdout

    def nova_manage(self, *args):
        return self.run(command('nova-manage'), '--config-file',
                        self.path('etc', 'nova.conf'), *args)

    @staticmethod
    def _answers(url):
        try:
            api.requests.get(url, timeout=10)
        except api.requests.RequestException:
            return False
        return True

    def _mysql(self):
        return sa.create_engine(
            self.state['mysql'], isolation_level='AUTOCOMMIT',
            poolclass=sa.pool.NullPool).connect()

    # -- down -----------------------------------------------------------

    def down(self):
        """Stop every process (services first, the APIs last), then drop
        the databases, the vhost and the Redis keys of the run. Goes on
        past failures and raises the first one at the end.
        """
        errors = []
        names = list(self.state.get('processes', {}))
        # The services first, so that none of them fails on an API gone.
        apis = ('placement-api', 'nova-api', 'glance', 'neutron')
        self._attempt(errors, self.stop,
                      *[name for name in names if name not in apis])
        self._attempt(errors, self.stop,
                      *[name for name in names if name in apis])
        if 'databases' in self.state:
            self._attempt(errors, self._drop_databases)
        if 'vhost' in self.state:
            self._attempt(errors, self.run, 'rabbitmqctl', 'delete_vhost',
                          self.state['vhost'])
        if 'redis_namespace' in self.state:
            self._attempt(errors, self._drop_redis_keys)
        if errors:
            raise errors[0]

    @staticmethod
    def _attempt(errors, function, *args):
        try:
            function(*args)
        except Exception as error:      # noqa: B902 (clean up the rest)
            errors.append(error)

    def _drop_databases(self):
        with self._mysql() as server:
            for database in self.state['databases'].values():
                server.exec_driver_sql('DROP DATABASE IF EXISTS `%s`'
                                       % database)

    def _drop_redis_keys(self):
        client = redis.Redis.from_url(self.state['redis_url'])
        try:
            for key in client.scan_iter(
                    match=self.state['redis_namespace'] + '*'):
                client.delete(key)
        finally:
            client.close()


def _print_endpoints(cloud):
    for name, url in sorted(cloud.state['endpoints'].items()):
        print('%-10s %s' % (name, url))
    print('token      %s' % api.TOKEN)
    print('flavors    %s' % json.dumps(cloud.state.get('flavors', {})))
    print('image      %s' % cloud.state['image'])
    print('computes   %s' % ' '.join(cloud.hosts))
    print('schedulers %s' % json.dumps(cloud.state.get('schedulers')))
    print('logs       %s' % cloud.path('logs'))


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog='python -m tests.nova_real.cloud',
        description='Start or stop the multi-process Nova test cloud, or '
                    'swap the schedulers of a running one.')
    parser.add_argument('action', choices=('up', 'down', 'scheduler'),
                        help='up: start a cloud; down: stop it and drop '
                             'what it made; scheduler: replace its '
                             'scheduler processes')
    parser.add_argument('--dir', required=True,
                        help='the run folder: configuration, state, logs '
                             'and cloud.json')
    parser.add_argument('--computes', type=int, default=COMPUTES,
                        help='up: nova-compute processes (fake driver, '
                             'one node each; default %(default)s)')
    parser.add_argument('--scheduler', choices=SCHEDULERS, default='retry',
                        help='up, scheduler: stock nova-scheduler, or '
                             'preemptible-nova-scheduler in that mode '
                             '(default %(default)s)')
    parser.add_argument('--schedulers', type=int, choices=(1, 2),
                        default=1, help='up, scheduler: how many '
                        'scheduler processes (default %(default)s)')
    parser.add_argument('--timed', action='store_true',
                        help='up, scheduler: log the time of each '
                             'select_destinations in the scheduler\'s log '
                             '(tests.nova_real.timed)')
    args = parser.parse_args(argv)
    if args.computes < 1:
        parser.error('--computes must be 1 or more')
    if args.action == 'up':
        why = unreachable()
        if why:
            parser.exit(2, 'cannot start: %s\n' % why)
        cloud = Cloud(args.dir, tied=False, computes=args.computes)
        try:
            cloud.up(args.scheduler, args.schedulers, timed=args.timed)
        except BaseException:
            cloud.down()
            raise
        _print_endpoints(cloud)
    elif args.action == 'scheduler':
        cloud = Cloud.load(args.dir)
        cloud.use_schedulers(args.scheduler, args.schedulers,
                             timed=args.timed)
        print('schedulers %s x %d: %s' % (
            args.scheduler, args.schedulers, ', '.join(cloud.schedulers())))
    else:
        cloud = Cloud.load(args.dir)
        _print_endpoints(cloud)
        cloud.down()
    return 0


if __name__ == '__main__':
    sys.exit(main())
