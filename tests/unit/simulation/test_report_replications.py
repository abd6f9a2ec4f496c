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

"""The estimates ``simulate --seeds`` reports, against hand-computed
values.
"""

from preemptible_sched.simulation import report_replications
from tests import base


def summary(bronze, preemptions, hosts=4):
    return {'policy': 'qos', 'workload': 'w.csv', 'hosts': hosts,
            'preemptions': preemptions,
            'per_class': {'bronze': {'slo_fulfillment': bronze}}}


class TestEstimates(base.TestCase):

    def test_mean_and_half_width_per_metric(self):
        # Preemptions 10, 20, 30: mean 20, sd 10, half-width
        # 4.303 x 10 / sqrt(3) = 24.84.
        metrics = {metric.key: metric for metric in
                   report_replications.estimates(
                       [summary(0.9, 10), summary(0.95, 20),
                        summary(1.0, 30)])}
        self.assertEqual(['bronze.slo_fulfillment', 'hosts', 'preemptions'],
                         sorted(metrics))
        preemptions = metrics['preemptions']
        self.assertEqual([10, 20, 30], preemptions.values)
        self.assertEqual(20.0, preemptions.estimate.mean)
        self.assertAlmostEqual(24.843, preemptions.estimate.ci95, places=3)
        self.assertEqual('20 ± 24.8', preemptions.cell())
        # 95 % against sd 0.05: half-width 4.303 x 0.05 / sqrt(3) = 0.124.
        self.assertEqual('95.0 ± 12.4',
                         metrics['bronze.slo_fulfillment'].cell())
        self.assertEqual('bronze SLO fulfilment (%)',
                         metrics['bronze.slo_fulfillment'].label)
        self.assertEqual('4 ± 0', metrics['hosts'].cell())

    def test_one_seed_has_a_mean_and_no_interval(self):
        metric, = [metric for metric in report_replications.estimates(
            [summary(0.9, 7)]) if metric.key == 'preemptions']
        self.assertEqual('7', metric.cell())
        self.assertIsNone(metric.estimate.ci95)

    def test_table_and_document(self):
        runs = [summary(0.9, 10), summary(1.0, 30)]
        metrics = report_replications.estimates(runs)
        table = report_replications.table(metrics, [3, 4])
        self.assertEqual('Over 2 seeds (seeds 3, 4)', table.title)
        row = [row for row in table.rows if row[0] == 'Preemptions'][0]
        # sd 14.14, t(0.975, 1) = 12.706: half-width 127.06.
        self.assertEqual(['Preemptions', '20 ± 127.1', '10', '30'], row)
        document = report_replications.document(metrics, [3, 4], runs[0])
        self.assertEqual([3, 4], document['seeds'])
        self.assertEqual('qos', document['policy'])
        self.assertAlmostEqual(20 - 127.06, document['metrics'][
            'preemptions']['low'], places=2)

    def test_seed_label(self):
        self.assertEqual('seeds 0-4',
                         report_replications.seed_label(range(5)))
        self.assertEqual('seeds 1, 3, 7',
                         report_replications.seed_label([1, 3, 7]))
