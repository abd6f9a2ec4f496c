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

"""The trace downloader: the cache directory, a file:// mirror, sizes."""

import hashlib
import os
import pathlib
import shutil
import tempfile
from unittest import mock

from preemptible_sched import exception
from preemptible_sched.simulation.traces import catalogue
from preemptible_sched.simulation.traces import checksums
from preemptible_sched.simulation.traces import download
from preemptible_sched.simulation.traces import reading
from tests import base
from tests.unit.simulation.traces import samples


JOBS_SHA256 = samples.JOBS_SHA256
JOBS = samples.JOBS
TEST_TRACE = samples.TEST_TRACE
UNCHECKED_TRACE = samples.UNCHECKED_TRACE


class TestCacheDir(base.TestCase):

    def test_environment_variable_first(self):
        self.assertEqual('/c', download.default_cache_dir(
            {download.CACHE_ENV: '/c', 'XDG_CACHE_HOME': '/x'}))

    def test_xdg_cache_home(self):
        self.assertEqual('/x/preemptible-sched/traces',
                         download.default_cache_dir({'XDG_CACHE_HOME': '/x'}))

    def test_relative_xdg_cache_home_is_ignored(self):
        home = os.path.expanduser('~')
        self.assertEqual(
            os.path.join(home, '.cache', 'preemptible-sched', 'traces'),
            download.default_cache_dir({'XDG_CACHE_HOME': 'relative'}))
        self.assertEqual(
            os.path.join(home, '.cache', 'preemptible-sched', 'traces'),
            download.default_cache_dir({}))


class TestDownloadFromFileMirror(base.TestCase):
    """:func:`download.download` on a ``file://`` mirror (no network)."""

    def setUp(self):
        super().setUp()
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.mirror = os.path.join(self.tmp, 'mirror')
        self.cache = os.path.join(self.tmp, 'cache')
        self.patch_catalogue()
        self.serve('test-trace', 'jobs.csv', JOBS)

    def patch_catalogue(self):
        patcher = mock.patch.object(
            catalogue, '_CATALOGUE',
            catalogue._CATALOGUE + (TEST_TRACE, UNCHECKED_TRACE))
        patcher.start()
        self.addCleanup(patcher.stop)

    def serve(self, trace, name, content):
        os.makedirs(os.path.join(self.mirror, trace), exist_ok=True)
        with open(os.path.join(self.mirror, trace, name), 'wb') as stream:
            stream.write(content)

    def download(self, name='test-trace', **kw):
        return download.download(name, cache_dir=self.cache,
                                 base_url=pathlib.Path(self.mirror).as_uri(),
                                 **kw)

    def test_download_verify_and_cache(self):
        path = os.path.join(self.cache, 'test-trace', 'jobs.csv')
        self.assertEqual([path], self.download())
        with open(path, 'rb') as stream:
            self.assertEqual(JOBS, stream.read())
        self.assertEqual(['jobs.csv'],
                         os.listdir(os.path.dirname(path)))
        # The simulator reads it.
        self.assertEqual(['a', 'b'],
                         [i.id for i in reading.read_workload(path)])
        # Second time from the cache: the mirror is not read.
        os.unlink(os.path.join(self.mirror, 'test-trace', 'jobs.csv'))
        self.assertEqual([path], self.download())

    def test_mismatch_leaves_nothing(self):
        corrupt = JOBS.replace(b'b,5', b'b,6')
        self.serve('test-trace', 'jobs.csv', corrupt)
        error = self.assertRaises(download.ChecksumMismatch, self.download)
        self.assertIn('test-trace/jobs.csv', str(error))
        self.assertIn('expected %s, got %s' % (
            JOBS_SHA256, hashlib.sha256(corrupt).hexdigest()), str(error))
        self.assertFalse(os.path.exists(self.cache))

    def test_longer_than_expected_leaves_nothing(self):
        self.serve('test-trace', 'jobs.csv', JOBS + b'c,9,9,9,9\n')
        error = self.assertRaises(exception.InvalidInput, self.download)
        self.assertIn('size mismatch: expected %d bytes' % len(JOBS),
                      str(error))
        self.assertFalse(os.path.exists(self.cache))

    def test_bad_cached_copy_is_replaced(self):
        path = os.path.join(self.cache, 'test-trace', 'jobs.csv')
        os.makedirs(os.path.dirname(path))
        with open(path, 'wb') as stream:
            stream.write(b'garbage')
        self.assertEqual([path], self.download())
        self.assertEqual(JOBS_SHA256, checksums.file_sha256(path))

    def test_missing_file_is_a_download_error(self):
        os.unlink(os.path.join(self.mirror, 'test-trace', 'jobs.csv'))
        self.assertRaises(download.DownloadError, self.download)
        self.assertFalse(os.path.exists(self.cache))

    def test_unchecked_files(self):
        self.serve('test-unchecked', 'one.csv', JOBS)
        self.serve('test-unchecked', 'two.csv', JOBS)
        self.assertRaises(exception.InvalidInput, self.download,
                          'test-unchecked')
        self.assertFalse(os.path.exists(self.cache))
        paths = self.download('test-unchecked', sha256={
            'one.csv': JOBS_SHA256, 'two.csv': JOBS_SHA256})
        self.assertEqual(2, len(paths))
        shutil.rmtree(self.cache)
        paths = self.download('test-unchecked', insecure=True)
        self.assertEqual(['one.csv', 'two.csv'],
                         sorted(os.listdir(os.path.dirname(paths[0]))))

    def test_nothing_to_download(self):
        error = self.assertRaises(exception.InvalidInput, download.download,
                                  'wta', cache_dir=self.cache)
        self.assertIn('wta.atlarge-research.com', str(error))

    def test_bad_mirror(self):
        error = self.assertRaises(exception.InvalidInput, download.download,
                                  'test-trace', cache_dir=self.cache,
                                  base_url='ftp://example.invalid/')
        self.assertIn('--mirror', str(error))


class TestHumanSize(base.TestCase):
    def test_human_size(self):
        self.assertEqual('?', download.human_size(None))
        self.assertEqual('512 B', download.human_size(512))
        self.assertEqual('1 KiB', download.human_size(1024))
        self.assertEqual('2.59 MiB', download.human_size(2713509))
