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

import dataclasses

from preemptible_sched.simulation import metrics
from tests import base

SLOS = {'gold': 1.0, 'silver': 0.9, 'bronze': 0.5}


def record(record_id, service_class, availability):
    return metrics.InstanceRecord(
        id=record_id, service_class=service_class, preemptible=False,
        submit_s=0.0, end_s=100.0, running_s=0.0, pending_s=0.0,
        overhead_s=0.0, availability=availability, preemptions=0,
        terminated=False, host=None)


def spanned(record_id, submit_s, end_s, availability):
    return dataclasses.replace(record(record_id, 'bronze', availability),
                               submit_s=float(submit_s), end_s=end_s)


class TestInstanceReason(base.TestCase):

    def test_waiting_gives_its_requests_reason(self):
        self.assertEqual('no host up', metrics.instance_reason(
            'pending', None, 'no host up'))

    def test_ended_otherwise_gives_its_own(self):
        for state in ('terminated', 'preempted', 'error', 'deleted'):
            self.assertEqual('why', metrics.instance_reason(
                state, 'why', 'no host up'))

    def test_running_or_ended_says_nothing(self):
        for state in ('building', 'running', 'terminating', 'ended'):
            self.assertIsNone(metrics.instance_reason(
                state, 'stale', 'no host up'))


class TestGini(base.TestCase):

    def test_equal_values(self):
        self.assertEqual(0.0, metrics.gini([1, 1, 1, 1]))

    def test_one_value_holds_everything(self):
        # Σ|xi-xj| = 6 ordered pairs of 1; 2 n² mean = 2·16·0.25 = 8.
        self.assertAlmostEqual(0.75, metrics.gini([0, 0, 0, 1]))

    def test_spread_values(self):
        # Σ|xi-xj| = 2·(1+2+3+1+2+1) = 20; 2·16·2.5 = 80.
        self.assertAlmostEqual(0.25, metrics.gini([1, 2, 3, 4]))

    def test_order_does_not_matter(self):
        self.assertAlmostEqual(0.25, metrics.gini([3, 1, 4, 2]))

    def test_two_values(self):
        # Σ|xi-xj| = 20; 2·4·5 = 40.
        self.assertAlmostEqual(0.5, metrics.gini([0.0, 10.0]))

    def test_empty_and_zero_mean(self):
        self.assertEqual(0.0, metrics.gini([]))
        self.assertEqual(0.0, metrics.gini([0, 0, 0]))

    def test_negative_values_are_refused(self):
        self.assertRaises(ValueError, metrics.gini, [-1, 2])


class TestClassSummary(base.TestCase):

    def test_statistics_of_a_class(self):
        records = [record('a', 'gold', 1.0), record('b', 'gold', 0.8),
                   record('c', 'gold', 0.9), record('d', 'gold', None)]
        gold = metrics.class_summary(records, SLOS)['gold']
        self.assertEqual(3, gold['count'])
        self.assertEqual(1, gold['unmeasured'])
        self.assertEqual(1.0, gold['slo'])
        # (1.0 + 0.8 + 0.9) / 3
        self.assertAlmostEqual(0.9, gold['mean_availability'])
        # only 'a' reaches 1.0
        self.assertAlmostEqual(1 / 3, gold['slo_fulfillment'])
        # over the violating 'b' and 'c' only: (0.2 + 0.1) / 2
        self.assertAlmostEqual(0.15, gold['qos_deficit'])
        # Σ|xi-xj| = 2·(0.1+0.2+0.1) = 0.8; 2·9·0.9 = 16.2
        self.assertAlmostEqual(0.8 / 16.2, gold['gini'])

    def test_availability_at_the_slo_fulfils_it(self):
        records = [record('a', 'silver', 0.9), record('b', 'silver', 0.95),
                   record('c', 'bronze', 0.5 - 1e-12)]
        summary = metrics.class_summary(records, SLOS)
        self.assertEqual(1.0, summary['silver']['slo_fulfillment'])
        self.assertEqual(0.0, summary['silver']['qos_deficit'])
        self.assertAlmostEqual(0.925, summary['silver']['mean_availability'])
        self.assertEqual(1.0, summary['bronze']['slo_fulfillment'])
        self.assertEqual(0.0, summary['bronze']['qos_deficit'])

    def test_strict_fulfilment_ignores_the_tolerance(self):
        # 0.895 is within the 0.01 tolerance of 0.9, not at it.
        records = [record('a', 'silver', 0.895), record('b', 'silver', 0.9),
                   record('c', 'silver', 0.95), record('d', 'silver', 0.85)]
        silver = metrics.class_summary(records, SLOS, tolerance=0.01)[
            'silver']
        self.assertEqual(0.75, silver['slo_fulfillment'])
        self.assertEqual(0.5, silver['slo_fulfillment_strict'])

    def test_windowed_gini_compares_requests_of_the_same_window(self):
        # Window [0, 3600): a (1.0) and b (0.5): Gini 0.5 / (2 * 1.5) =
        # 1/6; window [3600, 7200): c and d, both 0.2: 0. Mean 1/12,
        # where the Gini of all four is 2.7 / (4 * 1.9) = 0.3553.
        records = [spanned('a', 0, 100, 1.0), spanned('b', 50, 150, 0.5),
                   spanned('c', 4000, 4100, 0.2),
                   spanned('d', 4050, None, 0.2)]
        bronze = metrics.class_summary(records, SLOS, window=3600.0,
                                       until=4200.0)['bronze']
        self.assertAlmostEqual(1 / 12, bronze['gini_windowed'])
        self.assertAlmostEqual(2.7 / 7.6, bronze['gini'])

    def test_windowed_gini_counts_a_request_in_every_window_it_spans(self):
        # a runs through three windows of 100 s; b in the first, c in
        # the third: Ginis of (1.0, 0.5), (1.0 alone: skipped), (1.0,
        # 0.0) = 1/6 and 1/2, mean 1/3.
        spans = [(0, 300, 1.0), (10, 20, 0.5), (250, 260, 0.0)]
        self.assertAlmostEqual(1 / 3, metrics.windowed_gini(spans, 100.0))
        self.assertIsNone(metrics.windowed_gini(spans[:1], 100.0))
        self.assertIsNone(metrics.windowed_gini(
            [(0, 10, 1.0), (500, 510, 0.5)], 100.0))

    def test_records_without_a_class(self):
        summary = metrics.class_summary(
            [record('a', None, 0.4), record('b', None, 0.4)], SLOS)
        self.assertEqual(['none'], list(summary))
        self.assertEqual({'count': 2, 'unmeasured': 0, 'slo': None,
                          'mean_availability': 0.4, 'slo_fulfillment': None,
                          'slo_fulfillment_strict': None,
                          'qos_deficit': None, 'gini': 0.0,
                          'gini_windowed': None},
                         summary['none'])

    def test_class_with_nothing_measured(self):
        summary = metrics.class_summary([record('a', 'bronze', None)], SLOS)
        self.assertEqual({'count': 0, 'unmeasured': 1, 'slo': 0.5,
                          'mean_availability': None, 'slo_fulfillment': None,
                          'slo_fulfillment_strict': None,
                          'qos_deficit': None, 'gini': None,
                          'gini_windowed': None},
                         summary['bronze'])

    def test_only_classes_with_requests(self):
        summary = metrics.class_summary([record('a', 'gold', 1.0)], SLOS)
        self.assertEqual(['gold'], list(summary))

    def test_values_are_plain_python(self):
        gold = metrics.class_summary([record('a', 'gold', 0.5)],
                                     SLOS)['gold']
        for key in ('mean_availability', 'slo_fulfillment', 'qos_deficit',
                    'gini'):
            self.assertIs(float, type(gold[key]), key)


class TestPercentiles(base.TestCase):

    def test_in_milliseconds(self):
        result = metrics.percentiles_ms([0.004, 0.001, 0.003, 0.002])
        self.assertAlmostEqual(2.5, result['mean'])
        # Linear: rank 0.5·3 = 1.5 between 2 and 3 ms.
        self.assertAlmostEqual(2.5, result['p50'])
        # Linear: rank 0.99·3 = 2.97, between 3 and 4 ms.
        self.assertAlmostEqual(3.97, result['p99'])

    def test_one_sample(self):
        self.assertEqual({'mean': 500.0, 'p50': 500.0, 'p99': 500.0},
                         metrics.percentiles_ms([0.5]))

    def test_no_sample(self):
        self.assertEqual({'mean': None, 'p50': None, 'p99': None},
                         metrics.percentiles_ms([]))


class TestUtilisation(base.TestCase):

    def test_time_weighted(self):
        samples = [(0, 2, 8, 1000, 4000), (10, 4, 8, 3000, 4000)]
        # CPU (2·10 + 4·10) / (8·20); memory (1000·10 + 3000·10) / (4000·20)
        self.assertEqual({'cpu': 0.375, 'memory': 0.5},
                         metrics.utilisation_series(samples, end=20))

    def test_capacity_changes_weigh_by_time(self):
        samples = [(0, 2, 8, 0, 4000), (10, 8, 16, 0, 8000)]
        # CPU (2·10 + 8·20) / (8·10 + 16·20) = 180 / 400
        result = metrics.utilisation_series(samples, end=30)
        self.assertAlmostEqual(0.45, result['cpu'])
        self.assertEqual(0.0, result['memory'])

    def test_last_sample_weighs_nothing_without_end(self):
        samples = [(0, 2, 8, 1000, 4000), (10, 8, 8, 4000, 4000)]
        self.assertEqual({'cpu': 0.25, 'memory': 0.25},
                         metrics.utilisation_series(samples))

    def test_nothing_offered(self):
        self.assertEqual({'cpu': None, 'memory': None},
                         metrics.utilisation_series([]))
        self.assertEqual({'cpu': None, 'memory': None},
                         metrics.utilisation_series([(0, 0, 0, 0, 0)],
                                                    end=10))

    def test_samples_out_of_order(self):
        self.assertRaises(ValueError, metrics.utilisation_series,
                          [(10, 1, 8, 1, 8), (0, 1, 8, 1, 8)])
        self.assertRaises(ValueError, metrics.utilisation_series,
                          [(10, 1, 8, 1, 8)], end=5)

    def test_fractions(self):
        self.assertEqual(
            [(0, 0.25, 0.5), (5, 0.0, 0.0)],
            metrics.utilisation_fractions([(0, 2, 8, 2000, 4000),
                                           (5, 0, 0, 0, 0)]))
