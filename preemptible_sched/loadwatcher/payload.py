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


"""The wire format of the load watcher, both ways.

:func:`build` makes the payload the released Trimaran plugins read
(``GET /watcher``); :func:`parse` reads one from any compatible watcher
into the per-host windows :func:`preemptible_sched.hosts.load.build` takes. The
JSON schema ships beside this module (``payload.schema.json``).
"""

import json
import math
import os

import jsonschema

from preemptible_sched import loadwatcher

SCHEMA_PATH = os.path.join(os.path.dirname(__file__), 'payload.schema.json')
#: The metric types and operators of the released watcher.
CPU = 'CPU'
MEMORY = 'Memory'
AVERAGE = 'AVG'
STD = 'STD'
LATEST = 'Latest'
_TYPES = {'cpu': CPU, 'memory': MEMORY}
_RESOURCES = {CPU: 'cpu', MEMORY: 'memory'}
_NAMES = {'cpu': 'host.cpu.utilisation', 'memory': 'host.memory.utilisation'}
#: The order of each resource's three metrics in :func:`build`. The
#: released TargetLoadPacking takes the *last* CPU metric whose operator
#: is ``AVG`` or ``Latest``; the released LoadVariationRiskBalancing and
#: LowRiskOverCommitment take the ``AVG`` whatever its place, and a
#: ``Latest`` only when no ``AVG`` came before it. ``Latest`` first makes
#: the three read the window's average (Peaks, which takes the *first*
#: such CPU metric, reads the latest sample: see ``doc/source/load.rst``).
ORDER = (LATEST, AVERAGE, STD)


def schema():
    with open(SCHEMA_PATH, encoding='utf-8') as stream:
        return json.load(stream)


def validator():
    return jsonschema.Draft7Validator(schema())


def pick(by_window, window):
    """``(name, stats)`` of the first of ``window`` and its fallbacks
    (:func:`preemptible_sched.loadwatcher.fallbacks`) that ``by_window``
    (``{window: {resource: stats}}``) has; ``(window, {})`` if none.
    """
    for name in loadwatcher.fallbacks(window):
        if by_window.get(name):
            return name, by_window[name]
    return window, {}


def build(timestamp, window, duration, start, end, source, windows,
          hosts=None):
    """The payload of ``window`` (e.g. ``15m``): ``windows`` maps each
    host to ``{window: {resource: (avg, std, latest)}}``; ``hosts``
    restricts it to some hosts. A host whose ``window`` is empty gets its
    next shorter one (:func:`pick`), named by its metrics' ``rollup``.
    Each resource's metrics come in the order :data:`ORDER`.
    """
    node_metrics = {}
    for host in sorted(windows if hosts is None else hosts):
        rollup, stats = pick(windows.get(host, {}), window)
        metrics = []
        for resource in ('cpu', 'memory'):
            if resource not in stats:
                continue
            avg, std, latest = stats[resource]
            values = {AVERAGE: avg, STD: std, LATEST: latest}
            for operator in ORDER:
                value = values[operator]
                metrics.append({'name': _NAMES[resource],
                                'type': _TYPES[resource],
                                'operator': operator, 'rollup': rollup,
                                'value': float(value)})
        node_metrics[host] = {'metrics': metrics, 'tags': {},
                              'metadata': {'dataCenter': ''}}
    return {'timestamp': int(timestamp),
            'window': {'duration': duration, 'start': int(start),
                       'end': int(end)},
            'source': source,
            'data': {'NodeMetricsMap': node_metrics}}


def _float(number):
    try:
        return float(number)
    except OverflowError:       # an int beyond the floats
        return math.inf if number > 0 else -math.inf


class BadPayload(ValueError):
    """A payload that is not the load watcher's format (one line)."""


def parse(payload):
    """Per-host metrics for :func:`preemptible_sched.hosts.load.build`:
    ``{host: {"cpu": {"avg", "std"}, "memory": {...}, "window_end"}}``.

    The structure must match the schema (else :class:`BadPayload`),
    which bounds the times; the values are passed on as floats (an
    integer too large for one as an infinity), for the weighers'
    bad-metrics rules to judge host by host. An average wins over a
    latest value wherever it comes, as in the released
    LoadVariationRiskBalancing and LowRiskOverCommitment; a metric without
    an operator is an average (those plugins take it as a latest value).
    """
    errors = sorted(validator().iter_errors(payload),
                    key=lambda error: list(map(str, error.absolute_path)))
    if errors:
        error = errors[0]
        field = '.'.join(map(str, error.absolute_path)) or '(top level)'
        raise BadPayload('%s: %s' % (field, error.message[:200]))
    end = payload['window']['end']
    hosts = {}
    for host, node in payload['data']['NodeMetricsMap'].items():
        metrics = {'window_end': float(end)}
        latest = {}
        for metric in node.get('metrics') or ():
            resource = _RESOURCES.get(metric['type'])
            if resource is None:
                metrics.setdefault('other', []).append(metric)
                continue
            entry = metrics.setdefault(resource, {})
            operator = metric.get('operator', '')
            value = _float(metric['value'])
            if operator in (AVERAGE, ''):
                entry['avg'] = value
            elif operator == STD:
                entry['std'] = value
            elif operator == LATEST:
                latest[resource] = value
        for resource, value in latest.items():
            metrics[resource].setdefault('avg', value)
        hosts[host] = metrics
    return hosts
