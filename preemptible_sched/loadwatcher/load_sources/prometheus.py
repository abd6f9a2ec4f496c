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


"""Utilisation read from a Prometheus server's HTTP API."""

import collections
import logging
import math
import re
import ssl
import time
import urllib.parse

from preemptible_sched.conf import CONF
from preemptible_sched.conf import load_watcher as watcher_conf
from preemptible_sched import exception
from preemptible_sched import loadwatcher
from preemptible_sched.loadwatcher import load_sources as sources
from preemptible_sched.loadwatcher import reading

LOG = logging.getLogger(__name__)

#: Longest host name taken from a label (DNS names are at most 253).
MAX_HOST_NAME = 255
#: The window aggregates asked for, as the released load watcher does.
AVERAGE = 'avg_over_time'
DEVIATION = 'stddev_over_time'
# A metric name with optional label matchers: a range selector applies
# to it; any other expression needs a subquery.
_SELECTOR = re.compile(r'^\s*[A-Za-z_:][A-Za-z0-9_:]*\s*(\{[^{}]*\})?\s*$')


def window_query(function, promql, window):
    """``function`` (``avg_over_time``, ``stddev_over_time``) of
    ``promql`` over ``window`` (``15m``): a range selector on a metric
    name, as the released load watcher asks (``avg_over_time(m[15m])``),
    else a subquery at Prometheus' default resolution.
    """
    if _SELECTOR.match(promql):
        return '%s(%s[%s])' % (function, promql.strip(), window)
    return '%s((%s)[%s:])' % (function, promql, window)


def tls_context(ca_file=None, insecure_skip_verify=False):
    """The :class:`ssl.SSLContext` for an https Prometheus (None: the
    default one); a CA file that cannot be read is
    :class:`~preemptible_sched.exception.InvalidInput`.
    """
    if not ca_file and not insecure_skip_verify:
        return None
    try:
        context = ssl.create_default_context(cafile=ca_file or None)
    except (OSError, ssl.SSLError) as error:
        raise exception.InvalidInput(
            '[load_watcher] prometheus_ca_file', None, '%s: %s' % (
                ca_file, _one_line(getattr(error, 'strerror', None) or
                                   error)))
    if insecure_skip_verify:
        # Asked for by the operator ([load_watcher]
        # prometheus_insecure_skip_verify), as the released watcher's
        # INSECURE_SKIP_VERIFY.
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    return context


def _one_line(text, limit=200):
    return ' '.join(str(text).split())[:limit]


def _kind(value):
    return type(value).__name__


class _Skip(Exception):
    """A series not in the format of Prometheus' API (why, one line)."""


class PrometheusSource(sources.MetricsSource):
    """CPU and memory utilisation from two PromQL expressions.

    :meth:`collect` asks for their value now (the latest value, and
    whether a host still reports); :meth:`window_stats` for their average
    and standard deviation over each window, as the released load watcher
    does (:func:`window_query`), which the watcher serves in place of the
    statistics of its own samples. Each query must return an instant
    vector of percentages with one series per host; the host is named by
    the label
    ``[load_watcher] prometheus_host_label``, cut by the regular expression
    ``prometheus_host_pattern`` (its first group): node_exporter's
    ``instance`` label is usually ``address:port``, not the host name.
    Series whose label is missing or does not name a host, or whose value
    is NaN or infinite, are skipped; so are series that are not in the
    format of Prometheus' API (a label or value of the wrong type, a value
    that is not a number), with a warning. An answer that is not an
    instant vector, larger than ``[load_watcher] max_response_bytes``,
    nested deeper than :data:`.reading.MAX_DEPTH`, or not whole within
    ``prometheus_timeout`` (all the queries of one call together) fails
    the whole collection: the watcher then reports itself unhealthy and
    keeps its windows. ``bearer_token_file``, ``ca_file`` and
    ``insecure_skip_verify`` default to the ``prometheus_*`` options of
    the same names.
    """

    name = 'prometheus'

    def __init__(self, url=None, cpu_query=None, memory_query=None,
                 host_label=None, host_pattern=None, timeout=None,
                 fetch=None, max_bytes=None, bearer_token_file=None,
                 ca_file=None, insecure_skip_verify=None):
        conf = CONF.load_watcher
        self.bearer_token_file = (bearer_token_file or
                                  conf.prometheus_bearer_token_file)
        self.context = tls_context(
            ca_file or conf.prometheus_ca_file,
            conf.prometheus_insecure_skip_verify
            if insecure_skip_verify is None else insecure_skip_verify)
        self.url = (url or conf.prometheus_url).rstrip('/')
        self.queries = {'cpu': cpu_query or conf.prometheus_cpu_query,
                        'memory': (memory_query or
                                   conf.prometheus_memory_query)}
        self.host_label = host_label or conf.prometheus_host_label
        self.host_pattern = re.compile(host_pattern or
                                       conf.prometheus_host_pattern)
        self.timeout = timeout or conf.prometheus_timeout
        self.max_bytes = max_bytes or conf.max_response_bytes
        self.fetch = fetch or self._fetch
        self._skipped_logged = {}

    def _fetch(self, url, timeout):
        """The body of ``GET url`` within ``timeout`` seconds in all."""
        if not watcher_conf.is_http_url(url):
            raise sources.SourceError('Prometheus URL %r: must be an '
                                      'http:// or https:// URL'
                                      % url.split('/api/')[0])
        try:
            # Prometheus explains a bad query in the body of its 400.
            return reading.get(url, timeout, self.max_bytes,
                               self._headers(), self.context)[1]
        except reading.ReadError as error:
            if error.timed_out:     # said with the deadline of the whole
                error = 'no whole answer within %g s' % self.timeout
            raise sources.SourceError('Prometheus at %s: %s' % (
                url.split('/api/')[0], error))

    def _headers(self):
        """The ``Authorization`` header, from the token file read now."""
        path = self.bearer_token_file
        if not path:
            return None
        try:
            with open(path, encoding='utf-8') as stream:
                token = stream.read(65537).strip()
        except (OSError, UnicodeDecodeError) as error:
            raise sources.SourceError(
                'Prometheus bearer token file %s: %s' % (path, _one_line(
                    getattr(error, 'strerror', None) or error)))
        if not token or len(token) > 65536 or not token.isprintable() \
                or any(char.isspace() for char in token):
            # Never its content in a log line: it is a secret.
            raise sources.SourceError('Prometheus bearer token file %s: '
                                      'not one token' % path)
        return {'Authorization': 'Bearer ' + token}

    def _vector(self, body):
        """The ``result`` list of an instant-vector answer."""
        try:
            answer = reading.loads(body)
        except ValueError as error:
            raise sources.SourceError('Prometheus answer is not usable: %s'
                                      % error)
        if not isinstance(answer, dict):
            raise sources.SourceError('Prometheus answer is a JSON %s, not '
                                      'an object' % _kind(answer))
        if answer.get('status') != 'success':
            error = answer.get('error')
            raise sources.SourceError('Prometheus query failed: %s' % (
                _one_line(error) if isinstance(error, str) and error.strip()
                else 'no status "success"'))
        data = answer.get('data')
        if not isinstance(data, dict):
            raise sources.SourceError('Prometheus answer has no "data" '
                                      'object (a JSON %s)' % _kind(data))
        if data.get('resultType') != 'vector':
            raise sources.SourceError(
                'Prometheus query returned %s, not an instant vector'
                % _one_line(repr(data.get('resultType')), 60))
        result = data.get('result')
        if result is None:
            return []
        if not isinstance(result, list):
            raise sources.SourceError('Prometheus "result" is a JSON %s, '
                                      'not a list' % _kind(result))
        return result

    def _host(self, labels):
        """The host ``labels`` name, or None (skipped without a word)."""
        label = labels.get(self.host_label)
        if label is None:
            return None
        if not isinstance(label, str):
            raise _Skip('label %s is a JSON %s, not a string'
                        % (self.host_label, _kind(label)))
        match = self.host_pattern.match(label)
        host = match.group(1) if match else None
        if not host:
            return None
        if len(host) > MAX_HOST_NAME:
            raise _Skip('host name longer than %d characters'
                        % MAX_HOST_NAME)
        if not host.isprintable():
            # A line break or a NUL would forge or cut the log lines.
            raise _Skip('host name with control characters')
        return host

    @staticmethod
    def _value(series):
        sample = series.get('value')
        if not isinstance(sample, list) or len(sample) != 2:
            raise _Skip('value is not a [time, "number"] pair')
        text = sample[1]
        if isinstance(text, bool) or \
                not isinstance(text, (str, int, float)):
            raise _Skip('value is a JSON %s, not a number' % _kind(text))
        try:
            return float(text)
        except OverflowError:       # an int beyond the floats
            return math.inf
        except ValueError:
            raise _Skip('value %r is not a number' % _one_line(text, 40))

    def query(self, promql, now, timeout=None):
        """``{host: value}`` of one instant query evaluated at ``now``."""
        url = '%s/api/v1/query?%s' % (self.url, urllib.parse.urlencode(
            {'query': promql, 'time': '%.3f' % now}))
        body = self.fetch(url, self.timeout if timeout is None else timeout)
        if len(body) > self.max_bytes:
            raise sources.SourceError('Prometheus answer larger than %d '
                                      'bytes' % self.max_bytes)
        values = {}
        skipped = collections.Counter()
        for series in self._vector(body):
            try:
                if not isinstance(series, dict) or \
                        not isinstance(series.get('metric'), dict):
                    raise _Skip('series is not {"metric": {...}, '
                                '"value": [...]}')
                host = self._host(series['metric'])
                if host is None:
                    continue
                value = self._value(series)
            except _Skip as why:
                skipped[str(why)] += 1
                continue
            if math.isfinite(value):
                values[host] = value
        self._say_skipped(promql, skipped)
        return values

    def _say_skipped(self, promql, skipped):
        """One warning when a query's malformed series change kind."""
        kinds = frozenset(skipped)
        if kinds and kinds != self._skipped_logged.get(promql):
            LOG.warning('Prometheus query %s: %d series skipped, not in the '
                        'format of its API (%s)', _one_line(promql, 80),
                        sum(skipped.values()), '; '.join(
                            '%d: %s' % (count, why) for why, count in
                            sorted(skipped.items())[:3]))
        self._skipped_logged[promql] = kinds

    def _queries(self, promqls, now):
        """``[{host: value}]`` of each of ``promqls``, all within
        ``timeout`` seconds together.
        """
        deadline = time.monotonic() + self.timeout
        found = []
        for promql in promqls:
            left = deadline - time.monotonic()
            if left <= 0:
                raise sources.SourceError('Prometheus at %s: no whole '
                                          'answer within %g s'
                                          % (self.url, self.timeout))
            found.append(self.query(promql, now, left))
        return found

    def collect(self, now):
        cpu, memory = self._queries([self.queries['cpu'],
                                     self.queries['memory']], now)
        return {host: (cpu.get(host), memory.get(host))
                for host in sorted(set(cpu) | set(memory))}

    def window_stats(self, now):
        """``{host: {window: {resource: (average, deviation)}}}`` as
        Prometheus computes them over each window ending at ``now``
        (:func:`window_query`), all queries within ``timeout`` seconds; a
        pair is given only when both are numbers.
        """
        asked = [(window, resource, function)
                 for window, _ in loadwatcher.WINDOWS
                 for resource in ('cpu', 'memory')
                 for function in (AVERAGE, DEVIATION)]
        answers = self._queries([
            window_query(function, self.queries[resource], window)
            for window, resource, function in asked], now)
        values = {}
        for (window, resource, function), answer in zip(asked, answers):
            for host, value in answer.items():
                values.setdefault((host, window, resource), {})[
                    function] = value
        found = {}
        for (host, window, resource), pair in values.items():
            # Both or neither: the watcher keeps its own window else.
            if len(pair) == 2:
                found.setdefault(host, {}).setdefault(window, {})[
                    resource] = (pair[AVERAGE], pair[DEVIATION])
        return found
