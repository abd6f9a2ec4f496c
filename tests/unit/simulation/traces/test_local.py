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

"""Importing files a user already has into the trace cache."""

import hashlib
import os
import shutil
import tempfile
from unittest import mock

from preemptible_sched import exception
from preemptible_sched.simulation.traces import catalogue
from preemptible_sched.simulation.traces import download
from preemptible_sched.simulation.traces import local
from preemptible_sched.simulation.traces import reading
from tests import base
from tests.unit.simulation.traces import samples

JOBS = samples.JOBS


class TestImportFiles(base.TestCase):

    def setUp(self):
        super().setUp()
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.cache = os.path.join(self.tmp, 'cache')
        patcher = mock.patch.object(
            catalogue, '_CATALOGUE', catalogue._CATALOGUE + (
                samples.TEST_TRACE, samples.UNCHECKED_TRACE))
        patcher.start()
        self.addCleanup(patcher.stop)

    def put(self, relative, content):
        path = os.path.join(self.tmp, 'have', relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'wb') as stream:
            stream.write(content)
        return path

    def cached(self, name='test-trace', file_name='jobs.csv'):
        return os.path.join(self.cache, name, file_name)

    def test_a_file_goes_where_a_download_would(self):
        given = self.put('jobs.csv', JOBS)
        self.assertEqual([self.cached()], local.import_files(
            'test-trace', [given], cache_dir=self.cache))
        with open(self.cached(), 'rb') as stream:
            self.assertEqual(JOBS, stream.read())
        # What the download would find: the cached, verified copy.
        self.assertEqual([self.cached()], download.download(
            'test-trace', cache_dir=self.cache))
        self.assertEqual(['a', 'b'], [item.id for item in
                                      reading.read_workload(self.cached())])
        # The user's file is left as it was.
        self.assertTrue(os.path.isfile(given))

    def test_a_directory_in_either_layout(self):
        for relative in ('flat/jobs.csv', 'mirror/test-trace/jobs.csv'):
            shutil.rmtree(self.cache, True)
            path = self.put(relative, JOBS)
            directory = os.path.dirname(path) if relative.startswith(
                'flat') else os.path.dirname(os.path.dirname(path))
            self.assertEqual([self.cached()], local.import_files(
                'test-trace', [directory], cache_dir=self.cache))

    def test_a_directory_missing_a_file_is_refused(self):
        self.put('some/one.csv', b'id,submit_s\n')
        directory = os.path.join(self.tmp, 'have', 'some')
        error = self.assertRaises(
            exception.InvalidInput, local.import_files, 'test-unchecked',
            [directory], cache_dir=self.cache, insecure=True)
        self.assertEqual(directory, error.source)
        self.assertIn('no two.csv in it', error.message)
        self.assertFalse(os.path.exists(self.cache))

    def test_a_file_of_another_trace_is_refused_before_any_copy(self):
        good = self.put('jobs.csv', JOBS)
        other = self.put('other.csv', JOBS)
        error = self.assertRaises(
            exception.InvalidInput, local.import_files, 'test-trace',
            [good, other], cache_dir=self.cache)
        self.assertEqual(other, error.source)
        self.assertIn('not a file of trace test-trace (its files: jobs.csv)',
                      error.message)
        self.assertFalse(os.path.exists(self.cache))

    def test_a_missing_path_is_refused(self):
        missing = os.path.join(self.tmp, 'nowhere', 'jobs.csv')
        error = self.assertRaises(exception.InvalidInput, local.import_files,
                                  'test-trace', [missing],
                                  cache_dir=self.cache)
        self.assertEqual(missing, error.source)
        self.assertIn('no such file or directory', error.message)

    def test_a_corrupt_copy_leaves_nothing(self):
        corrupt = JOBS.replace(b'b,5', b'b,6')
        given = self.put('jobs.csv', corrupt)
        error = self.assertRaises(download.ChecksumMismatch,
                                  local.import_files, 'test-trace', [given],
                                  cache_dir=self.cache)
        self.assertIn('expected %s, got %s' % (
            samples.JOBS_SHA256, hashlib.sha256(corrupt).hexdigest()),
            str(error))
        self.assertFalse(os.path.exists(self.cache))

    def test_unverified_files_need_a_checksum_or_the_insecure_flag(self):
        one = self.put('one.csv', b'x\n')
        two = self.put('two.csv', b'y\n')
        self.assertRaises(exception.InvalidInput, local.import_files,
                          'test-unchecked', [one, two], cache_dir=self.cache)
        self.assertFalse(os.path.exists(self.cache))
        digests = {'one.csv': hashlib.sha256(b'x\n').hexdigest(),
                   'two.csv': hashlib.sha256(b'y\n').hexdigest()}
        self.assertEqual(
            [self.cached('test-unchecked', 'one.csv'),
             self.cached('test-unchecked', 'two.csv')],
            local.import_files('test-unchecked', [one, two],
                               cache_dir=self.cache, sha256=digests))
