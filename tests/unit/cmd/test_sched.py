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

"""``preemptible-sched``: hostile option values and configuration files
end in one line and exit 2, never argparse's usage or a hang."""

import os

import fixtures

from tests import base
from tests.unit.cmd import test_cli_hygiene

SCENARIO = 'etc/preemptible-sched/scenarios/paper-snapshot-1.json'


class CliCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.tmp = self.useFixture(fixtures.TempDir()).path
        self.workload = os.path.join(self.tmp, 'w.csv')
        with open(self.workload, 'w') as stream:
            stream.write('id,submit_s,duration_s,vcpus,memory_mb\n'
                         'r1,0,10,1,100\n')

    def assertOneLine(self, fragments, *argv):
        code, out, err = test_cli_hygiene.run(*argv)
        self.assertEqual(2, code, err)
        self.assertEqual(1, len(err.splitlines()), err)
        self.assertFalse(err.startswith('usage:'), err)
        for fragment in fragments:
            self.assertIn(fragment, err)


class TestNegativeValues(CliCase):

    def test_negative_values_reach_the_command(self):
        output = os.path.join(self.tmp, 'out')
        simulate = ('simulate', '--workload', self.workload, '--output',
                    output, '--host-flavor', '4:8000', '--no-plots')
        self.assertOneLine(['--hosts', 'must be >= 1', '-3'],
                           *simulate + ('--hosts', '-3'))
        self.assertOneLine(['--until', 'must be >= 0'],
                           *simulate + ('--hosts', '2', '--until', '-1e3'))
        self.assertOneLine(['--seeds', '-1'],
                           'experiment', '--workload', self.workload,
                           '--output', output, '--hosts', '2',
                           '--host-flavor', '4:8000', '--seeds', '-1,2')
        self.assertOneLine(['--timeout', 'must be > 0'],
                           'traces', 'download', 'wta', '--timeout', '-1e3')

    def test_values_that_are_not_numbers(self):
        self.assertOneLine(['--hosts: expected an integer', "'-inf'"],
                           'simulate', '--workload', self.workload,
                           '--output', 'o', '--hosts', '-inf')
        self.assertOneLine(['--jobs: expected an integer', "'-1e3'"],
                           'experiment', '--workload', self.workload,
                           '--output', 'o', '--jobs', '-1e3')
        self.assertOneLine(['--timeout: expected a number', "'soon'"],
                           'traces', 'download', 'wta', '--timeout', 'soon')

    def test_a_flag_is_not_given_the_value(self):
        # ``--no-plots`` takes no value: ``-3`` stays an argument of its own.
        code, _, err = test_cli_hygiene.run(
            'simulate', '--workload', self.workload, '--output', 'o',
            '--no-plots', '-3')
        self.assertEqual(2, code)
        self.assertIn('-3', err)
        self.assertNotIn('--no-plots=-3', err)


class TestConfigFiles(base.TestCase):

    def assertRefused(self, path, fragment):
        code, _, err = test_cli_hygiene.run(
            '--config-file', path, 'decide', '--scenario', SCENARIO)
        self.assertEqual(2, code, err)
        self.assertEqual(1, len(err.splitlines()), err)
        self.assertIn(path, err)
        self.assertIn(fragment, err)

    def test_special_files_are_refused(self):
        tmp = self.useFixture(fixtures.TempDir()).path
        fifo = os.path.join(tmp, 'fifo.conf')
        os.mkfifo(fifo)
        self.assertRefused(fifo, 'not a regular file (a FIFO)')
        self.assertRefused('/dev/zero', 'a character device')
        self.assertRefused(tmp, 'a directory')

    def test_log_config_that_logging_cannot_use(self):
        # oslo.log's LogConfigError was a traceback (the fuzz campaign).
        tmp = self.useFixture(fixtures.TempDir()).path
        ini = os.path.join(tmp, 'logging.ini')
        with open(ini, 'w') as stream:
            stream.write('garbage\n')
        conf = os.path.join(tmp, 'c.conf')
        with open(conf, 'w') as stream:
            stream.write('[DEFAULT]\nlog_config_append = %s\n' % ini)
        code, _, err = test_cli_hygiene.run(
            '--config-file', conf, 'decide', '--scenario', SCENARIO)
        self.assertEqual(2, code, err)
        self.assertEqual(1, len(err.splitlines()), err)
        self.assertIn('[DEFAULT] log_config_append: Error loading logging '
                      'config %s' % ini, err)


class TestUnknownOptions(CliCase):
    """Issue 30: a mistyped option is named, with the closest one, before
    argparse's complaint about a required option.
    """

    def test_a_typo_is_named_with_a_suggestion(self):
        self.assertOneLine(['simulate: unknown option --polcy',
                            'did you mean --policy?'],
                           'simulate', '--workload', self.workload,
                           '--polcy', 'qos')

    def test_a_typo_of_a_required_option(self):
        # It used to say only that --workload is required.
        self.assertOneLine(['experiment: unknown option --workloads',
                            'did you mean --workload?'],
                           'experiment', '--workloads', self.workload)

    def test_nothing_close(self):
        self.assertOneLine(['unknown option --zzzzzz',
                            'see preemptible-sched traces --help'],
                           'traces', 'download', 'wta', '--zzzzzz')

    def test_options_of_a_sub_command_and_abbreviations_pass(self):
        # --mirror belongs to ``traces download``; --work abbreviates
        # --workload, which argparse accepts.
        from preemptible_sched.cmd import sched
        self.assertIsNone(sched._unknown_option(
            ['traces', 'download', 'wta', '--mirror=file:///x']))
        self.assertIsNone(sched._unknown_option(
            ['simulate', '--work', 'w.csv', '--', '--not-an-option']))
        self.assertIsNone(sched._unknown_option(
            ['--config-file', 'c.conf', 'decide', '--scenario', 's']))


class TestOneVocabulary(CliCase):
    """``experiment`` takes ``--policy`` and ``--seed``, as ``simulate``
    spells them, for ``--policies`` and ``--seeds``.
    """

    def test_singular_names(self):
        output = os.path.join(self.tmp, 'out')
        code, out, err = test_cli_hygiene.run(
            'experiment', '--workload', self.workload, '--hosts', '2',
            '--host-flavor', '4:8000', '--policy', 'priority', '--seed', '3',
            '--no-plots', '--jobs', '1', '--output', output)
        self.assertEqual(0, code, err)
        self.assertEqual(['seed3'], os.listdir(
            os.path.join(output, 'w', 'priority', 'fixed')))


class TestClosedPipe(base.TestCase):

    def test_a_reader_that_goes_gets_no_traceback(self):
        # ``preemptible-sched traces list | head -1``: the reader closes
        # the pipe after one line.
        import subprocess
        import sys
        command = ('import sys; from preemptible_sched.cmd import sched; '
                   'sys.exit(sched.main(["traces", "list"]))')
        pipe = subprocess.Popen(
            [sys.executable, '-c', command], stdout=subprocess.PIPE,
            stderr=subprocess.PIPE)
        pipe.stdout.close()
        _, err = pipe.communicate(timeout=120)
        self.assertNotIn(b'Traceback', err)
        self.assertNotIn(b'BrokenPipeError', err)
        self.assertIn(pipe.returncode, (0, 141))
