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

"""The Google 2011 task_events reader and its task_constraints."""

import collections
import os


from preemptible_sched import exception
from preemptible_sched.scheduler.filters import attributes_filter
from preemptible_sched.simulation.traces import reading
from tests import base
from tests.unit.simulation.traces import samples


DATA = samples.DATA
CSV_HEADER = samples.CSV_HEADER
GOOGLE_HEADER = samples.GOOGLE_HEADER
google_event = samples.google_event
summary = samples.summary


class TestInvalid(samples.InvalidTraceMixin, base.TestCase):
    def test_google_event_type(self):
        self.assertInvalid('t.csv', GOOGLE_HEADER +
                           google_event(0, 'J', 0, 9),
                           'line 2: field event type', 'expected 0..8',
                           fmt='google2011')

    def test_google_field_count(self):
        self.assertInvalid('t.csv', '0,,J,0,1,0\n', 'line 1',
                           'expected 13', fmt='google2011')


class TestGoogle(samples.TraceFileMixin, base.TestCase):

    EVENTS = (google_event(5000000, '10', 0, 0, priority=9) +
              google_event(6000000, '10', 1, 0, priority=1, cpu='',
                           ram='') +
              google_event(6500000, '11', 0, 0, priority=4) +
              google_event(7000000, '10', 0, 1) +
              google_event(7500000, '11', 0, 5) +        # killed pending
              google_event(8000000, '12', 0, 1) +        # never submitted
              google_event(9000000, '10', 2, 0, priority=11) +
              google_event(9500000, '10', 2, 1) +
              google_event(10000000, '10', 0, 4) +       # 10-0 finishes
              google_event(11000000, '10', 2, 2) +       # 10-2 evicted
              google_event(11000000, '10', 2, 0) +       # resubmitted
              google_event(12000000, '10', 2, 1) +
              google_event(20000000, '10', 2, 4))

    def check(self, path, **kw):
        items, stats = reading.read_workload_with_stats(path, **kw)
        self.assertEqual(
            [('10-0', 0.0, 3.0, (0.5, 0.25, 0.0), 'gold'),
             ('10-1', 1.0, None, (0.0, 0.0, 0.0), 'bronze'),
             ('10-2', 4.0, 1.5, (0.5, 0.25, 0.0), 'gold')],
            summary(items))
        self.assertEqual([9.0, 1.0, 11.0], [i.priority for i in items])
        self.assertEqual({'no SUBMIT event': 1,
                          'ended before being scheduled': 1},
                         stats['skipped'])
        return items

    def test_with_header(self):
        self.check(self.write('task_events.csv',
                              GOOGLE_HEADER + self.EVENTS))

    def test_without_header(self):
        self.check(self.write('part-00000-of-00500.csv.gz', self.EVENTS))

    def test_priority_classes(self):
        events = ''.join(google_event(0, 'P', p, 0, priority=p)
                         for p in range(12))
        items = self.read('t.csv', events, 'google2011')
        self.assertEqual(['bronze'] * 2 + ['silver'] * 7 + ['gold'] * 3,
                         [i.service_class for i in items])
        items = self.read('t.csv', events, 'google2011',
                          class_map={'0': 'silver', '9': 'silver'})
        self.assertEqual(['silver', 'bronze'] + ['silver'] * 8 +
                         ['gold'] * 2, [i.service_class for i in items])

    def test_user_is_the_username(self):
        items = self.read('t.csv', self.EVENTS, 'google2011')
        self.assertEqual({'user'}, {i.user for i in items})


#: task_constraints rows: time, job ID, task index, operator (0 equal,
#: 1 not equal, 2 less than, 3 greater than), attribute name, value.
TASK_CONSTRAINTS = ('4000000,10,0,0,arch,x86\n'
                    '4000000,10,0,3,kernel,3\n'
                    '3000000,10,0,3,kernel,9\n'     # an older row loses
                    '4000000,10,2,1,rack,r7\n'
                    '4000000,10,2,2,kernel,8\n'
                    '4000000,10,2,2,kernel,6\n'     # later row wins
                    '4000000,10,2,0,ssd,\n'         # ssd must be absent
                    '4000000,99,0,0,arch,arm\n')    # task not read


class TestGoogleConstraints(samples.TraceFileMixin, base.TestCase):

    def read_with(self, constraints, **kw):
        events = self.write('task_events.csv', TestGoogle.EVENTS)
        path = self.write('task_constraints.csv', constraints)
        return {i.id: i.constraints for i in reading.read_workload(
            events, 'google2011', task_constraints=path, **kw)}, path

    def test_operators_become_constraints(self):
        found, _ = self.read_with(TASK_CONSTRAINTS)
        self.assertEqual(
            {'10-0': {'arch': 'x86', 'kernel>': '3'},
             '10-1': {},
             '10-2': {'rack!': 'r7', 'kernel<': '6', 'ssd': ''}},
            found)

    def test_gzipped_with_header(self):
        events = self.write('task_events.csv', TestGoogle.EVENTS)
        path = self.write('task_constraints.csv.gz',
                          'time,job ID,task index,comparison operator,'
                          'attribute name,attribute value\n' +
                          TASK_CONSTRAINTS)
        items = reading.read_workload(events, 'google2011',
                                      task_constraints=path)
        self.assertEqual({'arch': 'x86', 'kernel>': '3'},
                         items[0].constraints)

    def test_matched_by_the_attributes_filter(self):
        found, _ = self.read_with(TASK_CONSTRAINTS)
        hosts = {name: base.make_host_state(name, attributes=attributes)
                 for name, attributes in (
                     ('old', {'arch': 'x86', 'kernel': '3'}),
                     ('new', {'arch': 'x86', 'kernel': '5'}),
                     ('r7', {'kernel': '5', 'rack': 'r7'}),
                     ('ssd', {'kernel': '5', 'ssd': '1'}))}
        plugin = attributes_filter.AttributesFilter()

        def passing(task):
            spec = base.make_spec(constraints=found[task])
            return sorted(name for name, state in hosts.items()
                          if plugin.host_passes(state.full, spec))
        self.assertEqual(['new'], passing('10-0'))
        # kernel < 6, not on rack r7, without ssd.
        self.assertEqual(['new', 'old'], passing('10-2'))

    def test_bad_operator(self):
        error = self.assertRaises(exception.InvalidInput, self.read_with,
                                  '0,10,0,4,arch,x86\n')
        self.assertEqual('line 1: field comparison operator', error.field)
        self.assertIn('3 (greater than)', error.message)

    def test_bound_must_be_a_number(self):
        error = self.assertRaises(exception.InvalidInput, self.read_with,
                                  '0,10,0,2,kernel,new\n')
        self.assertEqual('line 1: field attribute value', error.field)
        self.assertTrue(error.source.endswith('task_constraints.csv'))

    def test_only_with_google(self):
        path = self.write('task_constraints.csv', TASK_CONSTRAINTS)
        csv_path = self.write('w.csv', CSV_HEADER + 'a,0,1,1,1,,,,\n')
        error = self.assertRaises(exception.InvalidInput,
                                  reading.read_workload, csv_path,
                                  task_constraints=path)
        self.assertIn('go with a google2011 workload', error.message)

    def test_user_sampling_in_the_reader(self):
        events = ''.join(google_event(0, 'J%d' % u, t, 0).replace(
            ',user,', ',u%d,' % u) for u in range(4) for t in range(u + 1))
        path = self.write('task_events.csv', events)
        items, stats = reading.read_workload_with_stats(
            path, 'google2011', sample_users=2, sample_share=0.5,
            sample_seed=1)
        again = reading.read_workload(path, 'google2011', sample_users=2,
                                      sample_share=0.5, sample_seed=1)
        self.assertEqual(items, again)
        self.assertEqual(4, stats['user_sampling']['users'])
        self.assertEqual(sum(c['kept'] for c in
                             stats['user_sampling']['clusters']),
                         len({i.user for i in items}))
        # User uN submitted N + 1 tasks: each kept user brings them all.
        for user in {i.user for i in items}:
            self.assertEqual(int(user[1:]) + 1,
                             sum(i.user == user for i in items))


class TestRealTraces(base.TestCase):
    """The traces in ../shared/data read whole, with the expected counts."""

    def path(self, *parts):
        if not os.path.isdir(DATA):
            self.skipTest('real traces not found at %s' % DATA)
        return os.path.join(DATA, *parts)

    def test_google_task_events(self):
        items = reading.read_workload(
            self.path('google2011_first_rows', 'task_events.csv'))
        self.assertEqual(1015, len(items))
        self.assertEqual({'gold': 917, 'silver': 1, 'bronze': 97},
                         collections.Counter(i.service_class
                                             for i in items))
        # All events are at time 0: nothing was scheduled yet.
        self.assertEqual({(0.0, None)},
                         {(i.submit_s, i.duration_s) for i in items})
        # 37 users; counted with awk over the SUBMIT rows.
        users = collections.Counter(i.user for i in items)
        self.assertEqual(37, len(users))
        self.assertEqual(
            ('XAk+iT/NLGe4Ow+7ARniw9vei1mUmLS0U2w0PFWXEwk=', 321),
            users.most_common(1)[0])

    def test_google_user_sampling(self):
        path = self.path('google2011_first_rows', 'task_events.csv')
        items, stats = reading.read_workload_with_stats(
            path, sample_users=4, sample_share=0.25, sample_seed=5)
        sampling = stats['user_sampling']
        self.assertEqual(37, sampling['users'])
        self.assertEqual(4, len(sampling['clusters']))
        self.assertEqual(37, sum(c['users'] for c in sampling['clusters']))
        self.assertEqual(sampling['kept_users'], len({i.user
                                                      for i in items}))
        self.assertEqual(items, reading.read_workload(
            path, sample_users=4, sample_share=0.25, sample_seed=5))
