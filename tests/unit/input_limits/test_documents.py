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

"""Parsing JSON and YAML documents within bounds
(:mod:`preemptible_sched.input_limits.documents`).
"""

import fixtures

from preemptible_sched import exception
from preemptible_sched import input_limits as limits
from preemptible_sched.input_limits import documents
from tests import base


class TestDocuments(base.TestCase):

    def test_json_non_finite_names_the_field(self):
        for literal in ('NaN', 'Infinity', '-Infinity', '1e400'):
            error = self.assertRaises(exception.InvalidInput,
                                      documents.parse_json,
                                      '{"a": [1, %s]}' % literal, 'f')
            self.assertEqual('a[1]', error.field)

    def test_json_nesting(self):
        depth = limits.MAX_NESTING
        documents.parse_json('[' * depth + ']' * depth, 'f')
        for depth in (depth + 1, 100000):
            error = self.assertRaises(
                exception.InvalidInput, documents.parse_json,
                '[' * depth + ']' * depth, 'f')
            self.assertIn('nested too deeply', str(error))

    def test_yaml_oddities(self):
        for text, message in (
                ('a: .nan', 'finite'), ('a: 2020-01-01', 'type date'),
                ('a: !!binary aGk=', 'type bytes'), ('1: 2', 'strings'),
                ('a: !!python/object:os.system x', 'constructor'),
                ('[' * 1000 + ']' * 1000, 'nested too deeply')):
            error = self.assertRaises(exception.InvalidInput,
                                      documents.parse_yaml, text, 'f')
            self.assertIn(message, str(error))

    def test_yaml_library_depth_limit_is_nesting_too(self):
        """PyYAML 6.0.4's scanner stops a deep document itself, reading
        ahead of the events this module counts: the same one line.
        """
        import yaml
        refusal = yaml.scanner.ScannerError(
            'while parsing a flow node', None,
            'exceeded maximum nesting depth', None)
        self.useFixture(fixtures.MockPatch('yaml.parse',
                                           side_effect=refusal))
        error = self.assertRaises(exception.InvalidInput,
                                  documents.parse_yaml, '[[]]', 'f.yaml')
        self.assertEqual('f.yaml: nested too deeply (limit %d levels)'
                         % limits.MAX_NESTING, str(error))

    def test_alias_bomb(self):
        lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]']
        for level in range(1, 8):
            lines.append('a%d: &a%d [%s]' % (level, level, ', '.join(
                ['*a%d' % (level - 1)] * 10)))
        error = self.assertRaises(exception.InvalidInput,
                                  documents.parse_yaml, '\n'.join(lines), 'f')
        self.assertIn('document too large', str(error))

    def test_lone_surrogate(self):
        error = self.assertRaises(exception.InvalidInput,
                                  documents.parse_json,
                                  '{"a": "\\ud800"}', 'f')
        self.assertIn('lone surrogate', str(error))
