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

"""A lean install: what runs without the simulation and plots extras, and
what stops with one line naming the extra.
"""

import configparser
import os
import subprocess
import sys

import fixtures

from preemptible_sched import exception
from preemptible_sched import extras
from tests import base
from tests import lean

SCENARIO = 'etc/preemptible-sched/scenarios/paper-snapshot-1.json'
WORKLOAD = 'etc/preemptible-sched/workloads/qos-definition.yaml'


class TestOptionalModule(base.TestCase):

    def test_installed_library_is_the_module(self):
        import json
        self.assertIs(json, extras.optional_module('json'))

    def test_library_not_imported_yet_is_imported_on_first_use(self):
        imported = sys.modules.pop('colorsys', None)
        if imported is not None:
            self.addCleanup(sys.modules.__setitem__, 'colorsys', imported)
        stand_in = extras.optional_module('colorsys')
        self.assertNotIn('colorsys', sys.modules)
        self.assertEqual((0.0, 0.0, 1.0), stand_in.rgb_to_hsv(1.0, 1.0, 1.0))
        self.assertIn('colorsys', sys.modules)

    def test_require_imports_nothing(self):
        """A command checks its extra without paying for its imports."""
        shown = subprocess.run(
            [sys.executable, '-c',
             'import sys; from preemptible_sched import extras; '
             'extras.require("simulation"); '
             'print(sorted(set(extras.EXTRAS["simulation"]) & '
             'set(sys.modules)))'],
            capture_output=True, text=True, check=True, timeout=120)
        self.assertEqual('[]', shown.stdout.strip())

    def test_missing_library_raises_on_use_naming_the_extra(self):
        self.useFixture(extras_entry('nosuchlib_xyz', 'simulation'))
        stand_in = extras.optional_module('nosuchlib_xyz.sub')
        error = self.assertRaises(exception.MissingExtra,
                                  getattr, stand_in, 'read')
        self.assertEqual(('simulation', 'nosuchlib_xyz'),
                         (error.extra, error.library))
        self.assertIn("pip install '.[simulation]'", str(error))
        self.assertEqual(1, len(str(error).splitlines()))

    def test_require_names_the_first_missing_library(self):
        self.useFixture(extras_entry('nosuchlib_xyz', 'simulation'))
        error = self.assertRaises(exception.MissingExtra, extras.require,
                                  'simulation')
        self.assertEqual('nosuchlib_xyz', error.library)

    def test_extras_match_setup_cfg(self):
        """EXTRAS says what setup.cfg installs (import names)."""
        parser = configparser.ConfigParser()
        parser.read(os.path.join(lean.PACKAGE_DIR, 'setup.cfg'))
        declared = {
            extra: sorted(line.split('>')[0].split('=')[0].strip().lower()
                          for line in parser['extras'][extra].split('\n')
                          if line.strip())
            for extra in extras.EXTRAS}
        self.assertEqual({extra: sorted(libraries) for extra, libraries
                          in extras.EXTRAS.items()}, declared)


def extras_entry(library, extra):
    """A fixture adding ``library`` to ``extra`` in EXTRAS."""
    patched = {name: tuple(libraries) for name, libraries
               in extras.EXTRAS.items()}
    patched[extra] += (library,)
    return fixtures.MonkeyPatch('preemptible_sched.extras.EXTRAS', patched)


class TestLeanInstall(base.TestCase):
    """In a fresh interpreter that cannot import the extras' libraries."""

    def test_every_module_of_the_nova_path_imports(self):
        modules = [m for m in lean.nova_path_modules()
                   if not m.startswith('preemptible_sched.nova.')]
        self.assertIn('preemptible_sched.scheduler.termination_selector',
                      modules)
        result = lean.run_lean(
            'import importlib\n'
            'for name in %r:\n'
            '    importlib.import_module(name)\n'
            'print("imported", len(%r))\n' % (modules, modules))
        self.assertEqual(0, result.returncode, result.stderr)
        self.assertIn('imported %d' % len(modules), result.stdout)

    def test_nova_free_modules_of_the_adapter_import(self):
        """journal and coordination (what the operations commands and the
        scheduler's start-up check use) need neither Nova nor an extra.
        """
        result = lean.run_lean(
            'from preemptible_sched.nova import coordination, journal\n'
            'from preemptible_sched.cmd import manage, status\n')
        self.assertEqual(0, result.returncode, result.stderr)

    def test_decide_runs(self):
        result = lean.run_lean(
            'import sys\n'
            'from preemptible_sched.cmd import sched\n'
            'sys.exit(sched.main(["decide", "--scenario", %r]))\n'
            % SCENARIO)
        self.assertEqual(0, result.returncode, result.stderr)
        self.assertIn('"host"', result.stdout)

    def test_simulator_commands_stop_in_one_line(self):
        for argv in (['testbed', '--seed', '1'],
                     ['simulate', '--workload', WORKLOAD, '--output',
                      self.useFixture(fixtures.TempDir()).path]):
            result = lean.run_lean(
                'import sys\n'
                'from preemptible_sched.cmd import sched\n'
                'sys.exit(sched.main(%r))\n' % (argv,))
            self.assertEqual(2, result.returncode, result.stderr)
            lines = result.stderr.splitlines()
            self.assertEqual(1, len(lines), result.stderr)
            self.assertIn("pip install '.[simulation]'", lines[0])
            self.assertIn('preemptible-sched: %s: needs' % argv[0],
                          lines[0])
