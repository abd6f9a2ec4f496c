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

"""The ``prometheus`` load source against a real Prometheus server.

The test starts the ``prometheus`` binary on a free port of 127.0.0.1,
with a throwaway TSDB and a scrape interval of one second, scraping a
small exporter run by the test. The exporter serves three hosts' CPU
utilisation (in %) and memory utilisation (a ratio) with explicit
timestamps: at each scrape the next sample of a known sequence, 30 s
apart, the last one at the test's start, so that after some 40 scrapes
Prometheus holds 20 minutes of history and the 5, 10 and 15 minute
windows hold 10, 20 and 30 samples. The source then asks Prometheus its
window aggregates (``avg_over_time(q[W])`` for the metric name,
``avg_over_time((100 * q)[W:])`` for the memory expression, and the
``stddev_over_time`` of both) through a small proxy that records the
``Authorization`` header; the test checks them against the mean and the
population standard deviation of the samples Prometheus returns for the
bare range ``q[W]`` (or the subquery ``(100 * q)[W:]``), and that the
stored samples are the ones served.

Without the ``prometheus`` binary on the PATH the test is skipped, or
fails when ``PSCHED_TEST_REQUIRE_PROMETHEUS=1`` (as in ``tox -e
functional-real``).
"""

import http.server
import json
import math
import os
import shutil
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

import fixtures
from testtools import content

from preemptible_sched import loadwatcher
from preemptible_sched.loadwatcher.load_sources import prometheus
from tests import base

#: The exporter's series: the instance label each host's series carry
#: (Prometheus keeps them: honor_labels), and the host name the source's
#: default ``prometheus_host_pattern`` makes of it (None: skipped).
INSTANCES = {
    'compute-1:9100': 'compute-1',
    'compute-2.example.org:9100': 'compute-2.example.org',
    'compute-3': 'compute-3',
    'not:a:host': None,
}
CPU = 'psched_test_cpu_percent'
MEMORY_RATIO = 'psched_test_memory_ratio'
#: What the source is configured with: a metric name (a range selector)
#: and an expression (a subquery).
CPU_QUERY = CPU
MEMORY_QUERY = '100 * %s' % MEMORY_RATIO

#: Samples per series, seconds between their timestamps, and how long
#: after the last one the source evaluates its queries (between samples,
#: so that no sample sits on a window's edge).
SAMPLES = 40
SPACING = 30
AFTER_LAST = 10
#: Samples of the 5, 10 and 15 minute windows ending AFTER_LAST seconds
#: after the last sample.
IN_WINDOW = {'5m': 10, '10m': 20, '15m': 30}

#: Longest wall-clock wait for Prometheus to start, and to hold every
#: sample (some 40 scrapes at one a second, on a loaded machine).
START_WAIT = 60.0
SAMPLES_WAIT = 300.0
TOKEN = 'psched-test-token.0123456789'


def cpu_value(index, host):
    """The CPU % of sample ``index`` of the ``host``-th series."""
    return 10.0 + 7.5 * host + ((index * 7 + 3 * host) % 13) * 2.25


def memory_ratio(index, host):
    """The memory ratio of sample ``index`` of the ``host``-th series."""
    return 0.3 + 0.05 * host + ((index * 5 + host) % 7) * 0.0125


def free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def close_enough(expected, found):
    return math.isclose(expected, found, rel_tol=1e-9, abs_tol=1e-9)


def mean_and_deviation(values):
    """The mean and the population standard deviation (as Prometheus'
    ``stddev_over_time``) of ``values``.
    """
    mean = math.fsum(values) / len(values)
    return mean, math.sqrt(math.fsum((value - mean) ** 2
                                     for value in values) / len(values))


class Exporter:
    """Text-format metrics on 127.0.0.1: at the n-th scrape, sample
    ``min(n, SAMPLES - 1)`` of every series, timestamped ``first + n *
    SPACING`` seconds.
    """

    def __init__(self, first):
        self.first = first
        self.scrapes = 0
        self.lock = threading.Lock()
        exporter = self

        class Handler(http.server.BaseHTTPRequestHandler):

            def do_GET(self):
                with exporter.lock:
                    index = min(exporter.scrapes, SAMPLES - 1)
                    exporter.scrapes += 1
                body = exporter.page(index).encode()
                self.send_response(200)
                self.send_header('Content-Type',
                                 'text/plain; version=0.0.4')
                self.send_header('Content-Length', str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(('127.0.0.1', 0),
                                                      Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever,
                                       daemon=True)

    def timestamp(self, index):
        return self.first + index * SPACING

    def page(self, index):
        stamp = self.timestamp(index) * 1000
        lines = ['# TYPE %s gauge' % CPU, '# TYPE %s gauge' % MEMORY_RATIO]
        for host, instance in enumerate(INSTANCES):
            lines.append('%s{instance="%s"} %r %d' % (
                CPU, instance, cpu_value(index, host), stamp))
            lines.append('%s{instance="%s"} %r %d' % (
                MEMORY_RATIO, instance, memory_ratio(index, host), stamp))
        return '\n'.join(lines) + '\n'

    def start(self):
        self.thread.start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


class AuthorizationRecorder:
    """A proxy on 127.0.0.1 to ``target`` that records the
    ``Authorization`` header of every request.
    """

    def __init__(self, target):
        self.seen = []
        recorder = self

        class Handler(http.server.BaseHTTPRequestHandler):

            def do_GET(self):
                recorder.seen.append(self.headers.get('Authorization'))
                try:
                    with urllib.request.urlopen(
                            target + self.path, timeout=30) as answer:
                        status, body = answer.status, answer.read()
                except urllib.error.HTTPError as error:
                    status, body = error.code, error.read()
                self.send_response(status)
                self.send_header('Content-Type', 'application/json')
                self.send_header('Content-Length', str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(('127.0.0.1', 0),
                                                      Handler)
        self.url = 'http://127.0.0.1:%d' % self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever,
                                       daemon=True)

    def start(self):
        self.thread.start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


class TestRealPrometheus(base.TestCase):

    def setUp(self):
        super().setUp()
        self.binary = shutil.which('prometheus')
        if self.binary is None:
            reason = ('no prometheus binary on the PATH (Debian: apt-get '
                      'install prometheus)')
            if os.environ.get('PSCHED_TEST_REQUIRE_PROMETHEUS') == '1':
                self.fail('%s, and PSCHED_TEST_REQUIRE_PROMETHEUS=1' %
                          reason)
            self.skipTest(reason)
        self.tmp = self.useFixture(fixtures.TempDir()).path
        # The last sample at the start, the first 19.5 minutes before.
        last = int(time.time())
        self.exporter = Exporter(last - (SAMPLES - 1) * SPACING)
        self.exporter.start()
        self.addCleanup(self.exporter.stop)
        self.at = self.exporter.timestamp(SAMPLES - 1) + AFTER_LAST
        self.url = self._start_prometheus()

    # --- Prometheus as a subprocess -------------------------------------

    def _start_prometheus(self):
        config = os.path.join(self.tmp, 'prometheus.yml')
        with open(config, 'w') as out:
            out.write(
                'global:\n'
                '  scrape_interval: 1s\n'
                '  scrape_timeout: 1s\n'
                '  evaluation_interval: 15s\n'
                'scrape_configs:\n'
                '  - job_name: psched-test\n'
                '    honor_labels: true\n'
                '    honor_timestamps: true\n'
                '    static_configs:\n'
                "      - targets: ['127.0.0.1:%d']\n" % self.exporter.port)
        log_path = os.path.join(self.tmp, 'prometheus.log')
        self.addOnException(lambda exc_info: self.addDetail(
            'prometheus.log', content.content_from_file(
                log_path, buffer_now=True)))
        for attempt in range(3):
            port = free_port()
            with open(log_path, 'ab') as log:
                process = subprocess.Popen(
                    [self.binary, '--config.file=' + config,
                     '--storage.tsdb.path=' + os.path.join(
                         self.tmp, 'data-%d' % attempt),
                     '--web.listen-address=127.0.0.1:%d' % port,
                     '--log.level=info'],
                    stdin=subprocess.DEVNULL, stdout=log, stderr=log)
            self.addCleanup(self._stop, process)
            url = 'http://127.0.0.1:%d' % port
            deadline = time.monotonic() + START_WAIT
            while process.poll() is None and time.monotonic() < deadline:
                try:
                    with urllib.request.urlopen(
                            url + '/-/ready', timeout=5) as answer:
                        if answer.status == 200:
                            return url
                except OSError:
                    pass
                time.sleep(0.2)
            if process.poll() is None:
                self.fail('prometheus not ready within %g s' % START_WAIT)
            # It died: most likely the port was taken meanwhile.
        self.fail('prometheus exited at start three times (see its log)')

    @staticmethod
    def _stop(process):
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def _api(self, promql):
        """The ``data`` of the instant query ``promql`` at ``self.at``."""
        url = '%s/api/v1/query?%s' % (self.url, urllib.parse.urlencode(
            {'query': promql, 'time': '%d' % self.at}))
        with urllib.request.urlopen(url, timeout=30) as answer:
            document = json.load(answer)
        self.assertEqual('success', document['status'], document)
        return document['data']

    def _range(self, promql):
        """``{instance: [(timestamp, value)]}`` of a range selector or a
        subquery evaluated at ``self.at``.
        """
        data = self._api(promql)
        self.assertEqual('matrix', data['resultType'])
        return {series['metric'].get('instance'):
                [(float(stamp), float(value))
                 for stamp, value in series['values']]
                for series in data['result']}

    def _wait_for_every_sample(self):
        """Until Prometheus holds every series' last sample (bounded)."""
        last = float(self.exporter.timestamp(SAMPLES - 1))
        deadline = time.monotonic() + SAMPLES_WAIT
        while True:
            found = {}
            for metric in (CPU, MEMORY_RATIO):
                for instance, samples in self._range(
                        '%s[30m]' % metric).items():
                    found[metric, instance] = samples[-1][0] if samples \
                        else None
            if len(found) == 2 * len(INSTANCES) and \
                    all(stamp == last for stamp in found.values()):
                return
            if time.monotonic() > deadline:
                self.fail('Prometheus did not hold the last samples within '
                          '%g s (%d scrapes served; last stored: %r)' % (
                              SAMPLES_WAIT, self.exporter.scrapes, found))
            time.sleep(0.5)

    # --- the test -------------------------------------------------------

    def test_windows_hosts_and_token(self):
        self._wait_for_every_sample()
        hosts = {host for host in INSTANCES.values() if host}

        # The samples stored are those served, at their timestamps (all
        # of them unless a scrape failed), and each window holds those of
        # its span.
        everything = self._range('%s[30m]' % CPU)
        for index, instance in enumerate(INSTANCES):
            served = {float(self.exporter.timestamp(sample)):
                      cpu_value(sample, index)
                      for sample in range(SAMPLES)}
            stored = dict(everything[instance])
            self.assertLessEqual(set(stored), set(served), instance)
            self.assertEqual({stamp: served[stamp] for stamp in stored},
                             stored, instance)
            self.addDetail('samples of %s' % instance, content.text_content(
                '%d of %d stored' % (len(stored), SAMPLES)))
            for window, seconds in loadwatcher.WINDOWS:
                span = [stamp for stamp in stored
                        if self.at - seconds <= stamp <= self.at]
                self.assertGreater(len(span), IN_WINDOW[window] // 2)
                self.assertEqual(sorted(span), [stamp for stamp, _ in
                                                self._range('%s[%s]' % (
                                                    CPU, window))[instance]])

        token_file = os.path.join(self.tmp, 'token')
        with open(token_file, 'w') as out:
            out.write(TOKEN + '\n')
        proxy = AuthorizationRecorder(self.url)
        proxy.start()
        self.addCleanup(proxy.stop)
        source = prometheus.PrometheusSource(
            url=proxy.url, cpu_query=CPU_QUERY, memory_query=MEMORY_QUERY,
            bearer_token_file=token_file, timeout=60.0)

        found = source.window_stats(float(self.at))

        # Every query carried the token.
        self.assertEqual(['Bearer ' + TOKEN] * 12, proxy.seen)
        self.assertEqual(hosts, set(found))
        for window, _ in loadwatcher.WINDOWS:
            expected = {}
            for resource, query in (('cpu', CPU_QUERY),
                                    ('memory', MEMORY_QUERY)):
                # The bare range (of a metric name) or subquery (of an
                # expression) the aggregates run over, as Prometheus
                # evaluates it.
                raw = ('%s[%s]' % (query, window) if query == CPU else
                       '(%s)[%s:]' % (query, window))
                for instance, samples in self._range(raw).items():
                    host = INSTANCES[instance]
                    if host is None:
                        continue
                    expected.setdefault(host, {})[resource] = \
                        mean_and_deviation([value for _, value in samples])
            for host in hosts:
                for resource in ('cpu', 'memory'):
                    want = expected[host][resource]
                    got = found[host][window][resource]
                    self.assertTrue(
                        close_enough(want[0], got[0]) and
                        close_enough(want[1], got[1]),
                        '%s %s %s: (average, deviation) %r from '
                        'Prometheus, %r from its samples' % (
                            host, window, resource, got, want))
                    self.assertGreater(got[1], 0.0)
        # The windows differ: they hold different samples.
        for host in hosts:
            self.assertEqual(3, len({found[host][window]['cpu']
                                     for window in IN_WINDOW}), host)

        # The values now: the last samples, the memory one in %.
        del proxy.seen[:]
        self.assertEqual(
            {host: (cpu_value(SAMPLES - 1, index),
                    100 * memory_ratio(SAMPLES - 1, index))
             for index, host in enumerate(INSTANCES.values()) if host},
            source.collect(float(self.at)))
        self.assertEqual(['Bearer ' + TOKEN] * 2, proxy.seen)
