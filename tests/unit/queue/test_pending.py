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

"""The pending queue: arrivals, admission (J2), order (T2), withdrawal,
and the eligibility rule (T1) on every dimension."""

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
import testtools

from preemptible_sched import objects
from preemptible_sched.queue import pending as queue
from preemptible_sched.queue.queue_policies import fifo
from preemptible_sched.queue.queue_policies import priority
from preemptible_sched.queue.queue_policies import srtf


def spec(name, vcpus=1, memory_mb=1000, disk_gb=10, **kw):
    return objects.RequestSpec(
        id=name, resources=objects.Resources(vcpus, memory_mb, disk_gb),
        **kw)


class TestPendingQueue(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.queue = queue.PendingQueue(fifo.FifoPolicy())

    def test_add_keeps_everything_the_request_carries(self):
        entry = self.queue.add(spec('a'), 12.0, duration=30.0,
                               attempts=2, running_s=4.0, overhead_s=1.5,
                               reason='why', preempted=True)
        self.assertEqual(
            ('a', 12.0, 0, 30.0, 2, 4.0, 1.5, 'why', True),
            (entry.id, entry.submitted_at, entry.sequence, entry.duration,
             entry.attempts, entry.running_s, entry.overhead_s,
             entry.reason, entry.preempted))

    def test_defaults_of_a_fresh_request(self):
        entry = self.queue.add(spec('a'), 1.0)
        self.assertEqual((None, 0, 0.0, 0.0, None, False),
                         (entry.duration, entry.attempts,
                          entry.running_s, entry.overhead_s, entry.reason,
                          entry.preempted))

    def test_sequence_numbers_count_up_from_zero(self):
        entries = [self.queue.add(spec(name), 0.0) for name in 'abc']
        self.assertEqual([0, 1, 2], [e.sequence for e in entries])

    def test_arrivals_wait_until_admitted(self):
        first = self.queue.add(spec('a'), 0.0)
        self.assertNotIn(first, self.queue)
        self.assertEqual(1, len(self.queue))
        self.assertEqual([], self.queue.order(0.0))
        self.assertEqual(1, self.queue.admit(lambda entry: True))
        self.assertIn(first, self.queue)
        self.assertEqual([], self.queue.arrivals)
        self.assertEqual({0: first}, self.queue.entries)
        self.assertEqual(0, self.queue.admit(lambda entry: True))

    def test_refused_arrivals_leave_the_queue(self):
        self.queue.add(spec('keep'), 0.0)
        self.queue.add(spec('drop'), 0.0)
        seen = []

        def accept(entry):
            seen.append(entry.id)
            return entry.id == 'keep'
        # Every arrival counts, refused or not.
        self.assertEqual(2, self.queue.admit(accept))
        self.assertEqual(['keep', 'drop'], seen)
        self.assertEqual(['keep'], [e.id for e in self.queue.values()])
        self.assertEqual(1, len(self.queue))

    def test_order_is_the_policy_order(self):
        self.queue = queue.PendingQueue(priority.PriorityPolicy())
        self.queue.add(spec('low', priority=1), 0.0)
        self.queue.add(spec('high', priority=5), 1.0)
        self.queue.admit(lambda entry: True)
        self.assertEqual(['high', 'low'],
                         [e.id for e in self.queue.order(2.0)])

    def test_remove_one_entry(self):
        a = self.queue.add(spec('a'), 0.0)
        b = self.queue.add(spec('b'), 0.0)
        self.queue.admit(lambda entry: True)
        self.queue.remove(a)
        self.queue.remove(a)      # removing twice is harmless
        self.assertEqual([b], self.queue.values())

    def test_remove_request_admitted_or_not(self):
        # Two entries of 'r' (a requeued instance and the rest) and one of
        # 'other', admitted; then an arrival of each.
        self.queue.add(spec('r'), 0.0)
        self.queue.add(spec('other'), 0.0)
        self.queue.add(spec('r'), 0.0)
        self.queue.admit(lambda entry: True)
        self.queue.add(spec('r'), 1.0)
        self.queue.add(spec('other'), 1.0)
        self.queue.remove_request('r')
        self.assertEqual([('other', 1), ('other', 4)],
                         [(e.id, e.sequence) for e in self.queue.values()])
        self.assertEqual(2, len(self.queue))

    def test_length_counts_admitted_and_arrived(self):
        self.queue.add(spec('a'), 0.0)
        self.queue.admit(lambda entry: True)
        self.queue.add(spec('b'), 0.0)
        self.queue.add(spec('c'), 0.0)
        self.assertEqual(3, len(self.queue))
        self.assertTrue(self.queue)
        self.assertFalse(queue.PendingQueue(fifo.FifoPolicy()))

    def test_signature_changes_with_arrivals_and_admissions(self):
        seen = [self.queue.signature()]

        def changed():
            seen.append(self.queue.signature())
            return seen[-1] != seen[-2]

        self.queue.admit(lambda entry: True)       # nothing arrived
        self.assertFalse(changed())
        self.queue.add(spec('a'), 0.0)
        self.assertTrue(changed())
        self.queue.admit(lambda entry: True)
        self.assertTrue(changed())
        self.assertEqual(0, self.queue.release())
        self.assertFalse(changed())
        self.queue.add(spec('b'), 0.0)
        self.assertTrue(changed())
        self.queue.remove_request('nobody')
        self.assertFalse(changed())
        self.queue.remove_request('b')              # an arrival leaves
        self.assertTrue(changed())
        self.queue.remove(self.queue.entries[0])   # an entry leaves
        self.assertTrue(changed())
        self.queue.remove_request('a')              # gone already
        self.assertFalse(changed())
        self.assertEqual(len(seen), len(set(seen)) + 4)

    def test_signature_changes_when_a_dependency_releases_an_entry(self):
        self.queue.add(spec('a'), 0.0)
        self.queue.add(spec('b'), 0.0, depends_on=['a'])
        self.queue.admit(lambda entry: True)
        self.queue.remove(self.queue.entries[0])
        before = self.queue.signature()
        self.queue.request_ended('a')
        self.assertEqual(before, self.queue.signature())
        self.assertEqual(1, self.queue.release())
        self.assertEqual([1], list(self.queue.entries))
        self.assertNotEqual(before, self.queue.signature())


def pending(resources, **kw):
    return objects.PendingRequest(
        objects.RequestSpec('r', objects.Resources(*resources), **kw),
        0.0, 0)


class TestEligibility(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.eligibility = queue.Eligibility()
        self.eligibility.failed_to_place(pending((2, 4000, 40)))

    def eligible(self, resources, **kw):
        return self.eligibility.eligible(pending(resources, **kw))

    def test_no_larger_in_every_dimension_is_skipped(self):
        self.assertFalse(self.eligible((2, 4000, 40)))
        self.assertFalse(self.eligible((3, 5000, 50)))

    def test_smaller_in_any_one_dimension_is_tried(self):
        self.assertTrue(self.eligible((1, 4000, 40)))
        self.assertTrue(self.eligible((2, 3999, 40)))
        self.assertTrue(self.eligible((2, 4000, 39)))

    def test_any_failed_request_of_the_kind_counts(self):
        self.eligibility.failed_to_place(pending((8, 1000, 10)))
        # Not dominated by the first failure, but by the second.
        self.assertFalse(self.eligible((8, 1000, 10)))
        self.assertTrue(self.eligible((4, 2000, 20)))

    def test_kind_is_the_flag_class_and_priority(self):
        self.assertTrue(self.eligible((4, 8000, 80), preemptible=True))
        self.assertTrue(self.eligible((4, 8000, 80), service_class='gold'))
        self.assertTrue(self.eligible((4, 8000, 80), priority=3.0))

    def test_multi_instance_requests_are_always_tried(self):
        self.assertTrue(self.eligible((4, 8000, 80), num_instances=2))
        eligibility = queue.Eligibility()
        eligibility.failed_to_place(pending((1, 1, 1), num_instances=2))
        self.assertEqual({}, eligibility.failed)
        self.assertTrue(eligibility.eligible(
            pending((1, 1, 1), num_instances=2)))


class TestDependencies(testtools.TestCase):
    """Workflow tasks wait outside the ordered queue until the requests
    they depend on ended (stage T1).
    """

    def setUp(self):
        super().setUp()
        self.queue = queue.PendingQueue(fifo.FifoPolicy())

    def admit(self, name, depends_on=(), instances=1):
        self.queue.expect(name, instances)
        self.queue.add(spec(name), 0.0, depends_on=depends_on)
        self.queue.admit(lambda entry: True)

    def ordered(self):
        return [entry.id for entry in self.queue.order(0.0)]

    def test_held_until_every_dependency_ended(self):
        self.admit('a')
        self.admit('b')
        self.admit('c', depends_on=('a', 'b'))
        self.assertEqual(['a', 'b'], self.ordered())
        self.assertEqual(3, len(self.queue))
        self.queue.instance_ended('a')
        self.assertEqual(1, self.queue.release())
        self.assertEqual(['a', 'b'], self.ordered())
        self.queue.instance_ended('b')
        self.assertEqual(1, self.queue.release())
        self.assertEqual(['a', 'b', 'c'], self.ordered())
        self.assertEqual({}, self.queue.blocked)

    def test_released_only_by_release(self):
        self.admit('a')
        self.admit('b', depends_on=('a',))
        self.queue.instance_ended('a')
        # Until the pass's T1 runs, the task stays held back.
        self.assertEqual(['a'], self.ordered())
        self.queue.release()
        self.assertEqual(['a', 'b'], self.ordered())

    def test_dependency_already_ended_at_admission(self):
        self.admit('a')
        self.queue.instance_ended('a')
        self.admit('b', depends_on=('a', 'a'))
        self.assertEqual(['a', 'b'], self.ordered())

    def test_multi_instance_dependency_ends_with_its_last_instance(self):
        self.admit('a', instances=2)
        self.admit('b', depends_on=('a',))
        self.queue.instance_ended('a')
        self.queue.release()
        self.assertEqual(['a'], self.ordered())
        self.queue.instance_ended('a')
        self.queue.release()
        self.assertEqual(['a', 'b'], self.ordered())

    def test_withdrawn_while_held(self):
        self.admit('a')
        self.admit('b', depends_on=('a',))
        self.assertEqual(['b'], self.queue.dependents('a'))
        self.queue.remove_request('b')
        self.assertEqual([], self.queue.dependents('a'))
        self.queue.instance_ended('a')
        self.queue.release()
        self.assertEqual(['a'], self.ordered())
        self.assertEqual(1, len(self.queue))

    def test_cached_keys_give_the_policy_order(self):
        policy = srtf.SrtfPolicy()
        pending = queue.PendingQueue(policy)
        for name, duration in (('a', 30.0), ('b', 10.0), ('c', 30.0),
                               ('d', 0.0)):
            pending.add(spec(name), 0.0, duration=duration)
        pending.admit(lambda entry: True)
        expected = [entry.id for entry in policy.order(
            list(pending.entries.values()), 0.0)]
        self.assertEqual(['d', 'b', 'a', 'c'], expected)
        self.assertEqual(expected, [entry.id for entry
                                    in pending.order(0.0)])
        pending.remove(pending.order(0.0)[0])
        self.assertEqual(['b', 'a', 'c'], [entry.id for entry
                                           in pending.order(0.0)])


class _TiedKeys:
    """A time-invariant policy whose keys tie often (the priority alone):
    equal keys must keep the order their entries joined in.
    """

    time_invariant = True

    def sort_key(self, request, now):
        return (-request.spec.priority,)


class _HandedOver:
    """A policy that orders in every pass, keeping what it is handed."""

    def order(self, requests, now):
        return requests


#: Steps of a queue's life: (action, priority, which entry it acts on).
_STEPS = st.lists(st.tuples(st.sampled_from(['add', 'held', 'end', 'remove',
                                             'order']),
                            st.integers(0, 3), st.integers(0, 7)),
                  max_size=60)


class TestKeptOrder(testtools.TestCase):
    """The ordered queue of a time-invariant policy, kept sorted as entries
    come and go, is what a stable sort of it in joining order gives.
    """

    @settings(max_examples=200, deadline=None)
    @given(_STEPS)
    def test_same_as_a_stable_sort(self, steps):
        self._check(steps, queue.PendingQueue(_TiedKeys()))

    @settings(max_examples=100, deadline=None)
    @given(_STEPS)
    def test_sorted_every_pass_the_same(self, steps):
        # As the SC18 artifact's passes (try_every_request).
        self._check(steps, queue.PendingQueue(_TiedKeys(),
                                              sort_every_pass=True))

    @settings(max_examples=100, deadline=None)
    @given(_STEPS)
    def test_a_policy_ordering_every_pass_gets_arrival_order(self, steps):
        """Whatever order entries joined in (dependencies hold some
        back), a policy that orders the queue in every pass gets it by
        sequence: ``random`` permutes exactly that list.
        """
        self._check(steps, queue.PendingQueue(_HandedOver()),
                    key=lambda entry: entry.sequence)

    def _check(self, steps, pending, key=None):
        policy = pending.policy
        if key is None:
            def key(entry):
                return policy.sort_key(entry, None)
        joined = []       # entries in the order they joined the queue
        names = iter(range(10 ** 6))
        for action, level, pick in steps:
            if action in ('add', 'held'):
                name = 'r%d' % next(names)
                pending.expect(name, 1)
                depends_on = ()
                if action == 'held' and joined:
                    # Held until another request ends: it joins later,
                    # after entries of higher sequence numbers.
                    depends_on = (joined[pick % len(joined)].id,)
                pending.add(spec(name, priority=level), 0.0,
                            depends_on=depends_on)
                pending.admit(lambda entry: True)
            elif action == 'end' and joined:
                pending.request_ended(joined[pick % len(joined)].id)
            elif action == 'remove' and joined:
                pending.remove(joined[pick % len(joined)])
            pending.release()
            for entry in pending.entries.values():
                if entry not in joined:
                    joined.append(entry)
            joined = [entry for entry in joined if entry in pending]
            expected = sorted(joined, key=key)
            self.assertEqual([entry.sequence for entry in expected],
                             [entry.sequence for entry in
                              pending.order(0.0)])
