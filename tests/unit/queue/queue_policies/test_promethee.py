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

import random

from preemptible_sched import objects
from preemptible_sched.queue import pending as queue_mod
from preemptible_sched.queue import queue_policies as policies
from preemptible_sched.queue.queue_policies import promethee
from tests import base


def pending(spec_id, criteria, sequence, submitted_at=0.0):
    levels = objects.SLALevels(*[
        {3: 'premium', 2: 'advanced', 1: 'best_effort'}[value]
        for value in criteria])
    return objects.PendingRequest(
        base.make_spec(spec_id=spec_id, sla=levels), submitted_at, sequence)


class TestPrometheePolicy(base.TestCase):

    def setUp(self):
        super().setUp()
        self.policy = promethee.PrometheePolicy()

    def test_published_example_orders_b_c_a(self):
        queue = [pending('a', (3, 1, 2, 1), 0), pending('b', (2, 2, 2, 2), 1),
                 pending('c', (1, 3, 1, 3), 2)]
        self.assertEqual(['b', 'c', 'a'],
                         [r.id for r in self.policy.order(queue, 0.0)])
        flows = self.policy.flows(queue)
        self.assertEqual([-0.125, 0.125, 0.0],
                         [round(flows[r.sequence].net, 12) for r in queue])

    def test_ties_by_admission(self):
        queue = [pending('late', (2, 2, 2, 2), 5, submitted_at=9.0),
                 pending('same-time-second', (2, 2, 2, 2), 4,
                         submitted_at=3.0),
                 pending('first', (2, 2, 2, 2), 3, submitted_at=3.0),
                 pending('best', (3, 3, 3, 3), 6, submitted_at=20.0)]
        self.assertEqual(['best', 'first', 'same-time-second', 'late'],
                         [r.id for r in self.policy.order(queue, 0.0)])

    def test_weights_are_read(self):
        queue = [pending('a', (3, 1, 2, 1), 0), pending('b', (2, 2, 2, 2), 1),
                 pending('c', (1, 3, 1, 3), 2)]
        self.flags(group='sla', reputation_weight=0.0, resources_weight=0.0,
                   replicas_weight=0.0)
        self.assertEqual(['a', 'b', 'c'],
                         [r.id for r in self.policy.order(queue, 0.0)])

    def test_request_without_sla_is_best_effort(self):
        queue = [objects.PendingRequest(base.make_spec(spec_id='plain'),
                                        0.0, 0),
                 pending('adv', (2, 2, 2, 2), 1)]
        self.assertEqual(['adv', 'plain'],
                         [r.id for r in self.policy.order(queue, 0.0)])

    def test_queue_keeps_the_criteria_of_each_entry(self):
        # The queue hands the policy the criteria it kept when each entry
        # joined, in the order of its entries, also after some left.
        queue = queue_mod.PendingQueue(self.policy)
        rng = random.Random(2)
        for index in range(40):
            criteria = tuple(rng.choice((1, 2, 3)) for _ in range(4))
            queue.add(pending('r%d' % index, criteria, 0,
                              submitted_at=float(index % 5)).spec,
                      float(index % 5))
        queue.admit(lambda entry: True)
        for entry in list(queue.entries.values())[::3]:
            queue.remove(entry)
        expected = self.policy.order(list(queue.entries.values()), 0.0)
        self.assertEqual([entry.sequence for entry in expected],
                         [entry.sequence for entry in queue.order(0.0)])
        self.assertEqual(list(queue.entries), list(queue._entry_keys))

    def test_registered(self):
        self.assertIsInstance(policies.load('promethee'),
                              promethee.PrometheePolicy)


class TestRerank(base.TestCase):
    """The queue ranks again after a placement only with ``[sla]
    rerank``; the example of tests/functional/loop/test_sla.py (TestRerank
    there has the flows by hand): a2, a0, a3, a1 with all four, a3, a0, a1
    once a2 has left.
    """

    def setUp(self):
        super().setUp()
        self.queue = queue_mod.PendingQueue(promethee.PrometheePolicy())
        for name, criteria in (('a0', (1, 3, 1, 3)), ('a1', (1, 3, 1, 1)),
                               ('a2', (1, 3, 3, 2)), ('a3', (1, 3, 2, 2))):
            self.queue.add(pending(name, criteria, 0).spec, 0.0)
        self.queue.admit(lambda entry: True)

    def test_off_by_default(self):
        self.assertFalse(self.queue.reranks)
        self.assertFalse(queue_mod.PendingQueue(
            policies.load('fifo')).reranks)

    def test_reorder_after_a_placement(self):
        self.flags(group='sla', rerank=True)
        self.assertTrue(self.queue.reranks)
        ordered = self.queue.order(0.0)
        self.assertEqual(['a2', 'a0', 'a3', 'a1'], [e.id for e in ordered])
        self.queue.remove(ordered[0])
        self.assertEqual(['a3', 'a0', 'a1'], [
            e.id for e in self.queue.reorder(ordered[1:], 0.0)])
        # Only the entries not tried yet, in the new order.
        self.assertEqual(['a3', 'a1'], [
            e.id for e in self.queue.reorder([ordered[3], ordered[2]],
                                             0.0)])
