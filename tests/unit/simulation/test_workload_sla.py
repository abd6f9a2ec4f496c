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

from preemptible_sched import exception
from preemptible_sched import objects
from preemptible_sched.simulation import runner
from tests import base
from tests.unit.simulation import test_workload

HEADER = ('id,submit_s,duration_s,vcpus,memory_mb,sla_satisfaction,'
          'sla_reputation,sla_resources,sla_replicas,sequential_s,user\n')


class TestSLAColumns(test_workload.TraceFileMixin, base.TestCase):

    def test_sla_moldable_request(self):
        items = self.read('w.csv', HEADER +
                          'p1,0,,,512,premium,advanced,best_effort,premium,'
                          '300,alice\n'
                          'plain,3,60,2,512,,,,,,\n')
        first, plain = items
        self.assertEqual(objects.SLALevels('premium', 'advanced',
                                           'best_effort', 'premium'),
                         first.sla)
        self.assertEqual((300.0, 'alice', None, 0.0),
                         (first.sequential_s, first.user, first.duration_s,
                          first.resources.vcpus))
        self.assertEqual((None, None, None, 60.0),
                         (plain.sla, plain.sequential_s, plain.user,
                          plain.duration_s))
        # A moldable request has a finite run: no --until needed.
        self.assertIsNone(runner.check_run(items, None))

    def test_bad_levels_reported_together(self):
        error = self.assertRaises(
            exception.InvalidInput, self.read, 'w.csv', HEADER +
            'p1,0,,,512,gold,advanced,,premium,300,\n')
        self.assertIn('line 2: field sla_satisfaction: expected one of '
                      'premium, advanced, best_effort', str(error))
        self.assertIn('line 2: field sla_resources: missing', str(error))
        self.assertNotIn('\n', str(error))

    def test_moldable_with_a_duration_is_refused(self):
        error = self.assertRaises(
            exception.InvalidInput, self.read, 'w.csv', HEADER +
            'p1,0,20,,512,premium,premium,premium,premium,300,\n')
        self.assertIn('line 2: field duration_s', str(error))

    def test_vcpus_still_required_without_sequential(self):
        error = self.assertRaises(
            exception.InvalidInput, self.read, 'w.csv', HEADER +
            'p1,0,20,,512,,,,,,\n')
        self.assertIn('line 2: field vcpus', str(error))

    def test_moldable_without_sla_needs_its_vcpus(self):
        error = self.assertRaises(
            exception.InvalidInput, self.read, 'w.csv', HEADER +
            'm,0,,,512,,,,,300,\n')
        self.assertIn('line 2: field vcpus: a moldable request without SLA',
                      str(error))
        item, = self.read('w.csv', HEADER + 'm,0,,4,512,,,,,300,\n')
        self.assertEqual((4.0, 300.0, None),
                         (item.resources.vcpus, item.sequential_s, item.sla))
