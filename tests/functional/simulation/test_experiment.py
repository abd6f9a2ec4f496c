"""A small real factorial run of ``preemptible-sched experiment``.

30 requests of three classes on 3 hosts of 4 vCPUs and 8,000 MB (about
twice as much as they fit at once, so the policies preempt), under the
``qos`` and ``priority`` policies with seeds 0 and 1, in two worker
processes that read the configuration file given to the command: the
directory tree, comparison.csv against the cells' summary.json files, and
comparison.md as a Markdown table.
"""

import csv
import io
import json
import math
import os
import random
import shutil
import statistics
import tempfile
from unittest import mock

from preemptible_sched.cmd import sched
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
        with mock.patch('sys.stdout', out), mock.patch('sys.stderr', err):
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

    def test_one_line_on_stdout(self):
        self.assertEqual(1, len(self.stdout.splitlines()))
        self.assertIn('4 runs (1 workloads x 2 policies x 1 size factors '
                      'x 2 seeds)', self.stdout)

    def cell_summary(self, policy, seed):
        path = os.path.join(self.output, 'small', policy, 'fixed',
                            'seed%d' % seed, 'summary.json')
        with open(path) as stream:
            return json.load(stream)

    def test_directory_tree(self):
        expected = {'small', 'comparison.csv', 'comparison.md'}
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
                self.assertEqual(['instances.csv', 'summary.json'], sorted(
                    os.listdir(os.path.join(cells, 'seed%d' % seed))))
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

    def test_comparison_md_is_a_markdown_table(self):
        with open(os.path.join(self.output, 'comparison.md')) as stream:
            lines = stream.read().splitlines()
        self.assertEqual(2 + len(POLICIES), len(lines))
        widths = {line.count('|') for line in lines}
        self.assertEqual(1, len(widths), lines)
        for line in lines:
            self.assertTrue(line.startswith('| ') and line.endswith(' |'))
        self.assertTrue(all(set(cell.strip()) <= set('-:')
                            for cell in lines[1].split('|')[1:-1]))
        header = [cell.strip() for cell in lines[0].split('|')[1:-1]]
        self.assertEqual(['workload', 'size_factor', 'policy', 'seeds'],
                         header[:4])
        self.assertIn('gold_slo_fulfillment', header)
        for line, policy in zip(lines[2:], POLICIES):
            cells = [cell.strip() for cell in line.split('|')[1:-1]]
            self.assertEqual(['small', 'fixed', policy, '2'], cells[:4])
            mean = cells[header.index('gold_mean_availability')]
            self.assertIn(' ± ', mean)
            self.assertFalse(math.isnan(float(mean.split(' ± ')[0])))
