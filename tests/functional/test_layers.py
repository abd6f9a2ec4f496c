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

"""The layer contracts of .importlinter catch an import that breaks them.

Each test copies the package and the contracts into a temporary directory,
adds one forbidden import to the copy, and runs ``lint-imports`` on it: the
command must fail and name the contract. The unmodified copy passes. The
real tree is checked by ``tox -e pep8``.
"""

import configparser
import os
import shutil
import subprocess
import sys

import fixtures

from tests import base

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
CONTRACTS = os.path.join(ROOT, '.importlinter')
# Installed by test-requirements.txt in the same environment as the tests.
LINT_IMPORTS = os.path.join(os.path.dirname(sys.executable), 'lint-imports')


def contract_name(contract_id):
    """The name lint-imports prints for contract ``contract_id``."""
    parser = configparser.ConfigParser()
    parser.read(CONTRACTS)
    return parser['importlinter:contract:%s' % contract_id]['name']


class TestLayerContracts(base.TestCase):

    def setUp(self):
        super().setUp()
        self.assertTrue(os.path.exists(LINT_IMPORTS),
                        'lint-imports is not installed next to %s; install '
                        'test-requirements.txt' % sys.executable)
        self.tree = self.useFixture(fixtures.TempDir()).path
        shutil.copytree(os.path.join(ROOT, 'preemptible_sched'),
                        os.path.join(self.tree, 'preemptible_sched'),
                        ignore=shutil.ignore_patterns('__pycache__'))
        shutil.copy(CONTRACTS, self.tree)

    def add_import(self, module_path, line):
        """Append ``line`` to the copy of ``module_path``."""
        with open(os.path.join(self.tree, module_path), 'a') as module:
            module.write('\n%s\n' % line)

    def lint_imports(self):
        env = dict(os.environ, PYTHONPATH=self.tree)
        result = subprocess.run(
            [LINT_IMPORTS, '--no-cache'], cwd=self.tree, env=env,
            capture_output=True, text=True, timeout=120)
        return result.returncode, result.stdout + result.stderr

    def assertBroken(self, output, contract_id):
        self.assertIn('%s BROKEN' % contract_name(contract_id), output)

    def assertKept(self, output, contract_id):
        self.assertIn('%s KEPT' % contract_name(contract_id), output)

    def test_unmodified_tree_passes(self):
        rc, output = self.lint_imports()
        self.assertEqual(0, rc, output)
        for contract_id in ('plugins', 'no-nova', 'layers', 'commands'):
            self.assertKept(output, contract_id)

    def test_command_importing_another_is_caught(self):
        self.add_import('preemptible_sched/cmd/experiment.py',
                        'from preemptible_sched.cmd import simulate  # noqa')
        rc, output = self.lint_imports()
        self.assertNotEqual(0, rc, output)
        self.assertBroken(output, 'commands')
        self.assertIn('preemptible_sched.cmd.experiment -> '
                      'preemptible_sched.cmd.simulate', output)
        self.assertKept(output, 'layers')

    def test_weigher_importing_the_database_is_caught(self):
        self.add_import('preemptible_sched/scheduler/weighers/ram.py',
                        'from preemptible_sched.db import api  # noqa')
        rc, output = self.lint_imports()
        self.assertNotEqual(0, rc, output)
        self.assertBroken(output, 'plugins')
        self.assertIn('preemptible_sched.scheduler.weighers.ram -> '
                      'preemptible_sched.db.api', output)
        # A weigher sits below the database in the layers, too.
        self.assertBroken(output, 'layers')
        self.assertKept(output, 'no-nova')

    def test_core_importing_nova_is_caught(self):
        self.add_import('preemptible_sched/hosts/manager.py',
                        'from preemptible_sched.nova import config  # noqa')
        rc, output = self.lint_imports()
        self.assertNotEqual(0, rc, output)
        self.assertBroken(output, 'no-nova')
        self.assertIn('preemptible_sched.hosts.manager -> '
                      'preemptible_sched.nova.config', output)

    def test_upward_import_is_caught(self):
        self.add_import('preemptible_sched/objects.py',
                        'from preemptible_sched.hosts import state  # noqa')
        rc, output = self.lint_imports()
        self.assertNotEqual(0, rc, output)
        self.assertBroken(output, 'layers')
        self.assertIn('preemptible_sched.objects is not allowed to import '
                      'preemptible_sched.hosts', output)
        self.assertIn('preemptible_sched.objects -> '
                      'preemptible_sched.hosts.state', output)
        self.assertKept(output, 'plugins')
