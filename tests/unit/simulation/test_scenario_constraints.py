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

"""Constraint operators in the text form of a scenario's constraints."""

import json
import os
import shutil
import tempfile

from preemptible_sched.conf import CONF
from preemptible_sched import exception
from preemptible_sched.simulation import scenario
from tests import base

SCENARIO = os.path.join(os.path.dirname(__file__), '..', '..', '..', 'etc',
                        'preemptible-sched', 'scenarios',
                        'mixed-flavors.json')


class TestScenarioConstraints(base.TestCase):

    def load(self, constraints):
        with open(SCENARIO) as stream:
            document = json.load(stream)
        document['request']['constraints'] = constraints
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp, True)
        path = os.path.join(tmp, 'scenario.json')
        with open(path, 'w') as stream:
            json.dump(document, stream)
        return path, lambda: scenario.load(path, CONF)

    def test_operators(self):
        _, load = self.load('kernel>3; arch!=x86; zone=a')
        self.assertEqual({'kernel>': '3', 'arch!': 'x86', 'zone': 'a'},
                         dict(load().request.constraints))

    def test_bad_bound_names_the_field(self):
        path, load = self.load('kernel<new')
        error = self.assertRaises(exception.InvalidInput, load)
        self.assertEqual((path, 'request.constraints'),
                         (error.source, error.field))
        self.assertIn('needs a number', error.message)
