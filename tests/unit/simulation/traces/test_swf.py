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

"""The Standard Workload Format reader."""

import os


from preemptible_sched.simulation.traces import reading
from tests import base
from tests.unit.simulation.traces import samples


DATA = samples.DATA
swf_line = samples.swf_line
summary = samples.summary
JOBS = samples.JOBS


class TestInvalid(samples.InvalidTraceMixin, base.TestCase):
    def test_swf_field_count(self):
        self.assertInvalid('l.swf', ';\n' + swf_line(1, 0, 5, 1) +
                           '2 0 5 1\n', 'line 3', 'expected 18')

    def test_swf_negative(self):
        self.assertInvalid('l.swf', swf_line(1, 0, -3, 1),
                           'line 1: field run_time', '-1 (unknown)')


class TestSwf(samples.TraceFileMixin, base.TestCase):

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
        items, stats = reading.read_workload_with_stats(
            path, class_map={'1': 'gold'}, default_class='silver')
        self.check(items)
        self.assertEqual(
            {'unknown submit time, run time or processors': 1},
            stats['skipped'])

    def test_no_class(self):
        items = self.read('log.swf', self.JOBS)
        self.assertEqual({None}, {i.service_class for i in items})


class TestRealTraces(base.TestCase):
    """The traces in ../shared/data read whole, with the expected counts."""

    def path(self, *parts):
        if not os.path.isdir(DATA):
            self.skipTest('real traces not found at %s' % DATA)
        return os.path.join(DATA, *parts)

    def test_swf(self):
        items = reading.read_workload(
            self.path('swf', 'NASA-iPSC-1993-3.1-cln.swf.gz'))
        self.assertEqual(18239, len(items))
        self.assertEqual(('1', 0.0, 1451.0, (128.0, 0.0, 0.0), None),
                         summary(items)[0])


class TestHostileTraces(samples.HostileTraceMixin, base.TestCase):
    """Regressions of issue 11: hostile traces are refused on one line
    naming the file and the line, never read without bound.
    """

    def test_swf_memory_times_processors_beyond_the_bound(self):
        path = self.write('w.swf', swf_line(1, 0, 10, 10 ** 8,
                                            req_kb=10 ** 9))
        self.assertInvalid(path, 'line 1: field requested_memory',
                           'more than')
