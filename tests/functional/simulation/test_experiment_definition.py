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


"""``experiment --definition``, end to end on the QoS validation workload.

Two strategies x two seeds on the shipped workload and hosts, until 300 s,
in two workers: comparison.csv against the cells' summary.json files
(means, standard deviations, 95 % intervals) and paired.csv against the
differences computed by hand from the same files. Then a bad definition:
every error on stderr, exit 2, nothing written.
"""

import csv
import io
import json
import math
import os
import shutil
import statistics
import tempfile
from unittest import mock

from preemptible_sched.cmd import sched
from preemptible_sched.simulation import replications
from tests import base

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
WORKLOADS = os.path.join(ROOT, 'etc', 'preemptible-sched', 'workloads')

DEFINITION = """\
workloads:
  - path: %s
infrastructures:
  - infrastructure: %s
strategies: [qos, priority]
baseline: qos
seeds: [0, 1]
until: 300
jobs: 2
""" % (os.path.join(WORKLOADS, 'qos-validation.csv'),
       os.path.join(WORKLOADS, 'qos-validation-hosts.csv'))


def run(argv):
    out, err = io.StringIO(), io.StringIO()
    with mock.patch('sys.stdout', out), mock.patch('sys.stderr', err):
        code = sched.main(argv)
    return code, out.getvalue(), err.getvalue()


class TestDefinitionRun(base.TestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.tmp = tempfile.mkdtemp()
        cls.addClassCleanup(shutil.rmtree, cls.tmp, True)
        path = os.path.join(cls.tmp, 'tiny.yaml')
        with open(path, 'w') as stream:
            stream.write(DEFINITION)
        cls.output = os.path.join(cls.tmp, 'out')
        cls.code, cls.stdout, cls.stderr = run([
            'experiment', '--definition', path, '--no-plots',
            '--output', cls.output])

    def setUp(self):
        super().setUp()
        self.assertEqual(0, self.code, self.stderr)

    def summary(self, policy, seed):
        with open(os.path.join(self.output, 'qos-validation', policy,
                               'fixed', 'seed%d' % seed,
                               'summary.json')) as stream:
            return json.load(stream)

    def read(self, name):
        with open(os.path.join(self.output, name)) as stream:
            return list(csv.DictReader(stream))

    def test_outputs(self):
        self.assertEqual({'qos-validation', 'comparison.csv',
                          'comparison.md', 'paired.csv', 'report.html'},
                         set(os.listdir(self.output)))
        self.assertIn('4 runs (1 workloads x 1 infrastructures x 2 '
                      'strategies x 1 size factors x 2 seeds)', self.stdout)
        for policy in ('qos', 'priority'):
            for seed in (0, 1):
                summary = self.summary(policy, seed)
                self.assertEqual((policy, seed),
                                 (summary['policy'], summary['seed']))

    def test_comparison_mean_std_ci(self):
        rows = {row['policy']: row for row in self.read('comparison.csv')}
        self.assertEqual(['qos', 'priority'], list(rows))
        for policy, row in rows.items():
            self.assertEqual('2', row['seeds'])
            values = [self.summary(policy, seed)['per_class']['bronze'][
                'mean_availability'] for seed in (0, 1)]
            mean, std = statistics.fmean(values), statistics.stdev(values)
            self.assertAlmostEqual(mean, float(
                row['bronze_mean_availability']), places=5)
            self.assertAlmostEqual(std, float(
                row['bronze_mean_availability_std']), places=5)
            # Two replications: t(0.975, 1) = 12.706, / sqrt(2).
            self.assertAlmostEqual(12.706 * std / math.sqrt(2), float(
                row['bronze_mean_availability_ci95']), places=5)
            preemptions = [self.summary(policy, seed)['preemptions']
                           for seed in (0, 1)]
            self.assertAlmostEqual(statistics.fmean(preemptions),
                                   float(row['preemptions']), places=5)

    def test_paired_differences(self):
        rows = self.read('paired.csv')
        self.assertEqual({'priority'}, {row['policy'] for row in rows})
        self.assertEqual({'qos'}, {row['baseline'] for row in rows})
        by_metric = {row['metric']: row for row in rows}
        for metric, get in (
                ('bronze_mean_availability',
                 lambda s: s['per_class']['bronze']['mean_availability']),
                ('preemptions', lambda s: s['preemptions'])):
            diffs = [get(self.summary('priority', seed)) -
                     get(self.summary('qos', seed)) for seed in (0, 1)]
            expected = replications.estimate(diffs)
            row = by_metric[metric]
            self.assertEqual('2', row['pairs'])
            self.assertAlmostEqual(expected.mean,
                                   float(row['mean_difference']), places=5)
            self.assertAlmostEqual(expected.std,
                                   float(row['std_difference']), places=5)
            self.assertAlmostEqual(expected.low, float(row['ci95_low']),
                                   places=4)
            self.assertAlmostEqual(expected.high, float(row['ci95_high']),
                                   places=4)
        # Priority preempts bronze for the better classes: its bronze
        # availability is lower than qos's on both seeds.
        self.assertLess(float(by_metric['bronze_mean_availability'][
            'ci95_high']), 0)

    def test_comparison_md_readable(self):
        with open(os.path.join(self.output, 'comparison.md')) as stream:
            text = stream.read()
        self.assertIn('## Paired differences against qos', text)
        self.assertIn('95 % CI of the mean', text)
        self.assertIn('bronze: Mean availability (%)', text)


class TestBadDefinition(base.TestCase):

    def test_every_error_exit_2_nothing_written(self):
        tmp = self.useFixture(__import__('fixtures').TempDir()).path
        path = os.path.join(tmp, 'bad.yaml')
        with open(path, 'w') as stream:
            stream.write('workloads: [{path: nowhere.csv, limit: -3}]\n'
                         'infrastructures: [{hosts: 0, flavor: "4:8000"}]\n'
                         'strategies: [qos]\nseeds: [0]\nspeed: 2\n')
        output = os.path.join(tmp, 'out')
        code, stdout, stderr = run(['experiment', '--definition', path,
                                    '--output', output])
        self.assertEqual(2, code)
        lines = stderr.splitlines()
        self.assertEqual(3, len(lines), stderr)
        for field in ('$.infrastructures[0].hosts',
                      '$.workloads[0].limit', '$.speed'):
            self.assertTrue(any(path in line and field in line
                                for line in lines), (field, lines))
        self.assertNotIn('Traceback', stderr)
        self.assertFalse(os.path.exists(output))
        self.assertEqual(['bad.yaml'], os.listdir(tmp))

    def test_definition_excludes_design_options(self):
        code, _stdout, stderr = run([
            'experiment', '--definition', 'x.yaml', '--policies', 'qos',
            '--output', 'never'])
        self.assertEqual(2, code)
        self.assertIn('drop --policies', stderr)
        self.assertFalse(os.path.exists('never'))


class TestConfigurations(base.TestCase):
    """Each configuration file applies to its own cells only, over the
    command's --config-file, in one worker that runs both in turn.
    """

    def setUp(self):
        super().setUp()
        self.tmp = self.useFixture(__import__('fixtures').TempDir()).path
        for name, tolerance in (('loose', 0.2), ('tight', 0.01)):
            with open(os.path.join(self.tmp, name + '.conf'), 'w') as out:
                out.write('[qos]\nslo_tolerance = %s\n' % tolerance)
        self.base = os.path.join(self.tmp, 'base.conf')
        with open(self.base, 'w') as stream:
            stream.write('[qos]\ngini_window_seconds = 1234\n'
                         'slo_tolerance = 0.07\n')

    def definition(self, configurations):
        path = os.path.join(self.tmp, 'configs.yaml')
        with open(path, 'w') as stream:
            stream.write(DEFINITION.replace(
                'strategies: [qos, priority]\nbaseline: qos\n',
                'configurations: {%s}\n' % configurations).replace(
                'jobs: 2', 'jobs: 1'))
        return path

    def test_each_cell_runs_under_its_configuration(self):
        output = os.path.join(self.tmp, 'out')
        code, _stdout, stderr = run([
            '--config-file', self.base, 'experiment', '--definition',
            self.definition('tight: tight.conf, loose: loose.conf'),
            '--no-plots', '--limit', '40', '--output', output])
        self.assertEqual(0, code, stderr)
        for name, tolerance in (('tight', 0.01), ('loose', 0.2)):
            for seed in (0, 1):
                with open(os.path.join(output, 'qos-validation', name,
                                       'fixed', 'seed%d' % seed,
                                       'summary.json')) as stream:
                    summary = json.load(stream)
                self.assertEqual(tolerance, summary['slo_tolerance'])
                # The command's own configuration is still underneath.
                self.assertEqual(1234, summary['gini_window_s'])
                self.assertEqual(name, summary['configuration'])
                self.assertEqual(40, summary['requests'])
        with open(os.path.join(output, 'paired.csv')) as stream:
            rows = list(csv.DictReader(stream))
        self.assertEqual({('loose', 'tight')},
                         {(row['policy'], row['baseline']) for row in rows})

    def test_bad_configuration_refused_before_any_run(self):
        with open(os.path.join(self.tmp, 'broken.conf'), 'w') as stream:
            stream.write('[filter_scheduler]\nweighers = no_such_weigher\n')
        output = os.path.join(self.tmp, 'out')
        code, _stdout, stderr = run([
            'experiment', '--definition',
            self.definition('tight: tight.conf, broken: broken.conf'),
            '--output', output])
        self.assertEqual(2, code, stderr)
        self.assertIn('broken.conf', stderr)
        self.assertIn('no_such_weigher', stderr)
        self.assertNotIn('Traceback', stderr)
        self.assertFalse(os.path.exists(output))


class TestWorkloadReplications(base.TestCase):

    def test_rows_fold_the_workloads(self):
        tmp = self.useFixture(__import__('fixtures').TempDir()).path
        path = os.path.join(tmp, 'workloads.yaml')
        with open(path, 'w') as stream:
            stream.write(DEFINITION.replace(
                'infrastructures:', '  - path: %s\ninfrastructures:'
                % os.path.join(WORKLOADS, 'qos-validation-2.csv')).replace(
                'seeds: [0, 1]', 'seeds: [0]\nreplications: workloads'))
        output = os.path.join(tmp, 'out')
        code, stdout, stderr = run(['experiment', '--definition', path,
                                    '--no-plots', '--output', output])
        self.assertEqual(0, code, stderr)
        self.assertIn('mean over 2 runs (workloads x seeds)', stdout)
        with open(os.path.join(output, 'comparison.csv')) as stream:
            rows = list(csv.DictReader(stream))
        self.assertEqual([('all-workloads', 'qos', '2'),
                          ('all-workloads', 'priority', '2')],
                         [(row['workload'], row['policy'], row['seeds'])
                          for row in rows])
        values = []
        for name in ('qos-validation', 'qos-validation-2'):
            with open(os.path.join(output, name, 'qos', 'fixed', 'seed0',
                                   'summary.json')) as stream:
                values.append(json.load(stream)['preemptions'])
        self.assertAlmostEqual(statistics.fmean(values),
                               float(rows[0]['preemptions']), places=5)
        self.assertAlmostEqual(
            replications.estimate(values).ci95 or 0,
            float(rows[0]['preemptions_ci95'] or 0), places=4)


class TestSampledHosts(base.TestCase):

    def test_size_factors_sample_hosts_per_seed(self):
        tmp = self.useFixture(__import__('fixtures').TempDir()).path
        path = os.path.join(tmp, 'sampled.yaml')
        hosts = os.path.join(WORKLOADS, 'qos-validation-hosts.csv')
        with open(path, 'w') as stream:
            stream.write(DEFINITION.replace(
                '  - infrastructure: %s' % hosts,
                '  - machines: %s\n    size_factors: [0.25, 1.0]' % hosts))
        output = os.path.join(tmp, 'out')
        code, _stdout, stderr = run(['experiment', '--definition', path,
                                     '--no-plots', '--output', output])
        self.assertEqual(0, code, stderr)
        counts = {}
        for level in ('sf0.25', 'sf1.0'):
            for policy in ('qos', 'priority'):
                for seed in (0, 1):
                    with open(os.path.join(
                            output, 'qos-validation', policy, level,
                            'seed%d' % seed, 'summary.json')) as stream:
                        counts[level, policy, seed] = json.load(
                            stream)['hosts']
        for level in ('sf0.25', 'sf1.0'):
            for seed in (0, 1):
                # The policies of a replication run on the same hosts.
                self.assertEqual(counts[level, 'qos', seed],
                                 counts[level, 'priority', seed])
        self.assertLess(counts['sf0.25', 'qos', 0],
                        counts['sf1.0', 'qos', 0])
        with open(os.path.join(output, 'comparison.csv')) as stream:
            self.assertEqual(['0.25', '0.25', '1.0', '1.0'], [
                row['size_factor'] for row in csv.DictReader(stream)])
