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


"""The scheduler service's metrics: each collector's numbers after known
events, the endpoint, and a service that serves them.
"""

import json
import os
import re
import socket
import time
import urllib.error
import urllib.request

import fixtures

from preemptible_sched.conf import CONF
from preemptible_sched.loadwatcher import metrics as watcher_metrics
from preemptible_sched.loadwatcher import watcher as watcher_mod
from preemptible_sched.loop import timing
from preemptible_sched import objects
from preemptible_sched.queue import pending as queue_mod
from preemptible_sched.queue.queue_policies import fifo
from preemptible_sched.service import metrics
from tests import base
from tests import load_helpers as helpers
from tests.unit.loadwatcher import test_watcher
from tests.unit.service import test_scheduler_service

SMALL = objects.Resources(1, 1000, 10)
DASHBOARD = os.path.join(helpers.REPO, 'etc', 'grafana',
                         'preemptible-sched.json')
#: The series each type of metric family exposes.
SUFFIXES = {'counter': ('_total',), 'gauge': ('',),
            'histogram': ('_bucket', '_sum', '_count')}


def spec(request_id, preemptible=False, service_class=None):
    return objects.RequestSpec(id=request_id, resources=SMALL,
                               preemptible=preemptible,
                               service_class=service_class)


def instance(instance_id, preemptible=True, service_class=None):
    return objects.Instance(id=instance_id, resources=SMALL,
                            preemptible=preemptible,
                            service_class=service_class)


class FakeJournal:
    """The four journal writes; ``fail`` makes them raise."""

    def __init__(self):
        self.calls = []
        self.fail = False

    def _write(self, name, *args):
        self.calls.append((name,) + args)
        if self.fail:
            raise RuntimeError('database gone')
        return len(self.calls)

    def journal_decision(self, *args):
        return self._write('journal_decision', *args)

    def confirm_termination(self, *args):
        return self._write('confirm_termination', *args)

    def set_decision_state(self, *args):
        return self._write('set_decision_state', *args)

    def roll_back_decision(self, *args):
        return self._write('roll_back_decision', *args)


class TestEvents(base.TestCase):

    def setUp(self):
        super().setUp()
        self.on_hosts = {('h1', 'v1'): instance('v1'),
                         ('h1', 'v2'): instance('v2', service_class='gold'),
                         ('h2', 'v3'): instance('v3', preemptible=False)}
        self.metrics = metrics.SchedulerMetrics(
            'dual_state', find_instance=lambda host, iid:
            self.on_hosts.get((host, iid)))
        self.sent = []

        class Notifier:
            def info(inner, event_type, payload):
                self.sent.append(event_type)
        self.notifier = self.metrics.observe_notifier(Notifier())

    def value(self, name, **labels):
        return self.metrics.registry.get_sample_value(name, labels)

    def test_decisions_by_outcome_and_preemptions_by_class(self):
        notify = self.notifier.info
        notify('request.submitted', {'request_id': 'a'})
        notify('instance.placement', {'request_id': 'a', 'host': 'h1',
                                      'terminate': []})
        notify('instance.placement', {'request_id': 'b', 'host': 'h1',
                                      'terminate': ['v1', 'v2']})
        notify('instance.placement', {'request_id': 'c', 'host': 'h2',
                                      'terminate': ['v3']})
        for host, victim in (('h1', 'v1'), ('h1', 'v2'), ('h2', 'v3'),
                             ('h2', 'gone')):
            notify('instance.termination_notice',
                   {'instance_id': victim, 'host': host})
        self.assertEqual(1.0, self.value('psched_decisions_total',
                                         strategy='dual_state',
                                         outcome='placed'))
        self.assertEqual(2.0, self.value('psched_decisions_total',
                                         strategy='dual_state',
                                         outcome='preempting'))
        for name in ('preemptible', 'gold', 'normal', 'unknown'):
            self.assertEqual(1.0, self.value('psched_preemptions_total',
                                             **{'class': name}))
        self.assertEqual(4.0, self.value(
            'psched_events_total', event='instance.termination_notice'))
        self.assertEqual(1.0, self.value('psched_events_total',
                                         event='request.submitted'))
        # Every event went on to the real notifier, in order.
        self.assertEqual(8, len(self.sent))
        self.assertEqual('request.submitted', self.sent[0])

    def test_outcomes_are_zero_before_any_decision(self):
        self.assertEqual(0.0, self.value('psched_decisions_total',
                                         strategy='dual_state',
                                         outcome='preempting'))

    def test_a_failing_count_never_reaches_the_loop(self):
        self.metrics._find_instance = None
        self.metrics.events = None      # any bug of ours
        self.notifier.info('host.down', {'host': 'h1'})
        self.assertEqual(['host.down'], self.sent)


class TestPendingQueue(base.TestCase):

    def test_requests_waiting_by_class(self):
        queue = queue_mod.PendingQueue(fifo.FifoPolicy())
        registry = metrics.SchedulerMetrics('plain', queue=queue).registry
        queue.add(spec('a', preemptible=True), 0.0)
        queue.add(spec('b', preemptible=True), 0.0)
        queue.add(spec('c'), 0.0)
        queue.add(spec('d', service_class='gold'), 0.0)

        def pending(name):
            return registry.get_sample_value('psched_pending_requests',
                                             {'class': name})
        self.assertEqual(2.0, pending('preemptible'))
        self.assertEqual(1.0, pending('normal'))
        self.assertEqual(1.0, pending('gold'))
        # Admitted and then gone: a class seen stays, at 0.
        queue.admit(lambda entry: True)
        self.assertEqual(2.0, pending('preemptible'))
        for entry in list(queue.entries.values()):
            if entry.spec.service_class == 'gold':
                queue.remove(entry)
        self.assertEqual(0.0, pending('gold'))
        self.assertEqual(3.0, sum(pending(name) for name in
                                  ('preemptible', 'normal', 'gold')))


class TestStages(base.TestCase):

    def test_each_pass_is_observed_once(self):
        stats = timing.StageStats()
        registry = metrics.SchedulerMetrics('plain', stats=stats).registry
        for number in (1, 2, 3):
            stats.begin_pass(number, float(number))
            with stats.stopwatch('R4', 10):
                pass
            with stats.stopwatch('R4', 10):     # two runs, one pass
                pass
            if number == 2:
                with stats.stopwatch('T10', 3):
                    pass
            stats.end_pass()

        def count(stage):
            return registry.get_sample_value('psched_stage_seconds_count',
                                             {'stage': stage})
        self.assertEqual(3.0, count('R4'))
        self.assertEqual(1.0, count('T10'))
        # Scraped again with nothing new: the same numbers.
        self.assertEqual(3.0, count('R4'))
        total = sum(row[5] for row in stats.passes if row[2] == 'R4')
        self.assertAlmostEqual(total, registry.get_sample_value(
            'psched_stage_seconds_sum', {'stage': 'R4'}))
        stats.begin_pass(4, 4.0)
        with stats.stopwatch('R4', 1):
            pass
        stats.end_pass()
        self.assertEqual(4.0, count('R4'))
        # A slow stage lands in its bucket: 0.3 s is above 0.25, not 0.5.
        stats.begin_pass(5, 5.0)
        stats._append('T4', 1, 1, 0.3, 0.3)
        stats.end_pass()
        self.assertEqual(0.0, registry.get_sample_value(
            'psched_stage_seconds_bucket', {'stage': 'T4', 'le': '0.25'}))
        self.assertEqual(1.0, registry.get_sample_value(
            'psched_stage_seconds_bucket', {'stage': 'T4', 'le': '0.5'}))


class TestJournal(base.TestCase):

    def test_writes_counted_and_timed_by_operation(self):
        journal = FakeJournal()
        found = metrics.SchedulerMetrics('plain')
        found.instrument_journal(journal)
        self.assertEqual(1, journal.journal_decision('r', 'i', 'h', [], 1.0))
        journal.confirm_termination('d', 'v', 2.0)
        journal.confirm_termination('d', 'w', 3.0)
        journal.fail = True
        self.assertRaises(RuntimeError, journal.set_decision_state, 'd',
                          'done', 4.0)
        self.assertEqual('set_decision_state', journal.calls[-1][0])

        def value(name, operation):
            return found.registry.get_sample_value(
                name, {'operation': operation})
        self.assertEqual(1.0, value('psched_journal_writes_total',
                                    'journal_decision'))
        self.assertEqual(2.0, value('psched_journal_writes_total',
                                    'confirm_termination'))
        # A failed write counts and is timed too.
        self.assertEqual(1.0, value('psched_journal_writes_total',
                                    'set_decision_state'))
        self.assertEqual(2.0, value('psched_journal_write_seconds_count',
                                    'confirm_termination'))
        self.assertEqual(0.0, value('psched_journal_writes_total',
                                    'roll_back_decision'))
        # The class is left alone.
        self.assertNotIn('journal_decision', vars(FakeJournal()))


class TestReportAges(base.TestCase):

    def test_age_of_the_last_accepted_report_per_host(self):
        now = [100.0]
        found = metrics.SchedulerMetrics('plain', now=lambda: now[0])

        def check(method, kwargs):
            if kwargs.get('bad'):
                raise ValueError('refused')
            return kwargs
        checked = found.observe_reports(check)
        checked('register_host', {'host': {'name': 'h1'}, 'boot_id': 'b'})
        now[0] = 104.0
        checked('instance_started', {'host': 'h2', 'instance_id': 'i'})
        now[0] = 106.0
        self.assertRaises(ValueError, checked, 'host_up',
                          {'host': 'h1', 'bad': True})
        now[0] = 110.0

        def age(host):
            return found.registry.get_sample_value(
                'psched_compute_report_age_seconds', {'host': host})
        self.assertEqual(10.0, age('h1'))
        self.assertEqual(6.0, age('h2'))
        checked('host_up', {'host': 'h1'})
        self.assertEqual(0.0, age('h1'))


class TestEndpoint(base.TestCase):

    def test_only_metrics_is_served(self):
        found = metrics.SchedulerMetrics('retry')
        app = metrics.wsgi_app(found.registry)
        statuses = []

        def start_response(status, headers):
            statuses.append((status, dict(headers)))
        body = b''.join(app({'PATH_INFO': '/metrics',
                             'REQUEST_METHOD': 'GET',
                             'QUERY_STRING': ''}, start_response))
        self.assertEqual('200 OK', statuses[0][0])
        self.assertIn(b'psched_decisions_total{outcome="placed",'
                      b'strategy="retry"} 0.0', body)
        app({'PATH_INFO': '/', 'REQUEST_METHOD': 'GET'}, start_response)
        self.assertEqual('404 Not Found', statuses[1][0])


def get(url):
    with urllib.request.urlopen(url, timeout=30) as answer:
        return answer.status, answer.read().decode()


class TestServiceMetrics(test_scheduler_service.ServiceTestCase):

    def start_scheduler(self):
        self.flags(group='metrics', bind='127.0.0.1:0')
        return super().start_scheduler()

    def url(self):
        deadline = time.monotonic() + 30
        while getattr(self.scheduler, 'metrics_server', None) is None:
            if time.monotonic() > deadline:
                self.fail('no metrics server after 30 s')
            time.sleep(0.05)
        return 'http://127.0.0.1:%d' % \
            self.scheduler.metrics_server.server_port

    def test_a_placed_request_is_counted_and_served(self):
        self.api.submit({'id': 'r', 'resources':
                         test_scheduler_service.MEDIUM})
        self.wait_running('r')
        status, text = get(self.url() + '/metrics')
        self.assertEqual(200, status)
        strategy = self.scheduler.loop.scheduler.strategy.name
        self.assertIn('psched_decisions_total{outcome="placed",strategy='
                      '"%s"} 1.0' % strategy, text)
        self.assertIn('psched_events_total{event="request.submitted"} 1.0',
                      text)
        self.assertIn('psched_journal_writes_total{operation='
                      '"journal_decision"} 1.0', text)
        self.assertIn('# TYPE psched_pending_requests gauge', text)
        self.assertIn('psched_stage_seconds_count{stage="R4"}', text)
        self.assertIn('psched_leader_epoch{topic="%s"} %.1f' % (
            CONF.service.scheduler_topic, self.scheduler.epoch), text)
        error = self.assertRaises(urllib.error.HTTPError, get,
                                  self.url() + '/watcher')
        self.assertEqual(404, error.code)

    def test_a_taken_port_is_logged_and_the_service_runs(self):
        with socket.socket() as taken:
            taken.bind(('127.0.0.1', 0))
            taken.listen()
            self.flags(group='metrics',
                       bind='127.0.0.1:%d' % taken.getsockname()[1])
            logged = self.useFixture(fixtures.FakeLogger(level='ERROR'))
            self.assertIsNone(metrics.serve(self.scheduler))
        self.assertIn('Metrics not served: cannot listen on', logged.output)

    def test_empty_bind_serves_nothing(self):
        self.flags(group='metrics', bind='')
        self.assertIsNone(metrics.serve(self.scheduler))


def exposed_series():
    """Every series name the scheduler's and the watcher's metrics can
    expose.
    """
    watcher = watcher_mod.LoadWatcher(test_watcher.ScriptedSource(
        lambda now: {}))
    found = metrics.SchedulerMetrics(
        'plain', queue_mod.PendingQueue(fifo.FifoPolicy()),
        timing.StageStats())
    found.registry.register(watcher_metrics.of(watcher).collector)
    return {family.name + suffix
            for family in found.registry.collect()
            for suffix in SUFFIXES[family.type]}


class TestDashboard(base.TestCase):

    def test_every_query_uses_metrics_that_exist(self):
        with open(DASHBOARD) as stream:
            dashboard = json.load(stream)
        series = exposed_series()
        exprs = [target['expr'] for panel in dashboard['panels']
                 for target in panel['targets']]
        self.assertGreaterEqual(len(exprs), 12)
        used = set()
        for expr in exprs:
            names = set(re.findall(r'\bpsched_[a-z_]+', expr))
            self.assertTrue(names, expr)
            self.assertEqual(set(), names - series, expr)
            used |= names
        # Every metric is on the dashboard (its histograms by buckets).
        families = {name for name in series
                    if not name.endswith(('_sum', '_count'))}
        self.assertEqual(set(), families - used)

    def test_panels_have_unique_ids_and_a_datasource_variable(self):
        with open(DASHBOARD) as stream:
            dashboard = json.load(stream)
        ids = [panel['id'] for panel in dashboard['panels']]
        self.assertEqual(len(ids), len(set(ids)))
        self.assertEqual(['datasource'], [variable['name'] for variable in
                                          dashboard['templating']['list']])
