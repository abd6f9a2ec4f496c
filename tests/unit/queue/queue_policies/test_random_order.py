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

import numpy

from preemptible_sched import objects
from preemptible_sched.queue import pending as pending_mod
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

    def test_negative_seed(self):
        self.assertEqual(ids(self.policy(-5).order(queue(), 1.0)),
                         ids(self.policy(5).order(queue(), 1.0)))

    def test_not_time_invariant(self):
        self.assertFalse(self.policy(0).time_invariant)

    def test_the_permutation_is_of_the_requests_handed_over(self):
        """The definition the SC18 figures were measured with: the seed's
        PCG64 permutations of the requests (in arrival order), one per
        pass.
        """
        held = queue(30)
        generator = numpy.random.Generator(numpy.random.PCG64(9))
        policy = self.policy(9)
        for now in (1.0, 2.0, 3.0):
            expected = [held[index] for index
                        in generator.permutation(len(held)).tolist()]
            order = policy.order(held, now)
            self.assertEqual(ids(expected), ids(order))
            self.assertEqual(len(expected), len(order))
            self.assertEqual(ids(expected), [order[index].id
                                             for index in range(30)])
            self.assertEqual(ids(expected[7:]), ids(order[7:]))
            self.assertEqual(expected[9].id, order[7:][2].id)
            self.assertEqual(ids(expected[-3:]), ids(order[-3:]))

    def test_in_a_queue_entries_released_out_of_arrival_order(self):
        """The queue hands the policy its entries in arrival order,
        whatever order they joined the ordered queue in.
        """
        pending = pending_mod.PendingQueue(self.policy(2))
        pending.add(base.make_spec(spec_id='first'), 0.0)
        for index in range(1, 8):
            pending.add(base.make_spec(spec_id='r%d' % index), 0.0,
                        depends_on=['first'] if index % 2 else ())
        pending.admit(lambda entry: True)
        pending.remove(pending.entries[0])
        pending.request_ended('first')
        pending.release()       # r1, r3, r5, r7 join after r2, r4, r6
        self.assertEqual([2, 4, 6, 1, 3, 5, 7], list(pending.entries))
        generator = numpy.random.Generator(numpy.random.PCG64(2))
        for now in (1.0, 2.0):
            expected = ['r%d' % (index + 1)
                        for index in generator.permutation(7).tolist()]
            self.assertEqual(expected, ids(pending.order(now)))
        pending.remove(pending.entries[3])
        expected = [['r1', 'r2', 'r4', 'r5', 'r6', 'r7'][index]
                    for index in generator.permutation(6).tolist()]
        self.assertEqual(expected, ids(pending.order(3.0)))
