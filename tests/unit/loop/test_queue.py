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

from preemptible_sched.loop import queue
from preemptible_sched import objects


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
