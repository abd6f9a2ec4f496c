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

"""The fifo queue policy: oldest submission first."""

from preemptible_sched import objects
from preemptible_sched.queue.queue_policies import fifo
from tests import base


def entry(name, submitted_at, sequence):
    return objects.PendingRequest(base.make_spec(spec_id=name),
                                  submitted_at, sequence)


class TestFifoPolicy(base.TestCase):

    def test_oldest_first_then_admission_sequence(self):
        queue = [entry('late', 30.0, 0), entry('early', 10.0, 2),
                 entry('tie-b', 20.0, 4), entry('tie-a', 20.0, 3)]
        ordered = fifo.FifoPolicy().order(queue, now=100.0)
        self.assertEqual(['early', 'tie-a', 'tie-b', 'late'],
                         [request.id for request in ordered])

    def test_order_does_not_depend_on_time(self):
        queue = [entry('b', 2.0, 1), entry('a', 1.0, 0)]
        policy = fifo.FifoPolicy()
        self.assertEqual([r.id for r in policy.order(queue, 0.0)],
                         [r.id for r in policy.order(queue, 1e6)])
