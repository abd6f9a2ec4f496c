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

"""The project's own CSV format, its SLA columns included."""

from preemptible_sched import exception
from preemptible_sched import objects
from preemptible_sched.simulation import runner
from preemptible_sched.simulation.traces import reading
from preemptible_sched.simulation.traces import records
from tests import base
from tests.unit.simulation.traces import samples


CSV_HEADER = samples.CSV_HEADER
summary = samples.summary


class TestCanonicalCsv(samples.TraceFileMixin, base.TestCase):

    def test_every_column(self):
        items = self.read('w.csv', CSV_HEADER +
                          'a,110,30,2,4096,20,gold,true,zone=a;ssd=1\n'
                          'b,100,,0.5,512,0,,no,\n'
                          'c,110,5,1,1024,0,bronze,1,\n',
                          default_class='silver')
        # Sorted by submit time, file order on ties, first one at 0 s.
        self.assertEqual(
            [('b', 0.0, None, (0.5, 512.0, 0.0), 'silver'),
             ('a', 10.0, 30.0, (2.0, 4096.0, 20.0), 'gold'),
             ('c', 10.0, 5.0, (1.0, 1024.0, 0.0), 'bronze')],
            summary(items))
        self.assertEqual([False, True, True],
                         [i.preemptible for i in items])
        self.assertEqual({'zone': 'a', 'ssd': '1'}, items[1].constraints)
        self.assertEqual({}, items[0].constraints)
        self.assertIsNone(items[0].priority)
        self.assertIsInstance(items[0].resources, objects.Resources)

    def test_optional_columns_may_be_left_out(self):
        items = self.read('w.csv', 'id,submit_s,duration_s,vcpus,memory_mb'
                          '\nx,5,10,1,256\n')
        self.assertEqual(
            [records.WorkloadItem('x', 0.0, 10.0,
                                  objects.Resources(1, 256, 0))], items)

    def test_expected_vcpus(self):
        # Issue 29 item 6: the declared use reaches the request.
        items = self.read('w.csv', 'id,submit_s,duration_s,vcpus,memory_mb,'
                          'expected_vcpus\nx,0,10,4,256,1.5\ny,0,10,4,256,\n')
        self.assertEqual([1.5, None], [i.expected_vcpus for i in items])

    def test_expected_vcpus_beyond_the_request_is_refused(self):
        for value, fragment in (('5', 'declares 5 cores for a request of '
                                 '4 vCPUs'), ('0', 'must be > 0'),
                                ('nan', 'expected_vcpus')):
            error = self.assertRaises(
                exception.InvalidInput, self.read, 'w.csv',
                'id,submit_s,duration_s,vcpus,memory_mb,expected_vcpus\n'
                'x,0,10,4,256,%s\n' % value)
            self.assertIn('line 2', str(error))
            self.assertIn(fragment, str(error))

    def test_limit_keeps_the_first_after_sorting(self):
        items = self.read('w.csv', CSV_HEADER + 'late,50,1,1,1,,,,\n'
                          'early,20,1,1,1,,,,\nmid,30,1,1,1,,,,\n',
                          limit=2)
        self.assertEqual([('early', 0.0), ('mid', 10.0)],
                         [(i.id, i.submit_s) for i in items])

    def test_comment_and_blank_lines_are_ignored(self):
        items = self.read('w.csv', '# generated\n' + CSV_HEADER +
                          '\nx,0,1,1,1,,,,\n')
        self.assertEqual(['x'], [i.id for i in items])


class TestInvalid(samples.InvalidTraceMixin, base.TestCase):
    def test_csv_not_a_number(self):
        self.assertInvalid('w.csv', CSV_HEADER + 'a,0,1,1,1,,,,\n'
                           'b,0,1,two,1,,,,\n', 'line 3: field vcpus',
                           "'two' is not a number")

    def test_csv_infinite(self):
        self.assertInvalid('w.csv', CSV_HEADER + 'a,0,inf,1,1,,,,\n',
                           'line 2: field duration_s', 'not a number')

    def test_csv_negative_size(self):
        self.assertInvalid('w.csv', CSV_HEADER + 'a,0,1,1,-5,,,,\n',
                           'line 2: field memory_mb', 'must be >= 0')

    def test_csv_missing_value(self):
        self.assertInvalid('w.csv', CSV_HEADER + 'a,,1,1,5,,,,\n',
                           'line 2: field submit_s', 'missing value')

    def test_csv_missing_column(self):
        self.assertInvalid('w.csv', 'id,submit_s,vcpus,memory_mb\n'
                           'a,0,1,1\n', 'line 1: field duration_s',
                           'missing required column')

    def test_csv_unknown_column(self):
        self.assertInvalid('w.csv', 'id,submit_s,duration_s,vcpus,'
                           'memory_mb,preemtible\na,0,1,1,1,true\n',
                           'line 1: field preemtible', 'unknown column')

    def test_csv_duplicate_id(self):
        self.assertInvalid('w.csv', CSV_HEADER + 'a,0,1,1,1,,,,\n'
                           'a,1,1,1,1,,,,\n', 'line 3: field id',
                           "duplicate id 'a' (first on line 2)")

    def test_csv_bad_flag(self):
        self.assertInvalid('w.csv', CSV_HEADER + 'a,0,1,1,1,,,maybe,\n',
                           'line 2: field preemptible', "'maybe'")

    def test_csv_bad_constraints(self):
        self.assertInvalid('w.csv', CSV_HEADER + 'a,0,1,1,1,,,,zone\n',
                           'line 2: field constraints', 'key=value')

    def test_csv_constraint_operators(self):
        path = self.write('w.csv', CSV_HEADER +
                          'a,0,1,1,1,,,,kernel>3;arch!=x86;zone=a\n')
        self.assertEqual({'kernel>': '3', 'arch!': 'x86', 'zone': 'a'},
                         reading.read_workload(path)[0].constraints)
        self.assertInvalid('w.csv', CSV_HEADER + 'a,0,1,1,1,,,,kernel<new\n',
                           'line 2: field constraints', 'needs a number')

    def test_csv_wrong_field_count(self):
        self.assertInvalid('w.csv', CSV_HEADER + 'a,0,1\n', 'line 2',
                           'expected 9 fields')


HEADER = ('id,submit_s,duration_s,vcpus,memory_mb,sla_satisfaction,'
          'sla_reputation,sla_resources,sla_replicas,sequential_s,user\n')


class TestSLAColumns(samples.TraceFileMixin, base.TestCase):

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
