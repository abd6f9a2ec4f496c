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

"""The random queue policy: seeded, drawn again in every pass."""

from preemptible_sched import objects
from preemptible_sched.queue.queue_policies import random_order
from tests import base


def queue(count=12):
    return [objects.PendingRequest(base.make_spec(spec_id='r%d' % index),
                                   float(index), index)
            for index in range(count)]


def ids(entries):
    return [entry.id for entry in entries]


class TestRandomPolicy(base.TestCase):

    def policy(self, seed):
        self.flags(group='scheduler', random_seed=seed)
        return random_order.RandomPolicy()

    def test_same_seed_same_sequence_of_orders(self):
        first, second = self.policy(7), self.policy(7)
        for now in (1.0, 11.0, 21.0):
            self.assertEqual(ids(first.order(queue(), now)),
                             ids(second.order(queue(), now)))

    def test_reshuffled_in_every_pass(self):
        policy = self.policy(0)
        orders = [ids(policy.order(queue(), now)) for now in (1.0, 11.0,
                                                              21.0)]
        # 12! orders: three equal draws would be a broken generator.
        self.assertEqual(3, len({tuple(order) for order in orders}))
        for order in orders:
            self.assertEqual(sorted(ids(queue())), sorted(order))

    def test_seed_changes_the_order(self):
        self.assertNotEqual(ids(self.policy(1).order(queue(), 1.0)),
                            ids(self.policy(2).order(queue(), 1.0)))

    def test_order_does_not_depend_on_how_the_queue_holds_them(self):
        self.assertEqual(ids(self.policy(3).order(queue(), 1.0)),
                         ids(self.policy(3).order(queue()[::-1], 1.0)))

    def test_negative_seed(self):
        self.assertEqual(ids(self.policy(-5).order(queue(), 1.0)),
                         ids(self.policy(5).order(queue(), 1.0)))

    def test_not_time_invariant(self):
        self.assertFalse(self.policy(0).time_invariant)
