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

import collections
import gzip
import os
from unittest import mock

import fixtures

from preemptible_sched import exception
from preemptible_sched import input_limits as limits
from preemptible_sched import objects
from preemptible_sched.scheduler.filters import attributes_filter
from preemptible_sched.simulation import workload
from tests import base

# The real traces live beside the checkout, in ../shared/data.
REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))))
DATA = os.path.join(os.path.dirname(REPO), 'shared', 'data')

CSV_HEADER = ('id,submit_s,duration_s,vcpus,memory_mb,disk_gb,'
              'service_class,preemptible,constraints\n')
ALIBABA_HEADER = ('name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,'
                  'qos,pod_phase,creation_time,deletion_time,'
                  'scheduled_time\n')
GWF_HEADER = ('WorkflowID, JobID     , SubmitTime, RunTime   , NProcs    , '
              'ReqNProcs , Dependencies\n')
GOOGLE_HEADER = ('Time stamp,Missing info,jobID,Task index  within the '
                 'job,machine ID,Event type,username,Scheduling class,'
                 'Priority,resource request for CPU cores,resource request '
                 'for RAM,resource request for local disk space,'
                 'different-machine constraint\n')


def swf_line(job, submit, run, procs, used_kb=-1, req_procs=-1,
             req_kb=-1, queue=-1):
    fields = [job, submit, -1, run, procs, -1, used_kb, req_procs, -1,
              req_kb, 1, 1, 1, -1, queue, -1, -1, -1]
    return ' '.join('%5s' % f for f in fields) + '\n'


def google_event(time_us, job, task, event, priority=9, cpu='0.5',
                 ram='0.25'):
    return '%d,,%s,%d,42,%d,user,2,%d,%s,%s,0.001,0\n' % (
        time_us, job, task, event, priority, cpu, ram)


def summary(items):
    return [(i.id, i.submit_s, i.duration_s, tuple(i.resources),
             i.service_class) for i in items]


class TraceFileMixin:

    def write(self, name, text):
        path = os.path.join(self.useFixture(fixtures.TempDir()).path, name)
        opener = gzip.open if name.endswith('.gz') else open
        with opener(path, 'wt', encoding='utf-8') as stream:
            stream.write(text)
        return path

    def read(self, name, text, fmt='auto', **kw):
        return workload.read_workload(self.write(name, text), fmt, **kw)


class TestCanonicalCsv(TraceFileMixin, base.TestCase):

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
            [workload.WorkloadItem('x', 0.0, 10.0,
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


class TestAlibaba(TraceFileMixin, base.TestCase):

    PODS = (ALIBABA_HEADER +
            'pod-0,12000,16384,1,1000,,LS,Running,100,900,150\n'
            'pod-1,2500,2048,0,0,,BE,Pending,120,300,\n'
            'pod-2,500,100,0,0,,BE,Failed,130,,130\n'
            'pod-3,88000,327680,8,1000,,Guaranteed,Succeeded,90,190,95\n'
            'pod-4,1000,512,0,0,,Burstable,Running,200,260,210\n')

    def test_pods(self):
        path = self.write('pods.csv', self.PODS)
        items, stats = workload.read_workload_with_stats(path)
        self.assertEqual(
            [('pod-3', 0.0, 95.0, (88.0, 327680.0, 0.0), 'gold'),
             ('pod-0', 10.0, 750.0, (12.0, 16384.0, 0.0), 'silver'),
             ('pod-2', 40.0, None, (0.5, 100.0, 0.0), 'bronze'),
             ('pod-4', 110.0, 50.0, (1.0, 512.0, 0.0), 'silver')],
            summary(items))
        self.assertEqual({'format': 'alibaba', 'requests': 4,
                          'skipped': {'never scheduled': 1}}, stats)

    def test_class_map_overrides_and_extends(self):
        items = self.read('pods.csv', self.PODS.replace(
            'Burstable', 'Spot'), 'alibaba',
            class_map={'LS': 'gold', 'Spot': 'bronze'})
        self.assertEqual({'pod-0': 'gold', 'pod-2': 'bronze',
                          'pod-3': 'gold', 'pod-4': 'bronze'},
                         {i.id: i.service_class for i in items})


class TestSwf(TraceFileMixin, base.TestCase):

    JOBS = ('; Version: 2.2\n; MaxProcs: 128\n;\n' +
            swf_line(1, 1000, 60, 4, req_kb=2048, queue=1) +
            swf_line(2, 1010, -1, 8) +
            swf_line(3, 1030, 5, -1, used_kb=512, req_procs=2, queue=0) +
            '\n' +
            swf_line(4, 1020, 0, 1))

    def check(self, items):
        self.assertEqual(
            [('1', 0.0, 60.0, (4.0, 8.0, 0.0), 'gold'),
             ('4', 20.0, 0.0, (1.0, 0.0, 0.0), 'silver'),
             ('3', 30.0, 5.0, (2.0, 1.0, 0.0), 'silver')],
            summary(items))

    def test_jobs(self):
        self.check(self.read('log.swf', self.JOBS, class_map={'1': 'gold'},
                             default_class='silver'))

    def test_gzipped(self):
        path = self.write('log.swf.gz', self.JOBS)
        items, stats = workload.read_workload_with_stats(
            path, class_map={'1': 'gold'}, default_class='silver')
        self.check(items)
        self.assertEqual(
            {'unknown submit time, run time or processors': 1},
            stats['skipped'])

    def test_no_class(self):
        items = self.read('log.swf', self.JOBS)
        self.assertEqual({None}, {i.service_class for i in items})


class TestGwf(TraceFileMixin, base.TestCase):

    def test_jobs(self):
        items = self.read(
            'wf.gwf', GWF_HEADER + '  \n# a comment\n'
            '0         , 1         , 16        , 11        , 1         , '
            '1         ,           \n'
            '0         , 2         , 40        , 7         , 0         , '
            '4         , 1         \n'
            '3         , 1         , 10        , 2         , 2         , '
            '2         , \n', default_class='bronze')
        self.assertEqual(
            [('3-1', 0.0, 2.0, (2.0, 0.0, 0.0), 'bronze'),
             ('0-1', 6.0, 11.0, (1.0, 0.0, 0.0), 'bronze'),
             ('0-2', 30.0, 7.0, (4.0, 0.0, 0.0), 'bronze')],
            summary(items))


class TestGoogle(TraceFileMixin, base.TestCase):

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
        items, stats = workload.read_workload_with_stats(path, **kw)
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


class TestGoogleConstraints(TraceFileMixin, base.TestCase):

    def read_with(self, constraints, **kw):
        events = self.write('task_events.csv', TestGoogle.EVENTS)
        path = self.write('task_constraints.csv', constraints)
        return {i.id: i.constraints for i in workload.read_workload(
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
        items = workload.read_workload(events, 'google2011',
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
                                  workload.read_workload, csv_path,
                                  task_constraints=path)
        self.assertIn('go with a google2011 workload', error.message)

    def test_user_sampling_in_the_reader(self):
        events = ''.join(google_event(0, 'J%d' % u, t, 0).replace(
            ',user,', ',u%d,' % u) for u in range(4) for t in range(u + 1))
        path = self.write('task_events.csv', events)
        items, stats = workload.read_workload_with_stats(
            path, 'google2011', sample_users=2, sample_share=0.5,
            sample_seed=1)
        again = workload.read_workload(path, 'google2011', sample_users=2,
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


class TestDetectFormat(TraceFileMixin, base.TestCase):

    def test_by_extension(self):
        for name, fmt in (('a.swf', 'swf'), ('a.SWF.gz', 'swf'),
                          ('a.gwf', 'gwf')):
            self.assertEqual(fmt, workload.detect_format(
                self.write(name, 'anything\n')))

    def test_by_content(self):
        for text, fmt in ((CSV_HEADER, 'csv'),
                          ('id,submit_s,duration_s,vcpus,memory_mb\n',
                           'csv'),
                          (ALIBABA_HEADER, 'alibaba'),
                          (GOOGLE_HEADER, 'google2011'),
                          (google_event(0, '7', 0, 0), 'google2011'),
                          (GWF_HEADER, 'gwf'),
                          ('; Version: 2.2\n', 'swf')):
            self.assertEqual(fmt, workload.detect_format(
                self.write('trace.csv', text)), text)

    def test_unknown(self):
        path = self.write('nodes.csv', 'sn,cpu_milli,memory_mib\n')
        error = self.assertRaises(exception.InvalidInput,
                                  workload.detect_format, path)
        self.assertEqual('%s: cannot tell the workload format; give '
                         '--workload-format' % path, str(error))


class TestInvalid(TraceFileMixin, base.TestCase):

    def assertInvalid(self, name, text, field, message_part, **kw):
        path = self.write(name, text)
        error = self.assertRaises(exception.InvalidInput,
                                  workload.read_workload, path, **kw)
        self.assertEqual(path, error.source)
        self.assertEqual(field, error.field)
        self.assertIn(message_part, error.message)
        self.assertNotIn('\n', str(error))
        return error

    def test_duplicate_header_column(self):
        # The second "vcpus" used to win silently.
        self.assertInvalid('w.csv', 'id,submit_s,duration_s,vcpus,'
                           'memory_mb,VCPUs\nr1,0,10,1,100,2\n',
                           'line 1: field VCPUs',
                           'duplicate column (also field 4)')
        self.assertInvalid('pods.csv', 'name,cpu_milli,memory_mib,qos,'
                           'creation_time,qos\n', 'line 1: field qos',
                           'duplicate column (also field 4)')
        self.assertInvalid('w.gwf', 'WorkflowID,JobID,SubmitTime,RunTime,'
                           'NProcs,JobID\n', 'line 1: field JobID',
                           'duplicate column (also field 2)')

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
                         workload.read_workload(path)[0].constraints)
        self.assertInvalid('w.csv', CSV_HEADER + 'a,0,1,1,1,,,,kernel<new\n',
                           'line 2: field constraints', 'needs a number')

    def test_csv_wrong_field_count(self):
        self.assertInvalid('w.csv', CSV_HEADER + 'a,0,1\n', 'line 2',
                           'expected 9 fields')

    def test_header_only(self):
        self.assertInvalid('w.csv', CSV_HEADER, None, 'no requests')

    def test_alibaba_unknown_qos(self):
        self.assertInvalid('p.csv', ALIBABA_HEADER +
                           'p,1000,1,0,0,,Spot,Running,0,5,1\n',
                           'line 2: field qos', "no service class for QoS "
                           "'Spot'")

    def test_alibaba_deleted_before_scheduled(self):
        self.assertInvalid('p.csv', ALIBABA_HEADER +
                           'p,1000,1,0,0,,LS,Running,0,5,8\n',
                           'line 2: field deletion_time',
                           'before scheduled_time')

    def test_alibaba_only_pending(self):
        self.assertInvalid('p.csv', ALIBABA_HEADER +
                           'p,1000,1,0,0,,LS,Pending,0,5,\n', None,
                           'no requests to replay (skipped: 1 never '
                           'scheduled)')

    def test_swf_field_count(self):
        self.assertInvalid('l.swf', ';\n' + swf_line(1, 0, 5, 1) +
                           '2 0 5 1\n', 'line 3', 'expected 18')

    def test_swf_negative(self):
        self.assertInvalid('l.swf', swf_line(1, 0, -3, 1),
                           'line 1: field run_time', '-1 (unknown)')

    def test_gwf_field_named_as_in_header(self):
        self.assertInvalid('w.gwf', GWF_HEADER + '0, 1, 16, soon, 1, 1,\n',
                           'line 2: field RunTime', "'soon'")

    def test_gwf_duplicate_job(self):
        self.assertInvalid('w.gwf', GWF_HEADER + '0, 1, 16, 1, 1, 1,\n'
                           '0, 1, 17, 1, 1, 1,\n', 'line 3: field JobID',
                           'duplicate job')

    def test_google_event_type(self):
        self.assertInvalid('t.csv', GOOGLE_HEADER +
                           google_event(0, 'J', 0, 9),
                           'line 2: field event type', 'expected 0..8',
                           fmt='google2011')

    def test_google_field_count(self):
        self.assertInvalid('t.csv', '0,,J,0,1,0\n', 'line 1',
                           'expected 13', fmt='google2011')

    def test_missing_file(self):
        path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'absent.csv')
        for fmt in ('auto', 'csv', 'swf'):
            error = self.assertRaises(exception.InvalidInput,
                                      workload.read_workload, path, fmt)
            self.assertEqual(path, error.source)
            self.assertIsNone(error.field)
            self.assertEqual('cannot read file: No such file or directory',
                             error.message)

    def test_corrupt_gzip(self):
        path = self.write('l.swf.gz', '')
        with open(path, 'wb') as stream:
            stream.write(b'\x1f\x8b not really gzip')
        error = self.assertRaises(exception.InvalidInput,
                                  workload.read_workload, path)
        self.assertIn('cannot read file', error.message)

    def test_unknown_format_option(self):
        error = self.assertRaises(exception.InvalidInput,
                                  workload.read_workload, 'x.csv', 'json')
        self.assertEqual('--workload-format', error.source)

    def test_bad_limit(self):
        path = self.write('w.csv', CSV_HEADER + 'a,0,1,1,1,,,,\n')
        self.assertRaises(exception.InvalidInput, workload.read_workload,
                          path, limit=0)


class TestRealTraces(base.TestCase):
    """The traces in ../shared/data read whole, with the expected counts."""

    def path(self, *parts):
        if not os.path.isdir(DATA):
            self.skipTest('real traces not found at %s' % DATA)
        return os.path.join(DATA, *parts)

    def test_alibaba_pods(self):
        path = self.path('alibaba_gpu_v2023', 'openb_pod_list_default.csv')
        items, stats = workload.read_workload_with_stats(path)
        # 8,152 pods, of which the 897 Pending ones never ran.
        self.assertEqual({'format': 'alibaba', 'requests': 7255,
                          'skipped': {'never scheduled': 897}}, stats)
        self.assertEqual({'gold': 7, 'silver': 4291, 'bronze': 2957},
                         collections.Counter(i.service_class
                                             for i in items))
        self.assertEqual(('openb-pod-0000', 0.0, 12537496.0,
                          (12.0, 16384.0, 0.0), 'silver'),
                         summary(items)[0])
        prefix = workload.read_workload(path, limit=1000)
        self.assertEqual(items[:1000], prefix)

    def test_swf(self):
        items = workload.read_workload(
            self.path('swf', 'NASA-iPSC-1993-3.1-cln.swf.gz'))
        self.assertEqual(18239, len(items))
        self.assertEqual(('1', 0.0, 1451.0, (128.0, 0.0, 0.0), None),
                         summary(items)[0])

    def test_gwf(self):
        items = workload.read_workload(
            self.path('gwf', 'askalon_workload_ee.gwf'))
        self.assertEqual(30746, len(items))
        self.assertEqual(0.0, items[0].submit_s)
        self.assertEqual(30746, len({i.id for i in items}))

    def test_google_task_events(self):
        items = workload.read_workload(
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
        items, stats = workload.read_workload_with_stats(
            path, sample_users=4, sample_share=0.25, sample_seed=5)
        sampling = stats['user_sampling']
        self.assertEqual(37, sampling['users'])
        self.assertEqual(4, len(sampling['clusters']))
        self.assertEqual(37, sum(c['users'] for c in sampling['clusters']))
        self.assertEqual(sampling['kept_users'], len({i.user
                                                      for i in items}))
        self.assertEqual(items, workload.read_workload(
            path, sample_users=4, sample_share=0.25, sample_seed=5))


class TestHostileTraces(TraceFileMixin, base.TestCase):
    """Regressions of issue 11: hostile traces are refused on one line
    naming the file and the line, never read without bound.
    """

    def assertInvalid(self, path, field, message_part, fmt='auto'):
        error = self.assertRaises(exception.InvalidInput,
                                  workload.read_workload, path, fmt)
        self.assertEqual(path, error.source)
        self.assertEqual(field, error.field)
        self.assertIn(message_part, error.message)
        self.assertNotIn('\n', str(error))
        return error

    def write_bytes(self, name, data):
        path = os.path.join(self.useFixture(fixtures.TempDir()).path, name)
        with open(path, 'wb') as stream:
            stream.write(data)
        return path

    def test_fifo_is_refused_without_blocking(self):
        path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'w.csv')
        os.mkfifo(path)
        self.assertInvalid(path, None, 'not a regular file (a FIFO)', 'csv')

    def test_dev_zero_is_refused(self):
        self.assertInvalid('/dev/zero', None, 'a character device', 'csv')

    def test_not_utf8_names_the_line(self):
        path = self.write_bytes('w.csv', CSV_HEADER.encode() +
                                b'a,0,1,1,1,,,,\nb\xe9,0,1,1,1,,,,\n')
        self.assertInvalid(path, 'line 3', 'not UTF-8 text: byte 0xe9')

    def test_corrupt_gzip_is_refused(self):
        path = self.write_bytes('w.csv.gz', b'\x1f\x8b\x08\x00garbage')
        self.assertInvalid(path, 'line 1', 'cannot read file', 'csv')

    def test_gzip_bomb_of_one_line_is_refused(self):
        path = self.write_bytes('w.csv.gz', gzip.compress(
            b'\0' * (3 * 1024 * 1024)))
        self.assertInvalid(path, 'line 1', 'line longer than', 'csv')

    def test_too_many_lines_are_refused(self):
        path = self.write('w.csv', CSV_HEADER + '\n' * 50)
        with mock.patch.object(limits, 'MAX_TRACE_LINES', 20):
            self.assertInvalid(path, 'line 21', 'more than 20 lines')

    def test_too_many_bytes_are_refused(self):
        path = self.write('w.csv', CSV_HEADER + 'a,0,1,1,1,,,,\n' * 50)
        error = self.assertRaises(exception.InvalidInput, list,
                                  workload.lines(path, max_bytes=300))
        self.assertEqual(path, error.source)
        self.assertEqual('line 17', error.field)
        self.assertIn('file too large: more than 300 bytes', error.message)

    def test_absurd_size_is_refused(self):
        path = self.write('w.csv', CSV_HEADER + 'a,0,1,1e10,1,,,,\n')
        self.assertInvalid(path, 'line 2: field vcpus', 'must be <= 1e+09')

    def test_absurd_time_is_refused(self):
        path = self.write('w.csv', CSV_HEADER + 'a,1e300,1,1,1,,,,\n')
        self.assertInvalid(path, 'line 2: field submit_s',
                           'must be <= 1e+13')

    def test_nan_in_a_column_not_used_is_refused(self):
        path = self.write('w.swf', swf_line(1, 0, 10, 4, req_procs='nan'))
        self.assertInvalid(path, 'line 1: field requested_processors',
                           'not a number')

    def test_alibaba_nan_gpu_is_refused(self):
        path = self.write('pods.csv', ALIBABA_HEADER +
                          'p,1000,100,nan,0,,LS,Running,0,20,5\n')
        self.assertInvalid(path, 'line 2: field num_gpu', 'not a number')

    def test_swf_memory_times_processors_beyond_the_bound(self):
        path = self.write('w.swf', swf_line(1, 0, 10, 10 ** 8,
                                            req_kb=10 ** 9))
        self.assertInvalid(path, 'line 1: field requested_memory',
                           'more than')


# A workflow of three tasks (1 then 2 and 3) and one of a zero-length and
# a two-core task, as the Askalon trace writes them.
WORKFLOWS_GWF = GWF_HEADER + (
    '0, 1, 16, 11, 1, 1,\n'
    '0, 2, 40, 11, 1, 1, 1\n'
    '0, 3, 40, 0, 1, 1, 1\n'
    '5, 7, 3, 20, 2, 2,\n'
    '5, 8, 27, 0, 1, 1, 7\n')


class TestGwfWorkflows(TraceFileMixin, base.TestCase):

    def test_dependencies_within_the_workflow(self):
        items = self.read('w.gwf', WORKFLOWS_GWF, time_origin='trace')
        self.assertEqual(
            [('5-7', 3.0, 20.0, (), '5', 2.0), ('0-1', 16.0, 11.0, (), '0',
                                                1.0),
             ('5-8', 27.0, 0.0, ('5-7',), '5', 1.0),
             ('0-2', 40.0, 11.0, ('0-1',), '0', 1.0),
             ('0-3', 40.0, 0.0, ('0-1',), '0', 1.0)],
            [(i.id, i.submit_s, i.duration_s, i.depends_on, i.workflow,
              i.resources.vcpus) for i in items])

    def test_first_request_origin_shifts_every_time(self):
        items = self.read('w.gwf', WORKFLOWS_GWF)
        self.assertEqual([0.0, 13.0, 24.0, 37.0, 37.0],
                         [item.submit_s for item in items])

    def test_tasks_at_their_workflows_submit_time(self):
        items = self.read('w.gwf', WORKFLOWS_GWF, time_origin='trace',
                          task_submit='workflow')
        self.assertEqual({'5-7': 3.0, '5-8': 3.0, '0-1': 16.0, '0-2': 16.0,
                          '0-3': 16.0},
                         {item.id: item.submit_s for item in items})

    def test_dependents_of_a_skipped_job_are_skipped(self):
        items, stats = workload.read_workload_with_stats(self.write(
            'w.gwf', GWF_HEADER + '0, 1, 16, -1, 1, 1,\n'
            '0, 2, 40, 11, 1, 1, 1\n0, 3, 41, 11, 1, 1,\n'))
        self.assertEqual(['0-3'], [item.id for item in items])
        self.assertEqual({'unknown submit time, run time or processors': 1,
                          'depends on a skipped task': 1}, stats['skipped'])

    def test_limit_leaves_out_tasks_whose_dependencies_it_cut(self):
        # Same submit time, dependency later in the file: 0-2 is kept by
        # the limit, its dependency 0-3 is not.
        items = self.read('w.gwf', GWF_HEADER + '0, 1, 16, 11, 1, 1,\n'
                          '0, 2, 40, 11, 1, 1, 3\n0, 3, 40, 1, 1, 1,\n',
                          limit=2)
        self.assertEqual(['0-1'], [item.id for item in items])

    def test_unknown_dependency_names_the_file(self):
        path = self.write('w.gwf', GWF_HEADER + '0, 1, 16, 11, 1, 1, 9\n')
        error = self.assertRaises(exception.InvalidInput,
                                  workload.read_workload, path)
        self.assertIn(path, str(error))
        self.assertIn('task 0-1 depends on 0-9', str(error))

    def test_malformed_dependency_list(self):
        path = self.write('w.gwf', GWF_HEADER + '0, 1, 16, 11, 1, 1, 2;3\n')
        error = self.assertRaises(exception.InvalidInput,
                                  workload.read_workload, path)
        self.assertIn('line 2: field Dependencies', str(error))

    def test_negative_trace_times_cannot_be_kept(self):
        path = self.write('w.csv', CSV_HEADER + 'a,-5,10,1,0\n')
        self.assertRaises(exception.InvalidInput, workload.read_workload,
                          path, time_origin='trace')
