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


"""The Prometheus source against recorded answers of its HTTP API."""

import json
import logging
import os
import time
import urllib.parse

import fixtures

from preemptible_sched.loadwatcher import load_sources as sources
from preemptible_sched.loadwatcher.load_sources import prometheus
from preemptible_sched.loadwatcher import watcher as watcher_mod
from tests import base
from tests.unit.loadwatcher import hostile

RECORDED = os.path.join(os.path.dirname(__file__), 'prometheus')
CPU_QUERY = 'cpu_busy_percent'
MEMORY_QUERY = 'memory_used_percent'


def recorded(name):
    with open(os.path.join(RECORDED, name), 'rb') as stream:
        return stream.read()


class TestPrometheusSource(base.TestCase):

    def _source(self, answers, **kw):
        self.urls = []

        def fetch(url, timeout):
            self.urls.append(url)
            query = urllib.parse.parse_qs(
                urllib.parse.urlsplit(url).query)['query'][0]
            return recorded(answers[query])
        return prometheus.PrometheusSource(
            url='http://prom.example:9090/', cpu_query=CPU_QUERY,
            memory_query=MEMORY_QUERY, fetch=fetch, **kw)

    def test_hosts_named_by_label_without_port(self):
        source = self._source({CPU_QUERY: 'cpu.json',
                               MEMORY_QUERY: 'memory.json'})
        found = source.collect(1700001500.0)
        self.assertEqual({'compute-01': (37.25, 62.0),
                          'compute-02': (81.5, 44.75),
                          '10.1.0.7': (3.0, None),
                          'compute-04': (None, 10.0)}, found)
        # series without the label, or with NaN, are skipped
        self.assertNotIn('compute-03', found)
        self.assertTrue(self.urls[0].startswith(
            'http://prom.example:9090/api/v1/query?query=cpu_busy_percent'
            '&time=1700001500.000'), self.urls[0])

    def test_label_and_pattern_are_options(self):
        source = self._source({CPU_QUERY: 'cpu.json',
                               MEMORY_QUERY: 'memory.json'},
                              host_pattern=r'^(compute-\d+)\.?.*$')
        found = source.collect(0.0)
        # 10.1.0.7:9100 does not match: skipped.
        self.assertEqual({'compute-01', 'compute-02', 'compute-04'},
                         set(found))
        source = self._source({CPU_QUERY: 'cpu.json',
                               MEMORY_QUERY: 'memory.json'},
                              host_label='job', host_pattern='^(.*)$')
        self.assertEqual({'node': (50.0, None)}, source.collect(0.0))

    def test_errors_fail_the_collection(self):
        for answers, message in (
                ({CPU_QUERY: 'bad_query.json'}, 'parse error'),
                ({CPU_QUERY: 'matrix.json'}, "'matrix'"),
        ):
            source = self._source(answers)
            error = self.assertRaises(sources.SourceError, source.collect,
                                      0.0)
            self.assertIn(message, str(error))

    def test_not_json(self):
        source = prometheus.PrometheusSource(
            url='http://x', cpu_query='q', memory_query='q',
            fetch=lambda url, timeout: b'<html>proxy error</html>')
        self.assertRaises(sources.SourceError, source.collect, 0.0)

    def test_only_http_urls_are_opened(self):
        source = prometheus.PrometheusSource(url='file:///etc',
                                             timeout=1.0)
        error = self.assertRaises(sources.SourceError, source.collect, 0.0)
        self.assertIn('must be an http:// or https:// URL', str(error))

    def test_unreachable(self):
        # Nothing listens on port 9 of localhost (discard, closed).
        source = prometheus.PrometheusSource(url='http://127.0.0.1:9',
                                             timeout=1.0)
        error = self.assertRaises(sources.SourceError, source.collect, 0.0)
        self.assertIn('Prometheus at http://127.0.0.1:9', str(error))


class TestRecordedFromARealPrometheus(base.TestCase):
    """Answers recorded from a real Prometheus 2.42 (Debian's package)
    scraping a real node_exporter on 127.0.0.1:9100 every 2 s, to the
    default queries of ``[load_watcher] prometheus_cpu_query`` and
    ``prometheus_memory_query`` (and the CPU query with a parenthesis
    missing, answered HTTP 400): the ``instance`` label is ``IP:port``.
    """

    def source(self, cpu='node_exporter_cpu.json'):
        answers = {
            prometheus.CONF.load_watcher.prometheus_cpu_query: cpu,
            prometheus.CONF.load_watcher.prometheus_memory_query:
                'node_exporter_memory.json'}

        def fetch(url, timeout):
            query = urllib.parse.parse_qs(
                urllib.parse.urlsplit(url).query)['query'][0]
            return recorded(answers[query])
        return prometheus.PrometheusSource(fetch=fetch)

    def test_default_queries_name_the_host_without_its_port(self):
        self.assertEqual({'127.0.0.1': (79.81896551724141,
                                        6.245617973493789)},
                         self.source().collect(1795709181.0))

    def test_a_parse_error_fails_the_collection_with_its_message(self):
        error = self.assertRaises(
            sources.SourceError,
            self.source('node_exporter_parse_error.json').collect, 0.0)
        self.assertIn('unclosed left parenthesis', str(error))


#: What each hostile answer of :data:`hostile.PROMETHEUS_BODIES` must
#: give: the collection fails (a SourceError of one line), or the bad
#: series are skipped with a warning, or skipped quietly (a value
#: Prometheus itself may give, or a label that names no host), or the
#: series is kept (its time is not read).
FAILS, WARNS, QUIET, KEPT = 'fails', 'warns', 'quiet', 'kept'
EXPECTED = {
    'answer_list': FAILS, 'data_list': FAILS, 'result_dict': FAILS,
    'result_number': FAILS, 'series_list': WARNS, 'metric_list': WARNS,
    'label_list': WARNS, 'label_dict': WARNS, 'label_number': WARNS,
    'label_null': QUIET, 'label_empty': QUIET, 'label_long': WARNS,
    'label_controls': WARNS, 'value_list': WARNS, 'value_dict': WARNS,
    'value_bool': WARNS, 'value_word': WARNS, 'value_nan': QUIET,
    'value_inf': QUIET, 'value_400_digit_string': QUIET,
    'value_triple': WARNS, 'value_400_digits': QUIET,
    'time_5000_digits': KEPT, 'deep_nesting': FAILS,
    'deep_in_metric': FAILS, 'error_dict': FAILS, 'error_long': FAILS,
    'no_status': FAILS, 'matrix': FAILS, 'result_type_huge': FAILS,
    'not_json': FAILS, 'not_utf8': FAILS, 'empty': FAILS, 'huge': FAILS,
    'escaped_quotes': FAILS,
}


class TestHostileAnswers(base.TestCase):
    """Issue 26 item 5: the watcher died on a list where an object is
    expected, strings or lists in labels, deep nesting and huge integers
    (TypeError, AttributeError, RecursionError, OverflowError).
    """

    def setUp(self):
        super().setUp()
        self.log = self.useFixture(fixtures.FakeLogger(
            level=logging.WARNING, name=prometheus.__name__))

    def source(self, body, **kw):
        good = hostile.good_prometheus_body(('compute-09',))

        def fetch(url, timeout):
            # The CPU query gets the hostile answer, memory a good one.
            return body if 'cpu_busy' in url else good
        return prometheus.PrometheusSource(
            url='http://prom.example:9090', cpu_query=CPU_QUERY,
            memory_query=MEMORY_QUERY, fetch=fetch,
            max_bytes=16 * 1024 * 1024, **kw)

    def test_every_hostile_answer(self):
        self.assertEqual(set(EXPECTED), set(hostile.PROMETHEUS_BODIES))
        for name, body in sorted(hostile.PROMETHEUS_BODIES.items()):
            self.log.reset_output()
            source = self.source(body)
            if EXPECTED[name] == FAILS:
                error = self.assertRaises(sources.SourceError,
                                          source.collect, 0.0)
                self.assertNotIn('\n', str(error), name)
                self.assertLess(len(str(error)), 300, name)
                continue
            found = source.collect(0.0)
            expected = {'compute-09': (None, 40.0)}
            if EXPECTED[name] == KEPT:
                expected['h'] = (1.0, None)
            self.assertEqual(expected, found, name)
            lines = self.log.output.splitlines()
            if EXPECTED[name] == WARNS:
                self.assertEqual(1, len(lines), (name, lines))
                self.assertIn('series skipped, not in the format of its '
                              'API', lines[0])
            else:
                self.assertEqual([], lines, name)

    def test_the_watcher_survives_every_hostile_answer(self):
        for name, body in sorted(hostile.PROMETHEUS_BODIES.items()):
            watcher = watcher_mod.LoadWatcher(self.source(body))
            collected = watcher.scrape(1700000000.0)
            self.assertEqual(EXPECTED[name] != FAILS, collected, name)
            self.assertEqual(collected, watcher.health()[0], name)

    def test_good_series_are_kept_beside_bad_ones(self):
        body = json.dumps(hostile.prometheus_vector([
            {'metric': {'instance': ['x']}, 'value': [1, '5']},
            {'metric': {'instance': 'compute-01:9100'}, 'value': [1, '7']},
            {'metric': {'instance': 'compute-02:9100'},
             'value': [1, 'high']}])).encode()
        self.assertEqual({'compute-01': 7.0},
                         self.source(body).query(CPU_QUERY, 0.0))
        self.assertIn('2 series skipped, not in the format of its API '
                      '(1: label instance is a JSON list, not a string; '
                      "1: value 'high' is not a number)", self.log.output)
        # the same problems again: not said again
        self.log.reset_output()
        source = self.source(body)
        for _ in range(3):
            source.query(CPU_QUERY, 0.0)
        self.assertEqual(1, len(self.log.output.splitlines()))

    def test_a_slow_prometheus_fails_the_collection_at_its_deadline(self):
        # One byte every 20 ms, both queries: the two together are cut
        # at prometheus_timeout. Before, the watcher waited for ever.
        server = hostile.HostileServer([hostile.Answer(
            hostile.good_prometheus_body(), mode=hostile.DRIP,
            delay=0.02)])
        self.addCleanup(server.close)
        source = prometheus.PrometheusSource(url=server.url, timeout=0.5)
        started = time.monotonic()
        error = self.assertRaises(sources.SourceError, source.collect, 0.0)
        self.assertLess(time.monotonic() - started, 10.0)
        self.assertEqual('Prometheus at %s: no whole answer within 0.5 s'
                         % server.url, str(error))
        self.assertEqual(1, len(server.requests))

    def test_the_deadline_is_for_both_queries(self):
        calls = []

        def fetch(url, timeout):
            calls.append(timeout)
            time.sleep(0.3)
            return hostile.good_prometheus_body()
        source = prometheus.PrometheusSource(
            url='http://x', cpu_query='q1', memory_query='q2', fetch=fetch,
            timeout=0.2)
        self.assertRaises(sources.SourceError, source.collect, 0.0)
        self.assertEqual([0.2], [round(t, 1) for t in calls])

    def test_an_answer_larger_than_the_limit(self):
        server = hostile.HostileServer([hostile.Answer(
            hostile.PROMETHEUS_BODIES['huge'])])
        self.addCleanup(server.close)
        source = prometheus.PrometheusSource(url=server.url,
                                             max_bytes=1024 * 1024)
        error = self.assertRaises(sources.SourceError, source.collect, 0.0)
        self.assertIn('answer larger than 1048576 bytes', str(error))
