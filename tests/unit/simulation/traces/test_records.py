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

"""The shared reading helpers: hostile files, headers, lines."""

import gzip
import os
from unittest import mock

import fixtures

from preemptible_sched import exception
from preemptible_sched import input_limits as limits
from preemptible_sched.simulation.traces import reading
from preemptible_sched.simulation.traces import records
from tests import base
from tests.unit.simulation.traces import samples


CSV_HEADER = samples.CSV_HEADER
swf_line = samples.swf_line


class TestInvalid(samples.InvalidTraceMixin, base.TestCase):
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

    def test_header_only(self):
        self.assertInvalid('w.csv', CSV_HEADER, None, 'no requests')

    def test_missing_file(self):
        path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'absent.csv')
        for fmt in ('auto', 'csv', 'swf'):
            error = self.assertRaises(exception.InvalidInput,
                                      reading.read_workload, path, fmt)
            self.assertEqual(path, error.source)
            self.assertIsNone(error.field)
            self.assertEqual('cannot read file: No such file or directory',
                             error.message)

    def test_corrupt_gzip(self):
        path = self.write('l.swf.gz', '')
        with open(path, 'wb') as stream:
            stream.write(b'\x1f\x8b not really gzip')
        error = self.assertRaises(exception.InvalidInput,
                                  reading.read_workload, path)
        self.assertIn('cannot read file', error.message)


class TestHostileTraces(samples.HostileTraceMixin, base.TestCase):
    """Regressions of issue 11: hostile traces are refused on one line
    naming the file and the line, never read without bound.
    """

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
                                  records.lines(path, max_bytes=300))
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
