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

"""The tables for people
(:mod:`preemptible_sched.simulation.report_tables`): cell formats and the
tables of one run.
"""

from preemptible_sched.simulation import report_tables
from tests import base


class TestFormats(base.TestCase):

    def test_duration(self):
        self.assertEqual('45 s', report_tables.duration(45.0))
        self.assertEqual('12.5 min', report_tables.duration(750.0))
        self.assertEqual('5.5 h', report_tables.duration(5.5 * 3600))
        self.assertEqual('2.0 d', report_tables.duration(2 * 86400))
        self.assertEqual('n/a', report_tables.duration(None))

    def test_numbers(self):
        self.assertEqual('99.9', report_tables.percent(0.999))
        self.assertEqual('n/a', report_tables.percent(None))
        self.assertEqual('12,345', report_tables.count(12345))
        self.assertEqual('5.5', report_tables.count(5.5))
        self.assertEqual('0.0', report_tables.number(-0.00001))

    def test_stage_labels_name_the_stage(self):
        self.assertEqual('T2 queue order (J3/T2)',
                         report_tables.stage_label('T2'))
        self.assertEqual('R4 filtering (R2-R4)',
                         report_tables.stage_label('R4'))
        self.assertEqual('X9', report_tables.stage_label('X9'))
        self.assertEqual(['J2', 'T2', 'R4', 'T4', 'X9'],
                         report_tables.stage_order(
                             ['X9', 'T4', 'R4', 'J2', 'T2']))


class TestRunTables(base.TestCase):

    SUMMARY = {
        'policy': 'qos', 'preemptions': 12, 'terminations': 0,
        'never_placed': 1, 'normal_acceptance': 0.5,
        'preemptible_cpu_hours_lost': 0.0, 'until_s': 7200.0,
        'events': 1234, 'wall_time_s': 0.5,
        'utilisation': {'cpu': 0.75, 'memory': None},
        'scheduling_latency_ms': {'mean': 1.0, 'p50': 0.5, 'p99': 4.25},
        'per_class': {
            'none': {'count': 1, 'unmeasured': 0, 'slo': None,
                     'mean_availability': 0.5, 'slo_fulfillment': None,
                     'qos_deficit': None, 'gini': 0.0},
            'bronze': {'count': 2, 'unmeasured': 1, 'slo': 0.5,
                       'mean_availability': 0.4, 'slo_fulfillment': 0.5,
                       'qos_deficit': 0.2, 'gini': 0.125},
            'gold': {'count': 3, 'unmeasured': 0, 'slo': 0.99,
                     'mean_availability': 0.995, 'slo_fulfillment': 1.0,
                     'qos_deficit': 0.0, 'gini': 0.001}},
        # As summary.json stores them: keys sorted.
        'stage_time_ms': {
            'R4': {'name': 'filtering (R2-R4)', 'passes': 10,
                   'mean_ms': 0.5, 'max_ms': 2.0, 'total_ms': 5.0},
            'T2': {'name': 'queue order (J3/T2)', 'passes': 10,
                   'mean_ms': 0.25, 'max_ms': 1.0, 'total_ms': 2.5}},
    }

    def test_tables(self):
        classes, operations, stages = report_tables.run_tables(self.SUMMARY)
        self.assertEqual(
            ['Class', 'Requests', 'SLO (%)', 'Mean availability (%)',
             'SLO fulfilment (%)', 'Strict SLO fulfilment (%)',
             'QoS deficit (pp)', 'Gini of availability', 'Gini, windowed'],
            classes.headers)
        # Configured classes first, in their order; no class last.
        self.assertEqual(
            [['gold', '3', '99.0', '99.5', '100.0', 'n/a', '0.0', '0.001',
              'n/a'],
             ['bronze', '3', '50.0', '40.0', '50.0', 'n/a', '20.0', '0.125',
              'n/a'],
             ['no class', '1', 'n/a', '50.0', 'n/a', 'n/a', 'n/a', '0.000',
              'n/a']],
            classes.rows)
        values = dict(operations.rows)
        self.assertEqual('12', values['Preemptions'])
        self.assertEqual('50.0', values['Normal requests placed (%)'])
        self.assertEqual('75.0', values['Mean CPU in use (%)'])
        self.assertNotIn('Mean memory in use (%)', values)
        self.assertEqual('1.00 / 0.50 / 4.25', values[
            'Scheduling latency mean / p50 / p99 (ms)'])
        self.assertEqual('2.0 h', values['Simulated time'])
        self.assertEqual(['T2 queue order (J3/T2)', 'R4 filtering (R2-R4)'],
                         [row[0] for row in stages.rows])

    def test_text_and_markdown(self):
        tables = report_tables.run_tables(self.SUMMARY)
        text = report_tables.render_text(tables)
        self.assertIn('Availability per class\nClass ', text)
        self.assertIn('T2 queue order (J3/T2)', text)
        markdown = report_tables.render_markdown(tables)
        self.assertIn('## Availability per class\n\n| Class ', markdown)
        self.assertIn('|:--', markdown)
        self.assertIn('--:|', markdown)
