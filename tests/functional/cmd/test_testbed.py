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

"""``preemptible-sched testbed`` as a console command."""

import json
import os
import subprocess
import sys

import fixtures

from tests import base

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..',
                                    '..'))


class TestTestbedCommand(base.TestCase):

    def test_json_output_on_a_fresh_configuration(self):
        result = subprocess.run(
            [sys.executable, '-m', 'preemptible_sched.cmd.sched', 'testbed',
             '--seed', '1', '--format', 'json'], capture_output=True,
            text=True, cwd=ROOT, timeout=300,
            env=dict(os.environ,
                     HOME=self.useFixture(fixtures.TempDir()).path))
        self.assertEqual(0, result.returncode, result.stderr)
        report = json.loads(result.stdout)
        self.assertEqual(4, len(report['hosts']))
        self.assertEqual(report['terminated'][0]['host'],
                         report['placed_on'])
