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

"""Every scenario shipped in etc/ gives its documented answer via the CLI."""

import glob
import json
import os
import subprocess
import sys

from tests import base

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
SCENARIOS = os.path.join(ROOT, 'etc', 'preemptible-sched', 'scenarios')

EXPECTED = {
    'paper-snapshot-1.json': (0, [('host-B', ['BP1'])]),
    # Two small victims (10 + 20 minutes) beat the large one (50).
    'mixed-flavors.json': (0, [('host-A', ['AS1', 'AS2'])]),
    # The sizing example of the SLA classes: c1 gets 9 cores, on the one
    # high host with 9 idle.
    'sla-sizing.json': (0, [('high-1', [])]),
    # The host at the target load (X = 50) wins: 75 / 100 / 25.
    'target-load-packing.json': (0, [('host-2', [])]),
}


def decide(path, *extra):
    result = subprocess.run(
        [sys.executable, '-m', 'preemptible_sched.cmd.sched', 'decide',
         '--scenario', path] + list(extra),
        capture_output=True, text=True, cwd=ROOT, timeout=120)
    return result.returncode, result.stdout, result.stderr


class TestShippedScenarios(base.TestCase):

    def test_every_shipped_scenario_is_checked(self):
        self.assertEqual(sorted(EXPECTED), sorted(
            os.path.basename(p) for p in glob.glob(SCENARIOS + '/*.json')))

    def test_answers(self):
        for name, (code, selected) in EXPECTED.items():
            rc, out, err = decide(os.path.join(SCENARIOS, name))
            self.assertEqual(code, rc, err)
            self.assertEqual(selected, [(s['host'], s['terminate'])
                                        for s in json.loads(out)['selected']],
                             name)

    def test_table_output_names_the_victims(self):
        rc, out, _ = decide(os.path.join(SCENARIOS, 'mixed-flavors.json'),
                            '--format', 'table')
        self.assertEqual(0, rc)
        self.assertIn('new -> host-A, terminate: AS1, AS2', out)
        self.assertRegex(out, r'host-C +normal +no +compute')
