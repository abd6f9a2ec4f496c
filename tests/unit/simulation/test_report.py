import dataclasses
import io
import json
import os
from unittest import mock

import fixtures

from preemptible_sched.simulation import metrics
from preemptible_sched.simulation import plots
from preemptible_sched.simulation import report
from tests import base

HEADER = ('id,service_class,preemptible,submit_s,end_s,running_s,'
          'pending_s,overhead_s,availability,preemptions,terminated,host')

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
        report.write_outputs(self.directory, [FINISHED, ALIVE], SUMMARY,
                             plots=False)
        self.assertEqual(
            HEADER + '\n'
            'vm-1,gold,false,0,120.5,100,20,0.5,0.25,2,false,host-1\n'
            'vm-2,,true,10,,0,0,0,,0,true,\n',
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
            report.read_instances(os.path.join(self.directory,
                                               'instances.csv')))

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

    def test_no_plots_when_disabled(self):
        with mock.patch.object(plots, 'available', return_value=True), \
                mock.patch.object(plots, 'availability_cdf') as cdf:
            report.write_outputs(self.directory, [FINISHED], SUMMARY,
                                 plots=False)
        cdf.assert_not_called()

    def assertNothingWritten(self, existing=()):
        self.assertEqual(sorted(existing), sorted(os.listdir(self.parent)))

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


class FakeClock:

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


class Terminal(io.StringIO):

    def isatty(self):
        return True


class TestProgress(base.TestCase):

    def test_disabled_writes_nothing(self):
        stream = io.StringIO()
        progress = report.Progress(10, stream=stream)
        self.assertFalse(progress.enabled)
        progress.update(5)
        progress.update(10)
        progress.close()
        self.assertEqual('', stream.getvalue())

    def test_enabled_on_a_terminal(self):
        self.assertTrue(report.Progress(10, stream=Terminal()).enabled)

    def test_bar(self):
        stream = io.StringIO()
        progress = report.Progress(100, stream=stream, label='sim',
                                   enabled=True, clock=FakeClock())
        progress.update(45)
        # 45% of 30 columns = 13.5: 13 full
        self.assertEqual('\rsim [' + '#' * 13 + '.' * 17 + ']  45% '
                         '45/100 events', stream.getvalue())

    def test_redraws_at_most_every_half_second(self):
        stream = io.StringIO()
        clock = FakeClock()
        progress = report.Progress(100, stream=stream, label='sim',
                                   enabled=True, clock=clock)
        progress.update(10)
        clock.now = 0.4
        progress.update(20)
        self.assertNotIn('20/100', stream.getvalue())
        clock.now = 0.5
        progress.update(30)
        self.assertIn('30/100', stream.getvalue())

    def test_end_is_always_drawn_and_close_ends_the_line(self):
        stream = io.StringIO()
        progress = report.Progress(100, stream=stream, label='sim',
                                   enabled=True, clock=FakeClock())
        progress.update(10)
        progress.update(100)
        self.assertTrue(stream.getvalue().endswith(
            '\rsim [' + '#' * 30 + '] 100% 100/100 events'))
        progress.close()
        progress.close()
        self.assertTrue(stream.getvalue().endswith('events\n'))
        self.assertEqual(1, stream.getvalue().count('\n'))

    def test_close_draws_the_last_update(self):
        stream = io.StringIO()
        with report.Progress(100, stream=stream, label='sim', enabled=True,
                             clock=FakeClock()) as progress:
            progress.update(10)
            progress.update(20)
        self.assertTrue(stream.getvalue().endswith('20/100 events\n'))
