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

"""Fuzz tests of scenario files (``preemptible-sched decide``).

Whatever the file holds, :func:`scenario.load` returns a scenario whose
every number is finite and within its bound, or raises
:class:`InvalidInput`; and ``decide`` on it exits 0, 1 or 2, with one line
on stderr for 2 and never a traceback. Settings: tests/hypothesis_profiles.
"""

import copy
import io
import json
import os
import shutil
import tempfile
from unittest import mock

from hypothesis import assume
from hypothesis import given
from hypothesis import strategies as st
import yaml

from preemptible_sched.cmd import sched
from preemptible_sched.conf import CONF
from preemptible_sched import exception
from preemptible_sched import input_limits as limits
from preemptible_sched.simulation import scenario
from tests import base
from tests import fuzz_strategies as hostile
from tests.hypothesis_profiles import fuzz_settings

SCENARIOS = os.path.join(os.path.dirname(__file__), '..', '..', '..', 'etc',
                         'preemptible-sched', 'scenarios')


def _base_scenarios():
    found = []
    for name in sorted(os.listdir(SCENARIOS)):
        with open(os.path.join(SCENARIOS, name)) as stream:
            found.append(json.load(stream))
    return found


BASES = _base_scenarios()


def _places(document, prefix=()):
    """Every (path, value) in ``document``, containers included."""
    places = [(prefix, document)]
    if isinstance(document, dict):
        for key, value in document.items():
            places += _places(value, prefix + (key,))
    elif isinstance(document, list):
        for index, value in enumerate(document):
            places += _places(value, prefix + (index,))
    return places


def _replace(document, path, value):
    if not path:
        return value
    target = document
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    return document


@st.composite
def mutated_scenarios(draw):
    """A shipped scenario with one to three places made hostile."""
    document = copy.deepcopy(draw(st.sampled_from(BASES)))
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        places = _places(document)
        path, old = draw(st.sampled_from(places))
        kind = draw(st.sampled_from(('number', 'value', 'drop', 'add',
                                     'id-clash', 'count')))
        if kind == 'number':
            new = draw(hostile.numbers())
        elif kind == 'value':
            new = draw(hostile.json_values(max_leaves=5))
        elif kind == 'count':
            path = ('request', 'num_instances')
            new = draw(st.one_of(hostile.numbers(), st.integers(
                min_value=-5, max_value=2000)))
        elif kind == 'id-clash':
            ids = [value for where, value in places
                   if where[-1:] == ('id',) and isinstance(value, str)]
            path, new = ('request', 'id'), draw(st.sampled_from(
                ids + ['new-0', 'new-1', '']))
        elif kind == 'drop' and path:
            parent = _places(document)
            target = dict(parent)[path[:-1]]
            if isinstance(target, dict):
                target.pop(path[-1], None)
            continue
        elif isinstance(old, dict):
            old[draw(hostile.nasty_text(8))] = draw(hostile.scalars())
            continue
        else:
            new = draw(hostile.scalars())
        try:
            document = _replace(document, path, new)
        except (KeyError, IndexError, TypeError):
            continue
    return document


def _dump(document):
    # allow_nan: NaN and Infinity reach the file, as a hostile user's would.
    return json.dumps(document, allow_nan=True)


class ScenarioFuzzTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def write(self, content, name='scenario.json'):
        path = os.path.join(self.tmp, name)
        mode = 'wb' if isinstance(content, bytes) else 'w'
        with open(path, mode, **({} if mode == 'wb' else {
                'encoding': 'utf-8', 'errors': 'surrogatepass'})) as stream:
            stream.write(content)
        return path

    def load(self, content, name='scenario.json'):
        """The scenario, or None if refused as it should be."""
        path = self.write(content, name)
        try:
            loaded = scenario.load(path, CONF)
        except exception.InvalidInput as error:
            self.assertNotIn('\n', str(error).strip())
            return None
        hostile.assert_finite(loaded.hosts, 'hosts')
        hostile.assert_finite(loaded.placements, 'placements')
        hostile.assert_finite(loaded.request, 'request')
        hostile.assert_finite(loaded.now, 'now')
        hostile.assert_finite(loaded.config, 'config')
        for host in loaded.hosts:
            for size in (host.vcpus, host.memory_mb, host.disk_gb):
                self.assertTrue(0 <= size <= limits.MAX_RESOURCE)
        self.assertIsInstance(loaded.request.num_instances, int)
        self.assertTrue(1 <= loaded.request.num_instances <=
                        limits.MAX_INSTANCES_PER_REQUEST)
        return loaded

    def decide(self, path):
        out, err = io.StringIO(), io.StringIO()
        with mock.patch('sys.stdout', out), mock.patch('sys.stderr', err):
            code = sched.main(['decide', '--scenario', path])
        return code, out.getvalue(), err.getvalue()


class TestScenarioFuzz(ScenarioFuzzTestCase):

    @fuzz_settings()
    @given(hostile.json_values())
    def test_any_json_document_is_loaded_or_refused(self, document):
        self.load(_dump(document))

    @fuzz_settings()
    @given(mutated_scenarios())
    def test_hostile_field_in_a_real_scenario(self, document):
        self.load(_dump(document))

    @fuzz_settings()
    @given(st.binary(max_size=300))
    def test_any_bytes(self, data):
        self.load(data)

    @fuzz_settings()
    @given(st.sampled_from(BASES), st.binary(min_size=1, max_size=8),
           st.integers(min_value=0, max_value=10 ** 6))
    def test_bytes_spliced_into_a_real_scenario(self, document, junk,
                                                where):
        text = _dump(document).encode('utf-8')
        where %= len(text)
        self.load(text[:where] + junk + text[where:])

    @fuzz_settings()
    @given(hostile.deep_nesting(), st.sampled_from(('json', 'yaml')))
    def test_deep_nesting(self, text, extension):
        self.assertIsNone(self.load(text, 'deep.' + extension)
                          if text.count('[') > limits.MAX_NESTING else None)

    @fuzz_settings()
    @given(st.one_of(mutated_scenarios(), hostile.json_values()))
    def test_yaml_documents(self, document):
        try:
            text = yaml.safe_dump(document, allow_unicode=True)
        except (yaml.YAMLError, UnicodeEncodeError):
            assume(False)
        self.load(text, 'scenario.yaml')

    @fuzz_settings()
    @given(st.lists(st.sampled_from((
        'a: .nan\n', 'b: .inf\n', 'c: -.Inf\n', 'd: 2020-01-01\n',
        'e: !!binary aGk=\n', 'f: !!set {x}\n', '? [1, 2]\n: 3\n',
        'g: &x [1, 2]\n', 'h: [*x, *x]\n', 'i: 0x1F\n', 'j: 1e400\n',
        '1: 2\n', 'null: 3\n', 'k: !!python/object:os.system x\n',
        'hosts: []\n', 'request: {vcpus: 1, memory_mb: 1}\n', '---\n',
        '\t- x\n', 'l: "\\ud800"\n')), max_size=6))
    def test_yaml_oddities(self, lines):
        self.load(''.join(lines), 'scenario.yaml')


class TestDecideFuzz(ScenarioFuzzTestCase):
    """The whole command on hostile scenarios: exit codes, one line."""

    @fuzz_settings(15)
    @given(mutated_scenarios())
    def test_decide_never_tracebacks(self, document):
        code, out, err = self.decide(self.write(_dump(document)))
        self.assertIn(code, (0, 1, 2), err)
        self.assertNotIn('Traceback', err)
        if code == 2:
            self.assertEqual('', out)
            # One line, or one per configuration problem, each once.
            lines = err.splitlines()
            self.assertEqual(len(lines), len(set(lines)), err)
            for line in lines:
                self.assertTrue(line.startswith('preemptible-sched: '), err)
        else:
            result = json.loads(out, parse_constant=self.fail)
            hostile.assert_finite(result, 'output')
