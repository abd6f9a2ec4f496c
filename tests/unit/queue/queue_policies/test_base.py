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

"""Queue policies: loading by name, the base order, and the priority
policy."""

from preemptible_sched.conf import plugins
from preemptible_sched import exception
from preemptible_sched import objects
from preemptible_sched.queue import queue_policies as policies
from preemptible_sched.queue.queue_policies import fifo
from preemptible_sched.queue.queue_policies import priority
from preemptible_sched.queue.queue_policies import qos_slack
from tests import base


def entry(name, submitted_at, sequence, prio=0.0):
    return objects.PendingRequest(
        base.make_spec(spec_id=name, priority=prio), submitted_at, sequence)


class TestLoad(base.TestCase):

    def test_every_policy_by_name(self):
        for name, cls in (('fifo', fifo.FifoPolicy),
                          ('priority', priority.PriorityPolicy),
                          ('qos_slack', qos_slack.QoSSlackPolicy)):
            policy = policies.load(name)
            self.assertIsInstance(policy, cls)
            self.assertEqual(name, policy.name)

    def test_no_name_is_bad_input(self):
        for name in (None, ''):
            error = self.assertRaises(exception.InvalidInput, policies.load,
                                      name)
            # The operator's one line: the option, and what it lacks.
            self.assertEqual('[scheduler] queue_policy: must name a queue '
                             'policy', str(error))
            self.assertNotIsInstance(error, exception.UnknownPlugin)

    def test_unknown_name_names_the_option(self):
        error = self.assertRaises(exception.UnknownPlugin, policies.load,
                                  'lifo')
        self.assertEqual(('scheduler', 'queue_policy', ['lifo']),
                         (error.group, error.option, error.names))
        self.assertEqual(sorted(plugins.names(plugins.QUEUE_POLICIES)),
                         error.valid)


class TestBasePolicy(base.TestCase):

    def test_sort_key_is_abstract(self):
        self.assertRaises(NotImplementedError,
                          policies.BaseQueuePolicy().sort_key,
                          entry('a', 0.0, 0), 0.0)

    def test_order_sorts_by_key_at_the_time_given(self):
        seen = []

        class ByAge(policies.BaseQueuePolicy):
            def sort_key(self, request, now):
                seen.append(now)
                return now - request.submitted_at

        ordered = ByAge().order([entry('old', 1.0, 0), entry('new', 5.0, 1),
                                 entry('mid', 3.0, 2)], 10.0)
        self.assertEqual(['new', 'mid', 'old'], [r.id for r in ordered])
        self.assertEqual([10.0] * 3, seen)


class TestPriorityPolicy(base.TestCase):

    def test_highest_priority_then_oldest_then_sequence(self):
        queue = [entry('low-old', 1.0, 0, 1), entry('high-new', 9.0, 1, 5),
                 entry('high-old', 2.0, 3, 5), entry('high-old-2', 2.0, 2, 5),
                 entry('mid', 0.0, 4, 3)]
        self.assertEqual(['high-old-2', 'high-old', 'high-new', 'mid',
                          'low-old'],
                         [r.id for r in priority.PriorityPolicy().order(
                             queue, 100.0)])
