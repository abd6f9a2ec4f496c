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

import logging

import fixtures

from preemptible_sched.nova import terminator
from tests.unit.nova import test_journal


class Cloud:
    """Servers that exist, and every action taken, in order."""

    def __init__(self, *servers, failing=()):
        self.servers = set(servers)
        self.failing = set(failing)
        self.actions = []

    def __call__(self, victim):
        self.actions.append(victim.id)
        if victim.id in self.failing:
            raise RuntimeError('task under way')
        if victim.id not in self.servers:
            raise terminator.Gone()
        self.servers.discard(victim.id)


class TestTerminator(test_journal.JournalCase):

    def start(self, *victims, terminate_at=100.0):
        self.journal.record(test_journal.decision(
            'd1', *victims, terminate_at=terminate_at))
        self.journal.move('d1', 'acting')
        return self.journal.get('d1')

    def test_no_grace_acts_at_once(self):
        cloud = Cloud('a', 'b')
        worker = terminator.Terminator(self.journal, cloud)
        worker.act(self.start('a', 'b', terminate_at=50.0), now=50.0)
        self.assertEqual(['a', 'b'], cloud.actions)
        self.assertEqual('done', self.journal.get('d1').state)

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

    def test_gone_and_failed_victims_settle_the_decision(self):
        """'a' no longer exists (gone, not failed), 'b' is deleted, 'c'
        refuses (failed, and logged): the decision is done all the same.
        """
        log = self.useFixture(fixtures.FakeLogger(
            name=terminator.__name__, level=logging.INFO))
        cloud = Cloud('b', failing=('c',))
        worker = terminator.Terminator(self.journal, cloud)
        worker.act(self.start('a', 'b', 'c'), now=100.0)
        found = self.journal.get('d1')
        self.assertEqual('done', found.state)
        self.assertEqual({'a': 'gone', 'b': 'done', 'c': 'failed'},
                         {v.id: v.state for v in found.victims})
        self.assertIn('Victim a of decision d1 is already gone.',
                      log.output)
        self.assertIn('Could not delete victim c of decision d1: task '
                      'under way', log.output)


class TestRecovery(test_journal.JournalCase):

    def test_killed_between_two_deletions(self):
        """The scheduler deleted 'a' and died before 'b': the next one
        deletes 'b', and never touches 'a' again.
        """
        cloud = Cloud('b')
        self.journal.record(test_journal.decision('d1', 'a', 'b'))
        self.journal.move('d1', 'acting')
        self.journal.take('d1', 'a')
        self.journal.settle('d1', 'a', 'done')
        worker = terminator.Terminator(self.journal, cloud)
        finished, rolled_back = worker.recover(100.0, lambda d: True)
        self.assertEqual((['d1'], []), (finished, rolled_back))
        self.assertEqual(['b'], cloud.actions)
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
        self.journal.record(test_journal.decision('d1', 'a'))
        self.journal.move('d1', 'acting')
        self.journal.take('d1', 'a', 100.0)
        worker = terminator.Terminator(self.journal, cloud, lease=60.0)
        worker.recover(101.0, lambda d: True)
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
        before 161 - 60 = 101) B's periodic task takes it again, deletes
        and settles it. A's delete then returns: its outcome is logged,
        not recorded, and nothing is raised.
        """
        log = self.useFixture(fixtures.FakeLogger(
            name=terminator.__name__, level=logging.INFO))
        cloud = Cloud('a')
        second = terminator.Terminator(self.journal, cloud, lease=60.0)
        hung = []

        def slow_delete(victim):
            hung.append(victim.id)
            self.assertEqual(1, second.run_due(161.0))

        first = terminator.Terminator(self.journal, slow_delete, lease=60.0)
        self.journal.record(test_journal.decision('d1', 'a'))
        self.journal.move('d1', 'acting')
        first.act(self.journal.get('d1'), now=100.0)
        self.assertEqual((['a'], ['a']), (hung, cloud.actions))
        found = self.journal.get('d1')
        self.assertEqual(('done', ['done']),
                         (found.state, [v.state for v in found.victims]))
        self.assertIn('Victim a of decision d1 (done here) was settled by '
                      'another scheduler meanwhile', log.output)

    def test_a_start_leaves_a_live_schedulers_victim_alone(self):
        """Scheduler A takes 'a' at 100 s and is still deleting it when B
        starts at 100.5 s: B acts on 'b' only; A then settles 'a'.
        """
        cloud = Cloud('a', 'b')
        self.journal.record(test_journal.decision('d1', 'a', 'b'))
        self.journal.move('d1', 'acting')
        self.assertTrue(self.journal.take('d1', 'a', 100.0))
        worker = terminator.Terminator(self.journal, cloud)
        worker.recover(100.5, lambda d: True)
        self.assertEqual(['b'], cloud.actions)
        self.journal.settle('d1', 'a', 'done')
        self.assertEqual(0, worker.run_due(1000.0))
        self.assertEqual(['b'], cloud.actions)

    def test_decided_without_claim_is_rolled_back_untouched(self):
        cloud = Cloud('a')
        self.journal.record(test_journal.decision('d1', 'a'))
        worker = terminator.Terminator(self.journal, cloud)
        self.assertEqual(([], ['d1']), worker.recover(
            100.0, lambda d: False))
        self.assertEqual([], cloud.actions)
        self.assertEqual('rolled_back', self.journal.get('d1').state)

    def test_decided_with_claim_goes_on_when_due(self):
        cloud = Cloud('a')
        self.journal.record(test_journal.decision('d1', 'a',
                                                  terminate_at=200.0))
        worker = terminator.Terminator(self.journal, cloud)
        worker.recover(100.0, lambda d: d.request == ['new-d1'])
        self.assertEqual('acting', self.journal.get('d1').state)
        self.assertEqual([], cloud.actions)
        worker.run_due(200.0)
        self.assertEqual(['a'], cloud.actions)
