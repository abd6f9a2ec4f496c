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

"""The pending queue: eligibility (T1) skips requests an earlier, no
larger one shows hopeless."""

import testtools

from preemptible_sched import objects
from preemptible_sched.queue import pending as queue
from preemptible_sched.queue.queue_policies import fifo


def entry(vcpus, memory_mb, service_class='bronze', **spec_kw):
    spec = objects.RequestSpec(
        id='r', resources=objects.Resources(vcpus, memory_mb, 0),
        service_class=service_class, **spec_kw)
    return objects.PendingRequest(spec, 0.0, 0)


class TestPassPruning(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.eligibility = queue.Eligibility()
        self.eligibility.failed_to_place(entry(2, 4000))

    def dominated(self, candidate):
        return not self.eligibility.eligible(candidate)

    def test_larger_or_equal_of_the_same_kind_is_skipped(self):
        self.assertTrue(self.dominated(entry(2, 4000)))
        self.assertTrue(self.dominated(entry(4, 4000)))

    def test_smaller_in_one_resource_is_tried(self):
        self.assertFalse(self.dominated(entry(1, 8000)))
        self.assertFalse(self.dominated(entry(4, 2000)))

    def test_other_kinds_are_tried(self):
        self.assertFalse(self.dominated(entry(4, 8000, 'gold')))
        self.assertFalse(self.dominated(entry(4, 8000, preemptible=True)))

    def test_requests_with_placement_constraints_are_always_tried(self):
        self.assertFalse(self.dominated(entry(4, 8000,
                                              constraints={'a': 'b'})))
        self.assertFalse(self.dominated(entry(4, 8000, group='g')))
        eligibility = queue.Eligibility()
        eligibility.failed_to_place(entry(1, 1000, availability_zone='z'))
        self.assertTrue(eligibility.eligible(entry(1, 1000,
                                                   availability_zone='z')))
        self.assertEqual({}, eligibility.failed)


def numbered(sequence, vcpus, memory_mb=1000, service_class='bronze'):
    spec = objects.RequestSpec(
        id='r%d' % sequence, resources=objects.Resources(vcpus, memory_mb, 0),
        service_class=service_class)
    return objects.PendingRequest(spec, 0.0, sequence)


class TestKeep(testtools.TestCase):
    """keep() filters the rest of a pass after a failure, as eligible()
    would one entry at a time.
    """

    def test_same_entries_as_one_check_each(self):
        rest = [numbered(1, 1), numbered(2, 2), numbered(3, 1, 500),
                numbered(4, 4, service_class='gold')]
        eligibility = queue.Eligibility()
        eligibility.failed_to_place(numbered(0, 1, 1000))
        kept = eligibility.keep(rest)
        self.assertEqual(['r3', 'r4'], [entry.id for entry in kept])
        self.assertEqual([entry for entry in rest
                          if eligibility.eligible(entry)], kept)

    def test_nothing_left_when_every_shape_of_the_queue_failed(self):
        pending = queue.PendingQueue(fifo.FifoPolicy())
        for name, vcpus in (('a', 1), ('b', 2), ('c', 1)):
            pending.add(objects.RequestSpec(
                id=name, resources=objects.Resources(vcpus, 10, 0)), 0.0)
        pending.admit(lambda entry: True)
        eligibility = pending.eligibility()
        ordered = pending.order(0.0)
        eligibility.failed_to_place(ordered[0])
        # Every entry asks at least 1 vCPU and 10 MB, like the failed one.
        self.assertEqual([], eligibility.keep(ordered[1:]))
        # A smaller shape joins the queue: the sweep keeps it.
        pending.add(objects.RequestSpec(
            id='d', resources=objects.Resources(0.5, 10, 0)), 0.0)
        pending.admit(lambda entry: True)
        self.assertEqual(['d'], [entry.id for entry in eligibility.keep(
            pending.order(0.0)[1:])])
