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


"""What the load-aware (Trimaran) weighers share: bounds and fallback."""

from preemptible_sched.hosts import load
from preemptible_sched.scheduler import weighers

MAX_SCORE = 100.0


def window(host, resource):
    """(average, deviation) in % of one host's ``resource`` (a
    :class:`~preemptible_sched.hosts.load_metrics.HostLoad`): zeros on a new
    host, None when it has no usable metric for it.
    """
    if host.new:
        return 0.0, 0.0
    if not host.has(resource):
        return None
    return getattr(host, resource + '_avg'), getattr(host, resource + '_std')


class LoadAwareWeigher(weighers.BaseHostWeigher):
    """Base of the weighers that read the hosts' measured load.

    Raw scores lie in 0-100 with fixed bounds (normalised weight = score /
    100): Kubernetes adds absolute scores, and normalising over the
    candidates would stretch small differences. Without usable metrics
    (no snapshot, or the source down or stale) every host is ranked by
    best fit on allocations instead. Subclasses provide
    :meth:`_weigh_loaded` and :meth:`_weigh_all_loaded`.
    """

    minval = 0.0
    maxval = MAX_SCORE
    #: ``decide`` shows the hosts' load when a plugin reads it
    reads_load = True

    def _weigh_all_loaded(self, batch, spec, snapshot):
        raise NotImplementedError()

    def weigh_all(self, batch, spec, context):
        snapshot = context.load
        if snapshot is None or snapshot.fallback:
            return load.best_fit(batch, spec)
        return self._weigh_all_loaded(batch, spec, snapshot)
