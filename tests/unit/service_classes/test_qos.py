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

"""The QoS model: service classes from the configuration, and its formulas.

Default classes: gold (slo 1.0, importance 1), silver (0.9, 2), bronze
(0.5, 3), safety margin 10 s. Every expected number is worked out by hand
in the comment next to it.
"""

import math

from oslo_config import cfg

from preemptible_sched.conf import qos as qos_conf
from preemptible_sched import exception
from preemptible_sched import objects
from preemptible_sched.service_classes import qos
from tests import base

GOLD = qos.ServiceClass('gold', 1.0, 1, 3.0)
SILVER = qos.ServiceClass('silver', 0.9, 2, 2.0)
BRONZE = qos.ServiceClass('bronze', 0.5, 3, 1.0)


def account(cls, admitted_at=0.0, running_s=0.0, overhead_s=0.0,
            now=100.0):
    return qos.Account(cls, admitted_at, running_s, overhead_s, now)


def private_conf(**qos_overrides):
    """A ConfigOpts of its own, so custom classes leave CONF alone."""
    conf = cfg.ConfigOpts()
    qos_conf.register_opts(conf)
    for name, value in qos_overrides.items():
        conf.set_override(name, value, 'qos')
    return conf


class TestFormulas(base.TestCase):

    def test_availability(self):
        # 90 s running out of 100 s since admission.
        self.assertAlmostEqual(0.9, qos.availability(90, 0, 100))
        # 30 / (250 - 200) = 0.6
        self.assertAlmostEqual(0.6, qos.availability(30, 200, 250))

    def test_availability_undefined_at_admission(self):
        self.assertIsNone(qos.availability(0, 100, 100))

    def test_time_to_violation_at_the_slo(self):
        # silver: 90 / 0.9 - 100 = 100 - 100 = 0
        self.assertAlmostEqual(0.0, qos.time_to_violation(90, 0, 100, 0.9))

    def test_time_to_violation_already_violating(self):
        # silver: 45 / 0.9 - 60 = 50 - 60 = -10
        self.assertAlmostEqual(-10.0,
                               qos.time_to_violation(45, 40, 100, 0.9))

    def test_time_to_violation_with_slack(self):
        # bronze: 60 / 0.5 - 100 = 120 - 100 = 20
        self.assertAlmostEqual(20.0, qos.time_to_violation(60, 0, 100, 0.5))

    def test_time_to_violation_without_slo_is_infinite(self):
        self.assertEqual(math.inf, qos.time_to_violation(0, 0, 100, 0.0))

    def test_overhead_ratio(self):
        # 10 / (10 + 90) = 0.1
        self.assertAlmostEqual(0.1, qos.overhead_ratio(10, 90))
        # 30 / (30 + 10) = 0.75
        self.assertAlmostEqual(0.75, qos.overhead_ratio(30, 10))

    def test_overhead_ratio_before_anything_is_zero(self):
        self.assertEqual(0.0, qos.overhead_ratio(0, 0))


class TestAccount(base.TestCase):

    def test_properties(self):
        # silver admitted at 0, 90 s run, 10 s overhead, at 100:
        # A = 0.9, Q = 100 - 100 = 0, PO = 0.1.
        acc = account(SILVER, 0, 90, 10, 100)
        self.assertAlmostEqual(0.9, acc.availability)
        self.assertAlmostEqual(0.0, acc.time_to_violation)
        self.assertAlmostEqual(0.1, acc.overhead_ratio)

    def test_at_risk_just_below_the_margin(self):
        # gold, admitted now: Q = 9.99 / 1 - 0 = 9.99 < 10
        self.assertTrue(account(GOLD, 100, 9.99, now=100).at_risk)

    def test_not_at_risk_at_the_margin(self):
        # gold: Q = 10 / 1 - 0 = 10, not < 10
        self.assertFalse(account(GOLD, 100, 10, now=100).at_risk)
        # bronze: Q = 55 / 0.5 - 100 = 10
        self.assertFalse(account(BRONZE, 0, 55, now=100).at_risk)

    def test_custom_margin(self):
        # bronze, margin 30: Q = 120 - 100 = 20 < 30
        cls = qos.ServiceClass('bronze', 0.5, 3, 1.0, safety_margin=30)
        self.assertTrue(account(cls, 0, 60, now=100).at_risk)
        self.assertFalse(account(BRONZE, 0, 60, now=100).at_risk)

    def test_gold_is_never_preempted(self):
        # threshold 1 - 1.0 = 0; PO 0 / 100 = 0 is not below it.
        self.assertEqual(0.0, GOLD.overhead_threshold)
        self.assertFalse(account(GOLD, 0, 100).may_be_preempted_again)
        self.assertFalse(account(GOLD, 0, 0).may_be_preempted_again)

    def test_silver_threshold(self):
        # threshold 1 - 0.9 = 0.1
        self.assertAlmostEqual(0.1, SILVER.overhead_threshold)
        # PO 9 / (9 + 91) = 0.09 < 0.1
        self.assertTrue(account(SILVER, 0, 91, 9).may_be_preempted_again)
        # PO 10 / (10 + 90) = 0.1 has reached it
        self.assertFalse(account(SILVER, 0, 90, 10).may_be_preempted_again)

    def test_bronze_threshold(self):
        # threshold 1 - 0.5 = 0.5; PO 49 / 100, then 50 / 100.
        self.assertTrue(account(BRONZE, 0, 51, 49).may_be_preempted_again)
        self.assertFalse(account(BRONZE, 0, 50, 50).may_be_preempted_again)

    def test_threshold_extra_is_added(self):
        # 1 - 0.9 + 0.05 = 0.15: PO 0.1 may now be preempted again,
        # PO 15 / (15 + 85) = 0.15 may not.
        cls = qos.ServiceClass('silver', 0.9, 2, 2.0,
                               overhead_threshold_extra=0.05)
        self.assertAlmostEqual(0.15, cls.overhead_threshold)
        self.assertTrue(account(cls, 0, 90, 10).may_be_preempted_again)
        self.assertFalse(account(cls, 0, 85, 15).may_be_preempted_again)

    def test_gold_with_extra_may_be_preempted(self):
        # 1 - 1.0 + 0.1 = 0.1 > PO 0
        cls = qos.ServiceClass('gold', 1.0, 1, 3.0,
                               overhead_threshold_extra=0.1)
        self.assertTrue(account(cls, 0, 100).may_be_preempted_again)

    def test_threshold_reached_exactly_with_inexact_slo(self):
        cls = qos.ServiceClass('x', 0.7, 2, 1.0)
        self.assertFalse(account(cls, 0, 70, 30).may_be_preempted_again)


class TestSlackKey(base.TestCase):

    def test_at_risk_gold_before_at_risk_bronze_with_less_slack(self):
        # gold Q = 0 - 5 = -5; bronze Q = 0 - 100 = -100.
        gold = account(GOLD, 95, 0)
        bronze = account(BRONZE, 0, 0)
        self.assertLess(gold.slack_key(), bronze.slack_key())

    def test_at_risk_before_safe(self):
        # bronze at risk Q = 2 * 54 - 100 = 8;
        # silver safe Q = 99.9 / 0.9 - 100 = 111 - 100 = 11.
        at_risk = account(BRONZE, 0, 54)
        safe = account(SILVER, 0, 99.9)
        self.assertTrue(at_risk.at_risk)
        self.assertFalse(safe.at_risk)
        self.assertLess(at_risk.slack_key(), safe.slack_key())

    def test_safe_ordered_by_slack_whatever_the_class(self):
        # At 1000: bronze Q = 510 / 0.5 - 1000 = 20;
        # silver Q = 990 / 0.9 - 1000 = 1100 - 1000 = 100.
        bronze = account(BRONZE, 0, 510, now=1000)
        silver = account(SILVER, 0, 990, now=1000)
        self.assertLess(bronze.slack_key(), silver.slack_key())

    def test_at_risk_of_one_class_ordered_by_slack(self):
        # silver Q = 45 / 0.9 - 60 = -10, then 90 / 0.9 - 100 = 0.
        first = account(SILVER, 40, 45)
        second = account(SILVER, 0, 90)
        self.assertLess(first.slack_key(), second.slack_key())

    def test_ties_broken_by_admission(self):
        # Both bronze with Q = 20: 2 * 60 - 100 and 2 * 50 - 80.
        older = account(BRONZE, 0, 60)
        younger = account(BRONZE, 20, 50)
        self.assertEqual(older.time_to_violation, younger.time_to_violation)
        self.assertLess(older.slack_key(), younger.slack_key())


class TestAccountsOfObjects(base.TestCase):

    def setUp(self):
        super().setUp()
        self.classes = qos.Classes()

    def test_instance_running_adds_current_run(self):
        # 30 s before plus 100 - 60 = 40 s now: r = 70; silver
        # Q = 70 / 0.9 - (100 - 20) = 77.78 - 80 = -2.22.
        instance = base.make_instance(
            'i', service_class='silver', admitted_at=20, running_s=30,
            overhead_s=5, running_since=60)
        acc = qos.instance_account(instance, self.classes, 100)
        self.assertEqual(70, acc.running_s)
        self.assertEqual(5, acc.overhead_s)
        self.assertEqual(20, acc.admitted_at)
        self.assertAlmostEqual(70 / 0.9 - 80, acc.time_to_violation)
        self.assertEqual('silver', acc.service_class.name)

    def test_instance_not_running_counts_only_the_past(self):
        instance = base.make_instance('i', admitted_at=20, running_s=30)
        self.assertEqual(
            30, qos.instance_account(instance, self.classes, 100).running_s)

    def test_instance_without_admission_uses_start(self):
        instance = base.make_instance('i', started_at=40)
        self.assertEqual(
            40, qos.instance_account(instance, self.classes, 100).admitted_at)

    def test_request_account(self):
        spec = base.make_spec(service_class='bronze')
        request = objects.PendingRequest(spec, 10, 0, running_s=30,
                                         overhead_s=4)
        acc = qos.request_account(request, self.classes, 100)
        # bronze: Q = 30 / 0.5 - 90 = -30
        self.assertEqual(BRONZE.name, acc.service_class.name)
        self.assertAlmostEqual(-30, acc.time_to_violation)
        self.assertEqual(10, acc.admitted_at)


class TestLoadClasses(base.TestCase):

    def test_defaults(self):
        classes = qos.load_classes()
        self.assertEqual(['gold', 'silver', 'bronze'], list(classes))
        self.assertEqual(
            [(1.0, 1, 3.0), (0.9, 2, 2.0), (0.5, 3, 1.0)],
            [(c.slo, c.importance, c.priority) for c in classes.values()])
        self.assertEqual({10.0}, {c.safety_margin
                                  for c in classes.values()})
        self.assertEqual({0.0}, {c.overhead_threshold_extra
                                 for c in classes.values()})

    def test_overridden_defaults(self):
        self.flags(group='service_class_silver', slo=0.95,
                   safety_margin=30.0)
        silver = qos.load_classes()['silver']
        self.assertEqual(0.95, silver.slo)
        self.assertEqual(30.0, silver.safety_margin)

    def test_custom_class_without_slo_names_the_option(self):
        conf = private_conf(service_classes=['gold', 'x'])
        qos_conf.register_class(conf, 'x')
        conf.set_override('importance', 2, 'service_class_x')
        error = self.assertRaises(exception.InvalidInput, qos.load_classes,
                                  conf)
        self.assertIn('[service_class_x] slo', str(error))

    def test_custom_class_without_importance_names_the_option(self):
        conf = private_conf(service_classes=['x'])
        qos_conf.register_class(conf, 'x')
        conf.set_override('slo', 0.7, 'service_class_x')
        error = self.assertRaises(exception.InvalidInput, qos.load_classes,
                                  conf)
        self.assertIn('[service_class_x] importance', str(error))

    def test_priority_unset_follows_importance(self):
        # Two classes: gold keeps its 3.0; x gets 2 + 1 - 2 = 1.0.
        conf = private_conf(service_classes=['gold', 'x'])
        qos_conf.register_class(conf, 'x')
        conf.set_override('slo', 0.7, 'service_class_x')
        conf.set_override('importance', 2, 'service_class_x')
        classes = qos.load_classes(conf)
        self.assertEqual(1.0, classes['x'].priority)
        self.assertEqual(3.0, classes['gold'].priority)

    def test_priority_unset_for_a_default_class(self):
        # Three classes, silver made importance 1: 3 + 1 - 1 = 3.0.
        self.flags(group='service_class_silver', priority=None,
                   importance=1)
        self.assertEqual(3.0, qos.load_classes()['silver'].priority)

    def test_unknown_default_class(self):
        self.flags(group='qos', default_service_class='platinum')
        error = self.assertRaises(exception.InvalidInput, qos.load_classes)
        self.assertIn('[qos] default_service_class', str(error))
        self.assertIn('platinum', str(error))

    def test_no_class_at_all(self):
        self.flags(group='qos', service_classes=[' '])
        self.assertRaises(exception.InvalidInput, qos.load_classes)


class TestClasses(base.TestCase):

    def test_request_without_class_keeps_no_slo(self):
        classes = qos.Classes()
        self.assertIs(qos.NO_CLASS, classes.get(None))
        self.assertIs(qos.NO_CLASS, classes.get('removed'))
        self.assertEqual(0.9, classes.get('silver').slo)

    def test_default_class(self):
        self.flags(group='qos', default_service_class='bronze')
        self.assertEqual('bronze', qos.Classes().get(None).name)

    def test_no_class_is_never_at_risk_and_always_preemptible(self):
        acc = account(qos.NO_CLASS, 0, 0, 1000, now=100)
        self.assertFalse(acc.at_risk)
        # PO 1000 / 1000 = 1 < threshold 1 - 0 + 1 = 2
        self.assertTrue(acc.may_be_preempted_again)

    def test_given_classes(self):
        classes = qos.Classes({'bronze': BRONZE}, default='bronze')
        self.assertIs(BRONZE, classes.get(None))
        self.assertIn('bronze', classes)
        self.assertNotIn('gold', classes)
        self.assertEqual([BRONZE], list(classes))
