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

"""The Grid Workloads Archive format reader."""

import os


from preemptible_sched.simulation.traces import reading
from tests import base
from tests.unit.simulation.traces import samples


DATA = samples.DATA
GWF_HEADER = samples.GWF_HEADER
summary = samples.summary


class TestInvalid(samples.InvalidTraceMixin, base.TestCase):
    def test_gwf_field_named_as_in_header(self):
        self.assertInvalid('w.gwf', GWF_HEADER + '0, 1, 16, soon, 1, 1,\n',
                           'line 2: field RunTime', "'soon'")

    def test_gwf_duplicate_job(self):
        self.assertInvalid('w.gwf', GWF_HEADER + '0, 1, 16, 1, 1, 1,\n'
                           '0, 1, 17, 1, 1, 1,\n', 'line 3: field JobID',
                           'duplicate job')


class TestGwf(samples.TraceFileMixin, base.TestCase):

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


class TestRealTraces(base.TestCase):
    """The traces in ../shared/data read whole, with the expected counts."""

    def path(self, *parts):
        if not os.path.isdir(DATA):
            self.skipTest('real traces not found at %s' % DATA)
        return os.path.join(DATA, *parts)

    def test_gwf(self):
        items = reading.read_workload(
            self.path('gwf', 'askalon_workload_ee.gwf'))
        self.assertEqual(30746, len(items))
        self.assertEqual(0.0, items[0].submit_s)
        self.assertEqual(30746, len({i.id for i in items}))
