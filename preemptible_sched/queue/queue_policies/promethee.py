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

"""SLA requests by PROMETHEE II net flow over their four service levels."""

import collections

from preemptible_sched.conf import CONF
from preemptible_sched import objects
from preemptible_sched.queue import queue_policies as policies
from preemptible_sched.service_classes import sla

#: The levels of a request without an SLA.
BEST_EFFORT = objects.SLALevels()


class PrometheePolicy(policies.BaseQueuePolicy):
    """Consider the request that outranks the others on most SLA services
    first.

    Each pending request is an alternative whose criteria are the
    priorities (premium 3, advanced 2, best effort 1) of its four SLA
    services; PROMETHEE II with the usual criterion ranks them by net flow
    phi, highest first, the admission order breaking ties. The flows are
    relative to the queue, so they are recomputed in every pass. Requests
    without an SLA count as best effort in every service. A request that
    cannot start does not block the ones behind it (no pass ever does).
    Use it with the ``reputation`` filter and SLA requests.

    With ``[sla] rerank`` the requests left in a pass are ranked again
    after each placement, among those still waiting, as the published
    method selects after every allocation (see :attr:`rerank`).

    Options: ``[sla] satisfaction_time_weight``, ``reputation_weight``,
    ``resources_weight``, ``replicas_weight``, ``rerank``.
    """

    name = 'promethee'

    @property
    def rerank(self):
        """True when the queue is ranked again after each placement
        (``[sla] rerank``): the flows change with who waits.
        """
        return CONF.sla.rerank

    def flows(self, requests):
        """``{sequence: Flows}`` of the pending ``requests``."""
        rows = [sla.criteria(request.spec.sla or BEST_EFFORT)
                for request in requests]
        return {request.sequence: flows for request, flows in zip(
            requests, sla.promethee(rows, sla.weights()))}

    entry_keys = True

    def entry_key(self, request):
        """The criteria of ``request``: its four services' priorities."""
        return sla.criteria(request.spec.sla or BEST_EFFORT)

    def order(self, requests, now, keys=None):
        # The net flows of the distinct criteria (81 at most), each
        # counted as often as it waits: a look-up per request.
        if keys is None:
            keys = [self.entry_key(request) for request in requests]
        net = sla.net_flows(collections.Counter(keys), sla.weights())
        ranks = [(-net[key], request.submitted_at, request.sequence)
                 for key, request in zip(keys, requests)]
        return [requests[index] for index in
                sorted(range(len(requests)), key=ranks.__getitem__)]
