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


"""A smoke run of ``tools/fuzz_watcher.py`` (the campaign itself is
``tox -e fuzz-watcher``): it runs, judges and summarises."""

import json
import os
import subprocess
import sys

from tests import base
from tests import load_helpers as helpers

TOOL = os.path.join(helpers.REPO, 'tools', 'fuzz_watcher.py')


class TestFuzzWatcherSmoke(base.TestCase):

    def test_one_run_per_category_without_a_failure(self):
        result = subprocess.run(
            [sys.executable, TOOL, '--quick', '1', '--categories',
             'api,prometheus', '--progress', '0'],
            capture_output=True, text=True, timeout=150, cwd=helpers.REPO)
        summary = json.loads(result.stdout)
        self.assertEqual(0, result.returncode, summary['failures'])
        self.assertEqual(2, summary['total']['runs'])
        for counter in ('tracebacks', 'hangs', 'killed', 'died',
                        'ignored_sigterms', 'server_errors'):
            self.assertEqual(0, summary['total'][counter], counter)
        self.assertEqual({'api', 'prometheus'}, set(summary['categories']))

    def test_replay_and_bad_arguments(self):
        result = subprocess.run(
            [sys.executable, TOOL, '--replay', 'nope:1'],
            capture_output=True, text=True, timeout=60, cwd=helpers.REPO)
        self.assertEqual(2, result.returncode)
        self.assertIn('--replay: CATEGORY:SEED', result.stderr)
