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

"""T1 for moldable SLA requests: a request sized and asked about as one
that failed since the pass last placed something is skipped, and the
draws of the failed one are replayed.
"""

import random

import testtools

from preemptible_sched import objects
from preemptible_sched.queue import pending as queue_mod
from preemptible_sched.queue.queue_policies import fifo
from preemptible_sched.queue import replays

PREMIUM = objects.SLALevels('premium', 'premium', 'premium', 'premium')
ADVANCED = objects.SLALevels('advanced', 'advanced', 'advanced', 'advanced')


def container(name, levels=PREMIUM, memory_mb=1024, sequential_s=300.0):
    return objects.RequestSpec(
        id=name, resources=objects.Resources(0, memory_mb, 0), sla=levels,
        sequential_s=sequential_s, num_instances=3, group=name,
        group_policy='anti-affinity')


class _Scheduler:
    def __init__(self, seed=7):
        self.rng = random.Random(seed)


class Pass:
    """A queue, a scheduler's generator, and a pass's eligibility."""

    def __init__(self, specs, keep_trying=()):
        self.queue = queue_mod.PendingQueue(fifo.FifoPolicy())
        for spec in specs:
            self.queue.add(spec, 0.0)
        self.queue.admit(lambda entry: True)
        self.scheduler = _Scheduler()
        self.eligibility = self.queue.eligibility(self.scheduler,
                                                  keep_trying)
        self.ordered = self.queue.order(0.0)

    def fail(self, index, draws=(4, 2)):
        """Entry ``index`` is asked about and fails after ``draws``."""
        entry = self.ordered[index]
        assert not self.eligibility.replays(entry)
        for size in draws:
            self.scheduler.rng.randrange(size)
        self.eligibility.failed_to_place(entry)

    def skipped(self, index):
        return self.eligibility.replays(self.ordered[index])


class TestDrawLog(testtools.TestCase):

    def test_replay_leaves_the_generator_where_the_draws_would(self):
        log = replays.DrawLog(random.Random(3))
        for size in (5, 2, 1000):
            log.randrange(size)
        self.assertEqual([(5,), (2,), (1000,)], log.calls)
        log.replay(log.calls)
        reference = random.Random(3)
        for size in (5, 2, 1000, 5, 2, 1000):
            reference.randrange(size)
        self.assertEqual(reference.random(), log.random())

    def test_put_in_place_once(self):
        scheduler = _Scheduler()
        rng = scheduler.rng
        log = replays.logged(scheduler)
        self.assertIs(log, scheduler.rng)
        self.assertIs(rng, log.rng)
        self.assertIs(log, replays.logged(scheduler))


class TestSkips(testtools.TestCase):

    def test_same_class_and_share_skipped_with_its_draws(self):
        run = Pass([container('a'), container('b'), container('c')])
        run.fail(0, draws=(4, 2))
        self.assertTrue(run.skipped(1))
        self.assertTrue(run.skipped(2))
        # The generator drew as three failed decisions would have.
        reference = random.Random(7)
        for _ in range(3):
            reference.randrange(4)
            reference.randrange(2)
        self.assertEqual(reference.random(), run.scheduler.rng.random())

    def test_tried_again_after_a_placement(self):
        run = Pass([container('a'), container('b'), container('c')])
        run.fail(0)
        run.eligibility.placed()
        self.assertFalse(run.skipped(1))

    def test_other_share_of_the_cores_is_tried(self):
        # 'b' waits with two entries: it shares the cores with fewer
        # others than 'c' does, so it is sized larger than 'a' was.
        b = container('b')
        run = Pass([container('a'), b, b, container('c')])
        run.fail(0)
        self.assertFalse(run.skipped(1))
        self.assertTrue(run.skipped(3))

    def test_other_class_is_tried(self):
        run = Pass([container('a'), container('b', levels=ADVANCED),
                    container('c', memory_mb=2048),
                    container('d', sequential_s=600.0)])
        run.fail(0)
        for index in (1, 2, 3):
            self.assertFalse(run.skipped(index))

    def test_other_submission_is_tried(self):
        run = Pass([container('a')])
        run.queue.add(container('b'), 3.0)
        run.queue.admit(lambda entry: True)
        run.ordered = run.queue.order(0.0)
        run.fail(0)
        self.assertFalse(run.skipped(1))

    def test_request_with_a_reason_said_is_tried(self):
        run = Pass([container('a'), container('b')], keep_trying={'b': 'x'})
        run.fail(0)
        self.assertFalse(run.skipped(1))

    def test_failure_with_a_reason_said_skips_nothing(self):
        run = Pass([container('a'), container('b')], keep_trying={'a': 'x'})
        run.fail(0)
        self.assertFalse(run.skipped(1))

    def test_sized_or_fixed_requests_are_not_skipped(self):
        sized = objects.RequestSpec(
            id='s', resources=objects.Resources(22, 1024, 0), sla=PREMIUM,
            sequential_s=300.0, sized=True)
        plain = objects.RequestSpec(id='p',
                                    resources=objects.Resources(1, 1, 0))
        run = Pass([sized, sized, plain, plain])
        run.fail(0)
        run.fail(2)
        self.assertFalse(run.skipped(1))
        self.assertFalse(run.skipped(3))

    def test_without_a_scheduler_nothing_is_skipped(self):
        queue = queue_mod.PendingQueue(fifo.FifoPolicy())
        for name in 'ab':
            queue.add(container(name), 0.0)
        queue.admit(lambda entry: True)
        eligibility = queue.eligibility()
        first, second = queue.order(0.0)
        eligibility.failed_to_place(first)
        self.assertFalse(eligibility.replays(second))


class TestNumbering(testtools.TestCase):

    def test_a_class_keeps_its_number_while_an_entry_waits(self):
        queue = queue_mod.PendingQueue(fifo.FifoPolicy())
        for name in 'abc':
            queue.add(container(name), 0.0)
        queue.add(container('d', levels=ADVANCED), 0.0)
        queue.admit(lambda entry: True)
        a, b, c, d = queue.order(0.0)
        numbers = {entry.id: queue._classes[entry.sequence][0]
                   for entry in (a, b, c, d)}
        self.assertEqual(numbers['a'], numbers['c'])
        self.assertNotEqual(numbers['a'], numbers['d'])
        self.assertEqual(2, len(queue._class_numbers))
        queue.remove(a)
        queue.remove(b)
        self.assertEqual(2, len(queue._class_numbers))
        queue.remove(c)
        self.assertEqual(1, len(queue._class_numbers))
        self.assertEqual({d.sequence}, set(queue._classes))
