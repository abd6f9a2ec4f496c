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

import csv
import dataclasses
import json
import os
from unittest import mock

import fixtures

from preemptible_sched.simulation import metrics
from preemptible_sched.simulation import plots
from preemptible_sched.simulation import report
from tests import base

HEADER = ('id,service_class,preemptible,submit_s,end_s,running_s,'
          'pending_s,overhead_s,availability,preemptions,terminated,host,'
          'user,cores,copies,start_s,reason')

FINISHED = metrics.InstanceRecord(
    id='vm-1', service_class='gold', preemptible=False, submit_s=0.0,
    end_s=120.5, running_s=100.0, pending_s=20.0, overhead_s=0.5,
    availability=0.25, preemptions=2, terminated=False, host='host-1')
ALIVE = metrics.InstanceRecord(
    id='vm-2', service_class=None, preemptible=True, submit_s=10.0,
    end_s=None, running_s=0.0, pending_s=0.0, overhead_s=0.0,
    availability=None, preemptions=0, terminated=True, host=None)

SUMMARY = {'policy': 'qos', 'preemptions': 2, 'terminations': 1,
           'per_class': {'gold': {'slo': 1.0}, 'none': {'slo': None}}}


def _parse(text, kind):
    if text == '':
        return None
    if kind == 'bool':
        if text not in ('true', 'false'):
            raise ValueError('not a boolean: %r' % text)
        return text == 'true'
    if kind == 'int':
        return int(text)
    if kind == 'float':
        return float(text)
    return text


def read_instances(path):
    """The records of an instances.csv written by ``write_outputs``.

    Floats come back rounded to the 6 decimals they were written with.
    """
    with open(path, newline='') as stream:
        reader = csv.DictReader(stream)
        expected = [name for name, _kind in report.INSTANCE_COLUMNS]
        if reader.fieldnames != expected:
            raise ValueError('%s: columns %s, expected %s'
                             % (path, reader.fieldnames, expected))
        records = []
        for row in reader:
            fields = {name: _parse(row[name], kind)
                      for name, kind in report.INSTANCE_COLUMNS}
            fields['id'] = row['id']
            records.append(metrics.InstanceRecord(**fields))
        return records


class TestBuildSummary(base.TestCase):

    def test_layout(self):
        summary = report.build_summary(
            'qos', [FINISHED, ALIVE], {'gold': 1.0}, preemptions=3,
            terminations=1, latencies_s=[0.001, 0.003],
            stage_time_ms={'R4': 1.5}, extra={'acceptance': 0.5})
        self.assertEqual(
            {'policy', 'per_class', 'preemptions', 'terminations',
             'scheduling_latency_ms', 'stage_time_ms', 'acceptance'},
            set(summary))
        self.assertEqual('qos', summary['policy'])
        self.assertEqual(3, summary['preemptions'])
        self.assertEqual(1, summary['terminations'])
        self.assertEqual({'R4': 1.5}, summary['stage_time_ms'])
        self.assertEqual(0.5, summary['acceptance'])
        self.assertEqual(['gold', 'none'], sorted(summary['per_class']))
        # gold: one request at 0.25 against an SLO of 1.0
        self.assertEqual(0.75, summary['per_class']['gold']['qos_deficit'])
        self.assertAlmostEqual(
            2.0, summary['scheduling_latency_ms']['mean'])

    def test_extra_may_not_replace_a_standard_key(self):
        self.assertRaises(ValueError, report.build_summary, 'qos', [], {},
                          0, 0, [], {}, extra={'preemptions': 5})


class TestWriteOutputs(base.TestCase):

    def setUp(self):
        super().setUp()
        self.parent = self.useFixture(fixtures.TempDir()).path
        self.directory = os.path.join(self.parent, 'run')

    def read(self, name):
        with open(os.path.join(self.directory, name)) as stream:
            return stream.read()

    def test_instances_csv(self):
        waiting = dataclasses.replace(
            ALIVE, id='vm-3', reason='no host of reputation category low '
                                     'is up')
        report.write_outputs(self.directory, [FINISHED, ALIVE, waiting],
                             SUMMARY, plots=False)
        self.assertEqual(
            HEADER + '\n'
            'vm-1,gold,false,0,120.5,100,20,0.5,0.25,2,false,host-1,,,,,\n'
            'vm-2,,true,10,,0,0,0,,0,true,,,,,,\n'
            'vm-3,,true,10,,0,0,0,,0,true,,,,,,'
            'no host of reputation category low is up\n',
            self.read('instances.csv'))

    def test_columns_follow_the_record(self):
        self.assertEqual(
            [field.name for field in dataclasses.fields(
                metrics.InstanceRecord)],
            [name for name, _kind in report.INSTANCE_COLUMNS])

    def test_floats_to_six_decimals(self):
        record = dataclasses.replace(FINISHED, availability=100 / 120.5,
                                     submit_s=-0.0000001)
        report.write_outputs(self.directory, [record], SUMMARY, plots=False)
        row = self.read('instances.csv').splitlines()[1].split(',')
        # 100 / 120.5 = 0.82987551...
        self.assertEqual('0.829876', row[8])
        self.assertEqual('0', row[3])

    def test_round_trip(self):
        report.write_outputs(self.directory, [FINISHED, ALIVE], SUMMARY,
                             plots=False)
        self.assertEqual(
            [FINISHED, ALIVE],
            read_instances(os.path.join(self.directory, 'instances.csv')))

    def test_summary_json(self):
        names = report.write_outputs(self.directory, [FINISHED], SUMMARY,
                                     plots=False)
        self.assertEqual(['instances.csv', 'summary.json'], names)
        text = self.read('summary.json')
        self.assertEqual(SUMMARY, json.loads(text))
        self.assertTrue(text.startswith('{\n  "per_class": {\n'), text)

    def test_into_an_existing_directory(self):
        os.mkdir(self.directory)
        report.write_outputs(self.directory, [FINISHED], SUMMARY,
                             plots=False)
        self.assertEqual(['instances.csv', 'summary.json'],
                         sorted(os.listdir(self.directory)))
        self.assertEqual(['run'], os.listdir(self.parent))

    def test_plots_get_the_run_and_the_slos(self):
        with mock.patch.object(plots, 'available', return_value=True), \
                mock.patch.object(plots, 'availability_by_instance') as by, \
                mock.patch.object(plots, 'availability_cdf') as cdf, \
                mock.patch.object(plots, 'utilisation_over_time') as util:
            report.write_outputs(self.directory, [FINISHED], SUMMARY)
            util.assert_not_called()
            report.write_outputs(self.directory, [FINISHED], SUMMARY,
                                 plot_data={'utilisation': [(0, 0.5, 0.5)]})
        path, runs, slos = by.call_args[0]
        self.assertEqual('availability_by_instance.png',
                         os.path.basename(path))
        self.assertEqual({'qos': [FINISHED]}, runs)
        self.assertEqual({'gold': 1.0}, slos)
        self.assertEqual({'gold': 1.0}, cdf.call_args[0][2])
        self.assertEqual([(0, 0.5, 0.5)], util.call_args[0][1])

    def test_no_availability_figures_without_classes(self):
        # A workflow trace or SLA requests: availability per class would
        # mean nothing there (issue 30).
        with mock.patch.object(plots, 'available', return_value=True), \
                mock.patch.object(plots, 'availability_by_instance') as by, \
                mock.patch.object(plots, 'availability_cdf') as cdf:
            report.write_outputs(self.directory, [ALIVE],
                                 {'policy': 'plain', 'per_class': {}})
            by.assert_not_called()
            cdf.assert_not_called()
            report.write_outputs(self.directory, [ALIVE, FINISHED],
                                 SUMMARY)
            self.assertEqual(1, by.call_count)
            self.assertEqual(1, cdf.call_count)

    def test_no_plots_when_disabled(self):
        with mock.patch.object(plots, 'available', return_value=True), \
                mock.patch.object(plots, 'availability_cdf') as cdf:
            report.write_outputs(self.directory, [FINISHED], SUMMARY,
                                 plots=False)
        cdf.assert_not_called()

    def assertNothingWritten(self, existing=()):
        self.assertEqual(sorted(existing), sorted(os.listdir(self.parent)))

    def test_staging_of_a_killed_run_is_removed_by_the_next(self):
        # A pid above any pid_max: that process cannot be running. Before,
        # a simulate killed with SIGKILL left ".run.<random>.tmp" for ever.
        stale = os.path.join(self.parent, '.run.999999999.k1ll3d.tmp')
        os.makedirs(os.path.join(stale, 'half'))
        live = os.path.join(self.parent, '.run.%d.busy.tmp' % os.getpid())
        os.mkdir(live)
        report.write_outputs(self.directory, [FINISHED], SUMMARY,
                             plots=False)
        self.assertEqual(sorted(['run', os.path.basename(live)]),
                         sorted(os.listdir(self.parent)))

    def test_staging_directory_is_named_after_the_process(self):
        names = []
        real = report._write_summary

        def write_summary(path, summary):
            names.extend(os.listdir(self.parent))
            real(path, summary)

        with mock.patch.object(report, '_write_summary', write_summary):
            report.write_outputs(self.directory, [FINISHED], SUMMARY,
                                 plots=False)
        self.assertEqual(1, len(names))
        self.assertTrue(names[0].startswith('.run.%d.' % os.getpid()),
                        names)

    def test_failing_plot_writes_nothing(self):
        with mock.patch.object(plots, 'available', return_value=True), \
                mock.patch.object(plots, 'availability_by_instance'), \
                mock.patch.object(plots, 'availability_cdf',
                                  side_effect=RuntimeError('no ink')):
            self.assertRaises(RuntimeError, report.write_outputs,
                              self.directory, [FINISHED], SUMMARY)
        self.assertNothingWritten()

    def test_failure_leaves_an_existing_directory_alone(self):
        os.mkdir(self.directory)
        with open(os.path.join(self.directory, 'old.txt'), 'w') as stream:
            stream.write('earlier run')
        bad = dataclasses.replace(FINISHED, running_s=float('nan'))
        self.assertRaises(ValueError, report.write_outputs, self.directory,
                          [FINISHED, bad], SUMMARY, plots=False)
        self.assertNothingWritten(['run'])
        self.assertEqual(['old.txt'], os.listdir(self.directory))

    def test_bad_summary_writes_nothing(self):
        summary = dict(SUMMARY, stage_time_ms={'R4': float('nan')})
        self.assertRaises(ValueError, report.write_outputs, self.directory,
                          [FINISHED], summary, plots=False)
        self.assertNothingWritten()

    def test_bad_boolean_writes_nothing(self):
        bad = dataclasses.replace(FINISHED, preemptible='no')
        self.assertRaises(ValueError, report.write_outputs, self.directory,
                          [bad], SUMMARY, plots=False)
        self.assertNothingWritten()

    def test_unknown_plot_data(self):
        self.assertRaises(ValueError, report.write_outputs, self.directory,
                          [FINISHED], SUMMARY, plot_data={'utilization': []})
        self.assertNothingWritten()
