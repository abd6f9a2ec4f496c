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

    def test_what_the_runs_are_for_comes_first(self):
        # Workflow runs: the JMS etc. over the seeds, and no availability
        # of the class "none" (the records of no class).
        def workflow_run(jms, jwt):
            return {'hosts': 8, 'per_class': {
                'none': {'mean_availability': 0.7}},
                'workflow_metrics': {'jms_mean_s': jms, 'jwt_mean_s': jwt}}

        metrics = report_replications.estimates(
            [workflow_run(200.0, 20.0), workflow_run(210.0, 30.0)])
        self.assertEqual(['workflow.jms_mean_s', 'workflow.jwt_mean_s',
                          'hosts'], [metric.key for metric in metrics])
        # JMS 200, 210: mean 205, sd 7.071, half-width 12.706 x 7.071 /
        # sqrt(2) = 63.53.
        self.assertEqual('205.0 ± 63.5', metrics[0].cell())
        self.assertEqual('Mean job makespan JMS (s)', metrics[0].label)
        # SLA runs: cores, wait and price per SLA class, in the runs'
        # order; with a real class, every class's availability.
        sla = {'per_class': {
            'premium': {'mean_cores': 24.0, 'mean_wait_s': 10.0,
                        'price': 22.5},
            'advanced': {'mean_cores': 12.0, 'mean_wait_s': 5.0,
                         'price': 10.0}}}
        sla_run = {'sla': sla,
                   'per_class': {'gold': {'mean_availability': 1.0},
                                 'none': {'mean_availability': 0.5}}}
        keys = [metric.key for metric in
                report_replications.estimates([sla_run, sla_run])]
        self.assertEqual(['sla.premium.mean_cores', 'sla.premium.mean_wait_s',
                          'sla.premium.price', 'sla.advanced.mean_cores',
                          'sla.advanced.mean_wait_s', 'sla.advanced.price',
                          'gold.mean_availability',
                          'none.mean_availability'], keys)

    def test_seed_label(self):
        self.assertEqual('seeds 0-4',
                         report_replications.seed_label(range(5)))
        self.assertEqual('seeds 1, 3, 7',
                         report_replications.seed_label([1, 3, 7]))
