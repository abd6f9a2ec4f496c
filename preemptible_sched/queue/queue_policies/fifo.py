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

"""First come, first served."""

from preemptible_sched.queue import queue_policies as policies


class FifoPolicy(policies.BaseQueuePolicy):
    """Consider requests in the order they were submitted.

    The default, and what Nova does. A request that cannot be placed does
    not block the ones behind it (with ``on_no_valid_host = wait`` it is
    simply tried again in the next pass).
    """

    name = 'fifo'
    time_invariant = True

    def sort_key(self, request, now):
        return (request.submitted_at, request.sequence)
