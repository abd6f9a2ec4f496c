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

"""The terminator against a fake cloud: victims done when gone, retried
when their deletion fails, spared when their request dies first, and
what a dead scheduler left finished once.
"""

import logging

import fixtures

from preemptible_sched.nova import terminator
from tests.unit.nova import test_journal


class Cloud:
    """Servers that exist, the requests' states, and every call made.

    ``act`` asks for a deletion: the server goes at once, unless it is
    ``failing`` (Nova refuses: an exception) or ``broken`` (Nova accepts,
    the compute host fails it: still there, no task under way) or ``slow``
    (still being deleted).
    """

    def __init__(self, *servers, failing=(), broken=(), slow=()):
        self.servers = set(servers)
        self.failing = set(failing)
        self.broken = set(broken)
        self.slow = set(slow)
        self.actions = []
        self.requests = {}
        self.claimed = set()
        self.given_up = []
        self.failed_reports = []

    def act(self, victim):
        self.actions.append(victim.id)
        if victim.id in self.failing:
            raise RuntimeError('task under way')
        if victim.id not in self.servers:
            raise terminator.Gone()
        if victim.id not in self.broken | self.slow:
            self.servers.discard(victim.id)

    def outcome(self, victim):
        if victim.id not in self.servers:
            return terminator.DONE
        if victim.id in self.slow:
            return terminator.PENDING
        return terminator.FAILED

    def request(self, decision):
        return (self.requests.get(decision.id, terminator.ALIVE),
                decision.id in self.claimed or not self.requests)

    def give_up(self, decision, victims):
        self.given_up.append((decision.id, sorted(v.id for v in victims)))

    def failed(self, decision, victim):
        self.failed_reports.append(victim.id)


class TerminatorCase(test_journal.JournalCase):

    def start(self, *victims, terminate_at=100.0, decision_id='d1'):
        self.journal.record(test_journal.decision(
            decision_id, *victims, terminate_at=terminate_at))
        self.journal.move(decision_id, 'acting')
        return self.journal.get(decision_id)

    def states(self, decision_id='d1'):
        found = self.journal.get(decision_id)
        return found.state, {v.id: v.state for v in found.victims}


class TestTerminator(TerminatorCase):

    def test_no_grace_asks_at_once_and_is_done_once_they_are_gone(self):
        cloud = Cloud('a', 'b', slow=('b',))
        worker = terminator.Terminator(self.journal, cloud)
        worker.act(self.start('a', 'b', terminate_at=50.0), now=50.0)
        self.assertEqual(['a', 'b'], cloud.actions)
        # Asked, not done: both stay victims of d1.
        self.assertEqual(('acting', {'a': 'requested', 'b': 'requested'}),
                         self.states())
        self.assertEqual({'a', 'b'}, set(self.journal.open_victims()))
        worker.run_due(51.0)
        self.assertEqual(('acting', {'a': 'done', 'b': 'requested'}),
                         self.states())
        cloud.slow.discard('b')
        cloud.servers.discard('b')
        worker.run_due(52.0)
        self.assertEqual(('done', {'a': 'done', 'b': 'done'}),
                         self.states())
        self.assertEqual(['a', 'b'], cloud.actions)

    def test_grace_leaves_victims_to_the_periodic_task(self):
        cloud = Cloud('a')
        worker = terminator.Terminator(self.journal, cloud)
        worker.act(self.start('a', terminate_at=130.0), now=100.0)
        self.assertEqual([], cloud.actions)
        self.assertEqual(0, worker.run_due(129.9))
        self.assertEqual(1, worker.run_due(130.0))
        # A late or duplicate run acts on nothing twice.
        self.assertEqual(0, worker.run_due(131.0))
        self.assertEqual(['a'], cloud.actions)
        self.assertEqual('done', self.journal.get('d1').state)

    def test_two_schedulers_never_act_on_one_victim_twice(self):
        cloud = Cloud('a', 'b')
        first = terminator.Terminator(self.journal, cloud)
        second = terminator.Terminator(self.journal, cloud)
        self.start('a', 'b')
        # Both read the decision, then both act.
        decision_1, = self.journal.open_decisions()
        decision_2, = self.journal.open_decisions()
        first.act(decision_1, now=100.0)
        second.act(decision_2, now=100.0)
        self.assertEqual(['a', 'b'], cloud.actions)

    def test_failed_deletion_is_asked_again_then_reported(self):
        """'a' is gone already; the compute host fails 'b' once and then
        deletes it; Nova refuses 'c' every time: asked three times in all,
        then failed and reported. The decision is done all the same.
        """
        log = self.useFixture(fixtures.FakeLogger(
            name=terminator.__name__, level=logging.INFO))
        cloud = Cloud('b', 'c', broken=('b',), failing=('c',))
        worker = terminator.Terminator(self.journal, cloud, attempts=3)
        worker.act(self.start('a', 'b', 'c'), now=100.0)
        self.assertEqual(['a', 'b', 'c'], cloud.actions)
        cloud.broken.discard('b')
        # b is still there, with no task: asked again (and c).
        worker.run_due(101.0)
        self.assertEqual(['a', 'b', 'c', 'b', 'c'], cloud.actions)
        self.assertEqual(('acting', {'a': 'gone', 'b': 'requested',
                                     'c': 'requested'}), self.states())
        worker.run_due(102.0)
        self.assertEqual(('acting', {'a': 'gone', 'b': 'done',
                                     'c': 'requested'}), self.states())
        self.assertEqual([], cloud.failed_reports)
        worker.run_due(103.0)
        worker.run_due(104.0)
        self.assertEqual(3, cloud.actions.count('c'))
        self.assertEqual(['c'], cloud.failed_reports)
        self.assertEqual(('done', {'a': 'gone', 'b': 'done', 'c': 'failed'}),
                         self.states())
        self.assertIn('Victim a of decision d1 is already gone.',
                      log.output)
        self.assertIn('Could not delete victim c of decision d1 (attempt 1 '
                      'of 3): task under way', log.output)
        self.assertIn('Gave up on victim c of decision d1: 3 attempts to '
                      'delete it failed.', log.output)

    def test_dead_request_spares_the_victims_left(self):
        """The grace of d1 ends after its request died (deleted during the
        grace): nothing is deleted, the victim gets its room back.
        """
        cloud = Cloud('a')
        worker = terminator.Terminator(self.journal, cloud)
        self.start('a', terminate_at=130.0)
        cloud.requests['d1'] = terminator.DEAD
        worker.run_due(130.0)
        self.assertEqual([], cloud.actions)
        self.assertEqual([('d1', ['a'])], cloud.given_up)
        self.assertEqual(('abandoned', {'a': 'spared'}), self.states())
        self.assertEqual({}, self.journal.open_victims())

    def test_unknown_request_waits_then_is_taken_for_dead(self):
        cloud = Cloud('a')
        worker = terminator.Terminator(self.journal, cloud)
        self.start('a', terminate_at=100.0)     # created at 0.0
        cloud.requests['d1'] = terminator.UNKNOWN
        worker.run_due(100.0)
        worker.run_due(terminator.UNKNOWN_FOR)
        self.assertEqual(('acting', {'a': 'pending'}), self.states())
        worker.run_due(terminator.UNKNOWN_FOR + 1)
        self.assertEqual([], cloud.actions)
        self.assertEqual(('abandoned', {'a': 'spared'}), self.states())


class TestRecovery(TerminatorCase):

    def test_killed_between_two_deletions(self):
        """The scheduler deleted 'a' and died before 'b': the next one
        deletes 'b', and never touches 'a' again.
        """
        cloud = Cloud('b')
        self.start('a', 'b')
        self.journal.take('d1', 'a')
        self.journal.settle('d1', 'a', 'done')
        worker = terminator.Terminator(self.journal, cloud)
        self.assertEqual((['d1'], []), worker.recover(100.0))
        self.assertEqual(['b'], cloud.actions)
        worker.run_due(101.0)
        self.assertEqual('done', self.journal.get('d1').state)

    def test_killed_while_deleting(self):
        """'a' was taken at 100 s by a scheduler that died (the delete may
        or may not have gone out). A start at 101 s cannot tell it from a
        live scheduler still acting, and leaves it; with the lease of
        60 s, the periodic task takes it again when it was taken before
        now - 60: not at 160.0, at 160.5, and once only.
        """
        log = self.useFixture(fixtures.FakeLogger(
            name=terminator.__name__, level=logging.INFO))
        cloud = Cloud('a')
        self.start('a')
        self.journal.take('d1', 'a', 100.0)
        worker = terminator.Terminator(self.journal, cloud, lease=60.0)
        worker.recover(101.0)
        self.assertEqual([], cloud.actions)
        self.assertEqual(0, worker.run_due(160.0))
        self.assertEqual(1, worker.run_due(160.5))
        self.assertEqual(0, worker.run_due(500.0))
        self.assertEqual(['a'], cloud.actions)
        self.assertEqual('done', self.journal.get('d1').state)
        self.assertIn('Victim a of decision d1 was taken over 60.0 s ago '
                      'and never settled: acting on it again.', log.output)

    def test_scheduler_slower_than_the_lease(self):
        """A takes 'a' at 100 s and its delete hangs; at 161 s (taken
        before 161 - 60 = 101) B's periodic task takes it again and asks;
        A's delete then returns: its outcome is logged, not recorded, and
        nothing is raised.
        """
        log = self.useFixture(fixtures.FakeLogger(
            name=terminator.__name__, level=logging.INFO))
        cloud = Cloud('a')
        second = terminator.Terminator(self.journal, cloud, lease=60.0)
        hung = []

        class Slow(Cloud):
            def act(self, victim):
                hung.append(victim.id)
                second.run_due(161.0)

        first = terminator.Terminator(self.journal, Slow('a'), lease=60.0)
        self.start('a')
        first.act(self.journal.get('d1'), now=100.0)
        self.assertEqual((['a'], ['a']), (hung, cloud.actions))
        self.assertEqual(('acting', {'a': 'requested'}), self.states())
        second.run_due(162.0)
        self.assertEqual(('done', {'a': 'done'}), self.states())
        self.assertIn('Victim a of decision d1 (requested here) was settled '
                      'by another scheduler meanwhile', log.output)

    def test_a_start_leaves_a_live_schedulers_victim_alone(self):
        """Scheduler A takes 'a' at 100 s and is still deleting it when B
        starts at 100.5 s: B acts on 'b' only; A then settles 'a'.
        """
        cloud = Cloud('a', 'b')
        self.start('a', 'b')
        self.assertTrue(self.journal.take('d1', 'a', 100.0))
        worker = terminator.Terminator(self.journal, cloud)
        worker.recover(100.5)
        self.assertEqual(['b'], cloud.actions)
        self.journal.settle('d1', 'a', 'done')
        self.assertEqual(0, worker.run_due(1000.0))
        self.assertEqual(['b'], cloud.actions)

    def test_decided_and_dead_request_is_rolled_back_and_given_back(self):
        """The scheduler journaled d1, claimed (the victim's room emptied)
        and died before it replied; the conductor gave up on the boot. A
        start gives 'a' its room back and deletes nothing.
        """
        cloud = Cloud('a')
        cloud.claimed.add('d1')
        cloud.requests['d1'] = terminator.DEAD
        self.journal.record(test_journal.decision('d1', 'a'))
        worker = terminator.Terminator(self.journal, cloud)
        self.assertEqual(([], ['d1']), worker.recover(100.0))
        self.assertEqual([], cloud.actions)
        self.assertEqual([('d1', ['a'])], cloud.given_up)
        self.assertEqual('rolled_back', self.journal.get('d1').state)
        self.assertEqual({}, self.journal.open_victims())

    def test_decided_and_unknown_request_waits(self):
        cloud = Cloud('a')
        cloud.claimed.add('d1')
        cloud.requests['d1'] = terminator.UNKNOWN
        self.journal.record(test_journal.decision('d1', 'a'))
        worker = terminator.Terminator(self.journal, cloud)
        self.assertEqual(([], []), worker.recover(100.0))
        self.assertEqual('decided', self.journal.get('d1').state)
        cloud.requests['d1'] = terminator.DEAD
        worker.run_due(200.0)
        self.assertEqual('rolled_back', self.journal.get('d1').state)
        self.assertEqual([], cloud.actions)

    def test_decided_without_claim_is_rolled_back_untouched(self):
        cloud = Cloud('a')
        cloud.requests['d1'] = terminator.ALIVE
        self.journal.record(test_journal.decision('d1', 'a'))
        worker = terminator.Terminator(self.journal, cloud)
        self.assertEqual(([], ['d1']), worker.recover(100.0))
        self.assertEqual([], cloud.actions)
        self.assertEqual([], cloud.given_up)
        self.assertEqual('rolled_back', self.journal.get('d1').state)

    def test_decided_alive_and_claimed_goes_on_when_due(self):
        cloud = Cloud('a')
        cloud.claimed.add('d1')
        cloud.requests['d1'] = terminator.ALIVE
        self.journal.record(test_journal.decision('d1', 'a',
                                                  terminate_at=200.0))
        worker = terminator.Terminator(self.journal, cloud)
        worker.recover(100.0)
        self.assertEqual('acting', self.journal.get('d1').state)
        self.assertEqual([], cloud.actions)
        worker.run_due(200.0)
        self.assertEqual(['a'], cloud.actions)

    def test_a_live_schedulers_fresh_decision_is_left_alone(self):
        """The periodic task takes over a decision left ``decided`` only
        a lease after it was made: before, its scheduler is making it.
        """
        cloud = Cloud('a')
        cloud.requests['d1'] = terminator.DEAD
        self.journal.record(test_journal.decision('d1', 'a'))  # at 0.0
        worker = terminator.Terminator(self.journal, cloud, lease=60.0)
        worker.run_due(59.0)
        self.assertEqual('decided', self.journal.get('d1').state)
        worker.run_due(61.0)
        self.assertEqual('rolled_back', self.journal.get('d1').state)


class TestDeadAfterItsVictims(TerminatorCase):
    """No grace: the scheduler deleted the victim and died before it
    replied, so the boot failed; the decision is closed only once its
    request is known, and the dead request's claim is freed.
    """

    def test_claim_freed_once_the_request_is_known_dead(self):
        cloud = Cloud('a')
        worker = terminator.Terminator(self.journal, cloud)
        worker.act(self.start('a', terminate_at=50.0), now=50.0)
        cloud.requests['d1'] = terminator.UNKNOWN
        worker.run_due(51.0)
        self.assertEqual(('acting', {'a': 'done'}), self.states())
        cloud.requests['d1'] = terminator.DEAD
        worker.run_due(52.0)
        self.assertEqual(('done', {'a': 'done'}), self.states())
        self.assertEqual([('d1', [])], cloud.given_up)

    def test_alive_request_closes_at_once(self):
        cloud = Cloud('a')
        worker = terminator.Terminator(self.journal, cloud)
        worker.act(self.start('a', terminate_at=50.0), now=50.0)
        worker.run_due(51.0)
        self.assertEqual('done', self.journal.get('d1').state)
        self.assertEqual([], cloud.given_up)

    def test_another_scheduler_moving_it_first_is_no_error(self):
        """Between this scheduler's look at the request and its move,
        another one rolls the decision back: nothing is raised, nothing
        acted on (issue 26: recovery raised).
        """
        journal = self.journal

        class Racing(Cloud):
            def request(self, decision):
                journal.move(decision.id, 'rolled_back')
                return terminator.DEAD, False

        cloud = Racing('a')
        journal.record(test_journal.decision('d1', 'a'))
        worker = terminator.Terminator(journal, cloud)
        self.assertEqual(([], []), worker.recover(100.0))
        self.assertEqual([], cloud.actions)
        self.assertEqual('rolled_back', journal.get('d1').state)
