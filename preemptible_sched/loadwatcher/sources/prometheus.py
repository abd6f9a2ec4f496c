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

import json
import math
import re
import urllib.error
import urllib.parse
import urllib.request

from preemptible_sched.conf import CONF
from preemptible_sched.conf import load as load_conf
from preemptible_sched.loadwatcher import sources

#: Largest response read from Prometheus (a big cloud's two vectors).
MAX_RESPONSE_BYTES = 64 * 1024 * 1024


def _fetch(url, timeout):
    if not load_conf.is_http_url(url):
        raise sources.SourceError('Prometheus URL %r: must be an http:// or '
                                  'https:// URL' % url.split('/api/')[0])
    try:
        # An http(s) URL, checked above (and by the options).
        with urllib.request.urlopen(url,  # nosec B310
                                    timeout=timeout) as response:
            return response.read(MAX_RESPONSE_BYTES + 1)
    except urllib.error.HTTPError as error:
        # Prometheus answers a bad query with 400 and a JSON error body.
        return error.read(MAX_RESPONSE_BYTES + 1)
    except (urllib.error.URLError, OSError, ValueError) as error:
        raise sources.SourceError('Prometheus at %s: %s' % (
            url.split('/api/')[0], getattr(error, 'reason', error)))


class PrometheusSource(sources.MetricsSource):
    """CPU and memory utilisation from two PromQL instant queries.

    Each query must return an instant vector of percentages with one
    series per host; the host is named by the label
    ``[load_watcher] prometheus_host_label``, cut by the regular expression
    ``prometheus_host_pattern`` (its first group): node_exporter's
    ``instance`` label is usually ``address:port``, not the host name.
    Series whose host cannot be named, or whose value is not a number, are
    skipped; a failing query fails the whole collection (the watcher then
    reports itself unhealthy and keeps its windows).
    """

    def __init__(self, url=None, cpu_query=None, memory_query=None,
                 host_label=None, host_pattern=None, timeout=None,
                 fetch=_fetch):
        conf = CONF.load_watcher
        self.url = (url or conf.prometheus_url).rstrip('/')
        self.queries = {'cpu': cpu_query or conf.prometheus_cpu_query,
                        'memory': (memory_query or
                                   conf.prometheus_memory_query)}
        self.host_label = host_label or conf.prometheus_host_label
        self.host_pattern = re.compile(host_pattern or
                                       conf.prometheus_host_pattern)
        self.timeout = timeout or conf.prometheus_timeout
        self.fetch = fetch

    def query(self, promql, now):
        """``{host: value}`` of one instant query evaluated at ``now``."""
        url = '%s/api/v1/query?%s' % (self.url, urllib.parse.urlencode(
            {'query': promql, 'time': '%.3f' % now}))
        body = self.fetch(url, self.timeout)
        if len(body) > MAX_RESPONSE_BYTES:
            raise sources.SourceError('Prometheus answer larger than %d '
                                      'bytes' % MAX_RESPONSE_BYTES)
        try:
            answer = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            raise sources.SourceError('Prometheus answer is not JSON')
        if not isinstance(answer, dict) or answer.get('status') != 'success':
            error = answer.get('error') if isinstance(answer, dict) else None
            raise sources.SourceError('Prometheus query failed: %s' % (
                error or 'no status "success"'))
        data = answer.get('data') or {}
        if data.get('resultType') != 'vector':
            raise sources.SourceError(
                'Prometheus query returned %r, not an instant vector'
                % data.get('resultType'))
        values = {}
        for series in data.get('result') or ():
            try:
                label = series['metric'][self.host_label]
                value = float(series['value'][1])
            except (KeyError, IndexError, TypeError, ValueError):
                continue
            match = self.host_pattern.match(label)
            if match is None or not math.isfinite(value):
                continue
            values[match.group(1)] = value
        return values

    def collect(self, now):
        cpu = self.query(self.queries['cpu'], now)
        memory = self.query(self.queries['memory'], now)
        return {host: (cpu.get(host), memory.get(host))
                for host in sorted(set(cpu) | set(memory))}
