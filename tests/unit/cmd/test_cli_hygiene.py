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

"""What a newcomer sees first: --version, help texts, missing extras."""

import contextlib
import io

from preemptible_sched.cmd import sched
from preemptible_sched.nova import cmd as nova_cmd
from preemptible_sched import version
from tests import base


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = sched.main(list(argv))
        except SystemExit as error:
            code = error.code
    return code, out.getvalue(), err.getvalue()


class TestHelp(base.TestCase):

    def test_version(self):
        code, out, err = run('--version')
        self.assertEqual(0, code)
        self.assertEqual(version.version_string(), (out or err).strip())

    def test_global_help_leads_with_the_commands(self):
        code, out, _ = run('--help')
        self.assertEqual(0, code)
        head = out.split('options:')[0]
        for command in ('decide', 'testbed', 'simulate', 'experiment',
                        'submit'):
            self.assertIn(command, head)
        self.assertTrue(out.startswith(
            'usage: preemptible-sched [--config-file PATH] [--debug] '
            '[--version] COMMAND'), out[:200])

    def test_every_command_help_shows_config_file_and_a_description(self):
        for command in ('decide', 'testbed', 'simulate', 'experiment',
                        'submit', 'list', 'show', 'delete'):
            code, out, _ = run(command, '--help')
            self.assertEqual(0, code, command)
            self.assertIn('--config-file PATH', out, command)
            self.assertIn('--debug', out, command)
            description = out.split('\n\n')[1]
            self.assertFalse(description.startswith('options:'), command)

    def test_host_flavor_disk_is_optional_in_help(self):
        _, out, _ = run('simulate', '--help')
        self.assertIn('VCPUS:MEMORY_MB[:DISK_GB]', out)

    def test_debug_after_the_command_is_honoured(self):
        code, _, err = run('decide', '--scenario',
                           'etc/preemptible-sched/scenarios/'
                           'paper-snapshot-1.json', '--debug')
        self.assertEqual(0, code)
        self.assertIn('DEBUG', err)


class TestNovaExtraMissing(base.TestCase):

    def test_one_line_naming_the_extra(self):
        original = nova_cmd.MISSING
        nova_cmd.MISSING = ImportError("No module named 'nova'")
        self.addCleanup(setattr, nova_cmd, 'MISSING', original)
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            code = nova_cmd.main(['preemptible-nova-scheduler', '--help'])
        self.assertEqual(2, code)
        self.assertEqual(1, len(err.getvalue().splitlines()))
        self.assertIn("pip install '.[nova]'", err.getvalue())
