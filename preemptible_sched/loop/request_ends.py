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

"""How a request ends other than by its instances running their course.

A request is deleted by its user, or fails as a whole (all or nothing:
past ``[scheduler] max_attempts``, with no host for it and
``on_no_valid_host = fail``, or once an instance of a request it depends
on ends in another state than ``ended``): its waiting instances end, the
ones it runs are terminated. An instance that reaches its final state
tells the workflow tasks that depend on its request: they may go, or they
fail.
"""

import logging

from preemptible_sched.loop import lifecycle as lifecycle_mod

LOG = logging.getLogger(__name__)

ACTIVE_STATES = lifecycle_mod.ACTIVE_STATES


class RequestEnds:
    """The ends of requests, mixed into the
    :class:`~preemptible_sched.loop.scheduler_loop.SchedulerLoop`, whose
    journal (``store``), queue, lifecycle and executor they use.
    """

    def delete(self, request_id):
        """Withdraw a pending request or terminate its instances."""
        now = self.clock.now()
        self.queue.remove_request(request_id)
        self._waiting_why.pop(request_id, None)
        # First, so that rolling back its decisions leaves it deleted.
        self.store.set_request_status(request_id, 'deleted', now)
        for row in self.store.list_instances(request_id=request_id,
                                             states=ACTIVE_STATES):
            if row.state == 'pending' and row.decision_id is not None:
                # Claimed, waiting for its victims: they keep running.
                self.lifecycle.abandon(
                    self.store.get_decision(row.decision_id),
                    'request deleted', requeue=False)
                row = self.store.get_instance(row.id)
            if row.state == 'pending':
                self.lifecycle.finish(row.id, 'deleted', now)
            elif row.state in ('building', 'running'):
                self.executor.terminate_own(row.host, row.id, 'deleted')
        self.request_pass()

    def instance_finished(self, request_id, state):
        """An instance of ``request_id`` reached final ``state``: its
        request's dependents may go (``ended``) or never can (any other
        state), and then fail.
        """
        if state == 'ended':
            self.queue.instance_ended(request_id)
            return
        for dependent in self.queue.dependents(request_id):
            self.fail_request(dependent, 'dependency %s ended in state %s'
                              % (request_id, state))

    def _fail_request(self, entry, reason):
        self.fail_request(entry.id, reason)

    def fail_request(self, request_id, reason):
        """Fail a request as a whole (all or nothing): its waiting
        instances fail, the ones it runs are terminated and end in
        ``error``. Its instances displaced by others end when their
        termination is confirmed.
        """
        now = self.clock.now()
        request = self.store.get_request(request_id)
        if request.status in ('failed', 'deleted'):
            return
        LOG.info('Request %s failed: %s', request_id, reason)
        self.queue.remove_request(request_id)
        self._waiting_why.pop(request_id, None)
        # First, so that rolling back its decisions leaves it failed.
        self.store.set_request_status(request_id, 'failed', now,
                                      reason=reason)
        for row in self.store.list_instances(request_id=request_id,
                                             states=ACTIVE_STATES):
            if row.state == 'pending':
                self.lifecycle.finish(row.id, 'error', now, reason=reason)
            elif row.state in ('building', 'running'):
                self.executor.terminate_own(
                    row.host, row.id, 'error',
                    'request %s failed: %s' % (request_id, reason))
        self.notify('request.failed', {'request_id': request_id,
                                       'reason': reason})
        self.request_pass()
