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


"""Experiment definitions: the shipped schema, every error at once, the
design."""

import json
import os
import tempfile

import fixtures

from preemptible_sched import exception
from preemptible_sched.simulation import definition
from preemptible_sched.simulation import runner
from preemptible_sched.simulation.traces import catalogue
from preemptible_sched.simulation.traces import download
from preemptible_sched.simulation.traces import reading
from tests import base

GOOD = """\
workloads:
  - path: trace.csv
  - path: other.csv
    limit: 10
infrastructures:
  - infrastructure: hosts.csv
  - machines: machines.csv
    size_factors: [0.5, 1.0]
strategies: [qos, priority, plain]
seeds: [0, 1]
until: 300
"""


class TestDefinition(base.TestCase):

    def setUp(self):
        super().setUp()
        self.dir = tempfile.mkdtemp()
        self.addCleanup(__import__('shutil').rmtree, self.dir, True)
        for name in ('trace.csv', 'other.csv', 'hosts.csv', 'machines.csv',
                     'a.conf', 'b.conf'):
            open(os.path.join(self.dir, name), 'w').close()

    def write(self, text, name='experiment.yaml'):
        path = os.path.join(self.dir, name)
        with open(path, 'w') as stream:
            stream.write(text)
        return path

    def problems(self, text, name='experiment.yaml'):
        path = self.write(text, name)
        error = self.assertRaises(exception.InvalidInput, definition.load,
                                  path)
        return path, getattr(error, 'problems', [str(error)])

    def test_schema_is_shipped_and_valid(self):
        import jsonschema
        self.assertTrue(os.path.isfile(definition.SCHEMA_FILE))
        jsonschema.Draft202012Validator.check_schema(definition.schema())

    def test_schema_names_what_the_code_knows(self):
        properties = definition.schema()['properties']
        self.assertEqual(
            set(('auto',) + reading.FORMATS),
            set(properties['workloads']['items']['properties']['format'][
                'enum']))
        self.assertEqual(set(runner.POLICIES) | set(runner.ALIASES),
                         set(properties['strategies']['items']['enum']))

    def test_good_definition_resolves_relative_paths(self):
        loaded = definition.load(self.write(GOOD))
        self.assertEqual(os.path.join(self.dir, 'trace.csv'),
                         loaded.workloads[0].path)
        self.assertEqual(10, loaded.workloads[1].limit)
        self.assertEqual(os.path.join(self.dir, 'machines.csv'),
                         loaded.infrastructures[1].machines)
        self.assertEqual('qos', loaded.baseline)  # the first by default
        self.assertEqual(300, loaded.until)

    def test_cartesian_product(self):
        loaded = definition.load(self.write(GOOD))
        cells = loaded.cells()
        # 2 workloads x (1 fixed + 2 size factors) x 2 seeds x 3 strategies
        self.assertEqual(2 * 3 * 2 * 3, len(cells))
        self.assertEqual(len(cells), len(set(cells)))
        self.assertEqual(
            {'trace@hosts', 'trace@machines', 'other@hosts',
             'other@machines'}, {cell.workload for cell in cells})
        self.assertEqual({None}, {cell.size_factor for cell in cells
                                  if cell.workload.endswith('@hosts')})
        self.assertEqual({0.5, 1.0}, {cell.size_factor for cell in cells
                                      if cell.workload.endswith('@machines')})
        # Every combination once, whatever the nesting order.
        combos = {(c.workload, c.size_factor, c.seed, c.policy)
                  for c in cells}
        for scenario in ('trace@machines', 'other@hosts'):
            for seed in (0, 1):
                for policy in ('qos', 'priority', 'plain'):
                    factors = (0.5, 1.0) if 'machines' in scenario else (
                        None,)
                    for factor in factors:
                        self.assertIn((scenario, factor, seed, policy),
                                      combos)

    def test_replications_over_workloads_fold_rows(self):
        loaded = definition.load(self.write(GOOD.replace(
            'until: 300', 'until: 300\nreplications: workloads')))
        cell = loaded.cells()[0]
        row, replication = loaded.key(cell)
        self.assertEqual(('hosts', None, 'qos'), row)
        self.assertEqual(('trace', 0), replication)

    def test_every_error_at_once_with_json_paths(self):
        path, problems = self.problems("""\
workloads:
  - path: trace.csv
    limit: 0
    colour: red
infrastructures:
  - hosts: 3
strategies: [qos, nonsense]
configurations: {a: a.conf}
seeds: [0, -1]
jobs: 2.5
extra: 1
""")
        self.assertEqual(sorted(problems), problems)
        expected = [
            '$.workloads[0].limit', '$.workloads[0].colour',
            '$.infrastructures[0]', '$.strategies[1]', '$.seeds[1]',
            '$.jobs', '$.extra', '$: give exactly one of "configurations" and '
            '"strategies"']
        for fragment in expected:
            self.assertTrue(any(fragment in line for line in problems),
                            (fragment, problems))
        for line in problems:
            self.assertTrue(line.startswith(path + ': $'), line)
            self.assertNotIn('\n', line)
        self.assertIn(path + ': $.extra: unknown field', problems)
        self.assertIn(path + ': $.workloads[0].colour: unknown field',
                      problems)

    def test_missing_required_fields_named(self):
        path, problems = self.problems('strategies: [qos]\n')
        self.assertEqual([path + ': $.infrastructures: missing required '
                          'field', path + ': $.seeds: missing required '
                          'field', path + ': $.workloads: missing '
                          'required field'], problems)

    def test_bad_yaml_one_line(self):
        path, problems = self.problems('workloads: [\n  - {path: x\n')
        self.assertEqual(1, len(problems))
        self.assertIn(path, problems[0])
        self.assertIn('malformed YAML', problems[0])

    def test_non_finite_numbers_refused(self):
        for text in (GOOD.replace('until: 300', 'until: .inf'),
                     GOOD.replace('until: 300', 'until: .nan')):
            _path, problems = self.problems(text)
            self.assertEqual(1, len(problems))
            self.assertIn('finite', problems[0])
        data = {'workloads': [{'path': 'trace.csv'}],
                'infrastructures': [{'hosts': 1, 'flavor': '1:1'}],
                'strategies': ['qos'], 'seeds': [0], 'until': 1e400}
        _path, problems = self.problems(
            json.dumps(data).replace('1e400', 'Infinity'), 'e.json')
        self.assertIn('finite', problems[0])

    def test_json_definition(self):
        data = {'workloads': [{'path': 'trace.csv'}],
                'infrastructures': [{'hosts': 2, 'flavor': '4:8000:0'}],
                'configurations': {'a': 'a.conf', 'b': 'b.conf'},
                'baseline': 'b', 'seeds': [3]}
        loaded = definition.load(self.write(json.dumps(data), 'e.json'))
        self.assertEqual({'a': os.path.join(self.dir, 'a.conf'),
                          'b': os.path.join(self.dir, 'b.conf')},
                         loaded.configurations)
        self.assertEqual('b', loaded.baseline)
        self.assertEqual(['trace'], [c.workload for c in loaded.cells()][:1])

    def test_consistency_errors_at_once(self):
        path, problems = self.problems("""\
workloads:
  - path: missing.csv
  - path: trace.csv
    name: missing
configurations: {a: a.conf, b: nowhere.conf}
infrastructures:
  - infrastructure: hosts.csv
baseline: c
seeds: [0]
replications: workloads
""")
        self.assertEqual(4, len(problems), problems)
        joined = '\n'.join(problems)
        self.assertIn('$.workloads[0].path: no such file', joined)
        self.assertIn('$.workloads[1].name: \'missing\' is used twice',
                      joined)
        self.assertIn('$.configurations.b: no such file', joined)
        self.assertIn("$.baseline: 'c' is none of the configurations (a, "
                      "b)", joined)

    def test_special_files_are_named_by_their_field(self):
        path = self.write('', 'placeholder')
        directory = os.path.dirname(path)
        os.mkfifo(os.path.join(directory, 'fifo.csv'))
        os.symlink('loop.conf', os.path.join(directory, 'loop.conf'))
        os.mkdir(os.path.join(directory, 'trace'))
        _, problems = self.problems("""\
workloads:
  - path: fifo.csv
  - path: trace
infrastructures:
  - infrastructure: /dev/zero
configurations: {a: loop.conf, b: trace}
seeds: [0]
""")
        joined = '\n'.join(problems)
        self.assertEqual(4, len(problems), problems)
        self.assertIn('$.workloads[0].path: not a regular file or '
                      'directory', joined)
        self.assertIn('$.infrastructures[0].infrastructure: not a regular '
                      'file: /dev/zero', joined)
        self.assertIn('$.configurations.a: too many levels of symbolic '
                      'links', joined)
        self.assertIn('$.configurations.b: not a regular file', joined)

    def test_neither_configurations_nor_strategies(self):
        path, problems = self.problems(
            'workloads: [{path: trace.csv}]\n'
            'infrastructures: [{hosts: 1, flavor: "1:1"}]\nseeds: [0]\n')
        self.assertEqual([path + ': $: give exactly one of "configurations" '
                          'and "strategies"'], problems)

    def test_not_an_object(self):
        path, problems = self.problems('- just\n- a list\n')
        self.assertEqual([path + ': $: expected object, got list'],
                         problems)


class TestTraceWorkloads(base.TestCase):
    """``trace: NAME`` reads the trace's file from the download cache."""

    AXES = ('infrastructures: [{hosts: 1, flavor: "1:1"}]\n'
            'strategies: [qos]\nseeds: [0]\n')

    def setUp(self):
        super().setUp()
        self.dir = self.useFixture(fixtures.TempDir()).path
        self.cache = os.path.join(self.dir, 'cache')
        self.useFixture(fixtures.EnvironmentVariable(
            download.CACHE_ENV, self.cache))

    def load(self, workload):
        path = os.path.join(self.dir, 'experiment.yaml')
        with open(path, 'w') as stream:
            stream.write('workloads: [%s]\n%s' % (workload, self.AXES))
        return path, definition.load(path)

    def problems(self, workload):
        path = os.path.join(self.dir, 'experiment.yaml')
        with open(path, 'w') as stream:
            stream.write('workloads: [%s]\n%s' % (workload, self.AXES))
        error = self.assertRaises(exception.ConfigProblems,
                                  definition.load, path)
        return path, error.problems

    def put(self, trace, name):
        os.makedirs(os.path.join(self.cache, trace), exist_ok=True)
        path = os.path.join(self.cache, trace, name)
        open(path, 'w').close()
        return path

    def test_the_cached_file_of_a_one_file_trace(self):
        cached = self.put('gwf-askalon-ee', 'askalon_workload_ee.gwf')
        _, loaded = self.load('{trace: gwf-askalon-ee}')
        self.assertEqual(cached, loaded.workloads[0].path)
        self.assertEqual('gwf-askalon-ee', loaded.workloads[0].name)

    def test_not_downloaded_names_the_commands(self):
        path, problems = self.problems('{trace: gwf-askalon-ee}')
        problem, = problems
        self.assertTrue(problem.startswith(
            path + ': $.workloads[0].trace: askalon_workload_ee.gwf is not '
            'in the trace cache ' + self.cache), problem)
        self.assertIn('preemptible-sched traces download gwf-askalon-ee',
                      problem)
        self.assertIn('traces import gwf-askalon-ee FILE', problem)

    def test_unknown_trace(self):
        path, problems = self.problems('{trace: no-such-trace}')
        self.assertEqual(1, len(problems))
        self.assertIn(path + ": $.workloads[0].trace: unknown trace "
                      "'no-such-trace'", problems[0])

    def test_a_trace_without_one_workload_file_needs_file(self):
        # The WTA has no file this project reads.
        path, problems = self.problems('{trace: wta}')
        self.assertEqual([path + ': $.workloads[0]: trace wta has 0 '
                          'workload files: name one with "file" (none)'],
                         problems)

    def test_file_picks_one(self):
        trace = catalogue.get('alibaba-gpu-2023')
        name = [f.name for f in trace.files if f.role == 'workload'][0]
        cached = self.put('alibaba-gpu-2023', name)
        _, loaded = self.load('{trace: alibaba-gpu-2023, file: %s}' % name)
        self.assertEqual(cached, loaded.workloads[0].path)
        path, problems = self.problems(
            '{trace: alibaba-gpu-2023, file: nothing.csv}')
        self.assertIn("has no file 'nothing.csv'", problems[0])

    def test_path_and_trace_together_refused(self):
        path, problems = self.problems(
            '{path: trace.csv, trace: gwf-askalon-ee}')
        self.assertEqual([path + ': $.workloads[0]: give one of "path", or '
                          '"trace" (with "file" if the trace has several)'],
                         problems)
