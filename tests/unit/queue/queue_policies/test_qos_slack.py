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

"""The qos_slack queue: at-risk requests first, least slack first.

Default classes (gold 1.0, silver 0.9, bronze 0.5; margin 10 s).
"""

from preemptible_sched import objects
from preemptible_sched.queue import queue_policies as policies
from preemptible_sched.queue.queue_policies import qos_slack
from preemptible_sched.service_classes import qos
from tests import base


def pending(name, cls, submitted_at, running_s=0.0, sequence=0):
    spec = base.make_spec(spec_id=name, service_class=cls)
    return objects.PendingRequest(spec, submitted_at, sequence,
                                  running_s=running_s)


class TestQoSSlackPolicy(base.TestCase):

    def setUp(self):
        super().setUp()
        self.policy = qos_slack.QoSSlackPolicy(qos.Classes())

    def _order(self, requests, now):
        return [r.id for r in self.policy.order(requests, now)]

    def test_hand_made_queue(self):
        # At now = 1000:
        requests = [
            # safe, Q = 600 / 0.5 - 1000 = 200
            pending('bronze-200', 'bronze', 0, 600),
            # safe, Q = 495 / 0.9 - 500 = 550 - 500 = 50
            pending('silver-50', 'silver', 500, 495),
            # safe, Q = 325 / 0.5 - 600 = 50, admitted before silver-50
            pending('bronze-50', 'bronze', 400, 325),
            # at risk, Q = 0 - 100 = -100
            pending('bronze-risk', 'bronze', 900),
            # at risk, Q = 0 - 0 = 0
            pending('silver-risk', 'silver', 1000),
            # at risk, Q = 0 - 5 = -5
            pending('gold-5', 'gold', 995),
            # at risk, Q = 0 - 10 = -10
            pending('gold-10', 'gold', 990),
            # no class: Q = inf, never at risk
            pending('none', None, 0),
        ]
        self.assertEqual(
            ['gold-10', 'gold-5', 'silver-risk', 'bronze-risk',
             'bronze-50', 'silver-50', 'bronze-200', 'none'],
            self._order(requests, 1000))

    def test_order_follows_time(self):
        # bronze: Q(t) = 510 / 0.5 - t = 1020 - t;
        # silver: Q(t) = 990 / 0.9 - t = 1100 - t.
        bronze = pending('bronze', 'bronze', 0, 510)
        silver = pending('silver', 'silver', 0, 990)
        # t = 1000: both safe (20, 100): least slack first.
        self.assertEqual(['bronze', 'silver'],
                         self._order([silver, bronze], 1000))
        # t = 1050: bronze -30 at risk, silver 50 safe: at risk first.
        self.assertEqual(['bronze', 'silver'],
                         self._order([silver, bronze], 1050))
        # t = 1095: both at risk (-75, 5): silver is more important.
        self.assertEqual(['silver', 'bronze'],
                         self._order([bronze, silver], 1095))

    def test_safe_order_by_slack_not_class(self):
        # At 1000: silver Q = 990 / 0.9 - 1000 = 100;
        # bronze Q = 510 / 0.5 - 1000 = 20.
        silver = pending('silver', 'silver', 0, 990)
        bronze = pending('bronze', 'bronze', 0, 510)
        self.assertEqual(['bronze', 'silver'],
                         self._order([silver, bronze], 1000))

    def test_sequence_breaks_full_ties(self):
        first = pending('first', 'gold', 100, sequence=1)
        second = pending('second', 'gold', 100, sequence=2)
        self.assertEqual(['first', 'second'],
                         self._order([second, first], 200))

    def test_default_class_applies_to_requests_without_one(self):
        # With default bronze, the classless request has Q = 0 - 100 and
        # is at risk: it goes before a safe silver (Q = 100 as above).
        self.flags(group='qos', default_service_class='bronze')
        policy = qos_slack.QoSSlackPolicy()
        silver = pending('silver', 'silver', 0, 990)
        classless = pending('classless', None, 900)
        self.assertEqual(['classless', 'silver'],
                         [r.id for r in policy.order([silver, classless],
                                                     1000)])

    def test_loaded_by_name(self):
        policy = policies.load('qos_slack')
        self.assertIsInstance(policy, qos_slack.QoSSlackPolicy)
        self.assertEqual('qos_slack', policy.name)
