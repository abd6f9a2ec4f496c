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

"""The soak's checkers catch deliberately broken behaviour.

They are fed hand-made histories and rows.
"""

import types

from tests import base
from tests.soak import invariants


def row(instance_id, state, host=None, request_id=None, preemptible=True,
        reason=None, size=(2, 4096, 40), preemptions=0):
    return types.SimpleNamespace(
        id=instance_id, state=state, host=host,
        request_id=request_id or instance_id, preemptible=preemptible,
        reason=reason, vcpus=size[0], memory_mb=size[1], disk_gb=size[2],
        preemptions=preemptions)


def request(request_id, status, reason=None):
    return types.SimpleNamespace(id=request_id, status=status,
                                 reason=reason)


def decision(decision_id, victims=(), confirmed=(), state='done'):
    return types.SimpleNamespace(id=decision_id, victims=list(victims),
                                 confirmed=list(confirmed), state=state)


def names_of(violations):
    return sorted({violation.invariant for violation in violations})


class TestComputeHistory(base.TestCase):

    def test_clean_history(self):
        history = {'a': [(0.0, 'spawned', 'h1', None),
                         (2.0, 'started', 'h1', None),
                         (9.0, 'terminated', 'h1', None)],
                   'b': [(0.0, 'spawned', 'h1', None),
                         (2.0, 'started', 'h1', None),
                         (5.0, 'ended', 'h1', None)]}
        self.assertEqual([], invariants.check_compute_history(history))

    def test_terminated_twice(self):
        history = {'a': [(0.0, 'spawned', 'h1', None),
                         (3.0, 'terminated', 'h1', None),
                         (9.0, 'terminated', 'h2', None)]}
        self.assertEqual(['terminated_twice'], names_of(
            invariants.check_compute_history(history)))

    def test_booted_after_its_termination(self):
        history = {'a': [(0.0, 'spawned', 'h1', None),
                         (3.0, 'terminated', 'h1', None),
                         (9.0, 'spawned', 'h2', None)]}
        found = invariants.check_compute_history(history)
        self.assertEqual(['resurrected'], names_of(found))
        self.assertIn('after it was terminated at 3.0 on h1',
                      found[0].detail)

    def test_booted_after_it_ended(self):
        history = {'a': [(0.0, 'spawned', 'h1', None),
                         (5.0, 'ended', 'h1', None),
                         (9.0, 'spawned', 'h1', None)]}
        self.assertEqual(['resurrected'], names_of(
            invariants.check_compute_history(history)))

    def test_requeued_victim_may_boot_once_per_displacement(self):
        history = {'a': [(0.0, 'spawned', 'h1', None),
                         (3.0, 'terminated', 'h1', None),
                         (9.0, 'spawned', 'h2', None),
                         (12.0, 'terminated', 'h2', None),
                         (20.0, 'spawned', 'h1', None)]}
        self.assertEqual([], invariants.check_compute_history(history,
                                                              {'a': 2}))
        self.assertEqual(['resurrected'], names_of(
            invariants.check_compute_history(history, {'a': 1})))

    def test_boot_after_a_crash_is_no_resurrection(self):
        history = {'a': [(0.0, 'spawned', 'h1', None),
                         (3.0, 'crashed', 'h1', 'running'),
                         (9.0, 'spawned', 'h2', None)]}
        self.assertEqual([], invariants.check_compute_history(history))


class TestChecks(base.TestCase):

    def test_overcommits(self):
        found = invariants.check_overcommits([(4.0, 'h1', 'a', 'cannot hold')])
        self.assertEqual(['overcommitted'], names_of(found))
        self.assertEqual([], invariants.check_overcommits([]))

    def test_db_equals_compute(self):
        rows = [row('a', 'running', 'h1'), row('b', 'building', 'h2'),
                row('c', 'terminated', 'h1'), row('d', 'pending')]
        truth = {'h1': {'a': 'running'}, 'h2': {'b': 'building'}}
        self.assertEqual([], invariants.check_db_equals_compute(rows, truth))

    def test_db_says_gone_compute_runs_it(self):
        rows = [row('a', 'terminated', 'h1')]
        found = invariants.check_db_equals_compute(
            rows, {'h1': {'a': 'running'}})
        self.assertEqual(['db_equals_compute'], names_of(found))
        self.assertIn('the database says terminated on h1', found[0].detail)

    def test_db_has_what_compute_does_not_run(self):
        rows = [row('a', 'running', 'h1'), row('b', 'running', 'h2')]
        found = invariants.check_db_equals_compute(
            rows, {'h1': {'a': 'running'}, 'h2': {}})
        self.assertEqual(['db_equals_compute'], names_of(found))
        self.assertIn('b running on h2', found[0].detail)

    def test_db_puts_it_on_the_wrong_host(self):
        rows = [row('a', 'running', 'h1')]
        found = invariants.check_db_equals_compute(
            rows, {'h1': {}, 'h2': {'a': 'running'}})
        self.assertEqual(2, len(found))

    def test_books_equal_compute(self):
        truth = {'h1': {'a': 'running'}, 'h2': {}}
        self.assertEqual([], invariants.check_books_equal_compute({'a': 'h1'},
                                                                  truth))
        self.assertEqual(['books_equal_compute'], names_of(
            invariants.check_books_equal_compute({'a': 'h2'}, truth)))
        self.assertEqual(['books_equal_compute'], names_of(
            invariants.check_books_equal_compute({'a': 'h1', 'z': 'h2'},
                                                 truth)))

    def test_spot_decision_naming_a_normal_victim(self):
        rows = [row('n', 'running', 'h1', preemptible=False)]
        found = invariants.check_normal_terminated(
            rows, [decision(1, victims=['n'])], {}, set(), spot=True,
            requeue=False)
        self.assertEqual(['normal_terminated'], names_of(found))
        # Under a class-based strategy naming it is the design.
        self.assertEqual([], invariants.check_normal_terminated(
            rows, [decision(1, victims=['n'])], {}, set(), spot=False,
            requeue=True))

    def test_normal_instance_terminated_by_the_compute_side(self):
        rows = [row('n', 'running', 'h1', preemptible=False)]
        history = {'n': [(0.0, 'spawned', 'h1', None),
                         (5.0, 'terminated', 'h1', None)]}
        found = invariants.check_normal_terminated(rows, [], history, set(),
                                                   spot=True, requeue=False)
        self.assertEqual(['normal_terminated'], names_of(found))
        # Allowed when its request was deleted, or failed as a whole.
        self.assertEqual([], invariants.check_normal_terminated(
            rows, [], history, {'n'}, spot=True, requeue=False))
        self.assertEqual([], invariants.check_normal_terminated(
            rows, [], history, set(), spot=True, requeue=False,
            failed={'n'}))

    def test_normal_instance_ending_terminated(self):
        rows = [row('n', 'terminated', 'h1', preemptible=False)]
        self.assertEqual(['normal_terminated'], names_of(
            invariants.check_normal_terminated(rows, [], {}, set(), spot=False,
                                               requeue=True)))

    def test_requeued_normal_victim(self):
        rows = [row('n', 'pending', preemptible=False)]
        history = {'n': [(0.0, 'spawned', 'h1', None),
                         (5.0, 'terminated', 'h1', None)]}
        decisions = [decision(1, victims=['n'], confirmed=['n'])]
        self.assertEqual([], invariants.check_normal_terminated(
            rows, decisions, history, set(), spot=False, requeue=True))
        self.assertEqual(['normal_terminated'], names_of(
            invariants.check_normal_terminated(rows, [], history, set(),
                                               spot=False, requeue=True)))


class TestOutcomes(base.TestCase):

    @staticmethod
    def rooms(free):
        return lambda normal_only: [free]

    def check(self, requests, rows, free=(0, 0, 0), deleted=(), ran=(),
              spot=True):
        return invariants.check_outcomes(requests, rows, self.rooms(free),
                                         set(deleted), set(ran), spot)

    def test_placed_and_failed_requests(self):
        self.assertEqual([], self.check(
            [request('a', 'placed'), request('b', 'failed', 'no host')],
            [row('a', 'running', 'h1'), row('b', 'error', reason='x')]))

    def test_stuck_building(self):
        found = self.check([request('a', 'placed')],
                           [row('a', 'building', 'h1')])
        self.assertEqual(['request_outcome'], names_of(found))
        self.assertIn('stuck building on h1', found[0].detail)

    def test_failed_without_a_reason(self):
        self.assertEqual(['request_outcome'], names_of(self.check(
            [request('a', 'failed')], [row('a', 'error', reason='x')])))

    def test_deleted_by_nobody(self):
        self.assertEqual(['request_outcome'], names_of(self.check(
            [request('a', 'deleted')], [row('a', 'deleted')])))
        self.assertEqual([], self.check(
            [request('a', 'deleted')], [row('a', 'deleted')],
            deleted={'a'}))

    def test_waiting_legitimately(self):
        self.assertEqual([], self.check([request('a', 'pending')],
                                        [row('a', 'pending')],
                                        free=(1, 1024, 10)))

    def test_waiting_although_there_is_room(self):
        found = self.check([request('a', 'pending')],
                           [row('a', 'pending')], free=(4, 8192, 80))
        self.assertEqual(['request_outcome'], names_of(found))
        self.assertIn('although the cloud has room', found[0].detail)

    def test_one_instance_ran_its_sibling_gave_up(self):
        found = self.check(
            [request('r', 'placed')],
            [row('r-0', 'running', 'h1', request_id='r'),
             row('r-1', 'error', request_id='r', reason='refused')],
            ran={'r-0'})
        self.assertEqual(['all_or_nothing'], names_of(found))

    def test_sibling_displaced_before_it_ran_did_not_give_up(self):
        self.assertEqual([], self.check(
            [request('r', 'placed')],
            [row('r-0', 'running', 'h1', request_id='r'),
             row('r-1', 'terminated', 'h1', request_id='r')],
            ran={'r-0'}))
        # Its failed boot reported while it was being terminated.
        displaced = row('r-1', 'error', 'h1', request_id='r',
                        reason='boot failed')
        displaced.terminated_by = 7
        self.assertEqual([], self.check(
            [request('r', 'placed')],
            [row('r-0', 'running', 'h1', request_id='r'), displaced],
            ran={'r-0'}))

    def test_failed_request_still_running(self):
        found = self.check(
            [request('r', 'failed', 'gave up')],
            [row('r-0', 'running', 'h1', request_id='r'),
             row('r-1', 'error', request_id='r', reason='refused')],
            ran={'r-0'})
        self.assertEqual(['all_or_nothing'], names_of(found))
        self.assertEqual([], self.check(
            [request('r', 'failed', 'gave up')],
            [row('r-0', 'error', 'h1', request_id='r', reason='rolled'),
             row('r-1', 'error', request_id='r', reason='refused')],
            ran={'r-0'}))

    def test_pack(self):
        self.assertTrue(invariants._pack([(2, 1, 1), (2, 1, 1)], [(4, 2, 2)]))
        self.assertFalse(invariants._pack([(3, 1, 1), (3, 1, 1)],
                                          [(4, 2, 2), (2, 2, 2)]))
