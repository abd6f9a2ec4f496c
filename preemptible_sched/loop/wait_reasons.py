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

"""Why an SLA request waits: no host of its reputation category is up.

A request with an SLA runs only on the hosts of its category. When none of
them is up, the pass says so once (a warning, and the request's reason in
the journal) until that changes; the reason is cleared once the request is
placed, withdrawn or fails.
"""

import logging

from preemptible_sched.service_classes import sizing
from preemptible_sched.service_classes import sla

LOG = logging.getLogger(__name__)


class WaitReasons:
    """The reasons SLA requests wait, mixed into the
    :class:`~preemptible_sched.loop.scheduler_loop.SchedulerLoop`, whose
    journal (``store``), host manager and said reasons (``_waiting_why``)
    they use.
    """

    def _categories_up(self, up):
        """``up`` (the SLA categories with a host up in this pass), worked
        out from the host table when not yet.
        """
        if up is None:
            table = self.host_manager.table
            up = sla.up_categories(sizing.host_categories(table), table.up)
        return up

    def _tell_why(self, entry, now, up):
        """SLA request ``entry`` was not placed: when no host of its
        category is up, say so once (a warning, and the request's reason
        in the store) until that changes. Returns the categories with a
        host up (``up``, worked out if None).
        """
        up = self._categories_up(up)
        why = sla.no_host_up(entry.spec, up)
        if why == self._waiting_why.get(entry.id):
            return up
        if why is None:
            self._forget_why(entry.id, now)
            return up
        LOG.warning('Request %s waits: %s', entry.id, why)
        self._waiting_why[entry.id] = why
        self._set_reason(entry.id, why, now)
        return up

    def _set_reason(self, request_id, reason, now):
        request = self.store.get_request(request_id)
        self.store.set_request_status(request_id, request.status, now,
                                      reason=reason)
