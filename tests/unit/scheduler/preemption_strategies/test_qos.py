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

"""QoS-driven preemption: candidates, victims and the host score.

Default classes (gold 1.0 / importance 1, silver 0.9 / 2, bronze 0.5 / 3;
margin 10 s; overhead thresholds 0, 0.1, 0.5). Every time is at NOW; the
time to violation Q of each instance is worked out where it is built.
8 vCPU / 16384 MB / 500 GB blades.
"""

import math

from oslo_config import cfg

from preemptible_sched.conf import qos as qos_conf
from preemptible_sched import objects
from preemptible_sched.scheduler import preemption_strategies as preemption
from preemptible_sched.scheduler.preemption_strategies import qos as qos_policy
from preemptible_sched.service_classes import qos
from tests import base

NOW = 1000.0
MEDIUM = (2, 4000, 40)
ONE = (1, 1000, 10)


def instance(instance_id, cls, admitted_at, running_s=0.0,
             running_since=None, overhead_s=0.0, resources=MEDIUM):
    return base.make_instance(
        instance_id, resources, service_class=cls, admitted_at=admitted_at,
        running_s=running_s, running_since=running_since,
        overhead_s=overhead_s)


def request(cls, submitted_at, running_s=0.0, resources=MEDIUM):
    spec = base.make_spec(resources, service_class=cls)
    return objects.PendingRequest(spec, submitted_at, 0,
                                  running_s=running_s)


# Requests, at NOW:
#: gold, Q = 0 - 10 = -10: at risk
GOLD_AT_RISK = request('gold', 990)
#: silver, Q = 0 - 0 = 0: at risk
SILVER_AT_RISK = request('silver', NOW)
#: bronze, Q = 0 - 5 = -5: at risk
BRONZE_AT_RISK = request('bronze', 995)
#: bronze, Q = 100 / 0.5 - 100 = 100: safe
BRONZE_SAFE = request('bronze', 900, 100)


def ids(instances):
    return sorted(i.id for i in instances)


class QoSPolicyTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.policy = qos_policy.QoSStrategy(qos.Classes(), exempt=120)


class TestCandidates(QoSPolicyTestCase):

    def setUp(self):
        super().setUp()
        self.state = base.make_host_state(instances=[
            # safe bronze (Q = 1200 - 1000 = 200) but not running
            instance('booting', 'bronze', 0, 600, resources=ONE),
            # safe bronze, r = 600 + 100: Q = 1400 - 1000 = 400, but
            # running for 100 s only (< 120)
            instance('recent', 'bronze', 0, 600, 900, resources=ONE),
            # safe bronze, r = 600 + 120: Q = 440, running for 120 s
            instance('exempt-over', 'bronze', 0, 600, 880, resources=ONE),
            # safe silver, r = 495: Q = 550 - 500 = 50;
            # PO = 55 / 550 = 0.1: reached the threshold 0.1
            instance('po-reached', 'silver', 500, 0, 505, 55,
                     resources=ONE),
            # the same with PO = 50 / 545 = 0.092 < 0.1
            instance('po-below', 'silver', 500, 0, 505, 50, resources=ONE),
            # at-risk bronze, r = 500: Q = 1000 - 1000 = 0
            instance('risky-bronze', 'bronze', 0, 0, 500, resources=ONE),
            # at-risk silver, r = 900: Q = 1000 - 1000 = 0
            instance('risky-silver', 'silver', 0, 0, 100, resources=ONE),
            # gold, r = 1000: Q = 0 (at risk), PO 0 not below 0
            instance('gold', 'gold', 0, 0, 0, resources=ONE),
        ])

    def _candidates(self, pending, policy=None):
        policy = policy or self.policy
        return ids(policy.displaceable(self.state, pending, NOW))

    def test_gold_request(self):
        # More important than bronze and silver: may take at-risk ones.
        self.assertEqual(
            ['exempt-over', 'po-below', 'risky-bronze', 'risky-silver'],
            self._candidates(GOLD_AT_RISK))

    def test_silver_request(self):
        # At-risk silver is not less important than the request.
        self.assertEqual(['exempt-over', 'po-below', 'risky-bronze'],
                         self._candidates(SILVER_AT_RISK))

    def test_bronze_request_takes_only_safe_instances(self):
        self.assertEqual(['exempt-over', 'po-below'],
                         self._candidates(BRONZE_AT_RISK))

    def test_request_not_at_risk_takes_nothing(self):
        self.assertEqual([], self._candidates(BRONZE_SAFE))

    def test_literal_policy_lets_a_safe_request_preempt(self):
        # [qos] literal_policy: BRONZE_SAFE (Q = 100) precedes the safe
        # instances with more slack, 'recent' included (no exempt time);
        # not po-below (Q = 50), nor anyone at risk.
        literal = qos_policy.QoSStrategy(qos.Classes(), exempt=120,
                                         literal=True)
        self.assertEqual(0.0, literal.exempt)
        self.assertTrue(literal.may_preempt(BRONZE_SAFE, NOW))
        self.assertFalse(self.policy.may_preempt(BRONZE_SAFE, NOW))
        self.assertEqual(['exempt-over', 'recent'],
                         self._candidates(BRONZE_SAFE, literal))
        self.assertEqual(
            ['exempt-over', 'po-below', 'recent', 'risky-bronze',
             'risky-silver'], self._candidates(GOLD_AT_RISK, literal))

    def test_literal_policy_comes_from_the_configuration(self):
        self.flags(group='qos', literal_policy=True,
                   preempt_exempt_seconds=300)
        policy = qos_policy.QoSStrategy(qos.Classes())
        self.assertEqual((True, 0.0), (policy.literal, policy.exempt))
        self.assertEqual(NOW, policy.next_change([self.state],
                                                 [BRONZE_SAFE], NOW))

    def test_request_just_at_the_margin_takes_nothing(self):
        # bronze: Q = 55 / 0.5 - 100 = 10, not below the margin 10
        self.assertEqual([], self._candidates(request('bronze', 900, 55)))

    def test_without_exempt_time_a_fresh_run_is_a_candidate(self):
        policy = qos_policy.QoSStrategy(qos.Classes(), exempt=0)
        self.assertEqual(['exempt-over', 'po-below', 'recent'],
                         self._candidates(BRONZE_AT_RISK, policy))

    def test_exempt_time_from_configuration(self):
        self.assertEqual(120.0, qos_policy.QoSStrategy(qos.Classes()).exempt)
        # 101 s: 'recent' (100 s) still exempt, 'exempt-over' (120 s) not.
        self.flags(group='qos', preempt_exempt_seconds=101.0)
        policy = qos_policy.QoSStrategy(qos.Classes())
        self.assertEqual(101.0, policy.exempt)
        self.assertEqual(['exempt-over', 'po-below'],
                         self._candidates(BRONZE_AT_RISK, policy))
        # 100 s: 'recent' has run exactly that long.
        policy = qos_policy.QoSStrategy(qos.Classes(), exempt=100)
        self.assertEqual(['exempt-over', 'po-below', 'recent'],
                         self._candidates(BRONZE_AT_RISK, policy))

    def test_from_a_configuration_of_its_own(self):
        # Nova's configuration, say: the classes, default and exempt time
        # are that configuration's, whatever the core's are.
        conf = cfg.ConfigOpts()
        qos_conf.register_opts(conf)
        qos_conf.register_class(conf, 'batch')
        conf([], project='psched-test')
        self.addCleanup(conf.reset)
        conf.set_override('service_classes', ['gold', 'batch'], group='qos')
        conf.set_override('default_service_class', 'batch', group='qos')
        conf.set_override('preempt_exempt_seconds', 7.0, group='qos')
        conf.set_override('slo', 0.25, group='service_class_batch')
        conf.set_override('importance', 4, group='service_class_batch')
        policy = qos_policy.QoSStrategy.from_conf(conf)
        self.assertEqual(['batch', 'gold'], sorted(policy.classes.by_name))
        self.assertEqual(('batch', 0.25),
                         (policy.classes.default.name,
                          policy.classes.default.slo))
        self.assertEqual(7.0, policy.exempt)

    def test_gold_never_a_candidate_even_when_safe(self):
        # Gold with margin 0: Q = 1000 - 1000 = 0 is safe, and a gold
        # request at risk precedes it; only PO 0 < threshold 0 fails.
        classes = qos.Classes({
            'gold': qos.ServiceClass('gold', 1.0, 1, 3.0, safety_margin=0),
            'bronze': qos.ServiceClass('bronze', 0.5, 3, 1.0)})
        policy = qos_policy.QoSStrategy(classes, exempt=0)
        gold = instance('gold', 'gold', 0, 0, 0)
        self.assertFalse(qos.instance_account(gold, classes, NOW).at_risk)
        state = base.make_host_state(instances=[gold])
        # bronze request: Q = -5 at risk
        self.assertEqual([], policy.displaceable(state, BRONZE_AT_RISK, NOW))

    def test_instance_without_class_is_always_a_candidate(self):
        # No SLO: Q = inf (safe), threshold 2 > any PO.
        state = base.make_host_state(instances=[
            instance('classless', None, 0, 0, 500, overhead_s=900)])
        self.assertEqual(['classless'], ids(
            self.policy.displaceable(state, BRONZE_AT_RISK, NOW)))

    def test_preemptible_flag_plays_no_part(self):
        state = base.make_host_state(instances=[
            base.make_instance('normal', MEDIUM, preemptible=False,
                               service_class='bronze', admitted_at=0,
                               running_s=600, running_since=700),
            base.make_instance('spot', MEDIUM, preemptible=True,
                               service_class='gold', admitted_at=0,
                               running_since=0)])
        # normal bronze: r = 900, Q = 800 safe; spot gold: never.
        self.assertEqual(['normal'], ids(
            self.policy.displaceable(state, BRONZE_AT_RISK, NOW)))


class TestVictims(QoSPolicyTestCase):

    def setUp(self):
        super().setUp()
        self.policy = qos_policy.QoSStrategy(qos.Classes(), exempt=0)
        # Four MEDIUM instances fill the blade's 8 vCPUs.
        self.state = base.make_host_state(instances=[
            # at risk, r = 500: Q = 1000 - 1000 = 0
            instance('risky-bronze', 'bronze', 0, 0, 500),
            # r = 495: Q = 550 - 500 = 50
            instance('silver-50', 'silver', 500, 0, 505),
            # r = 300 + 300: Q = 1200 - 1000 = 200
            instance('bronze-200', 'bronze', 0, 300, 700),
            # r = 400 + 300: Q = 1400 - 1000 = 400
            instance('bronze-400', 'bronze', 0, 400, 700),
        ])

    def _victims(self, resources):
        pending = request('gold', 990, resources=resources)
        candidates = self.policy.displaceable(self.state, pending, NOW)
        self.assertEqual(4, len(candidates))
        plan = self.policy.plan(self.state, pending, candidates, NOW)
        victims = None if plan is None else plan.victims
        return None if victims is None else [v.id for v in victims]

    def test_keep_order_most_at_risk_first(self):
        pending = request('gold', 990)
        order = self.policy.keep_order(
            list(self.state.instances.values()), pending, NOW)
        self.assertEqual(
            ['risky-bronze', 'silver-50', 'bronze-200', 'bronze-400'],
            [i.id for i in order])

    def test_one_slot_takes_the_most_slack(self):
        self.assertEqual(['bronze-400'], self._victims(MEDIUM))

    def test_two_slots(self):
        self.assertEqual(['bronze-200', 'bronze-400'],
                         self._victims((4, 8000, 80)))

    def test_three_slots_spare_the_most_at_risk(self):
        self.assertEqual(['silver-50', 'bronze-200', 'bronze-400'],
                         self._victims((6, 12000, 120)))

    def test_infeasible_when_all_are_not_enough(self):
        # 8 vCPUs free at most.
        self.assertIsNone(self._victims((10, 1000, 10)))

    def test_add_back_keeps_a_minimal_set(self):
        # gold 'g' (2 vCPUs) is no candidate; in keep order:
        # a (4 vCPUs, at risk, Q = 0), b (1, Q = 50), c (1, Q = 200).
        # Request 4 vCPUs: all removed -> 2 + 4 fits; a back -> 6 + 4 = 10
        # no; b back -> 3 + 4 fits; c back -> 4 + 4 = 8 fits. Victims: a.
        state = base.make_host_state(instances=[
            instance('g', 'gold', 0, 0, 0, resources=(2, 2000, 0)),
            instance('a', 'bronze', 0, 0, 500, resources=(4, 4000, 0)),
            instance('b', 'silver', 500, 0, 505, resources=(1, 1000, 0)),
            instance('c', 'bronze', 0, 300, 700, resources=(1, 1000, 0)),
        ])
        pending = request('gold', 990, resources=(4, 4000, 0))
        candidates = self.policy.displaceable(state, pending, NOW)
        self.assertEqual(['a', 'b', 'c'], ids(candidates))
        plan = self.policy.plan(state, pending, candidates, NOW)
        victims = None if plan is None else plan.victims
        self.assertEqual(['a'], [v.id for v in victims])

    def test_memory_counts_too(self):
        # 3 vCPUs but 9000 MB: removing bronze-400 frees 2 vCPUs and
        # 4000 MB of the 16000 used (16384 - 16000 + 4000 = 4384 < 9000);
        # bronze-200 too gives 8384 < 9000; silver-50 too 12384 >= 9000.
        self.assertEqual(['silver-50', 'bronze-200', 'bronze-400'],
                         self._victims((3, 9000, 0)))


class TestScore(QoSPolicyTestCase):

    #: at risk, Q = 0 - 10 = -10: deficit 10 - (-10) = 20
    GOLD_20 = instance('gold-20', 'gold', 990)
    #: at risk, Q = 450 / 0.9 - 1000 = -500: deficit 510
    SILVER_510 = instance('silver-510', 'silver', 0, 450)
    #: at risk, Q = 2 * 500 - 1000 = 0: deficit 10
    BRONZE_10 = instance('bronze-10', 'bronze', 0, 500)
    #: at risk, Q = 2 * 504 - 1000 = 8: deficit 2
    BRONZE_2 = instance('bronze-2', 'bronze', 0, 504)
    #: safe, Q = 2 * 600 - 1000 = 200: slack 190
    BRONZE_190 = instance('bronze-190', 'bronze', 0, 600)
    #: safe, Q = 2 * 700 - 1000 = 400: slack 390
    BRONZE_390 = instance('bronze-390', 'bronze', 0, 700)
    #: safe, Q = 495 / 0.9 - 500 = 50: slack 40
    SILVER_40 = instance('silver-40', 'silver', 500, 495)
    #: safe, Q = 2 * 505 - 1000 = 10: slack 0
    BRONZE_0 = instance('bronze-0', 'bronze', 0, 505)

    def _scores(self, *plans, policy=None):
        """The scores of ``plans`` (each a tuple of victims), compared
        together as the hosts of one decision are.
        """
        policy = policy or self.policy
        scores = preemption.plan_scores(
            {index: objects.TerminationPlan('h%d' % index, tuple(victims))
             for index, victims in enumerate(plans)},
            lambda victim: policy.victim_standing(victim, GOLD_AT_RISK, NOW))
        return [scores[index] for index in range(len(plans))]

    def _score(self, *victims):
        return self._scores(victims)[0]

    def assertCheaper(self, cheaper, dearer):
        first, second = self._scores(cheaper, dearer)
        self.assertLess(first, second)

    def test_hand_computed(self):
        # (bronze deficits, 1 / safe slack): no other class is at risk.
        score = self._score(self.BRONZE_10, self.SILVER_40, self.BRONZE_190)
        self.assertEqual(2, len(score))
        self.assertAlmostEqual(10.0, score[0])
        self.assertAlmostEqual(1 / 230.0, score[1])   # 40 + 190

    def test_deficits_sum_per_class(self):
        # (gold, bronze deficits, 1 / safe slack)
        score = self._score(self.BRONZE_10, self.BRONZE_2, self.GOLD_20)
        self.assertAlmostEqual(20.0, score[0])
        self.assertAlmostEqual(12.0, score[1])   # 10 + 2
        self.assertEqual(0.0, score[2])   # no safe victim

    def test_deficits_add_up_in_victim_order(self):
        # As they always have: (deficit so far + margin) - Q, victim by
        # victim.
        standing = [self.policy.victim_standing(victim, GOLD_AT_RISK, NOW)
                    for victim in (self.BRONZE_10, self.BRONZE_2)]
        total = 0.0
        for _, margin, time_to_violation in standing:
            total = total + margin - time_to_violation
        self.assertEqual(total, self._score(self.BRONZE_10,
                                            self.BRONZE_2)[0])

    def test_safe_victims_beat_an_at_risk_bronze(self):
        self.assertCheaper((self.BRONZE_190, self.SILVER_40),
                           (self.BRONZE_2,))

    def test_among_safe_more_slack_wins(self):
        # 1 / 390 < 1 / 190 < 1 / 40
        self.assertCheaper((self.BRONZE_390,), (self.BRONZE_190,))
        self.assertCheaper((self.BRONZE_190,), (self.SILVER_40,))
        # 1 / (190 + 40) < 1 / 190
        self.assertCheaper((self.BRONZE_190, self.SILVER_40),
                           (self.BRONZE_190,))

    def test_safe_victim_without_slack_is_the_worst_safe(self):
        self.assertEqual(math.inf, self._score(self.BRONZE_0)[-1])
        self.assertCheaper((self.SILVER_40,), (self.BRONZE_0,))

    def test_gold_deficit_dominates_silver(self):
        # (20, 0, 0) > (0, 510, 0)
        self.assertCheaper((self.SILVER_510,), (self.GOLD_20,))

    def test_silver_deficit_dominates_bronze(self):
        # (0, 12, 1 / 190) < (510, 0, 0)
        self.assertCheaper((self.BRONZE_10, self.BRONZE_2, self.BRONZE_190),
                           (self.SILVER_510,))

    def test_one_position_per_class_at_risk_in_any_plan(self):
        # Silver at risk in one plan, bronze in the other: both scores
        # have both positions, most important first.
        silver, bronze = self._scores((self.SILVER_510,),
                                      (self.BRONZE_10, self.BRONZE_190))
        self.assertEqual(3, len(silver))
        self.assertAlmostEqual(510.0, silver[0])
        self.assertEqual(0.0, silver[1])
        self.assertEqual(0.0, bronze[0])
        self.assertAlmostEqual(10.0, bronze[1])
        self.assertAlmostEqual(1 / 190.0, bronze[2])

    def test_classes_configured_decide_importance(self):
        classes = qos.Classes({
            'gold': qos.ServiceClass('gold', 1.0, 1, 3.0),
            'bronze': qos.ServiceClass('bronze', 0.5, 5, 1.0)})
        policy = qos_policy.QoSStrategy(classes, exempt=0)
        self.assertEqual(
            (5, 10.0, 500.0 * 2 - NOW),
            tuple(policy.victim_standing(self.BRONZE_10, GOLD_AT_RISK, NOW)))
        score, = self._scores((self.BRONZE_10,), policy=policy)
        self.assertEqual(2, len(score))
        self.assertAlmostEqual(10.0, score[0])

    def test_victim_without_class_costs_nothing(self):
        classless = objects.Instance('c', objects.Resources(*MEDIUM),
                                     admitted_at=0, running_since=500)
        self.assertEqual((0.0,), self._score(classless))


class TestLoad(base.TestCase):

    def test_loaded_by_name(self):
        policy = preemption.load('qos')
        self.assertIsInstance(policy, qos_policy.QoSStrategy)
        self.assertFalse(policy.spot)


class TestNextChange(QoSPolicyTestCase):
    """When time alone may next change who may preempt whom."""

    def next_change(self, instances=(), pending=()):
        state = base.make_host_state(instances=list(instances))
        return self.policy.next_change([state], list(pending), NOW)

    def test_nothing_time_dependent(self):
        self.assertEqual(math.inf, self.next_change())

    def test_safe_request_becomes_at_risk(self):
        # BRONZE_SAFE: Q = 100, margin 10: at risk 90 s from now.
        self.assertEqual(NOW + 90, self.next_change(pending=[BRONZE_SAFE]))
        # An at-risk request changes nothing by waiting longer.
        self.assertEqual(math.inf,
                         self.next_change(pending=[BRONZE_AT_RISK]))

    def test_exempt_time_ends(self):
        # Safe bronze running since 950: exempt until 950 + 120 = 1070.
        # r = 600 + 50: Q = 1300 - 1000 = 300, safe.
        self.assertEqual(1070.0, self.next_change(
            [instance('b', 'bronze', 0, 600, 950)]))

    def test_at_risk_instance_becomes_safe(self):
        # Silver admitted at 0, running since 500 (past exempt): r = 500,
        # Q = 500 / 0.9 - 1000 = -444.44; it gains 1/0.9 - 1 = 1/9 per
        # second, so it reaches the margin 10 after (10 + 444.44) * 9 s.
        expected = NOW + (10 + 1000 - 500 / 0.9) * 9
        self.assertAlmostEqual(expected, self.next_change(
            [instance('s', 'silver', 0, 0, 500)]), places=6)

    def test_overhead_ratio_falls_below_threshold(self):
        # Silver admitted at 800, running since 850 with 50 s of overhead:
        # r = 150, Q = 166.7 - 200 = -33.3 (at risk, becomes safe after
        # (10 + 33.33) * 9 = 390 s); PO = 50 / 200 = 0.25 >= 0.1, falls
        # below once r > 50 * 0.9 / 0.1 = 450, i.e. 300 s from now.
        self.assertAlmostEqual(NOW + 300, self.next_change(
            [instance('s', 'silver', 800, 0, 850, overhead_s=50)]),
            places=6)
