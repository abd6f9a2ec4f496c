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

"""Reading a workload: format detection, options, workflows, the
real traces.
"""

from preemptible_sched import exception
from preemptible_sched.simulation.traces import reading
from tests import base
from tests.unit.simulation.traces import samples


CSV_HEADER = samples.CSV_HEADER
ALIBABA_HEADER = samples.ALIBABA_HEADER
GWF_HEADER = samples.GWF_HEADER
GOOGLE_HEADER = samples.GOOGLE_HEADER
google_event = samples.google_event
WORKFLOWS_GWF = samples.WORKFLOWS_GWF


class TestInvalid(samples.InvalidTraceMixin, base.TestCase):
    def test_unknown_format_option(self):
        error = self.assertRaises(exception.InvalidInput,
                                  reading.read_workload, 'x.csv', 'json')
        self.assertEqual('--workload-format', error.source)

    def test_bad_limit(self):
        path = self.write('w.csv', CSV_HEADER + 'a,0,1,1,1,,,,\n')
        self.assertRaises(exception.InvalidInput, reading.read_workload,
                          path, limit=0)


class TestDetectFormat(samples.TraceFileMixin, base.TestCase):

    def test_by_extension(self):
        for name, fmt in (('a.swf', 'swf'), ('a.SWF.gz', 'swf'),
                          ('a.gwf', 'gwf')):
            self.assertEqual(fmt, reading.detect_format(
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
            self.assertEqual(fmt, reading.detect_format(
                self.write('trace.csv', text)), text)

    def test_unknown(self):
        path = self.write('nodes.csv', 'sn,cpu_milli,memory_mib\n')
        error = self.assertRaises(exception.InvalidInput,
                                  reading.detect_format, path)
        self.assertEqual('%s: cannot tell the workload format; give '
                         '--workload-format' % path, str(error))


class TestGwfWorkflows(samples.TraceFileMixin, base.TestCase):

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
        items, stats = reading.read_workload_with_stats(self.write(
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
                                  reading.read_workload, path)
        self.assertIn(path, str(error))
        self.assertIn('task 0-1 depends on 0-9', str(error))

    def test_malformed_dependency_list(self):
        path = self.write('w.gwf', GWF_HEADER + '0, 1, 16, 11, 1, 1, 2;3\n')
        error = self.assertRaises(exception.InvalidInput,
                                  reading.read_workload, path)
        self.assertIn('line 2: field Dependencies', str(error))

    def test_negative_trace_times_cannot_be_kept(self):
        path = self.write('w.csv', CSV_HEADER + 'a,-5,10,1,0\n')
        self.assertRaises(exception.InvalidInput, reading.read_workload,
                          path, time_origin='trace')
