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

"""``preemptible-sched simulate``: outputs, exit codes and bad input."""

import csv
import io
import json
import logging
import os
import shutil
import signal
import tempfile
from unittest import mock

import fixtures

from preemptible_sched.cmd import common
from preemptible_sched.cmd import sched
from preemptible_sched.loop import request_ends
from preemptible_sched.loop import scheduler_loop
from preemptible_sched.simulation import plots
from preemptible_sched.simulation import runner
from tests import base

HEADER = ('id,submit_s,duration_s,vcpus,memory_mb,disk_gb,service_class,'
          'preemptible,constraints\n')

WORKLOAD = HEADER + (
    'a,0,100,4,4000,0,silver,false,\n'
    'c,10,50,4,4000,0,bronze,false,\n'
    'b,20,,4,4000,0,gold,false,\n')


class SimulateTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.output = os.path.join(self.tmp, 'out')

    def write(self, text, name='workload.csv'):
        path = os.path.join(self.tmp, name)
        with open(path, 'w') as stream:
            stream.write(text)
        return path

    def run_cli(self, *argv):
        out, err = io.StringIO(), io.StringIO()
        with mock.patch('sys.stdout', out), mock.patch('sys.stderr', err):
            code = sched.main(list(argv))
        return code, out.getvalue(), err.getvalue()

    def simulate(self, workload=WORKLOAD, *extra):
        return self.run_cli('simulate', '--workload', self.write(workload),
                            '--output', self.output, '--no-plots', *extra)

    def assertBadInput(self, result, *fragments):
        code, out, err = result
        self.assertEqual(2, code, err)
        self.assertEqual(1, len(err.strip().splitlines()), err)
        self.assertNotIn('Traceback', err)
        for fragment in fragments:
            self.assertIn(fragment, err)
        self.assertFalse(os.path.exists(self.output))
        self.assertEqual(['workload.csv'], sorted(
            name for name in os.listdir(self.tmp)
            if name != 'hosts.csv'))


class TestSimulate(SimulateTestCase):

    def test_outputs(self):
        code, out, err = self.simulate(
            WORKLOAD, '--hosts', '1', '--host-flavor', '4:8000:0',
            '--until', '400', '--policy', 'priority', '--seed', '0')
        self.assertEqual(0, code, err)
        with open(os.path.join(self.output, 'instances.csv')) as stream:
            rows = {row['id']: row for row in csv.DictReader(stream)}
        self.assertEqual(['id', 'service_class', 'preemptible', 'submit_s',
                          'end_s', 'running_s', 'pending_s', 'overhead_s',
                          'availability', 'preemptions', 'terminated',
                          'host', 'user', 'cores', 'copies', 'start_s',
                          'reason'],
                         list(next(iter(rows.values()))))
        # One host holds one instance: silver a runs from t=0; bronze c
        # waits (same size, lower priority); at t=20 gold b preempts a,
        # which then waits for b forever, and c behind it.
        self.assertEqual('1', rows['a']['preemptions'])
        self.assertEqual('0', rows['b']['preemptions'])
        self.assertEqual('0', rows['c']['preemptions'])
        # a ran from its boot until t=20, plus the termination time.
        self.assertLess(float(rows['a']['running_s']), 20.0)
        # b waits only for its boot (a first boot: cold, at most 6 s of
        # its 380 s).
        self.assertGreater(float(rows['b']['availability']), 0.98)
        self.assertEqual('0', rows['c']['running_s'])
        self.assertEqual('0', rows['c']['availability'])
        with open(os.path.join(self.output, 'summary.json')) as stream:
            summary = json.load(stream)
        self.assertEqual('priority', summary['policy'])
        self.assertEqual({'bronze', 'gold', 'silver'},
                         set(summary['per_class']))
        self.assertEqual(1, summary['preemptions'])
        self.assertEqual(0, summary['terminations'])
        for key in ('mean', 'p50', 'p99'):
            self.assertIn(key, summary['scheduling_latency_ms'])
        self.assertIn('R4', summary['stage_time_ms'])

    def test_runs_until_everything_ended_without_until(self):
        workload = HEADER + 'a,0,100,1,1000,0,,false,\nb,5,10,1,1000,0,,,\n'
        code, out, err = self.simulate(workload, '--hosts', '2',
                                       '--host-flavor', '2:4000',
                                       '--seed', '0')
        self.assertEqual(0, code, err)
        with open(os.path.join(self.output, 'instances.csv')) as stream:
            rows = {row['id']: row for row in csv.DictReader(stream)}
        # a ends 100 s after it started (boot time is the overhead).
        start = float(rows['a']['overhead_s'])
        self.assertAlmostEqual(start + 100.0, float(rows['a']['end_s']))
        self.assertAlmostEqual(100.0, float(rows['a']['running_s']))


class TestSimulateOutput(SimulateTestCase):
    """What a person sees: tables on stdout, one line on stderr."""

    def run_small(self, *extra):
        return self.simulate(
            WORKLOAD, '--hosts', '1', '--host-flavor', '4:8000:0',
            '--until', '7200', '--policy', 'priority', '--seed', '0',
            *extra)

    def test_tables_with_readable_headers(self):
        code, out, err = self.run_small()
        self.assertEqual(0, code, err)
        for text in ('Availability per class', 'Mean availability (%)',
                     'SLO fulfilment (%)', 'Preemptions',
                     'Scheduling latency mean / p50 / p99 (ms)',
                     'Scheduling time per stage',
                     'T2 queue order (J3/T2)', 'R4 filtering (R2-R4)'):
            self.assertIn(text, out)
        self.assertNotIn('slo_fulfillment', out)
        # Classes in the configured order.
        self.assertLess(out.index('\nsilver '), out.index('\nbronze '))
        self.assertLess(out.index('\ngold '), out.index('\nsilver '))
        self.assertTrue(out.endswith(
            '3 requests on 1 hosts, policy priority, 1 preemptions, 2.0 h '
            'simulated; results in %s\n' % self.output), out)

    def test_summary_line_on_stderr_when_not_a_terminal(self):
        code, out, err = self.run_small()
        self.assertEqual(0, code, err)
        self.assertRegex(
            err, r'^simulate priority: 3 requests, [0-9,]+ events in '
            r'[0-9.]+ s \([0-9,]+ events/s\), simulated 2\.0 h\n$')

    def test_plots_skipped_said_once_without_matplotlib(self):
        with mock.patch.object(plots, 'available', return_value=False):
            code, out, err = self.run_cli(
                'simulate', '--workload', self.write(WORKLOAD), '--output',
                self.output, '--hosts', '1', '--host-flavor', '4:8000:0',
                '--until', '100')
        self.assertEqual(0, code, err)
        self.assertEqual(1, err.count('plots skipped'), err)
        self.assertIn("pip install '.[plots]'", err)
        self.assertNotIn('plots skipped', out)
        # Five seeds by default, and still one note.
        self.assertEqual(['replications.json'] +
                         ['seed%d' % seed for seed in range(5)],
                         sorted(os.listdir(self.output)))
        self.assertEqual(['instances.csv', 'stages.csv', 'summary.json'],
                         sorted(os.listdir(os.path.join(self.output,
                                                        'seed4'))))

    def test_no_note_with_no_plots(self):
        with mock.patch.object(plots, 'available', return_value=False):
            code, out, err = self.run_small()
        self.assertEqual(0, code, err)
        self.assertNotIn('plots skipped', err)

    def test_decisions_are_not_logged_at_info(self):
        # The loop logs each decision, and each request that fails, at
        # INFO: not while simulating.
        loggers = [logging.getLogger(module.__name__)
                   for module in (scheduler_loop, request_ends)]
        before = [logger.level for logger in loggers]
        levels = []
        real_run = runner.Simulation.run

        def run(simulation):
            levels.append([logger.getEffectiveLevel() for logger in loggers])
            return real_run(simulation)

        with mock.patch.object(runner.Simulation, 'run', run):
            code, out, err = self.run_small()
        self.assertEqual(0, code, err)
        self.assertEqual([[logging.WARNING, logging.WARNING]], levels)
        self.assertEqual(before, [logger.level for logger in loggers])


class TestSimulateBadInput(SimulateTestCase):

    def test_bad_number_names_file_line_and_field(self):
        workload = WORKLOAD + 'd,20,10,many,1000,0,,false,\n'
        self.assertBadInput(
            self.simulate(workload, '--hosts', '1', '--host-flavor', '4:8'),
            'workload.csv', 'line 5', 'vcpus')

    def test_unknown_service_class(self):
        workload = HEADER + 'a,0,10,1,1000,0,platinum,false,\n'
        self.assertBadInput(
            self.simulate(workload, '--hosts', '1', '--host-flavor', '4:8'),
            'workload.csv', "'platinum'")

    def test_bad_host_flavor(self):
        self.assertBadInput(
            self.simulate(WORKLOAD, '--hosts', '2', '--host-flavor', '4x8'),
            '--host-flavor')

    def test_no_infrastructure(self):
        self.assertBadInput(self.simulate(WORKLOAD), '--infrastructure')

    def test_two_infrastructures(self):
        hosts = self.write('name,vcpus,memory_mb,disk_gb,attributes\n'
                           'h1,4,8000,0,\n', 'hosts.csv')
        self.assertBadInput(
            self.simulate(WORKLOAD, '--hosts', '2', '--host-flavor', '4:8',
                          '--infrastructure', hosts), '--hosts')

    def test_bad_infrastructure_file(self):
        hosts = self.write('name,vcpus,memory_mb,disk_gb,attributes\n'
                           'h1,4,8000,0,\nh2,-4,8000,0,\n', 'hosts.csv')
        self.assertBadInput(
            self.simulate(WORKLOAD, '--infrastructure', hosts),
            'hosts.csv', 'line 3', 'vcpus')

    def test_missing_workload_file(self):
        code, out, err = self.run_cli(
            'simulate', '--workload', os.path.join(self.tmp, 'nope.csv'),
            '--output', self.output, '--hosts', '1', '--host-flavor', '4:8')
        self.assertEqual(2, code)
        self.assertIn('nope.csv', err)
        self.assertFalse(os.path.exists(self.output))

    def test_size_factor_needs_machines(self):
        self.assertBadInput(
            self.simulate(WORKLOAD, '--size-factor', '0.8'), '--machines')

    def test_bad_class_map(self):
        self.assertBadInput(
            self.simulate(WORKLOAD, '--hosts', '1', '--host-flavor', '4:8',
                          '--class-map', 'LS'), '--class-map')

    def test_a_request_too_large_for_any_host_ends_the_run(self):
        # b never fits a 2-vCPU host: once a has ended, nothing can change
        # and the run stops instead of waiting forever.
        workload = HEADER + 'a,0,100,1,1000,0,,false,\nb,5,10,4,1000,0,,,\n'
        code, out, err = self.simulate(workload, '--hosts', '2',
                                       '--host-flavor', '2:4000',
                                       '--policy', 'billing', '--seed', '0')
        self.assertEqual(0, code, err)
        with open(os.path.join(self.output, 'summary.json')) as stream:
            summary = json.load(stream)
        self.assertEqual(1, summary['never_placed'])
        self.assertLess(summary['until_s'], 200.0)
        with open(os.path.join(self.output, 'instances.csv')) as stream:
            rows = {row['id']: row for row in csv.DictReader(stream)}
        self.assertEqual('0', rows['b']['running_s'])
        self.assertEqual('', rows['b']['end_s'])


class TestSimulateHostileInput(SimulateTestCase):
    """Regressions of issue 11: options and files that crashed or never
    ended are refused up front, one line, exit 2, nothing written.
    """

    def bounded(self, *extra, workload=WORKLOAD):
        return self.simulate(workload, '--hosts', '1', '--host-flavor',
                             '4:8000', *extra)

    def test_negative_until_is_refused(self):
        self.assertBadInput(self.bounded('--until', '-1'), '--until',
                            'must be >= 0')

    def test_nan_until_is_refused(self):
        self.assertBadInput(self.bounded('--until', 'nan'), '--until',
                            'finite')

    def test_infinite_until_is_refused(self):
        self.assertBadInput(self.bounded('--until', 'inf'), '--until',
                            'finite')

    def test_absurd_until_is_refused(self):
        self.assertBadInput(self.bounded('--until', '1e308'), '--until',
                            'must be <=')

    def test_absurd_host_count_is_refused(self):
        self.assertBadInput(
            self.simulate(WORKLOAD, '--hosts', '100000000',
                          '--host-flavor', '4:8000', '--until', '100'),
            '--hosts', 'must be <= 100000')

    def test_absurd_host_flavor_is_refused(self):
        self.assertBadInput(
            self.simulate(WORKLOAD, '--hosts', '1', '--host-flavor',
                          '4:1e300', '--until', '100'), '--host-flavor')

    def test_output_naming_a_file_is_refused(self):
        taken = self.write('', 'hosts.csv')
        code, out, err = self.bounded('--until', '100', '--output', taken)
        self.assertEqual(2, code, err)
        self.assertEqual(1, len(err.splitlines()), err)
        self.assertIn('is not a directory', err)
        self.assertEqual('', open(taken).read())

    def test_empty_output_is_refused_not_the_current_directory(self):
        cwd = self.useFixture(fixtures.TempDir()).path
        self.addCleanup(os.chdir, os.getcwd())
        os.chdir(cwd)
        before = os.listdir(cwd)
        code, out, err = self.run_cli(
            'simulate', '--workload', self.write(WORKLOAD), '--output', '',
            '--no-plots', '--hosts', '1', '--host-flavor', '4:8000',
            '--until', '100')
        self.assertEqual(2, code, err)
        self.assertIn('--output: must name a directory', err)
        self.assertEqual(before, os.listdir(cwd))

    def test_open_ended_request_without_until_is_refused(self):
        # b has no duration: the run would never end.
        self.assertBadInput(self.bounded(), '--until', 'required',
                            "'b'")

    def test_infinite_size_factor_is_refused(self):
        machines = self.write('name,vcpus,memory_mb\nm,4,8000\n',
                              'hosts.csv')
        self.assertBadInput(
            self.simulate(WORKLOAD, '--machines', machines,
                          '--size-factor', 'inf', '--until', '100'),
            '--size-factor', 'finite')

    def test_absurd_size_factor_is_refused(self):
        machines = self.write('name,vcpus,memory_mb\nm,4,8000\n',
                              'hosts.csv')
        self.assertBadInput(
            self.simulate(WORKLOAD, '--machines', machines,
                          '--size-factor', '1e6', '--until', '100'),
            '--size-factor', 'must be <= 1000')

    def test_negative_seed_is_refused(self):
        self.assertBadInput(self.bounded('--until', '100', '--seed', '-1'),
                            '--seed')

    def test_workload_fifo_is_refused_without_blocking(self):
        fifo = os.path.join(self.tmp, 'fifo.csv')
        os.mkfifo(fifo)
        self.addCleanup(os.unlink, fifo)
        code, out, err = self.run_cli(
            'simulate', '--workload', fifo, '--output', self.output,
            '--hosts', '1', '--host-flavor', '4:8000', '--until', '100')
        self.assertEqual(2, code, err)
        self.assertIn('not a regular file (a FIFO)', err)
        self.assertFalse(os.path.exists(self.output))

    def test_workload_dev_zero_is_refused(self):
        code, out, err = self.run_cli(
            'simulate', '--workload', '/dev/zero', '--output', self.output,
            '--hosts', '1', '--host-flavor', '4:8000', '--until', '100')
        self.assertEqual(2, code, err)
        self.assertIn('/dev/zero: not a regular file', err)

    def test_nan_in_the_workload_is_refused(self):
        self.assertBadInput(
            self.bounded('--until', '100', workload=WORKLOAD.replace(
                'a,0,100,', 'a,0,nan,')),
            'workload.csv', 'line 2', 'duration_s')

    def test_absurd_size_in_the_workload_is_refused(self):
        self.assertBadInput(
            self.bounded('--until', '100', workload=WORKLOAD.replace(
                'a,0,100,4,', 'a,0,100,1e10,')),
            'workload.csv', 'line 2', 'vcpus', 'must be <=')

    def test_sigterm_unwinds_and_exits_143(self):
        def run(simulation):
            os.kill(os.getpid(), signal.SIGTERM)
            self.fail('SIGTERM did not interrupt the run')

        handler = signal.getsignal(signal.SIGTERM)
        with mock.patch.object(runner.Simulation, 'run', run):
            code, out, err = self.bounded('--until', '100')
        self.assertEqual(143, code, err)
        self.assertEqual('preemptible-sched: simulate terminated (SIGTERM);'
                         ' nothing written\n', err)
        self.assertFalse(os.path.exists(self.output))
        self.assertEqual(['workload.csv'], os.listdir(self.tmp))
        self.assertIs(handler, signal.getsignal(signal.SIGTERM))


class TestGoogleTables(SimulateTestCase):
    """task_constraints and machine_attributes through ``simulate``."""

    # time, missing, job, task, machine, event, user, class, priority,
    # CPU, RAM, disk, different-machine: submitted at 0, scheduled at
    # 1 s, finished at 101 s.
    EVENTS = ''.join(
        '%d,,%s,0,,%d,%s,0,9,0.5,0.5,0,0\n' % (time, job, event, user)
        for job, user in (('1', 'alice'), ('2', 'bob'))
        for time, event in ((0, 0), (1000000, 1), (101000000, 4)))
    MACHINES = ''.join('0,%d,0,P,1,1\n' % m for m in range(1, 5))
    ATTRIBUTES = ''.join('0,%d,kernel,%d,0\n' % (m, 5 if m == 3 else 2)
                         for m in range(1, 5))

    def run_google(self, constraints, *extra):
        return self.run_cli(
            'simulate', '--workload', self.write(self.EVENTS),
            '--workload-format', 'google2011',
            '--task-constraints', self.write(constraints, 'tc.csv'),
            '--machines', self.write(self.MACHINES, 'me.csv'),
            '--machine-attributes', self.write(self.ATTRIBUTES, 'ma.csv'),
            '--size-factor', '10', '--seed', '0', '--output', self.output,
            '--no-plots', *extra)

    def test_constrained_task_lands_on_the_matching_machine(self):
        # Job 1 needs kernel > 4 (only machine 3); job 2 kernel != 5.
        code, out, err = self.run_google('0,1,0,3,kernel,4\n'
                                         '0,2,0,1,kernel,5\n')
        self.assertEqual(0, code, err)
        with open(os.path.join(self.output, 'instances.csv')) as stream:
            rows = {row['id']: row for row in csv.DictReader(stream)}
        self.assertTrue(rows['1-0']['host'].endswith('-3'), rows['1-0'])
        self.assertFalse(rows['2-0']['host'].endswith('-3'), rows['2-0'])
        self.assertEqual(('alice', 'bob'),
                         (rows['1-0']['user'], rows['2-0']['user']))

    def test_unsatisfiable_constraint_never_runs(self):
        code, out, err = self.run_google('0,1,0,3,kernel,5\n',
                                         '--until', '500')
        self.assertEqual(0, code, err)
        with open(os.path.join(self.output, 'instances.csv')) as stream:
            rows = {row['id']: row for row in csv.DictReader(stream)}
        self.assertEqual('', rows['1-0']['host'])
        self.assertNotEqual('', rows['2-0']['host'])

    def test_bad_operator_is_one_line(self):
        code, out, err = self.run_google('0,1,0,7,kernel,4\n')
        self.assertEqual(2, code)
        self.assertEqual(1, len(err.strip().splitlines()), err)
        self.assertIn('tc.csv', err)
        self.assertIn('comparison operator', err)

    def test_machine_attributes_need_machines(self):
        code, out, err = self.run_cli(
            'simulate', '--workload', self.write(WORKLOAD),
            '--hosts', '1', '--host-flavor', '4:8000',
            '--machine-attributes', self.write(self.ATTRIBUTES, 'ma.csv'),
            '--output', self.output, '--no-plots')
        self.assertEqual(2, code)
        self.assertIn('--machine-attributes', err)


class TestSimulateSeeds(SimulateTestCase):
    """``--seeds``: one run per seed, each as ``--seed`` would make it,
    and the estimates over them.
    """

    ARGS = ('--hosts', '1', '--host-flavor', '4:8000:0', '--until', '400',
            '--policy', 'qos')

    def summary(self, *parts):
        with open(os.path.join(self.output, *parts)) as stream:
            return json.load(stream)

    def test_each_seed_as_its_own_run_and_the_interval_of_the_mean(self):
        alone = {}
        for seed in (0, 1, 2):
            code, _out, err = self.simulate(WORKLOAD, '--seed', str(seed),
                                            *self.ARGS)
            self.assertEqual(0, code, err)
            alone[seed] = self.summary('summary.json')
            shutil.rmtree(self.output)
        code, out, err = self.simulate(WORKLOAD, '--seeds', '0-2',
                                       *self.ARGS)
        self.assertEqual(0, code, err)
        self.assertEqual(['replications.json', 'seed0', 'seed1', 'seed2'],
                         sorted(os.listdir(self.output)))
        for seed in (0, 1, 2):
            replicated = self.summary('seed%d' % seed, 'summary.json')
            for summary in (replicated, alone[seed]):
                summary.pop('wall_time_s')
                summary.pop('stage_time_ms')
                summary.pop('scheduling_latency_ms')
            self.assertEqual(alone[seed], replicated)
        document = self.summary('replications.json')
        self.assertEqual([0, 1, 2], document['seeds'])
        self.assertEqual('qos', document['policy'])
        # The boot times differ by seed, so silver a's availability does.
        values = [alone[seed]['per_class']['silver']['mean_availability']
                  for seed in (0, 1, 2)]
        self.assertGreater(len(set(values)), 1)
        metric = document['metrics']['silver.mean_availability']
        self.assertEqual(values, metric['values'])
        mean = sum(values) / 3
        std = (sum((value - mean) ** 2 for value in values) / 2) ** 0.5
        self.assertAlmostEqual(mean, metric['mean'])
        # t(0.975, 2) = 4.303.
        self.assertAlmostEqual(4.303 * std / 3 ** 0.5, metric['ci95'])
        self.assertAlmostEqual(mean - metric['ci95'], metric['low'])
        self.assertIn('silver mean availability (%)', out)
        self.assertIn('%.1f ± %.1f' % (100 * mean, 100 * metric['ci95']),
                      out)
        self.assertIn('Over 3 seeds (seeds 0-2)', out)

    def test_one_seed_writes_as_seed_does(self):
        code, _out, err = self.simulate(WORKLOAD, '--seeds', '4',
                                        *self.ARGS)
        self.assertEqual(0, code, err)
        self.assertIn('summary.json', os.listdir(self.output))
        self.assertNotIn('replications.json', os.listdir(self.output))
        self.assertEqual(4, self.summary('summary.json')['seed'])

    def test_without_seed_or_seeds_it_replicates_over_seeds_0_to_4(self):
        code, out, err = self.simulate(WORKLOAD, *self.ARGS)
        self.assertEqual(0, code, err)
        self.assertEqual(['replications.json'] +
                         ['seed%d' % seed for seed in range(5)],
                         sorted(os.listdir(self.output)))
        self.assertEqual([0, 1, 2, 3, 4],
                         self.summary('replications.json')['seeds'])
        for seed in range(5):
            self.assertEqual(seed, self.summary('seed%d' % seed,
                                                'summary.json')['seed'])
        self.assertIn('Over 5 seeds (seeds 0-4)', out)

    def test_seed_and_seeds_together_are_refused(self):
        self.assertBadInput(self.simulate(WORKLOAD, '--seed', '1',
                                          '--seeds', '0-4', *self.ARGS),
                            '--seeds', 'not both')

    def test_bad_seeds_are_refused_on_one_line(self):
        for text, fragment in (('4-0', 'backwards'), ('a', 'expected'),
                               ('0-', 'expected'), ('1--2', 'expected'),
                               ('0-5000', 'at most'),
                               ('9999999999', '0..')):
            self.assertBadInput(self.simulate(WORKLOAD, '--seeds', text,
                                              *self.ARGS),
                                '--seeds', fragment)


class TestParseSeeds(base.TestCase):

    def test_ranges_and_lists(self):
        self.assertEqual([0, 1, 2, 3, 4], common.parse_seeds('0-4'))
        self.assertEqual([1, 3, 7], common.parse_seeds('1,3,7'))
        self.assertEqual([5, 0, 1, 2], common.parse_seeds('5,0-2,1'))
        self.assertEqual([3], common.parse_seeds(' 3 '))
