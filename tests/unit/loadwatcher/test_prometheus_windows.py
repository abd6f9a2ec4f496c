# Copyright 2026 The preemptible_sched developers
#
#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS,
#    WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
#    See the License for the specific language governing permissions and
#    limitations under the License.


"""The Prometheus source as the released load watcher uses it (issue 29
item 4): window aggregates asked for, a bearer token, a CA file and
skipping verification.
"""

import http.client
import json
import ssl
from unittest import mock
import urllib.parse

import certifi
import fixtures

from preemptible_sched.conf import checks
from preemptible_sched.conf import CONF
from preemptible_sched import exception
from preemptible_sched.loadwatcher import load_sources as sources
from preemptible_sched.loadwatcher.load_sources import prometheus
from preemptible_sched.loadwatcher import reading
from preemptible_sched.loadwatcher import watcher as watcher_mod
from tests import base
from tests.unit.conf import test_checks
from tests.unit.loadwatcher import hostile

CPU = 'instance:node_cpu:ratio'
MEMORY = ('100 * (1 - node_memory_MemAvailable_bytes / '
          'node_memory_MemTotal_bytes)')


def _query(request_line):
    """The PromQL of ``GET /api/v1/query?query=...&time=... HTTP/1.1``."""
    target = request_line.decode('latin-1').split(' ')[1]
    return urllib.parse.parse_qs(urllib.parse.urlsplit(target).query)[
        'query'][0]


def _vector(values):
    return json.dumps(hostile.prometheus_vector([
        {'metric': {'instance': '%s:9100' % host},
         'value': [900.0, str(value)]}
        for host, value in values.items()])).encode()


class TestWindowQueries(base.TestCase):

    def test_a_metric_name_gets_a_range_selector_as_upstream(self):
        self.assertEqual('avg_over_time(instance:node_cpu:ratio[15m])',
                         prometheus.window_query('avg_over_time', CPU,
                                                 '15m'))
        self.assertEqual(
            'stddev_over_time(node_load1{job="node"}[5m])',
            prometheus.window_query('stddev_over_time',
                                    'node_load1{job="node"}', '5m'))

    def test_an_expression_gets_a_subquery(self):
        self.assertEqual(
            'avg_over_time((%s)[10m:])' % MEMORY,
            prometheus.window_query('avg_over_time', MEMORY, '10m'))


class TestAgainstAFakePrometheus(base.TestCase):

    def setUp(self):
        super().setUp()
        self.server = hostile.HostileServer([hostile.Answer(
            hostile.good_prometheus_body(hosts=('compute-01',),
                                         value='40'))])
        self.addCleanup(self.server.close)
        self.token = self.useFixture(fixtures.TempDir()).join('token')
        with open(self.token, 'w') as stream:
            stream.write('tok-123.abc\n')
        self.source = prometheus.PrometheusSource(
            url=self.server.url, cpu_query=CPU, memory_query=MEMORY,
            bearer_token_file=self.token, timeout=10.0)

    def test_window_aggregates_asked_with_the_token(self):
        found = self.source.window_stats(900.0)
        # 3 windows x 2 resources x 2 aggregates, each one query.
        self.assertEqual(12, len(self.server.requests))
        expected = {'%s(%s)' % (function, argument)
                    for window in ('5m', '10m', '15m')
                    for function in ('avg_over_time', 'stddev_over_time')
                    for argument in ('%s[%s]' % (CPU, window),
                                     '(%s)[%s:]' % (MEMORY, window))}
        self.assertEqual(expected, {_query(line)
                                    for line in self.server.requests})
        for line in self.server.requests:
            self.assertIn(b'&time=900.000 ', line)
        for head in self.server.heads:
            self.assertIn(b'\r\nAuthorization: Bearer tok-123.abc', head)
        # The fake answers 40 to every query: average and deviation.
        self.assertEqual({'cpu': (40.0, 40.0), 'memory': (40.0, 40.0)},
                         found['compute-01']['15m'])
        self.assertEqual({'5m', '10m', '15m'}, set(found['compute-01']))

    def test_the_instant_queries_carry_the_token_too(self):
        self.assertEqual({'compute-01': (40.0, 40.0)},
                         self.source.collect(900.0))
        self.assertEqual({CPU, MEMORY},
                         {_query(line) for line in self.server.requests})
        for head in self.server.heads:
            self.assertIn(b'Authorization: Bearer tok-123.abc', head)

    def test_no_token_file_no_header(self):
        source = prometheus.PrometheusSource(
            url=self.server.url, cpu_query=CPU, memory_query=MEMORY)
        source.collect(0.0)
        for head in self.server.heads:
            self.assertNotIn(b'Authorization', head)

    def test_a_token_file_that_cannot_be_read(self):
        source = prometheus.PrometheusSource(
            url=self.server.url, bearer_token_file=self.token + '.gone')
        error = self.assertRaises(sources.SourceError, source.collect, 0.0)
        self.assertEqual('Prometheus bearer token file %s.gone: No such '
                         'file or directory' % self.token, str(error))
        with open(self.token, 'w') as stream:
            stream.write('two words\n')
        error = self.assertRaises(sources.SourceError,
                                  self.source.collect, 0.0)
        # Never the token itself in the message.
        self.assertEqual('Prometheus bearer token file %s: not one token'
                         % self.token, str(error))
        self.assertEqual([], self.server.requests)


class TestWatcherOnAggregates(base.TestCase):
    """The windows' average and deviation are Prometheus', not the mean of
    the watcher's own instant samples; the latest value is the sample.
    """

    ANSWERS = {
        'cpu_now': {'compute-01': 50.0, 'compute-02': 10.0},
        'mem_now': {'compute-01': 30.0, 'compute-02': 20.0},
        'avg_over_time(cpu_now[15m])': {'compute-01': 42.0,
                                        'compute-02': 12.0},
        'stddev_over_time(cpu_now[15m])': {'compute-01': 3.0,
                                           'compute-02': 'NaN'},
        'avg_over_time(mem_now[15m])': {'compute-01': 31.0},
        'stddev_over_time(mem_now[15m])': {'compute-01': 0.5},
    }

    def _fetch(self, url, timeout):
        promql = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)[
            'query'][0]
        return _vector(self.ANSWERS.get(promql, {}))

    def test_the_15_minute_window(self):
        source = prometheus.PrometheusSource(
            url='http://prom.example', cpu_query='cpu_now',
            memory_query='mem_now', fetch=self._fetch)
        watcher = watcher_mod.LoadWatcher(source, None, 60, 60)
        watcher.tick(900.0)
        latest = watcher.latest()
        self.assertEqual({'window_end': 900.0,
                          'cpu': {'avg': 42.0, 'std': 3.0},
                          'memory': {'avg': 31.0, 'std': 0.5}},
                         latest['compute-01'])
        # A deviation that is not a number keeps the host's own window
        # (one sample: 10, deviation 0); no aggregate: its own too.
        self.assertEqual({'window_end': 900.0,
                          'cpu': {'avg': 10.0, 'std': 0.0},
                          'memory': {'avg': 20.0, 'std': 0.0}},
                         latest['compute-02'])
        cpu = {metric['operator']: metric['value'] for metric in
               watcher.payload()['data']['NodeMetricsMap']['compute-01'][
                   'metrics'] if metric['type'] == 'CPU'}
        self.assertEqual({'Latest': 50.0, 'AVG': 42.0, 'STD': 3.0}, cpu)
        # The 5-minute window was asked for and answered nothing: the
        # watcher's own (one sample of 50).
        self.assertEqual({'avg': 50.0, 'std': 0.0},
                         watcher.latest('5m')['compute-01']['cpu'])

    def test_failing_aggregates_keep_the_own_windows(self):
        calls = []

        def fetch(url, timeout):
            calls.append(url)
            if 'over_time' in url:
                raise sources.SourceError('Prometheus at x: refused')
            return self._fetch(url, timeout)
        source = prometheus.PrometheusSource(
            url='http://prom.example', cpu_query='cpu_now',
            memory_query='mem_now', fetch=fetch)
        watcher = watcher_mod.LoadWatcher(source, None, 60, 60)
        with self.assertLogs('preemptible_sched.loadwatcher.watcher',
                             'WARNING') as logs:
            for minute in range(3):
                watcher.tick(900.0 + 60 * minute)
            self.assertEqual({'avg': 50.0, 'std': 0.0},
                             watcher.latest()['compute-01']['cpu'])
            self.assertEqual((False, 'window aggregates failing: '
                              'Prometheus at x: refused'),
                             watcher.health(1020.0))
            self.assertTrue(watcher.healthy())
            source.fetch = self._fetch
            watcher.tick(1080.0)
        # Said when they fail and when they are back, not every minute.
        self.assertEqual(
            ['Load source prometheus: window aggregates failed '
             '(Prometheus at x: refused): the windows of the samples are '
             'served', 'Load source prometheus: window aggregates are '
             'back'], [record.getMessage() for record in logs.records])
        self.assertEqual((True, 'ok'), watcher.health(1080.0))
        self.assertEqual(42.0, watcher.latest()['compute-01']['cpu']['avg'])


class TestTLS(base.TestCase):

    def test_skip_verify_reaches_the_https_connection(self):
        source = prometheus.PrometheusSource(
            url='https://prom.example:9091', insecure_skip_verify=True)
        self.assertEqual(ssl.CERT_NONE, source.context.verify_mode)
        self.assertFalse(source.context.check_hostname)
        with mock.patch.object(http.client, 'HTTPSConnection') as https:
            https.return_value.request.side_effect = ConnectionRefusedError(
                111, 'Connection refused')
            self.assertRaises(sources.SourceError, source.collect, 0.0)
        https.assert_called_once_with('prom.example', 9091,
                                      timeout=mock.ANY,
                                      context=source.context)

    def test_a_ca_file(self):
        source = prometheus.PrometheusSource(
            url='https://prom.example', ca_file=certifi.where())
        self.assertEqual(ssl.CERT_REQUIRED, source.context.verify_mode)
        self.assertTrue(source.context.check_hostname)
        self.assertLess(0, len(source.context.get_ca_certs()))

    def test_neither_the_system_default(self):
        source = prometheus.PrometheusSource(url='https://prom.example')
        self.assertIsNone(source.context)

    def test_a_bad_ca_file_is_one_line(self):
        path = self.useFixture(fixtures.TempDir()).join('ca.pem')
        with open(path, 'w') as stream:
            stream.write('not a certificate\n')
        error = self.assertRaises(exception.InvalidInput,
                                  prometheus.PrometheusSource,
                                  url='https://x', ca_file=path)
        text = str(error)
        self.assertIn('[load_watcher] prometheus_ca_file', text)
        self.assertIn(path, text)
        self.assertNotIn('\n', text)

    def test_headers_and_context_passed_to_the_read(self):
        with mock.patch.object(reading, 'get',
                               return_value=(200, _vector({}))) as get:
            source = prometheus.PrometheusSource(
                url='https://prom.example', insecure_skip_verify=True)
            source.collect(0.0)
        self.assertEqual(2, get.call_count)
        self.assertIs(source.context, get.call_args[0][4])
        self.assertIsNone(get.call_args[0][3])


class TestOptions(test_checks.ConfigFileTestCase):

    def test_files_readable_and_ca_or_skip(self):
        gone = self.useFixture(fixtures.TempDir()).join('gone')
        path = self.load('[load_watcher]\n'
                         'prometheus_bearer_token_file = %s\n'
                         'prometheus_ca_file = %s\n'
                         'prometheus_insecure_skip_verify = true\n'
                         % (gone, gone))
        found = [line for line in checks.problems(CONF)
                 if 'prometheus' in line]
        self.assertEqual([
            '%s: [load_watcher] prometheus_bearer_token_file = %s: not a '
            'readable file' % (path, gone),
            '%s: [load_watcher] prometheus_ca_file = %s: not a readable '
            'file' % (path, gone),
            '%s: [load_watcher] prometheus_insecure_skip_verify: cannot be '
            'set with prometheus_ca_file' % path], found)
