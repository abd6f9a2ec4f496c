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

"""The aggregation of an experiment's cells, its layout and its staged
output (:mod:`preemptible_sched.simulation.experiment`), and the
comparison files written from it (:mod:`.comparison_csv`,
:mod:`.comparison_tables`).
"""

import csv
import math
import os
import shutil
import signal
import tempfile

from preemptible_sched.cmd import common
from preemptible_sched.simulation import comparison_csv
from preemptible_sched.simulation import comparison_tables
from preemptible_sched.simulation import experiment
from preemptible_sched.simulation import replications
from preemptible_sched.simulation import staging
from tests import base


def summary(per_class, preemptions, p99, wall):
    return {'policy': 'qos', 'per_class': per_class,
            'preemptions': preemptions, 'terminations': 0,
            'scheduling_latency_ms': {'mean': None, 'p50': None, 'p99': p99},
            'wall_time_s': wall}


def gold(availability, fulfilment, deficit, gini):
    return {'count': 10, 'slo': 1.0, 'mean_availability': availability,
            'slo_fulfillment': fulfilment, 'qos_deficit': deficit,
            'gini': gini}


class TestAggregation(base.TestCase):
    """Hand-made summaries, means and sample stds computed by hand."""

    def setUp(self):
        super().setUp()
        cell = experiment.Cell
        self.summaries = {
            cell('trace', 'qos', 0.9, 0): summary(
                {'gold': gold(0.9, 0.5, 0.1, 0.0),
                 'platinum': gold(0.2, 0.0, 0.8, 0.5),
                 'none': {'mean_availability': 0.5,
                          'slo_fulfillment': None}}, 2, 1.0, 10.0),
            cell('trace', 'qos', 0.9, 1): summary(
                {'gold': gold(0.8, 0.25, 0.2, 0.1)}, 4, None, 12.0),
            cell('trace', 'qos', 0.9, 2): summary(
                {'gold': gold(1.0, 0.75, 0.0, 0.2)}, 9, 3.0, 14.0),
            cell('trace', 'priority', 0.9, 0): summary(
                {'gold': gold(1.0, 1.0, 0.0, 0.0)}, 1, 2.0, 5.0),
        }
        self.classes = experiment.ordered_classes(
            ['gold', 'silver', 'bronze'], self.summaries.values())

    def test_classes_configured_first_then_others_then_none(self):
        self.assertEqual(['gold', 'silver', 'bronze', 'platinum', 'none'],
                         self.classes)

    def test_means_and_stds(self):
        rows = experiment.aggregate(self.summaries, self.classes)
        self.assertEqual([('trace', 0.9, 'qos', 3),
                          ('trace', 0.9, 'priority', 1)],
                         [(row.workload, row.size_factor, row.policy,
                           row.seeds) for row in rows])
        qos = rows[0].values

        def check(name, mean, std):
            got_mean, got_std = qos[name]
            self.assertAlmostEqual(mean, got_mean, msg=name)
            if std is None:
                self.assertIsNone(got_std, name)
            else:
                self.assertAlmostEqual(std, got_std, msg=name)

        # 0.9, 0.8, 1.0: deviations 0, -0.1, 0.1; sum of squares 0.02 / 2.
        check('gold_mean_availability', 0.9, 0.1)
        # 0.5, 0.25, 0.75: sum of squares 0.125 / 2 = 0.0625.
        check('gold_slo_fulfillment', 0.5, 0.25)
        check('gold_qos_deficit', 0.1, 0.1)
        check('gold_gini', 0.1, 0.1)
        # 2, 4, 9: mean 5, deviations -3, -1, 4; (9 + 1 + 16) / 2 = 13.
        check('preemptions', 5.0, math.sqrt(13))
        check('terminations', 0.0, 0.0)
        # One seed without a p99: mean of 1 and 3, std of those two.
        check('latency_p99_ms', 2.0, math.sqrt(2))
        check('wall_time_s', 12.0, 2.0)
        # A class in one seed only: its value, no std.
        check('platinum_mean_availability', 0.2, None)
        # Classes absent everywhere, statistics that have no value.
        check('silver_mean_availability', None, None)
        check('none_slo_fulfillment', None, None)
        check('none_mean_availability', 0.5, None)
        priority = rows[1].values
        self.assertEqual((1.0, None), priority['gold_mean_availability'])
        self.assertEqual((1.0, None), priority['preemptions'])

    def test_comparison_csv(self):
        rows = experiment.aggregate(self.summaries, self.classes)
        path = os.path.join(self.make_tmp(), 'comparison.csv')
        comparison_csv.write_comparison_csv(path, rows, self.classes, True)
        with open(path, newline='') as stream:
            table = list(csv.DictReader(stream))
        self.assertEqual(['qos', 'priority'],
                         [row['policy'] for row in table])
        qos = table[0]
        self.assertEqual(('trace', '0.9', '3'),
                         (qos['workload'], qos['size_factor'],
                          qos['seeds']))
        self.assertEqual('0.9', qos['gold_mean_availability'])
        self.assertEqual('0.1', qos['gold_mean_availability_std'])
        self.assertEqual('3.605551', qos['preemptions_std'])
        self.assertEqual('', qos['silver_gini'])
        self.assertEqual('', table[1]['wall_time_s_std'])
        self.assertEqual(['workload', 'size_factor', 'policy', 'seeds',
                          'gold_mean_availability',
                          'gold_mean_availability_std'],
                         list(qos)[:6])
        self.assertEqual(['wall_time_s', 'wall_time_s_std'], list(qos)[-2:])

    def test_comparison_csv_without_std_for_one_seed(self):
        one = {cell: value for cell, value in self.summaries.items()
               if cell.seed == 0}
        rows = experiment.aggregate(one, ['gold'])
        path = os.path.join(self.make_tmp(), 'comparison.csv')
        comparison_csv.write_comparison_csv(path, rows, ['gold'], False)
        with open(path) as stream:
            header = stream.readline().strip().split(',')
        self.assertEqual(
            ['workload', 'size_factor', 'policy', 'seeds',
             'gold_mean_availability', 'gold_slo_fulfillment',
             'gold_slo_fulfillment_strict', 'gold_qos_deficit', 'gold_gini',
             'gold_gini_windowed', 'preemptions', 'terminations',
             'latency_p99_ms', 'wall_time_s'], header)

    def read_md(self, summaries, classes):
        rows = experiment.aggregate(summaries, classes)
        path = os.path.join(self.make_tmp(), 'comparison.md')
        comparison_tables.write_comparison_md(path, rows, classes)
        with open(path) as stream:
            return stream.read()

    @staticmethod
    def tables(text):
        """Heading -> rows of cells, of each Markdown table in ``text``."""
        tables, heading = {}, None
        for line in text.splitlines():
            if line.startswith('## '):
                heading = line[3:]
            elif line.startswith('|'):
                cells = [cell.strip() for cell in line.split('|')[1:-1]]
                if not set(''.join(cells)) <= set('-:'):
                    tables.setdefault(heading, []).append(cells)
        return tables

    def test_comparison_md_has_readable_headers(self):
        text = self.read_md(self.summaries, ['gold'])
        self.assertTrue(text.startswith('# Policy comparison\n\n'
                                        'Workload trace, clouds of 0.9 × '
                                        'the peak demand; each row is the '
                                        'mean over 1/3 seeds ± the '
                                        'half-width of its 95 % confidence '
                                        'interval'), text)
        tables = self.tables(text)
        self.assertEqual(['Availability per class', 'Operations'],
                         list(tables))
        per_class, operations = (tables['Availability per class'],
                                 tables['Operations'])
        # One workload, one size factor: no column for them.
        self.assertEqual(
            ['Class', 'Policy', 'Requests', 'SLO (%)',
             'Mean availability (%)', 'SLO fulfilment (%)',
             'Strict SLO fulfilment (%)', 'QoS deficit (pp)',
             'Gini of availability', 'Gini, windowed'], per_class[0])
        # Mean ± the 95 % half-width t(0.975, 2) s / sqrt(3) = 2.484 s:
        # s = 10 pp -> 24.8, 25 pp -> 62.1, 0.1 -> 0.248.
        self.assertEqual(
            ['gold', 'qos', '10', '100.0', '90.0 ± 24.8', '50.0 ± 62.1',
             'n/a', '10.0 ± 24.8', '0.100 ± 0.248', 'n/a'], per_class[1])
        # One seed: no std.
        self.assertEqual(['gold', 'priority', '10', '100.0', '100.0',
                          '100.0', 'n/a', '0.0', '0.000', 'n/a'],
                         per_class[2])
        self.assertEqual(
            ['Policy', 'Preemptions', 'Terminations',
             'Scheduling latency p99 (ms)', 'Wall time of a run (s)'],
            operations[0])
        # s = sqrt(13) -> 8.96; two p99 values: t(0.975, 1) = 12.71 times
        # s / sqrt(2) = 1; s = 2 -> 4.97.
        self.assertEqual(['qos', '5 ± 9.0', '0 ± 0', '2.00 ± 12.71',
                          '12.0 ± 5.0'], operations[1])
        self.assertEqual(['priority', '1', '0', '2.00', '5.0'],
                         operations[2])
        # No raw metric name is left.
        self.assertNotIn('gold_', text)
        self.assertNotIn('slo_fulfillment', text)

    def test_comparison_md_explains_stage_codes(self):
        summaries = {cell: dict(summary, stage_time_ms={
            'T2': {'mean_ms': 0.5}, 'J2': {'mean_ms': 0.25}})
            for cell, summary in self.summaries.items()}
        tables = self.tables(self.read_md(summaries, ['gold']))
        stages = tables['Scheduling time per stage (ms per pass)']
        self.assertEqual(['Stage', 'qos (ms)', 'priority (ms)'], stages[0])
        self.assertEqual([['J2 admission', '0.250 ± 0.000', '0.250'],
                          ['T2 queue order (J3/T2)', '0.500 ± 0.000',
                           '0.500']], stages[1:])

    def test_comparison_md_keys_columns_only_when_they_vary(self):
        cell = experiment.Cell
        summaries = dict(self.summaries)
        summaries[cell('other', 'qos', 1.1, 0)] = summary(
            {'gold': gold(1.0, 1.0, 0.0, 0.0)}, 0, 1.0, 1.0)
        text = self.read_md(summaries, ['gold'])
        self.assertIn('Workloads trace, other, clouds of 0.9, 1.1 × the '
                      'peak demand', text)
        tables = self.tables(text)
        self.assertEqual(['Workload', 'Size factor (× peak demand)',
                          'Class', 'Policy'],
                         tables['Availability per class'][0][:4])
        self.assertEqual(['other', '1.1', 'gold', 'qos'],
                         tables['Availability per class'][-1][:4])

    def test_classes_without_requests_are_left_out(self):
        tables = self.tables(self.read_md(
            self.summaries, ['gold', 'silver', 'platinum', 'none']))
        self.assertEqual(
            [('gold', 'qos'), ('gold', 'priority'), ('platinum', 'qos'),
             ('no class', 'qos')],
            [tuple(row[:2]) for row in tables['Availability per class'][1:]])

    def make_tmp(self):
        path = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, path, True)
        return path


class TestLayout(base.TestCase):

    def test_cell_path(self):
        self.assertEqual(os.path.join('trace', 'qos', 'sf0.9', 'seed2'),
                         experiment.Cell('trace', 'qos', 0.9, 2).path)
        self.assertEqual(os.path.join('trace', 'none', 'fixed', 'seed0'),
                         experiment.Cell('trace', 'none', None, 0).path)
        self.assertEqual('sf1.0', experiment.level_name(1))

    def test_workload_stem(self):
        self.assertEqual('openb_pod_list_default', experiment.workload_stem(
            '/data/openb_pod_list_default.csv'))
        self.assertEqual('trace', experiment.workload_stem('x/trace.swf.gz'))

    def test_design_is_full_factorial(self):
        cells = experiment.design(['a', 'b'], ['qos', 'priority'],
                                  [1.0, 0.8], [0, 1, 2])
        self.assertEqual(24, len(set(cells)))
        # Policies of one (workload, size factor, seed) side by side.
        self.assertEqual(
            [experiment.Cell('a', 'qos', 1.0, 0),
             experiment.Cell('a', 'priority', 1.0, 0)], cells[:2])


class TestStagedOutput(base.TestCase):

    def setUp(self):
        super().setUp()
        self.parent = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.parent, True)
        self.output = os.path.join(self.parent, 'out')

    def test_failure_leaves_nothing(self):
        with self.assertRaises(RuntimeError):
            with experiment.staged_output(self.output) as staging:
                os.makedirs(os.path.join(staging, 'trace', 'qos'))
                raise RuntimeError('a cell failed')
        self.assertEqual([], os.listdir(self.parent))

    def test_rerun_replaces_workload_directories(self):
        with experiment.staged_output(self.output) as staging:
            os.makedirs(os.path.join(staging, 'trace', 'billing'))
            os.makedirs(os.path.join(staging, 'other'))
            open(os.path.join(staging, 'comparison.csv'), 'w').close()
        with experiment.staged_output(self.output) as staging:
            os.makedirs(os.path.join(staging, 'trace', 'qos'))
        self.assertEqual(['out'], os.listdir(self.parent))
        self.assertEqual(['qos'],
                         os.listdir(os.path.join(self.output, 'trace')))
        # Not rewritten: stays, except the stale comparison.
        self.assertEqual(['other', 'trace'], sorted(os.listdir(self.output)))

    # Regressions of issue 11: a run stopped while writing left a hidden
    # temporary directory behind.

    def test_sigterm_while_writing_leaves_nothing(self):
        handler = signal.getsignal(signal.SIGTERM)
        with self.assertRaises(common.Stopped):
            with common.stoppable():
                with experiment.staged_output(self.output) as staging:
                    os.makedirs(os.path.join(staging, 'trace', 'qos'))
                    os.kill(os.getpid(), signal.SIGTERM)
                    self.fail('SIGTERM did not interrupt the block')
        self.assertEqual([], os.listdir(self.parent))
        self.assertIs(handler, signal.getsignal(signal.SIGTERM))

    def test_ctrl_c_while_writing_leaves_nothing(self):
        with self.assertRaises(KeyboardInterrupt):
            with experiment.staged_output(self.output) as staging:
                os.makedirs(os.path.join(staging, 'trace'))
                raise KeyboardInterrupt()
        self.assertEqual([], os.listdir(self.parent))

    def test_staging_of_a_killed_run_is_removed_by_the_next(self):
        # A pid above any pid_max: that process cannot be running.
        stale = os.path.join(self.parent, '.out.999999999.k1ll3d.tmp')
        os.makedirs(os.path.join(stale, 'content', 'trace'))
        with experiment.staged_output(self.output) as staging:
            os.makedirs(os.path.join(staging, 'trace'))
        self.assertEqual(['out'], os.listdir(self.parent))

    def test_staging_of_a_running_process_is_left_alone(self):
        live = os.path.join(self.parent, '.out.%d.busy.tmp' % os.getpid())
        other = os.path.join(self.parent, '.out.1.999999999.x.tmp')
        os.mkdir(live)
        os.mkdir(other)   # of an output named "out.1": not ours
        self.assertEqual([], staging.remove_stale(self.output))
        self.assertTrue(os.path.isdir(live))
        self.assertTrue(os.path.isdir(other))

    def test_staging_directory_is_named_after_the_process(self):
        with experiment.staged_output(self.output):
            names = os.listdir(self.parent)
        self.assertEqual(1, len(names))
        self.assertTrue(names[0].startswith('.out.%d.' % os.getpid()),
                        names)


class TestIntervalsAndPairs(base.TestCase):
    """95 % intervals and paired differences, computed by hand."""

    make_tmp = TestAggregation.make_tmp

    def setUp(self):
        super().setUp()
        cell = experiment.Cell
        flow = {'jms_mean_s': 100.0, 'jwt_mean_s': 10.0,
                'trt_mean_s': 50.0, 'njsl_mean': 2.0}
        self.summaries = {}
        # qos: gold availability 0.9, 0.8, 1.0 over seeds 0..2;
        # priority: 0.95, 0.9, 0.9 -> differences 0.05, 0.1, -0.1.
        for seed, (base_value, other, jms) in enumerate(
                ((0.9, 0.95, 100.0), (0.8, 0.9, 110.0),
                 (1.0, 0.9, 120.0))):
            self.summaries[cell('trace', 'qos', None, seed)] = dict(
                summary({'gold': gold(base_value, 0.5, 0.1, 0.0)}, seed,
                        1.0, 10.0),
                workflow_metrics=dict(flow, jms_mean_s=jms))
            self.summaries[cell('trace', 'priority', None, seed)] = dict(
                summary({'gold': gold(other, 0.5, 0.1, 0.0)}, 2 * seed,
                        1.0, 10.0),
                workflow_metrics=dict(flow, jms_mean_s=jms - 10 * seed))
        self.classes = ['gold']

    def test_ci95_half_width(self):
        rows = experiment.aggregate(self.summaries, self.classes)
        qos = rows[0]
        # sd 0.1, t(0.975, 2) = 4.303: 4.303 x 0.1 / sqrt(3) = 0.24843.
        self.assertAlmostEqual(0.24843, qos.ci95['gold_mean_availability'],
                               places=5)
        # JMS 100, 110, 120: sd 10, 4.303 x 10 / sqrt(3) = 24.843.
        self.assertEqual((110.0, 10.0), qos.values['jms_mean_s'])
        self.assertAlmostEqual(24.843, qos.ci95['jms_mean_s'], places=3)

    def test_workflow_columns_only_with_workflows(self):
        rows = experiment.aggregate(self.summaries, self.classes)
        path = os.path.join(self.make_tmp(), 'comparison.csv')
        comparison_csv.write_comparison_csv(path, rows, self.classes, True,
                                            with_ci=True)
        with open(path) as stream:
            header = stream.readline().strip().split(',')
        self.assertEqual(['njsl_mean', 'njsl_mean_std', 'njsl_mean_ci95'],
                         header[-3:])
        self.assertIn('jms_mean_s_ci95', header)
        for summary_ in self.summaries.values():
            del summary_['workflow_metrics']
        rows = experiment.aggregate(self.summaries, self.classes)
        comparison_csv.write_comparison_csv(path, rows, self.classes, True)
        with open(path) as stream:
            header = stream.readline().strip().split(',')
        self.assertEqual('wall_time_s_std', header[-1])
        self.assertNotIn('jms_mean_s', header)

    def test_paired_differences_against_the_baseline(self):
        pairs = experiment.paired_differences(self.summaries, self.classes,
                                              'qos')
        self.assertEqual({('priority', 'qos')},
                         {(row.policy, row.baseline) for row in pairs})
        by_metric = {row.metric: row.difference for row in pairs}
        # 0.05, 0.1, -0.1: mean 0.01667, sd 0.10408,
        # 4.303 x 0.10408 / sqrt(3) = 0.25856.
        gold_diff = by_metric['gold_mean_availability']
        self.assertEqual(3, gold_diff.n)
        self.assertAlmostEqual(0.016667, gold_diff.mean, places=5)
        self.assertAlmostEqual(0.104083, gold_diff.std, places=5)
        self.assertAlmostEqual(0.25856, gold_diff.ci95, places=4)
        # Preemptions 0, 2, 4 against 0, 1, 2: differences 0, 1, 2.
        self.assertEqual(1.0, by_metric['preemptions'].mean)
        # JMS: priority is 0, 10, 20 s shorter.
        self.assertEqual(-10.0, by_metric['jms_mean_s'].mean)
        # Against priority instead, every sign turns.
        reverse = {row.metric: row.difference for row in
                   experiment.paired_differences(
                       self.summaries, self.classes, 'priority')}
        self.assertEqual(10.0, reverse['jms_mean_s'].mean)
        self.assertEqual({'qos'}, {row.policy for row in
                                   experiment.paired_differences(
                                       self.summaries, self.classes,
                                       'priority')})

    def test_paired_table_says_whether_the_interval_excludes_zero(self):
        pairs = experiment.paired_differences(self.summaries, self.classes,
                                              'qos')
        table = comparison_tables.paired_table(pairs, self.classes)
        self.assertEqual('Excludes 0', table.headers[-1])
        verdicts = {row[1]: row[-1] for row in table.rows}
        # Gold availability: 0.0167 ± 0.2586 holds 0.
        self.assertEqual('no', verdicts['gold: Mean availability (%)'])
        # JMS: -10 ± 24.84, [-34.8, 14.8], holds 0 too; differences of 1
        # exactly every pair have no spread: an interval of one point.
        self.assertEqual('no', verdicts['Job makespan JMS (s)'])
        exact = [row for row in pairs if row.metric == 'preemptions'][0]
        exact.difference = replications.estimate([2.0, 2.0, 2.0])
        self.assertEqual('yes', comparison_tables.paired_table(
            [exact], self.classes).rows[0][-1])
        # One pair: no interval, no verdict.
        exact.difference = replications.estimate([2.0])
        self.assertEqual('', comparison_tables.paired_table(
            [exact], self.classes).rows[0][-1])

    def test_paired_csv(self):
        pairs = experiment.paired_differences(self.summaries, self.classes,
                                              'qos')
        path = os.path.join(self.make_tmp(), 'paired.csv')
        comparison_csv.write_paired_csv(path, pairs)
        with open(path) as stream:
            rows = {row['metric']: row for row in csv.DictReader(stream)}
        row = rows['jms_mean_s']
        self.assertEqual(('trace', 'fixed', 'priority', 'qos', '3'),
                         (row['workload'], row['size_factor'],
                          row['policy'], row['baseline'], row['pairs']))
        # -10 +- 4.303 x 10 / sqrt(3).
        self.assertEqual('-10', row['mean_difference'])
        self.assertAlmostEqual(-34.843, float(row['ci95_low']), places=3)
        self.assertAlmostEqual(14.843, float(row['ci95_high']), places=3)

    def test_replications_over_a_custom_key(self):
        # Fold two workloads into one row: the workload is the replication.
        cell = experiment.Cell
        summaries = {cell(name, 'qos', None, 0): summary(
            {'gold': gold(value, 0.5, 0.1, 0.0)}, 0, 1.0, 1.0)
            for name, value in (('a', 0.5), ('b', 0.7))}
        rows = experiment.aggregate(
            summaries, ['gold'],
            key=lambda c: (('all', c.size_factor, c.policy),
                           (c.workload, c.seed)))
        self.assertEqual(1, len(rows))
        self.assertEqual(('all', 2), (rows[0].workload, rows[0].seeds))
        self.assertAlmostEqual(0.6, rows[0].values[
            'gold_mean_availability'][0])
