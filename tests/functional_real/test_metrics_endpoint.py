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


"""The scheduler service's metrics, scraped by a real Prometheus server.

``preemptible-scheduler`` (the ``rpc`` driver) and one ``preemptible-compute
--driver fake`` agent run as processes over the local RabbitMQ, with the
state in a SQLite file; the scheduler serves its metrics on a free port of
127.0.0.1, and the ``prometheus`` binary (started by the test, a throwaway
TSDB, one scrape a second) scrapes them. The test fills the agent's blade
(8 vCPUs) with four preemptible requests of 2 vCPUs, then submits a normal
one, which displaces one of them (``on_victim = requeue``: it waits in the
queue again), and checks through Prometheus' HTTP API: 4 decisions
``placed`` and 1 ``preempting``, 1 preemption of class ``preemptible``, 1
preemptible request pending, 5 journaled decisions (counted and timed), 5
submissions, stage times of the passes, and a recent report of the host.
A ``preemptible-sched load-watcher`` runs beside them (the ``fake`` source
on a small Bitbrains-format trace) and Prometheus scrapes it too; at the
end every query of the Grafana dashboard (``etc/grafana``) returns data
from Prometheus, but the watcher's bad samples (there are none here).

Skipped without RabbitMQ; without the ``prometheus`` binary skipped, or
failed with ``PSCHED_TEST_REQUIRE_PROMETHEUS=1`` (``tox -e
functional-real``).
"""

import configparser
import json
import os
import shutil
import subprocess
import time
import urllib.parse
import urllib.request
import uuid

import fixtures
import oslo_messaging
from testtools import content

from preemptible_sched.conf import CONF
from preemptible_sched.db import api as db_api
from preemptible_sched import service
from preemptible_sched.service import rpcapi
from tests import base
from tests.functional_real import test_multiprocess as multiprocess
from tests.functional_real import test_prometheus_source as real_prometheus
from tests import load_helpers

HOST = 'host-A'
DASHBOARD = os.path.join(os.path.dirname(__file__), '..', '..', 'etc',
                         'grafana', 'preemptible-sched.json')
SLOT = {'vcpus': 2, 'memory_mb': 1000, 'disk_gb': 10}
PREEMPTIBLE = ['p%d' % index for index in range(4)]
#: Longest wall-clock wait for any one condition.
WAIT = 120.0


class TestMetricsScrapedByPrometheus(base.TestCase):

    def setUp(self):
        super().setUp()
        self.binary = shutil.which('prometheus')
        if self.binary is None:
            reason = 'no prometheus binary on the PATH'
            if os.environ.get('PSCHED_TEST_REQUIRE_PROMETHEUS') == '1':
                self.fail('%s, and PSCHED_TEST_REQUIRE_PROMETHEUS=1' %
                          reason)
            self.skipTest(reason)
        broker = oslo_messaging.TransportURL.parse(
            CONF, multiprocess.RABBIT_URL).hosts[0]
        why = multiprocess.reachable(broker.hostname, broker.port or 5672)
        if why:
            self.skipTest('RabbitMQ not reachable at %s' % why)
        self.tmp = self.useFixture(fixtures.TempDir()).path
        database = 'sqlite:///%s' % os.path.join(self.tmp, 'state.sqlite')
        store = db_api.Store(database)
        store.upgrade()
        store.dispose()
        self.database = database
        self.metrics_port = real_prometheus.free_port()
        self.watcher_port = real_prometheus.free_port()
        run_id = 'psched-%s' % uuid.uuid4().hex[:10]
        options = {
            'DEFAULT': {'transport_url': multiprocess.RABBIT_URL,
                        'control_exchange': run_id},
            'database': {'connection': database},
            'service': {'scheduler_topic': run_id + '-scheduler',
                        'compute_topic': run_id + '-compute',
                        'compute_driver': 'rpc', 'time_scale': 10.0,
                        'heartbeat_interval': 1.0, 'rpc_timeout': 30.0,
                        'host_wait_seconds': 60.0},
            'scheduler': {'on_victim': 'requeue'},
            'preemptible': {'termination_grace_seconds': 10.0},
            'fake_driver': {'termination_seconds': 10.0},
            'metrics': {'bind': '127.0.0.1:%d' % self.metrics_port},
            'oslo_messaging_rabbit': {'amqp_auto_delete': True,
                                      'rabbit_transient_queues_ttl': 60},
            'oslo_messaging_notifications': {'driver': 'noop'},
        }
        service.register_messaging_opts(CONF)
        parser = configparser.ConfigParser()
        for group, values in options.items():
            self.flags(group=None if group == 'DEFAULT' else group,
                       **values)
            parser[group] = {name: str(value)
                             for name, value in values.items()}
        self.config_file = os.path.join(self.tmp, 'preemptible-sched.conf')
        with open(self.config_file, 'w') as stream:
            parser.write(stream)
        self.transport = service.get_rpc_transport(CONF)
        self.addCleanup(self.transport.cleanup)
        self.api = rpcapi.SchedulerAPI(self.transport, CONF)

    def start(self, name, module, *args):
        process = multiprocess.Process(
            name, module, ('--config-file', self.config_file) + args,
            self.tmp)
        self.addCleanup(lambda: self.addDetail(
            '%s-log' % name, content.text_content(process.log())))
        self.addCleanup(process.stop)
        return process

    def start_prometheus(self):
        """Prometheus scraping the scheduler's metrics every second; its
        URL.
        """
        config = os.path.join(self.tmp, 'prometheus.yml')
        with open(config, 'w') as stream:
            stream.write(
                'global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n'
                'scrape_configs:\n  - job_name: preemptible-scheduler\n'
                '    static_configs:\n'
                "      - targets: ['127.0.0.1:%d']\n"
                '  - job_name: preemptible-load-watcher\n'
                '    static_configs:\n'
                "      - targets: ['127.0.0.1:%d']\n"
                % (self.metrics_port, self.watcher_port))
        port = real_prometheus.free_port()
        log = open(os.path.join(self.tmp, 'prometheus.log'), 'ab')
        self.addCleanup(log.close)
        process = subprocess.Popen(
            [self.binary, '--config.file=' + config,
             '--storage.tsdb.path=' + os.path.join(self.tmp, 'tsdb'),
             '--web.listen-address=127.0.0.1:%d' % port],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        self.addCleanup(real_prometheus.TestRealPrometheus._stop, process)
        return 'http://127.0.0.1:%d' % port

    def query(self, url, promql):
        """``[(labels, value)]`` of the instant query ``promql`` now."""
        address = '%s/api/v1/query?%s' % (url, urllib.parse.urlencode(
            {'query': promql}))
        with urllib.request.urlopen(address, timeout=30) as answer:
            document = json.load(answer)
        self.assertEqual('success', document['status'], document)
        return [(series['metric'], float(series['value'][1]))
                for series in document['data']['result']]

    def wait_for(self, predicate, what):
        deadline = time.monotonic() + WAIT
        while True:
            try:
                if predicate():
                    return
            except OSError:
                pass        # not listening yet
            if time.monotonic() > deadline:
                self.fail('timed out after %g s waiting for: %s'
                          % (WAIT, what))
            time.sleep(0.2)

    def running(self, request_id):
        return all(instance['state'] == 'running' for instance in
                   self.api.show(request_id)['instances'])

    def value(self, url, promql):
        found = self.query(url, promql)
        self.assertEqual(1, len(found), (promql, found))
        return found[0][1]

    def start_watcher(self):
        """``preemptible-sched load-watcher`` on ``watcher_port``."""
        trace = load_helpers.make_bitbrains(
            self.tmp, {1: (1000, [100, 200, 300, 400]),
                       2: (2000, [500, 1500])})
        config = os.path.join(self.tmp, 'watcher.conf')
        with open(config, 'w') as stream:
            stream.write('[load_watcher]\nscrape_interval = 1\n'
                         'window_refresh = 2\n')
        process = multiprocess.Process(
            'load-watcher', 'preemptible_sched.cmd.sched',
            ('load-watcher', '--config-file', config, '--source', 'fake',
             '--hosts', '2', '--trace', trace, '--bind',
             '127.0.0.1:%d' % self.watcher_port, '--state-file',
             os.path.join(self.tmp, 'watcher.sqlite')), self.tmp)
        self.addCleanup(lambda: self.addDetail(
            'load-watcher-log', content.text_content(process.log())))
        self.addCleanup(process.stop)
        return process

    def dashboard_queries(self):
        with open(DASHBOARD) as stream:
            dashboard = json.load(stream)
        return [(panel['title'], target['expr'])
                for panel in dashboard['panels']
                for target in panel['targets']]

    def test_prometheus_scrapes_the_scheduler(self):
        self.start(HOST, 'preemptible_sched.cmd.compute', '--driver',
                   'fake', '--host', HOST)
        self.start_watcher()
        scheduler = self.start('scheduler',
                               'preemptible_sched.cmd.scheduler')
        url = self.start_prometheus()
        # A call sent before the scheduler listens would be lost. The
        # agent may register before the scheduler is ready or after
        # (the database knows no host yet): wait for both.
        store = db_api.Store(self.database)
        self.addCleanup(store.dispose)
        self.wait_for(lambda: 'Scheduler service ready' in scheduler.log() and
                      [row.name for row in store.hosts()] == [HOST],
                      'the scheduler ready and the host registered')
        for request_id in PREEMPTIBLE:
            self.api.submit({'id': request_id, 'resources': SLOT,
                             'preemptible': True})
        self.wait_for(lambda: all(self.running(request_id)
                                  for request_id in PREEMPTIBLE),
                      'the preemptible requests running')
        self.api.submit({'id': 'normal', 'resources': SLOT})
        self.wait_for(lambda: self.running('normal'),
                      'the normal request running')
        self.wait_for(lambda: self.query(
            url, 'psched_decisions_total{outcome="preempting"} == 1') and
            self.query(url, 'psched_pending_requests{class="preemptible"}'
                       ' == 1'), 'Prometheus holding the preemption')
        self.assertEqual(1.0, self.value(
            url, 'up{job="preemptible-scheduler"}'))
        (labels, preempting), = self.query(
            url, 'psched_decisions_total{outcome="preempting"}')
        self.assertEqual(1.0, preempting)
        self.assertEqual('dual_state', labels['strategy'])
        self.assertEqual(4.0, self.value(
            url, 'psched_decisions_total{outcome="placed"}'))
        self.assertEqual(1.0, self.value(
            url, 'psched_preemptions_total{class="preemptible"}'))
        self.assertEqual(1.0, self.value(
            url, 'psched_pending_requests{class="preemptible"}'))
        self.assertEqual(5.0, self.value(
            url, 'psched_events_total{event="request.submitted"}'))
        self.assertEqual(5.0, self.value(
            url, 'psched_journal_writes_total{operation='
            '"journal_decision"}'))
        self.assertEqual(5.0, self.value(
            url, 'psched_journal_write_seconds_count{operation='
            '"journal_decision"}'))
        self.assertGreater(self.value(
            url, 'psched_journal_write_seconds_sum{operation='
            '"journal_decision"}'), 0.0)
        # Every pass that placed something weighed hosts.
        self.assertGreaterEqual(self.value(
            url, 'psched_stage_seconds_count{stage="R5"}'), 5.0)
        # A heartbeat a second: the host reported within the last few.
        self.assertLess(self.value(
            url, 'psched_compute_report_age_seconds{host="%s"}' % HOST),
            10.0)
        # Both services scraped, and every panel of the dashboard has data
        # (the rates once Prometheus holds two scrapes of a change).
        self.wait_for(lambda: len(self.query(url, 'up == 1')) == 2,
                      'Prometheus scraping the scheduler and the watcher')
        self.assertEqual({'preemptible-scheduler',
                          'preemptible-load-watcher'},
                         {labels['job'] for labels, _ in
                          self.query(url, 'up')})
        empty = []
        for title, expr in self.dashboard_queries():
            if 'bad_samples' in expr:
                # No bad sample in this run: no series (they are counted
                # in tests/functional/loadwatcher).
                self.assertEqual([], self.query(url, expr), title)
                continue
            try:
                self.wait_for(lambda: self.query(url, expr),
                              'data for the panel %r' % title)
            except self.failureException:
                empty.append((title, expr))
        self.assertEqual([], empty)
