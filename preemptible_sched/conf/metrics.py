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


"""Options of the scheduler service's Prometheus endpoint (``[metrics]``).

The load watcher serves its own metrics on its HTTP API (``GET
/metrics``), next to ``GET /watcher``: it needs no option here.
"""

from oslo_config import cfg

from preemptible_sched.conf import load_watcher
from preemptible_sched import exception

#: Where the endpoint listens unless configured: the loopback only.
DEFAULT_BIND = '127.0.0.1:9464'

metrics_group = cfg.OptGroup(
    'metrics',
    title='Prometheus metrics of the scheduler service',
    help="""
``preemptible-scheduler`` serves its metrics in Prometheus' text format on
``http://<bind>/metrics``: decisions by strategy and outcome, preemptions
and the pending queue by class, the time of each stage of a scheduling
pass, journal writes and their latency, how long ago each compute host
last reported, and, when the load watcher runs inside the service, the
watcher's collections, bad samples and window ages. See "Metrics" in the
service documentation for what to scrape and which alerts matter.
""")

metrics_opts = [
    cfg.StrOpt('bind',
               default=DEFAULT_BIND,
               help="""
``HOST:PORT`` where ``preemptible-scheduler`` serves ``GET /metrics``
(Prometheus' text format); empty: no endpoint.

The default listens on the loopback only: the endpoint has no
authentication, so put it on another address only behind a firewall or a
proxy that the Prometheus server alone can reach. Port 0 picks a free
port (logged at start). An address that cannot be listened on (a port
taken) is logged as an error and the service runs without its endpoint.
"""),
]


def register_opts(conf):
    conf.register_group(metrics_group)
    conf.register_opts(metrics_opts, group=metrics_group)


def list_opts():
    return {metrics_group: metrics_opts}


def parse_bind(text):
    """``(host, port)`` of ``[metrics] bind``; InvalidInput naming the
    option if malformed.
    """
    return load_watcher.parse_bind(text, '[metrics] bind')


def problems(conf, at):
    """What is wrong with ``[metrics]``, one line each; ``at(group,
    option)`` names where an option was set.
    """
    if not conf.metrics.bind:
        return []
    try:
        parse_bind(conf.metrics.bind)
    except exception.InvalidInput as error:
        return ['%s: %s' % (at('metrics', 'bind'), error.message)]
    return []
