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

"""The SHA-256 checksums of trace files."""

import os
import shutil
import tempfile

from preemptible_sched import exception
from preemptible_sched.simulation.traces import checksums
from tests import base
from tests.unit.simulation.traces import samples


JOBS_SHA256 = samples.JOBS_SHA256
JOBS = samples.JOBS
TEST_TRACE = samples.TEST_TRACE
UNCHECKED_TRACE = samples.UNCHECKED_TRACE


class TestChecksums(base.TestCase):

    def test_file_sha256(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp, True)
        path = os.path.join(tmp, 'jobs.csv')
        with open(path, 'wb') as stream:
            stream.write(JOBS)
        self.assertEqual(JOBS_SHA256, checksums.file_sha256(path))

    def test_check_sha256(self):
        self.assertEqual(JOBS_SHA256,
                         checksums.check_sha256(' %s ' % JOBS_SHA256.upper()))
        for bad in ('', 'abc', JOBS_SHA256 + '0', 'g' * 64):
            self.assertRaises(exception.InvalidInput, checksums.check_sha256,
                              bad)

    def test_catalogue_digest(self):
        self.assertEqual({'jobs.csv': JOBS_SHA256},
                         checksums.expected_digests(TEST_TRACE))
        # The same digest again is fine, another one is not.
        self.assertEqual({'jobs.csv': JOBS_SHA256},
                         checksums.expected_digests(
                             TEST_TRACE, {'jobs.csv': JOBS_SHA256}))
        error = self.assertRaises(
            exception.InvalidInput, checksums.expected_digests, TEST_TRACE,
            {'jobs.csv': '0' * 64})
        self.assertIn('the catalogue expects %s' % JOBS_SHA256, str(error))

    def test_unknown_digest_needs_one_or_insecure(self):
        error = self.assertRaises(exception.InvalidInput,
                                  checksums.expected_digests, UNCHECKED_TRACE)
        self.assertIn('no checksum is known for one.csv, two.csv',
                      str(error))
        self.assertIn('--insecure-no-checksum', str(error))
        error = self.assertRaises(
            exception.InvalidInput, checksums.expected_digests,
            UNCHECKED_TRACE, {'one.csv': '1' * 64})
        self.assertIn('two.csv', str(error))
        self.assertNotIn('one.csv', str(error))
        self.assertEqual(
            {'one.csv': '1' * 64, 'two.csv': '2' * 64},
            checksums.expected_digests(UNCHECKED_TRACE, {
                'one.csv': '1' * 64, 'two.csv': '2' * 64}))
        self.assertEqual(
            {'one.csv': '1' * 64, 'two.csv': None},
            checksums.expected_digests(UNCHECKED_TRACE, {'one.csv': '1' * 64},
                                       insecure=True))

    def test_digest_of_unknown_file(self):
        error = self.assertRaises(
            exception.InvalidInput, checksums.expected_digests, TEST_TRACE,
            {'other.csv': JOBS_SHA256})
        self.assertIn("no file 'other.csv'", str(error))
