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

"""Shortest remaining work first."""

from preemptible_sched.queue import queue_policies as policies


class SrtfPolicy(policies.BaseQueuePolicy):
    """Consider first the requests with the least work left to do.

    The work is the remaining run time (duration minus the part of it an
    instance had done before it was displaced, both at the reference
    speed whatever the speed of the host it ran on) times the vCPUs
    (``remaining_s x cores``, the SC18 experiments' "shortest remaining
    time first"); a request without a duration has infinite work and goes
    last. The sort is stable: equal work keeps the FIFO order (submit
    time, then arrival). Short tasks stop waiting behind long ones, which
    cuts the mean response time and the queue length; long requests may
    wait long on a busy cloud.
    """

    name = 'srtf'
    time_invariant = True

    def sort_key(self, request, now):
        return (remaining_work(request), request.submitted_at,
                request.sequence)


def remaining_work(request):
    """vCPU-seconds ``request`` still has to run (inf without a
    duration).
    """
    remaining = request.remaining_s
    if remaining is None:
        return float('inf')
    return remaining * request.spec.resources.vcpus
