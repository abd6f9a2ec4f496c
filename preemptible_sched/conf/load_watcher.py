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

"""Options of the load watcher (``[load_watcher]``) and their checks.

Where the load-aware plugins (:mod:`.load`) get the hosts' utilisation:
the watcher in process, alone, or over HTTP; its sources (the compute
driver, Prometheus, emulated hosts) and its HTTP API. Fields that
oslo.config cannot check (a bind address, URLs, readable files, a host
pattern) are checked by :func:`problems`, which the start-up checks call.
"""

import os
import re
import urllib.parse

from oslo_config import cfg

from preemptible_sched import exception


watcher_group = cfg.OptGroup(
    'load_watcher',
    title='Load watcher',
    help="""
Where the load-aware plugins get the hosts' utilisation: the load watcher
inside the scheduler (``preemptible-scheduler``, ``simulate``), alone
(``preemptible-sched load-watcher``), or any compatible watcher over HTTP.
""")

watcher_opts = [
    cfg.StrOpt('url',
               help="""
URL of a load watcher to read over HTTP (``GET <url>/watcher``), such as
``http://127.0.0.1:2020``.

Unset, the scheduler runs its own watcher in process on ``source``. Any
watcher that serves the released Trimaran format will do.

Related options:

* ``cache_seconds``, ``url_timeout``, ``max_response_bytes``
"""),
    cfg.FloatOpt('cache_seconds',
                 default=10.0,
                 min=0.0,
                 max=3600.0,
                 help="""
How long a payload read from ``url`` is reused before the watcher is
asked again, in seconds; the windows change once a minute.

The scheduler reads the watcher in a thread of its own and never waits
for it: a pass uses the windows last read, and asks for new ones when
these are older than this.
"""),
    cfg.FloatOpt('url_timeout',
                 default=5.0,
                 min=0.1,
                 max=300.0,
                 help="""
Seconds one read of ``url`` may take in all: connecting, sending the
request and receiving the whole answer.

This is a deadline, not a timeout of each network read: a watcher that
answers one byte at a time is cut off when it expires. A read that fails
(too slow, too large, not the watcher's format) leaves the windows read
before in use until they are 5 minutes old; the scheduler logs one
warning when reading starts failing and one line when it works again.

Possible values:

* A number of seconds from 0.1 to 300.

Related options:

* ``url``, ``cache_seconds``, ``max_response_bytes``
"""),
    cfg.StrOpt('source',
               default='compute',
               help="""
Where the in-process or stand-alone watcher collects utilisation.

Possible values:

* ``compute``: each host's compute driver (the fake driver reports it
  from its instances' emulated or replayed utilisation);
* ``fake``: ``fake_hosts`` emulated hosts replaying Bitbrains VMs;
* ``prometheus``: two PromQL queries (``prometheus_*`` options);
* any other name in ``preemptible_sched.load_sources``.
"""),
    cfg.FloatOpt('scrape_interval',
                 default=60.0,
                 min=1.0,
                 max=3600.0,
                 help="""
Seconds between two collections of every host's utilisation.
"""),
    cfg.FloatOpt('window_refresh',
                 default=60.0,
                 min=1.0,
                 max=3600.0,
                 help="""
Seconds between two recomputations of the 5, 10 and 15 minute windows.

A window reflects what was collected up to its computation; together with
``scrape_interval`` this is how far the metrics lag behind the hosts (the
weighers add the instances placed since on top).
"""),
    cfg.StrOpt('state_file',
               help="""
SQLite file where the watcher keeps its samples and windows, so that a
restarted watcher answers at once with the same windows.

Unset: ``load-watcher.sqlite`` in ``[DEFAULT] state_path``.
"""),
    cfg.StrOpt('bind',
               help="""
``HOST:PORT`` where the load watcher inside ``preemptible-scheduler``
serves its HTTP API (``GET /watcher``), for other schedulers or for a
look; unset, it serves nothing. ``preemptible-sched load-watcher`` takes
``--bind`` instead.
"""),
    cfg.IntOpt('max_request_bytes',
               default=8192,
               min=256,
               max=1048576,
               help="""
Largest HTTP request (body or query string) the watcher's API accepts;
larger ones get 413.
"""),
    cfg.IntOpt('api_workers',
               default=16,
               min=1,
               max=1024,
               help="""
Threads that answer the requests of the watcher's HTTP API: at most this
many requests are answered at once, and the others wait their turn.

A connection still sending its request takes no thread (one thread reads
the requests of every connection), so slow clients cannot exhaust them;
nor can clients that read the answer slowly for longer than
``api_connection_timeout``.

Related options:

* ``api_backlog``, ``api_connection_timeout``
"""),
    cfg.IntOpt('api_backlog',
               default=128,
               min=1,
               max=65535,
               help="""
Length of the listen queue of the watcher's HTTP API: connections the
kernel holds for the watcher while 512 others are already waiting for
their request (the kernel's ``net.core.somaxconn`` caps it).

Related options:

* ``api_workers``
"""),
    cfg.FloatOpt('api_connection_timeout',
                 default=10.0,
                 min=0.5,
                 max=300.0,
                 help="""
Seconds one connection to the watcher's HTTP API may last in all, from
its acceptance to the end of the answer; then it is closed.

A deadline, not a timeout of each network read: a client that sends its
request, or reads the answer, one byte at a time is cut off when it
expires, and its thread goes back to the pool.

Related options:

* ``api_workers``
"""),
    cfg.IntOpt('fake_hosts',
               default=4,
               min=1,
               max=100000,
               help="""
Number of emulated hosts of the ``fake`` source.
"""),
    cfg.StrOpt('fake_trace',
               default='../shared/data/bitbrains_small',
               help="""
Bitbrains trace the ``fake`` source replays: a directory in the OpenDC
layout (``tasks.parquet``, ``fragments.parquet``) or one GWA-T-12 CSV file.
"""),
    cfg.FloatOpt('fake_memory_percent',
                 default=40.0,
                 min=0.0,
                 max=100.0,
                 help="""
Memory utilisation of every emulated host of the ``fake`` source, in %
(the Bitbrains samples it replays carry CPU only).
"""),
    cfg.StrOpt('prometheus_url',
               default='http://127.0.0.1:9090',
               help="""
Base URL of the Prometheus server the ``prometheus`` source queries.
"""),
    cfg.StrOpt('prometheus_cpu_query',
               default='100 * (1 - avg by (instance) '
               '(rate(node_cpu_seconds_total{mode="idle"}[1m])))',
               help="""
PromQL expression giving each host's CPU utilisation in %, one series per
host (the default reads node_exporter).

The watcher asks for its value now (the latest sample; a host absent from
the answer sends none) and, every ``window_refresh``, for its average and
standard deviation over the 5, 10 and 15 minute windows, as the released
load watcher does: ``avg_over_time(Q[15m])`` and
``stddev_over_time(Q[15m])`` when the query is a metric name (a recording
rule, such as ``instance:node_cpu:ratio``), else the subqueries
``avg_over_time((Q)[15m:])`` and ``stddev_over_time((Q)[15m:])``.
"""),
    cfg.StrOpt('prometheus_memory_query',
               default='100 * (1 - node_memory_MemAvailable_bytes / '
               'node_memory_MemTotal_bytes)',
               help="""
PromQL expression giving each host's memory utilisation in %, one series
per host (the default reads node_exporter); asked for as
``prometheus_cpu_query`` is.
"""),
    cfg.StrOpt('prometheus_host_label',
               default='instance',
               help="""
Label of the query results that names the host.
"""),
    cfg.StrOpt('prometheus_host_pattern',
               default=r'^([^:]+)(?::\d+)?$',
               help="""
Regular expression applied to the host label; its first group is the host
name. The default drops the ``:port`` of node_exporter's ``instance``
label. A series whose label does not match is skipped.
"""),
    cfg.StrOpt('prometheus_bearer_token_file',
               help="""
File holding the bearer token sent to Prometheus (``Authorization: Bearer
<token>``), such as a Kubernetes service account token; read again at
every collection, so a rotated token is picked up. Unset: no token.

Related options:

* ``prometheus_ca_file``, ``prometheus_insecure_skip_verify``
"""),
    cfg.StrOpt('prometheus_ca_file',
               help="""
PEM file of the certificate authorities that sign the certificate of an
``https://`` ``prometheus_url``. Unset: the system's authorities.
"""),
    cfg.BoolOpt('prometheus_insecure_skip_verify',
                default=False,
                help="""
Accept any certificate from an ``https://`` ``prometheus_url``, without
checking who signed it or the host name it names (the released load
watcher's ``INSECURE_SKIP_VERIFY``). For tests only: anyone on the path
can then read the bearer token and forge the metrics. Cannot be set with
``prometheus_ca_file``.
"""),
    cfg.FloatOpt('prometheus_timeout',
                 default=5.0,
                 min=0.1,
                 max=300.0,
                 help="""
Seconds one collection from Prometheus may take in all (its two queries,
each connecting, sending and receiving the whole answer); then the
collection counts as failed.

This is a deadline, not a timeout of each network read: a Prometheus that
answers one byte at a time is cut off when it expires. A failed
collection keeps the windows, and ``GET /watcher/health`` answers 503
until one succeeds.

Related options:

* ``max_response_bytes``, ``scrape_interval``
"""),
    cfg.IntOpt('max_response_bytes',
               default=16 * 1024 * 1024,
               min=1024,
               max=1024 * 1024 * 1024,
               help="""
Largest answer read from the watcher at ``url`` or from Prometheus, in
bytes; a larger one fails that read.

The default (16 MiB) holds the payload of some 25,000 hosts, or a
Prometheus vector of some 80,000 series.

Related options:

* ``url_timeout``, ``prometheus_timeout``
"""),
]


def register_opts(conf):
    conf.register_group(watcher_group)
    conf.register_opts(watcher_opts, group=watcher_group)


def list_opts():
    return {watcher_group: watcher_opts}


def parse_bind(text, where='[load_watcher] bind'):
    """``(host, port)`` of ``HOST:PORT``; InvalidInput naming ``where``
    if malformed.
    """
    host, sep, port = text.rpartition(':')
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise exception.InvalidInput(where, None, 'expected HOST:PORT '
                                     'with a port 0-65535, got %r' % text)
    return host.strip('[]'), int(port)


def state_file(conf):
    """The watcher's SQLite file: ``state_file``, or its default."""
    path = conf.load_watcher.state_file
    if not path:
        path = os.path.join(conf.state_path, 'load-watcher.sqlite')
    return os.path.abspath(os.path.expanduser(path))


def is_http_url(url):
    """Whether ``url`` is an http or https URL with a host (the watcher
    client and the Prometheus source open nothing else: no ``file:``).
    """
    parts = urllib.parse.urlsplit(url)
    return parts.scheme in ('http', 'https') and bool(parts.netloc)


def _prometheus_tls_problems(watcher, at):
    """The token and CA files must be readable files; a CA file and
    skipping verification exclude each other.
    """
    found = []
    for option in ('prometheus_bearer_token_file', 'prometheus_ca_file'):
        path = watcher[option]
        if path and not (os.path.isfile(path) and
                         os.access(path, os.R_OK)):
            found.append('%s = %s: not a readable file' % (
                at('load_watcher', option), path))
    if watcher.prometheus_ca_file and \
            watcher.prometheus_insecure_skip_verify:
        found.append('%s: cannot be set with prometheus_ca_file' %
                     at('load_watcher', 'prometheus_insecure_skip_verify'))
    return found


def problems(conf, at):
    """Fields of ``[load_watcher]`` oslo.config cannot check, one line
    per bad field.
    """
    found = []
    if conf.load_watcher.bind:
        try:
            parse_bind(conf.load_watcher.bind)
        except exception.InvalidInput as error:
            found.append('%s: %s' % (at('load_watcher', 'bind'),
                                     error.message))
    for option in ('url', 'prometheus_url'):
        url = conf.load_watcher[option]
        if url and not is_http_url(url):
            found.append('%s = %s: must be an http:// or https:// URL' % (
                at('load_watcher', option), url))
    found.extend(_prometheus_tls_problems(conf.load_watcher, at))
    pattern = conf.load_watcher.prometheus_host_pattern
    try:
        if re.compile(pattern).groups < 1:
            found.append('%s: needs a group that captures the host name' %
                         at('load_watcher', 'prometheus_host_pattern'))
    except re.error as error:
        found.append('%s: not a regular expression (%s)' % (
            at('load_watcher', 'prometheus_host_pattern'), error))
    return found
