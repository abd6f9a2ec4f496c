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


"""An opt-in hard cap on the predicted CPU utilisation of a host."""

import numpy

from preemptible_sched.conf import CONF
from preemptible_sched.hosts import load
from preemptible_sched.scheduler import filters


class LoadThresholdFilter(filters.BaseHostFilter):
    """Reject hosts whose predicted CPU would exceed a threshold.

    The prediction is the one ``target_load_packing`` scores: the load
    watcher's latest 15-minute CPU average (% of physical cores), plus the
    predicted CPU of the instances placed since that window, plus the
    request's. Use it with the load-aware weighers when an operator wants
    a hard cap on top of their preference (for latency-sensitive
    workloads, say); the weighers alone may still choose a busy host when
    every host is busy.

    A host whose load is unknown passes (nothing to judge it on), and so
    does every host while the metrics source is down or stale: an outage
    of the metrics must not stop scheduling.

    Options: ``[load_threshold] max_cpu_utilization`` (default 90).
    """

    name = 'load_threshold'
    #: ``decide`` shows the hosts' load when a plugin reads it
    reads_load = True

    def filter_all(self, batch, spec):
        snapshot = batch.load
        if snapshot is None or snapshot.fallback:
            return numpy.ones(len(batch), dtype=bool)
        utilisation, unknown = load.utilisation(batch, spec, snapshot)
        return unknown | (utilisation <=
                          CONF.load_threshold.max_cpu_utilization)
