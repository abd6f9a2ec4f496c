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

"""The srtf queue policy: least remaining work (time x cores) first."""

import math

from preemptible_sched import objects
from preemptible_sched.queue.queue_policies import srtf
from tests import base


def entry(name, duration, vcpus=1, submitted_at=0.0, sequence=0,
          running_s=0.0, work_s=None):
    spec = base.make_spec(objects.Resources(vcpus, 0, 0), spec_id=name)
    return objects.PendingRequest(spec, submitted_at, sequence, duration,
                                  running_s=running_s, work_s=work_s)


class TestSrtfPolicy(base.TestCase):

    def setUp(self):
        super().setUp()
        self.policy = srtf.SrtfPolicy()

    def order(self, queue):
        return [request.id for request in self.policy.order(queue, 0.0)]

    def test_least_work_first_counting_cores(self):
        # Work: a 100 x 1 = 100, b 30 x 4 = 120, c 50 x 1 = 50.
        queue = [entry('a', 100.0, 1, sequence=0),
                 entry('b', 30.0, 4, sequence=1),
                 entry('c', 50.0, 1, sequence=2)]
        self.assertEqual(['c', 'a', 'b'], self.order(queue))

    def test_equal_work_keeps_the_fifo_order(self):
        # All 60 vCPU-seconds: submit time, then arrival, decides.
        queue = [entry('late', 60.0, submitted_at=20.0, sequence=0),
                 entry('second', 30.0, 2, submitted_at=10.0, sequence=2),
                 entry('first', 60.0, submitted_at=10.0, sequence=1)]
        self.assertEqual(['first', 'second', 'late'], self.order(queue))

    def test_remaining_work_of_a_displaced_instance(self):
        # 100 s of which 80 ran: 20 left, less than a fresh 30 s task.
        queue = [entry('fresh', 30.0, sequence=0),
                 entry('resumed', 100.0, sequence=1, running_s=80.0)]
        self.assertEqual(['resumed', 'fresh'], self.order(queue))
        self.assertEqual(20.0, srtf.remaining_work(queue[1]))

    def test_remaining_work_in_reference_seconds(self):
        # Issue 29 item 13: 1000 reference seconds, displaced after 250 s
        # on a host twice as fast as the reference: 500 done, 500 left,
        # less than a fresh 600 s task (host seconds would leave 750).
        queue = [entry('fresh', 600.0, sequence=0),
                 entry('resumed', 1000.0, sequence=1, running_s=250.0,
                       work_s=500.0)]
        self.assertEqual(['resumed', 'fresh'], self.order(queue))
        self.assertEqual(500.0, srtf.remaining_work(queue[1]))

    def test_open_ended_requests_go_last(self):
        queue = [entry('forever', None, sequence=0),
                 entry('long', 1e6, sequence=1)]
        self.assertEqual(['long', 'forever'], self.order(queue))
        self.assertTrue(math.isinf(srtf.remaining_work(queue[0])))

    def test_zero_length_tasks_first(self):
        queue = [entry('one', 1.0, sequence=0),
                 entry('zero', 0.0, sequence=1)]
        self.assertEqual(['zero', 'one'], self.order(queue))

    def test_keys_do_not_depend_on_time(self):
        request = entry('a', 10.0, 2)
        self.assertTrue(self.policy.time_invariant)
        self.assertEqual(self.policy.sort_key(request, 0.0),
                         self.policy.sort_key(request, 1e6))
