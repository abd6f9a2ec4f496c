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

"""QoS-driven preemption at the edges: when time alone changes nothing,
thresholds met exactly, and the score of victims with little slack.

Default classes (gold 1.0 / importance 1, silver 0.9 / 2, bronze 0.5 / 3;
margin 10 s; overhead thresholds 0, 0.1, 0.5); exempt time 120 s; every
time is at NOW.
"""

import math

from preemptible_sched import objects
from preemptible_sched.scheduler import preemption_strategies as preemption
from preemptible_sched.scheduler.preemption_strategies import (
    qos as qos_strategy)
from preemptible_sched.service_classes import qos
from tests import base

NOW = 1000.0
MEDIUM = (2, 4000, 40)


def instance(instance_id, cls, admitted_at, running_s=0.0,
             running_since=None, overhead_s=0.0):
    return base.make_instance(
        instance_id, MEDIUM, service_class=cls, admitted_at=admitted_at,
        running_s=running_s, running_since=running_since,
        overhead_s=overhead_s)


class TestNextChange(base.TestCase):

    def setUp(self):
        super().setUp()
        self.policy = qos_strategy.QoSStrategy(qos.Classes(), exempt=120)

    def next_change(self, *instances, policy=None):
        state = base.make_host_state(instances=list(instances))
        return (policy or self.policy).next_change([state], [], NOW)

    def test_gold_at_risk_never_becomes_safe_nor_preemptible(self):
        # Gold (SLO 1) running since 0: Q = 1000 - 1000 = 0, at risk for
        # ever (it gains nothing by running), and its overhead threshold 0
        # is never undercut.
        self.assertEqual(math.inf, self.next_change(
            instance('g', 'gold', 0, 0, 0)))

    def test_booting_instances_are_skipped_not_the_rest(self):
        # A booting bronze first, then a safe bronze running since 950:
        # its exempt time ends at 1070.
        self.assertEqual(1070.0, self.next_change(
            instance('booting', 'bronze', 0, 600),
            instance('b', 'bronze', 0, 600, 950)))

    def test_booting_instances_are_victims_with_preempt_booting(self):
        # An at-risk gold request (admitted at 990, nothing run: Q = -10)
        # on a host of four mediums: a booting bronze (admitted at 0, 600 s
        # run before its preemption: Q = 600 / 0.5 - 1000 = 200) and three
        # bronzes running since 500 (r = 1100, Q = 1200; exempt until
        # 620), all safe. Only with the option is the booting one a
        # candidate.
        request = objects.PendingRequest(
            base.make_spec(MEDIUM, service_class='gold'), 990, 0)
        instances = [instance('booting', 'bronze', 0, 600)] + [
            instance('b%d' % n, 'bronze', 0, 600, 500) for n in (1, 2, 3)]
        state = base.make_host_state(instances=instances)
        default = qos_strategy.QoSStrategy(qos.Classes(), exempt=120)
        self.assertEqual(['b1', 'b2', 'b3'], sorted(
            i.id for i in default.displaceable(state, request, NOW)))
        booting = qos_strategy.QoSStrategy(qos.Classes(), exempt=120,
                                           booting=True)
        self.assertEqual(['b1', 'b2', 'b3', 'booting'], sorted(
            i.id for i in booting.displaceable(state, request, NOW)))

    def test_exempt_time_ending_now_is_no_future_change(self):
        # Running since 880: exempt until exactly NOW. r = 720,
        # Q = 1440 - 1000 = 440, safe, PO 0.
        self.assertEqual(math.inf, self.next_change(
            instance('b', 'bronze', 0, 600, 880)))

    def test_threshold_of_one_is_never_undercut_by_running(self):
        # A class of SLO 0.5 whose overhead threshold is 1: an instance
        # that has only had overhead (PO 1) just started. Admitted at 995:
        # Q = 0 - 5 = -5, at risk, safe 15 / (1 / 0.5 - 1) = 15 s from now;
        # its PO never falls below 1, so that is no change.
        classes = qos.Classes({'one': qos.ServiceClass(
            'one', 0.5, 3, 1.0, overhead_threshold_extra=0.5)})
        policy = qos_strategy.QoSStrategy(classes, exempt=120)
        self.assertEqual(NOW + 15, self.next_change(
            instance('o', 'one', 995, 0, NOW, overhead_s=5),
            policy=policy))

    def test_pending_requests_and_hosts_together(self):
        # Safe bronze request (Q = 100) at risk in 90 s; an instance
        # leaving its exempt time in 70 s wins.
        request = objects.PendingRequest(
            base.make_spec(service_class='bronze'), 900, 0, running_s=100)
        state = base.make_host_state(instances=[
            instance('b', 'bronze', 0, 600, 950)])
        self.assertEqual(1070.0, self.policy.next_change([state], [request],
                                                         NOW))
        self.assertEqual(NOW + 90, self.policy.next_change([], [request],
                                                           NOW))


class TestScore(base.TestCase):

    def setUp(self):
        super().setUp()
        self.policy = qos_strategy.QoSStrategy(qos.Classes(), exempt=0)
        self.request = objects.PendingRequest(
            base.make_spec(service_class='gold'), 990, 0)

    def score(self, *victims):
        return preemption.plan_scores(
            {'h': objects.TerminationPlan('h', victims)},
            lambda victim: self.policy.victim_standing(victim, self.request,
                                                       NOW))['h']

    def test_safe_victim_with_less_than_a_second_of_slack(self):
        # Bronze, r = 505.25: Q = 1010.5 - 1000 = 10.5, slack 0.5.
        self.assertEqual((2.0,), self.score(
            instance('b', 'bronze', 0, 505.25)))

    def test_slack_of_safe_victims_adds_up(self):
        # Slacks 0.5 and 0.25: 1 / 0.75.
        self.assertAlmostEqual(1 / 0.75, self.score(
            instance('b', 'bronze', 0, 505.25),
            instance('c', 'bronze', 0, 505.125))[-1])

    def test_no_victims_scores_zero(self):
        self.assertEqual((0.0,), self.score())


class TestCandidatesAcrossHosts(base.TestCase):

    def test_each_host_has_its_own_candidates(self):
        # The same strategy asked about two hosts at one time (twice: the
        # answers are memoised per host), and again after a host changed.
        policy = qos_strategy.QoSStrategy(qos.Classes(), exempt=0)
        request = objects.PendingRequest(
            base.make_spec(service_class='gold'), 990, 0)
        h1 = base.make_host_state('h1', instances=[
            instance('b1', 'bronze', 0, 600, 700)])
        h2 = base.make_host_state('h2', instances=[
            instance('b2', 'bronze', 0, 600, 700),
            instance('g2', 'gold', 0, 0, 0)])
        for _ in range(2):
            self.assertEqual(['b1'], [i.id for i in policy.displaceable(
                h1, request, NOW)])
            self.assertEqual(['b2'], [i.id for i in policy.displaceable(
                h2, request, NOW)])
        h1.consume(instance('b3', 'bronze', 0, 600, 700))
        self.assertEqual(['b1', 'b3'], sorted(
            i.id for i in policy.displaceable(h1, request, NOW)))
        # At another time the candidates are worked out again.
        self.assertEqual(['b1', 'b3'], sorted(
            i.id for i in policy.displaceable(h1, request, NOW + 1)))
