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

import os
import urllib.parse

from preemptible_sched.loadwatcher import sources
from preemptible_sched.loadwatcher.sources import prometheus
from tests import base

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
