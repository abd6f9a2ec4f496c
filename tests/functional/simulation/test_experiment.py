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

"""A small real factorial run of ``preemptible-sched experiment``.

30 requests of three classes on 3 hosts of 4 vCPUs and 8,000 MB (about
twice as much as they fit at once, so the policies preempt), under the
``qos`` and ``priority`` policies with seeds 0 and 1, in two worker
processes that read the configuration file given to the command: the
directory tree, comparison.csv against the cells' summary.json files,
comparison.md as Markdown tables with readable headers, what is printed,
and the figures (one colour per class in all of them).
"""

import csv
import io
import json
import os
import random
import shutil
import statistics
import tempfile
from unittest import mock

import fixtures
from matplotlib import colors

from preemptible_sched.cmd import sched
from preemptible_sched.simulation import comparison_plots
from preemptible_sched.simulation import experiment
from preemptible_sched.simulation import plots
from tests import base

POLICIES = ('qos', 'priority')
SEEDS = (0, 1)
CLASSES = ('gold', 'silver', 'bronze')
SLO_TOLERANCE = 0.05


def write_workload(path, count=30, seed=3):
    rng = random.Random(seed)
    with open(path, 'w') as stream:
        stream.write('id,submit_s,duration_s,vcpus,memory_mb,disk_gb,'
                     'service_class,preemptible,constraints\n')
        for index in range(count):
            stream.write('r%02d,%d,%d,%d,1000,0,%s,false,\n' % (
                index, index * 10, rng.randint(100, 400),
                rng.choice((1, 2)), CLASSES[index % len(CLASSES)]))


class TestExperiment(base.TestCase):
    """One run for the whole class: the tests only read its output."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.tmp = tempfile.mkdtemp()
        cls.addClassCleanup(shutil.rmtree, cls.tmp, True)
        workload = os.path.join(cls.tmp, 'small.csv')
        write_workload(workload)
        cls.results = os.path.join(cls.tmp, 'results')
        os.mkdir(cls.results)
        cls.output = os.path.join(cls.results, 'out')
        # Read by the workers, not only by this process.
        config = os.path.join(cls.tmp, 'experiment.conf')
        with open(config, 'w') as stream:
            stream.write('[qos]\nslo_tolerance = %s\n' % SLO_TOLERANCE)
        out, err = io.StringIO(), io.StringIO()
        # The figures are drawn in this process: keep them to look at.
        cls.figures = {}

        def keeping(function):
            def draw(path, *args, **kwargs):
                figure = function(path, *args, **kwargs)
                cls.figures[os.path.basename(path)] = figure
                return figure
            return draw

        with mock.patch('sys.stdout', out), mock.patch('sys.stderr', err), \
                mock.patch.object(plots, 'availability_by_instance',
                                  keeping(plots.availability_by_instance)), \
                mock.patch.object(
                    comparison_plots, 'fulfilment_by_size_factor',
                    keeping(comparison_plots.fulfilment_by_size_factor)):
            cls.code = sched.main([
                'experiment', '--config-file', config,
                '--workload', workload,
                '--hosts', '3', '--host-flavor', '4:8000:0',
                '--policies', ','.join(POLICIES),
                '--seeds', ','.join(map(str, SEEDS)), '--jobs', '2',
                '--output', cls.output])
        cls.stdout, cls.stderr = out.getvalue(), err.getvalue()

    def setUp(self):
        super().setUp()
        self.assertEqual(0, self.code, self.stderr)

    def test_stdout_tables_then_one_line(self):
        lines = self.stdout.splitlines()
        self.assertIn('4 runs (1 workloads x 2 policies x 1 size factors '
                      'x 2 seeds)', lines[-1])
        self.assertEqual('Workload small, hosts given outright; each row is '
                         'the mean over 2 seeds ± the half-width of its '
                         '95 % confidence interval (Student t).', lines[0])
        for text in ('Availability per class', 'Mean availability (%)',
                     'SLO fulfilment (%)', 'Scheduling latency p99 (ms)'):
            self.assertIn(text, self.stdout)

    def test_progress_summary_on_stderr(self):
        # Not a terminal: no bar, one summary line.
        self.assertRegex(
            self.stderr, r'^experiment: 4 runs, [0-9,]+ events in [0-9.]+ '
            r's \([0-9,]+ events/s\), simulated [0-9.]+ (min|h)\n$')

    def cell_summary(self, policy, seed):
        path = os.path.join(self.output, 'small', policy, 'fixed',
                            'seed%d' % seed, 'summary.json')
        with open(path) as stream:
            return json.load(stream)

    def test_report_html(self):
        with open(os.path.join(self.output, 'report.html'),
                  encoding='utf-8') as stream:
            page = stream.read()
        # The tables of comparison.md, the figures embedded, the command
        # and the configuration file that made it.
        for title in ('Availability per class', 'Operations'):
            self.assertIn('<h2>%s</h2>' % title, page)
        self.assertIn('each row is the mean over 2 seeds ± the half-width',
                      page)
        figures = [name for name in os.listdir(self.output)
                   if name.endswith('.png')]
        self.assertEqual(len(figures), page.count('<img '))
        self.assertIn('preemptible-sched --config-file ', page)
        self.assertIn(' experiment --workload ', page)
        self.assertIn('--output %s' % self.output, page)
        self.assertIn('slo_tolerance = %s' % SLO_TOLERANCE, page)

    def test_directory_tree(self):
        expected = {'small', 'comparison.csv', 'comparison.md',
                    'report.html'}
        if plots.available():
            expected |= {'availability_small_fixed.png',
                         'fulfilment_small.png'}
        self.assertEqual(expected, set(os.listdir(self.output)))
        # Nothing left beside it (no staging directory).
        self.assertEqual(['out'], os.listdir(self.results))
        self.assertEqual(set(POLICIES), set(os.listdir(
            os.path.join(self.output, 'small'))))
        for policy in POLICIES:
            self.assertEqual(['fixed'], os.listdir(
                os.path.join(self.output, 'small', policy)))
            cells = os.path.join(self.output, 'small', policy, 'fixed')
            self.assertEqual(['seed0', 'seed1'], sorted(os.listdir(cells)))
            for seed in SEEDS:
                self.assertEqual(
                    ['cell.json', 'instances.csv', 'instances.parquet',
                     'stages.csv', 'stages.parquet', 'summary.json'],
                    sorted(os.listdir(os.path.join(cells, 'seed%d' % seed))))
                summary = self.cell_summary(policy, seed)
                self.assertEqual(policy, summary['policy'])
                self.assertEqual(seed, summary['seed'])
                self.assertEqual(30, summary['requests'])
                self.assertEqual(3, summary['hosts'])
                self.assertIsNone(summary['size_factor'])
                self.assertEqual(SLO_TOLERANCE, summary['slo_tolerance'])

    def test_comparison_matches_cells(self):
        with open(os.path.join(self.output, 'comparison.csv'),
                  newline='') as stream:
            rows = list(csv.DictReader(stream))
        self.assertEqual([('small', 'fixed', policy, '2')
                          for policy in POLICIES],
                         [(row['workload'], row['size_factor'],
                           row['policy'], row['seeds']) for row in rows])
        for row in rows:
            summaries = [self.cell_summary(row['policy'], seed)
                         for seed in SEEDS]
            columns = {'preemptions': lambda s: s['preemptions'],
                       'terminations': lambda s: s['terminations'],
                       'latency_p99_ms':
                           lambda s: s['scheduling_latency_ms']['p99'],
                       'wall_time_s': lambda s: s['wall_time_s']}
            for name in CLASSES:
                for metric in experiment.CLASS_METRICS:
                    columns['%s_%s' % (name, metric)] = (
                        lambda s, n=name, m=metric: s['per_class'][n][m])
            for column, value_of in columns.items():
                values = [value_of(summary) for summary in summaries]
                self.assertAlmostEqual(statistics.fmean(values),
                                       float(row[column]), places=5,
                                       msg=column)
                self.assertAlmostEqual(statistics.stdev(values),
                                       float(row[column + '_std']),
                                       places=5, msg=column)
        # The policies did preempt: the comparison compares something.
        self.assertTrue(all(float(row['preemptions']) > 0 for row in rows))

    def test_comparison_md_is_readable_markdown(self):
        with open(os.path.join(self.output, 'comparison.md')) as stream:
            text = stream.read()
        tables, heading = {}, None
        for line in text.splitlines():
            if line.startswith('## '):
                heading = line[3:]
            elif line.startswith('|'):
                tables.setdefault(heading, []).append(line)
        self.assertEqual(['Availability per class', 'Operations',
                          'Scheduling time per stage (ms per pass)'],
                         list(tables))
        for lines in tables.values():
            self.assertEqual(1, len({line.count('|') for line in lines}))
            self.assertTrue(all(set(cell.strip()) <= set('-:')
                                for cell in lines[1].split('|')[1:-1]))
        per_class = [[cell.strip() for cell in line.split('|')[1:-1]]
                     for line in tables['Availability per class']]
        header = per_class[0]
        self.assertEqual(['Class', 'Policy', 'Requests', 'SLO (%)',
                          'Mean availability (%)', 'SLO fulfilment (%)',
                          'Strict SLO fulfilment (%)', 'QoS deficit (pp)',
                          'Gini of availability', 'Gini, windowed'],
                         header)
        # Grouped by class, the policies of a class one under the other.
        self.assertEqual([(name, policy) for name in CLASSES
                          for policy in POLICIES],
                         [tuple(cells[:2]) for cells in per_class[2:]])
        for cells in per_class[2:]:
            mean = cells[header.index('Mean availability (%)')]
            self.assertIn(' ± ', mean)
            self.assertTrue(0 <= float(mean.split(' ± ')[0]) <= 100)
        operations = tables['Operations'][0]
        for name in ('Preemptions', 'Terminations',
                     'Scheduling latency p99 (ms)'):
            self.assertIn(name, operations)
        stages = '\n'.join(tables['Scheduling time per stage (ms per pass)'])
        self.assertIn('T2 queue order (J3/T2)', stages)
        self.assertNotIn('_slo_fulfillment', text)

    def test_one_colour_per_class_in_every_figure(self):
        if not plots.available():
            self.skipTest('matplotlib cannot be imported')
        self.assertEqual({'availability_small_fixed.png',
                          'fulfilment_small.png'}, set(self.figures))
        expected = plots.class_colours(CLASSES)
        by_instance = self.figures['availability_small_fixed.png']
        seen = {}
        for ax in by_instance.axes:
            for line in ax.get_lines():
                if not line.get_label().startswith('_'):
                    seen.setdefault(line.get_label(), set()).add(
                        colors.to_hex(line.get_color()))
        for ax in self.figures['fulfilment_small.png'].axes:
            seen.setdefault(ax.get_title(), set()).update(
                colors.to_hex(line.get_color()) for line in ax.get_lines())
        self.assertEqual(set(CLASSES), set(seen))
        for name, colours in seen.items():
            self.assertEqual({expected[name]}, colours, name)
        # Same legend order: the configured one.
        self.assertEqual(list(CLASSES), [
            text.get_text() for text in by_instance.legends[0].get_texts()])
        fulfilment = self.figures['fulfilment_small.png']
        self.assertEqual(list(CLASSES),
                         [ax.get_title() for ax in fulfilment.axes])


class TestExperimentWithoutMatplotlib(base.TestCase):

    def test_plots_skipped_said_once(self):
        tmp = self.useFixture(fixtures.TempDir()).path
        workload = os.path.join(tmp, 'tiny.csv')
        write_workload(workload, count=3)
        output = os.path.join(tmp, 'out')
        out, err = io.StringIO(), io.StringIO()
        with mock.patch('sys.stdout', out), mock.patch('sys.stderr', err), \
                mock.patch.object(plots, 'available', return_value=False):
            code = sched.main([
                'experiment', '--workload', workload, '--hosts', '1',
                '--host-flavor', '4:8000:0', '--policies', 'qos',
                '--jobs', '1', '--output', output])
        self.assertEqual(0, code, err.getvalue())
        self.assertEqual(1, err.getvalue().count('plots skipped'),
                         err.getvalue())
        self.assertIn("pip install '.[plots]'", err.getvalue())
        self.assertEqual(['comparison.csv', 'comparison.md', 'report.html',
                          'tiny'], sorted(os.listdir(output)))
