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

"""The ``[sla]`` options: every unusable combination, at once."""

from preemptible_sched.conf import checks
from preemptible_sched.conf import CONF
from preemptible_sched.conf import parsing
from tests.unit.conf import test_checks


class TestSLAChecks(test_checks.ConfigFileTestCase):

    def test_defaults_are_valid(self):
        self.parse(self.write('[sla]\n'))
        self.assertEqual([], [line for line in checks.problems(
            CONF) if '[sla]' in line])

    def test_every_problem_reported(self):
        path = self.write(
            '[sla]\nsatisfaction_time_weight = 0\nreputation_weight = 0\n'
            'resources_weight = 0\nreplicas_weight = 0\n'
            'reference_cores = configured\nadvanced_replicas = 0\n'
            'price = flat\n')
        self.parse(path)
        found = [line for line in checks.problems(CONF)
                 if '[sla]' in line]
        self.assertEqual(4, len(found), found)
        text = '\n'.join(found)
        self.assertIn('%s: [sla] satisfaction_time_weight: at least one'
                      % path, text)
        self.assertIn('[sla] reference_cores_value: reference_cores = '
                      'configured needs', text)
        self.assertIn('[sla] advanced_replicas: with replicas_count = total',
                      text)
        self.assertIn("[sla] price: unknown name 'flat' (valid: per_class)",
                      text)

    def test_extra_copies_may_be_zero(self):
        self.parse(self.write('[sla]\nreplicas_count = extra\n'
                              'best_effort_replicas = 0\n'))
        self.assertEqual([], [line for line in checks.problems(
            CONF) if '[sla]' in line])

    def test_bounds_of_a_value(self):
        error = self.assertRaises(
            parsing.BadValues, self.parse,
            self.write('[sla]\nreference_cores_value = 2\n'))
        self.assertIn('[sla] reference_cores_value: Should be greater than '
                      'or equal to 3', str(error))
