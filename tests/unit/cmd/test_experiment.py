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
"""``preemptible-sched experiment``: bad input.

Bad input must be reported on one line naming the option or file, with
exit code 2, before any run starts and without writing anything.
"""

import importlib.util
import io
import os
import shutil
import tempfile
from unittest import mock

from preemptible_sched.cmd import sched
from preemptible_sched import exception
from preemptible_sched import extras
from preemptible_sched.simulation import experiment_plan
from tests import base

WORKLOAD = ('id,submit_s,duration_s,vcpus,memory_mb,disk_gb,service_class\n'
            'r1,0,10,1,100,0,gold\n'
            'r2,5,10,1,100,0,bronze\n')
MACHINES = 'name,vcpus,memory_mb,disk_gb\nm1,4,8000,0\n'


class ExperimentArgumentsTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.workload = self.write('trace.csv', WORKLOAD)
        self.machines = self.write('machines.csv', MACHINES)
        self.results = os.path.join(self.tmp, 'results')
        os.mkdir(self.results)
        self.output = os.path.join(self.results, 'out')

    def write(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, 'w') as stream:
            stream.write(text)
        return path

    def run_cli(self, *argv):
        out, err = io.StringIO(), io.StringIO()
        with mock.patch('sys.stdout', out), mock.patch('sys.stderr', err):
            code = sched.main(['experiment', '--output', self.output] +
                              list(argv))
        return code, out.getvalue(), err.getvalue()

    def assertBadInput(self, argv, *fragments):
        code, out, err = self.run_cli(*argv)
        self.assertEqual(2, code, err)
        self.assertEqual('', out)
        self.assertEqual(1, len(err.splitlines()), err)
        self.assertNotIn('Traceback', err)
        for fragment in fragments:
            self.assertIn(fragment, err)
        # Nothing written: no output directory, no staging directory.
        self.assertEqual([], os.listdir(self.results))

    def sized(self, *extra):
        return ['--workload', self.workload, '--machines', self.machines,
                '--size-factors', '1.0'] + list(extra)

    def test_the_seeds_are_0_to_4_unless_given(self):
        planned = []

        def options_plan(args, policies, size_factors, seeds, jobs):
            planned.append(seeds)
            raise exception.InvalidInput('experiment', None, 'planned')

        with mock.patch.object(experiment_plan, 'options_plan',
                               options_plan):
            self.assertBadInput(self.sized(), 'planned')
            self.assertBadInput(self.sized('--seeds', '7'), 'planned')
        self.assertEqual([[0, 1, 2, 3, 4], [7]], planned)

    def test_neither_workload_nor_definition(self):
        self.assertBadInput(['--hosts', '2', '--host-flavor', '4:8000'],
                            'give --workload (one or more) or --definition')

    def test_definition_with_design_options(self):
        definition = self.write('d.yaml', 'seeds: [0]\n')
        self.assertBadInput(['--definition', definition, '--workload',
                             self.workload, '--seeds', '1',
                             '--workload-format', 'csv'],
                            'drop --workload, --seeds, --workload-format')

    def test_definition_limit_and_jobs_are_checked(self):
        definition = self.write('d.yaml', (
            'workloads: [{path: trace.csv}]\n'
            'infrastructures: [{hosts: 2, flavor: "4:8000"}]\n'
            'strategies: [qos]\nseeds: [0]\n'))
        self.assertBadInput(['--definition', definition, '--jobs', '0'],
                            '--jobs')
        self.assertBadInput(['--definition', definition, '--until', 'nan'],
                            '--until')

    def test_unknown_policy(self):
        self.assertBadInput(self.sized('--policies', 'qos,fastest'),
                            '--policies', "'fastest'", 'priority')

    def test_policy_given_twice(self):
        self.assertBadInput(self.sized('--policies', 'qos,qos'),
                            '--policies', 'twice')

    def test_size_factor_not_a_number(self):
        self.assertBadInput(
            ['--workload', self.workload, '--machines', self.machines,
             '--size-factors', '1.0,big'], '--size-factors', "'big'")

    def test_size_factor_not_positive(self):
        self.assertBadInput(
            ['--workload', self.workload, '--machines', self.machines,
             '--size-factors', '0.9,0'], '--size-factors', "'0'")

    def test_size_factors_without_machines(self):
        self.assertBadInput(['--workload', self.workload,
                             '--size-factors', '1.0'],
                            '--machines', 'required with --size-factors')

    def test_machines_without_size_factors(self):
        self.assertBadInput(['--workload', self.workload,
                             '--machines', self.machines, '--hosts', '2',
                             '--host-flavor', '4:8000'], '--machines')

    def test_no_hosts_at_all(self):
        self.assertBadInput(['--workload', self.workload],
                            'give exactly one of')

    def test_bad_seed(self):
        # The seeds are read as simulate reads them (one vocabulary).
        self.assertBadInput(self.sized('--seeds', '0,one'), '--seeds',
                            "expected seeds like 0-4 or 1,3,7, got '0,one'")

    def test_bad_jobs(self):
        self.assertBadInput(self.sized('--jobs', '0'), '--jobs')

    def test_unreadable_workload(self):
        missing = os.path.join(self.tmp, 'missing.csv')
        self.assertBadInput(['--workload', self.workload,
                             '--workload', missing,
                             '--hosts', '2', '--host-flavor', '4:8000'],
                            missing, 'cannot read file')

    def test_unreadable_machines(self):
        missing = os.path.join(self.tmp, 'missing-machines.csv')
        self.assertBadInput(['--workload', self.workload, '--machines',
                             missing, '--size-factors', '1.0'], missing)

    def test_bad_field_in_second_workload(self):
        bad = self.write('other.csv', WORKLOAD.replace('r2,5,', 'r2,soon,'))
        self.assertBadInput(['--workload', self.workload, '--workload', bad,
                             '--hosts', '2', '--host-flavor', '4:8000'],
                            bad, 'line 3', 'submit_s')

    def test_unknown_service_class(self):
        bad = self.write('odd.csv', WORKLOAD.replace('gold', 'platinum'))
        self.assertBadInput(['--workload', bad, '--hosts', '2',
                             '--host-flavor', '4:8000'], bad, 'platinum')

    def test_workloads_with_the_same_stem(self):
        os.mkdir(os.path.join(self.tmp, 'copy'))
        twin = self.write(os.path.join('copy', 'trace.csv'), WORKLOAD)
        self.assertBadInput(['--workload', self.workload, '--workload', twin,
                             '--hosts', '2', '--host-flavor', '4:8000'],
                            '--workload', 'rename one')

    def test_bad_plugin_in_configuration(self):
        config = self.write('bad.conf', '[filter_scheduler]\n'
                            'enabled_filters = NoSuchFilter\n')
        self.assertBadInput(['--config-file', config] + self.sized(),
                            config, 'enabled_filters', 'NoSuchFilter')

    def test_output_is_a_file(self):
        self.output = self.write('taken', '')
        code, out, err = self.run_cli(*self.sized())
        self.assertEqual(2, code, err)
        self.assertIn('--output', err)
        self.assertEqual('', open(self.output).read())

    # Regressions of issue 11: option values no run could honour.

    def test_nan_until_is_refused(self):
        self.assertBadInput(self.sized('--until', 'nan'), '--until',
                            'finite')

    def test_negative_seed_is_refused(self):
        self.assertBadInput(self.sized('--seeds', '0,-1'), '--seeds',
                            'expected seeds like 0-4')
        self.assertBadInput(self.sized('--seeds', '4294967296'), '--seeds',
                            'within 0..4294967295')

    def test_huge_seed_is_refused(self):
        self.assertBadInput(self.sized('--seeds', '9' * 5000), '--seeds',
                            'expected seeds like 0-4')

    def test_infinite_size_factor_is_refused(self):
        self.assertBadInput(
            ['--workload', self.workload, '--machines', self.machines,
             '--size-factors', '1,inf'], '--size-factors', "'inf'")

    def test_absurd_size_factor_is_refused(self):
        self.assertBadInput(
            ['--workload', self.workload, '--machines', self.machines,
             '--size-factors', '1e6'], '--size-factors', '<= 1000')

    def test_too_many_values_are_refused(self):
        self.assertBadInput(self.sized('--seeds', ','.join(
            str(n) for n in range(5000))), '--seeds', 'at most 1000 seeds')

    def test_too_many_runs_are_refused(self):
        # 1,000 seeds x 5 policies x 3 size factors: 15,000 runs.
        self.assertBadInput(
            ['--workload', self.workload, '--machines', self.machines,
             '--size-factors', '1,2,3', '--seeds', ','.join(
                 str(n) for n in range(1000)), '--policies',
             'qos,priority,plain,retry,dual_state'], '15000 runs',
            'more than 10000')

    def test_absurd_jobs_are_refused(self):
        self.assertBadInput(self.sized('--jobs', '100000'), '--jobs')

    def test_empty_output_is_refused(self):
        self.output = ''
        self.assertBadInput(self.sized(), '--output', 'must name')

    def test_open_ended_request_without_until_is_refused(self):
        workload = self.write('open.csv', WORKLOAD + 'r3,7,,1,100,0,gold\n')
        self.assertBadInput(['--workload', workload, '--hosts', '2',
                             '--host-flavor', '4:8000'], '--until',
                            "'r3'")

    def test_scheduler_address_only_with_dask(self):
        self.assertBadInput(
            self.sized('--scheduler-address', 'tcp://127.0.0.1:8786'),
            '--scheduler-address: only with --executor dask')

    def test_dask_executor_needs_the_dask_extra(self):
        real = importlib.util.find_spec

        def without_distributed(name, *args, **kwargs):
            if name.split('.')[0] == 'distributed':
                return None
            return real(name, *args, **kwargs)

        with mock.patch.object(extras.importlib.util, 'find_spec',
                               without_distributed):
            self.assertBadInput(self.sized('--executor', 'dask'),
                                'distributed', "'dask' extra")
