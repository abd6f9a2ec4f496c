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


"""The trace catalogue, the cache and ``preemptible-sched traces list``."""

import hashlib
import io
import json
import os
import pathlib
import re
import shutil
import tempfile
from unittest import mock

from preemptible_sched.cmd import sched
from preemptible_sched.cmd import traces as traces_cmd
from preemptible_sched.compute import utilization
from preemptible_sched import exception
from preemptible_sched.simulation import infrastructure
from preemptible_sched.simulation import traces
from preemptible_sched.simulation import workload
from tests import base

READERS = {'workload': workload.FORMATS,
           'machines': infrastructure.MACHINE_FORMATS,
           'utilization': traces.UTILIZATION_FORMATS}

# Raw GitHub URL pinned to a commit: the bytes cannot change under it.
PINNED = re.compile(r'^https://raw\.githubusercontent\.com/[^/]+/[^/]+/'
                    r'[0-9a-f]{40}/')

JOBS = (b'id,submit_s,duration_s,vcpus,memory_mb\n'
        b'a,0,10,1,512\n'
        b'b,5,20,2,1024\n')
JOBS_SHA256 = hashlib.sha256(JOBS).hexdigest()

TEST_TRACE = traces.Trace(
    name='test-trace', title='Test', format='csv', description='Jobs.',
    page='https://example.invalid/', licence='test',
    licence_note='Test data.', citation='None.',
    files=(traces.TraceFile('jobs.csv', 'https://example.invalid/jobs.csv',
                            'workload', 'csv', JOBS_SHA256, len(JOBS)),),
    reader='--workload-format csv')
UNCHECKED_TRACE = traces.Trace(
    name='test-unchecked', title='Test', format='csv', description='Jobs.',
    page='https://example.invalid/', licence='test',
    licence_note='Test data.', citation='None.',
    files=(traces.TraceFile('one.csv', 'https://example.invalid/one.csv',
                            'workload', 'csv'),
           traces.TraceFile('two.csv', 'https://example.invalid/two.csv',
                            'workload', 'csv')),
    reader='--workload-format csv')


def run_cli(*argv):
    """``preemptible-sched ARGV``, with ``traces`` registered if it is not
    yet: (exit code, stdout, stderr).
    """
    commands = sched._COMMANDS
    if traces_cmd not in commands:
        commands = commands + (traces_cmd,)
    out, err = io.StringIO(), io.StringIO()
    with mock.patch.object(sched, '_COMMANDS', commands), \
            mock.patch('sys.stdout', out), mock.patch('sys.stderr', err):
        code = sched.main(list(argv))
    return code, out.getvalue(), err.getvalue()


class TestCatalogue(base.TestCase):

    def test_names_are_unique_and_simple(self):
        names = [t.name for t in traces.catalogue()]
        self.assertEqual(len(names), len(set(names)))
        for name in names:
            self.assertRegex(name, r'^[a-z0-9]+(-[a-z0-9]+)*$')

    def test_the_issue_s_traces_are_there(self):
        names = {t.name for t in traces.catalogue()}
        for name in ('alibaba-gpu-2023', 'google-2011', 'swf-nasa-ipsc',
                     'gwf-askalon-ee', 'wta', 'bitbrains-faststorage'):
            self.assertIn(name, names)

    def test_every_entry_has_the_required_fields(self):
        for trace in traces.catalogue():
            for field in ('title', 'description', 'page', 'licence',
                          'licence_note', 'citation', 'reader'):
                self.assertTrue(getattr(trace, field).strip(),
                                '%s: %s is empty' % (trace.name, field))
            self.assertRegex(trace.page, r'^https?://', trace.name)
            if not trace.files:
                # Then it says where to get it.
                self.assertIn('http', trace.notes, trace.name)

    def test_formats_are_known_to_the_readers(self):
        for trace in traces.catalogue():
            if trace.format is None:
                self.assertTrue(trace.reader.startswith('None'),
                                trace.name)
                self.assertEqual((), trace.files, trace.name)
                continue
            self.assertEqual(trace.format, trace.files[0].format,
                             trace.name)
            for trace_file in trace.files:
                self.assertIn(trace_file.role, traces.ROLES, trace.name)
                self.assertIn(trace_file.format, READERS[trace_file.role],
                              '%s/%s' % (trace.name, trace_file.name))

    def test_files(self):
        for trace in traces.catalogue():
            names = [f.name for f in trace.files]
            self.assertEqual(len(names), len(set(names)), trace.name)
            for trace_file in trace.files:
                where = '%s/%s' % (trace.name, trace_file.name)
                self.assertNotIn('/', trace_file.name, where)
                self.assertFalse(trace_file.name.startswith('.'), where)
                self.assertRegex(trace_file.url, r'^https?://', where)
                self.assertIn(trace_file.packed, (None, 'zip'), where)
                if trace_file.size is not None:
                    self.assertGreater(trace_file.size, 0, where)
                if trace_file.sha256 is not None:
                    self.assertRegex(trace_file.sha256, r'^[0-9a-f]{64}$',
                                     where)
                    # A checksum is only built in for bytes that cannot
                    # change: a file pinned to a commit.
                    self.assertRegex(trace_file.url, PINNED, where)
                    self.assertIsNotNone(trace_file.size, where)

    def test_get(self):
        self.assertEqual('google-2011', traces.get('google-2011').name)
        error = self.assertRaises(exception.InvalidInput, traces.get,
                                  'nope')
        self.assertIn("unknown trace 'nope'", str(error))
        self.assertIn('alibaba-gpu-2023', str(error))

    def test_size(self):
        self.assertEqual(575468 + 52287,
                         traces.get('alibaba-gpu-2023').size)
        self.assertIsNone(traces.get('google-2011').size)
        self.assertIsNone(traces.get('wta').size)

    def test_gwa_t_12_is_what_the_fake_driver_replays(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp, True)
        path = os.path.join(tmp, 'vm.csv')
        with open(path, 'w') as stream:
            stream.write('Timestamp [ms];\tCPU cores;\tCPU capacity '
                         'provisioned [MHZ];\tCPU usage [MHZ]\n'
                         '1376314846;\t1;\t2600.0;\t1300.0\n'
                         '1376315146;\t1;\t2600.0;\t650.0\n')
        trace = utilization.TraceUtilization.from_file(path)
        self.assertEqual([0.5, 0.25], trace.shares)

    def test_human_size(self):
        self.assertEqual('?', traces.human_size(None))
        self.assertEqual('512 B', traces.human_size(512))
        self.assertEqual('1 KiB', traces.human_size(1024))
        self.assertEqual('2.59 MiB', traces.human_size(2713509))


class TestCacheDir(base.TestCase):

    def test_environment_variable_first(self):
        self.assertEqual('/c', traces.default_cache_dir(
            {traces.CACHE_ENV: '/c', 'XDG_CACHE_HOME': '/x'}))

    def test_xdg_cache_home(self):
        self.assertEqual('/x/preemptible-sched/traces',
                         traces.default_cache_dir({'XDG_CACHE_HOME': '/x'}))

    def test_relative_xdg_cache_home_is_ignored(self):
        home = os.path.expanduser('~')
        self.assertEqual(
            os.path.join(home, '.cache', 'preemptible-sched', 'traces'),
            traces.default_cache_dir({'XDG_CACHE_HOME': 'relative'}))
        self.assertEqual(
            os.path.join(home, '.cache', 'preemptible-sched', 'traces'),
            traces.default_cache_dir({}))


class TestChecksums(base.TestCase):

    def test_file_sha256(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp, True)
        path = os.path.join(tmp, 'jobs.csv')
        with open(path, 'wb') as stream:
            stream.write(JOBS)
        self.assertEqual(JOBS_SHA256, traces.file_sha256(path))

    def test_check_sha256(self):
        self.assertEqual(JOBS_SHA256,
                         traces.check_sha256(' %s ' % JOBS_SHA256.upper()))
        for bad in ('', 'abc', JOBS_SHA256 + '0', 'g' * 64):
            self.assertRaises(exception.InvalidInput, traces.check_sha256,
                              bad)

    def test_catalogue_digest(self):
        self.assertEqual({'jobs.csv': JOBS_SHA256},
                         traces.expected_digests(TEST_TRACE))
        # The same digest again is fine, another one is not.
        self.assertEqual({'jobs.csv': JOBS_SHA256},
                         traces.expected_digests(
                             TEST_TRACE, {'jobs.csv': JOBS_SHA256}))
        error = self.assertRaises(
            exception.InvalidInput, traces.expected_digests, TEST_TRACE,
            {'jobs.csv': '0' * 64})
        self.assertIn('the catalogue expects %s' % JOBS_SHA256, str(error))

    def test_unknown_digest_needs_one_or_insecure(self):
        error = self.assertRaises(exception.InvalidInput,
                                  traces.expected_digests, UNCHECKED_TRACE)
        self.assertIn('no checksum is known for one.csv, two.csv',
                      str(error))
        self.assertIn('--insecure-no-checksum', str(error))
        error = self.assertRaises(
            exception.InvalidInput, traces.expected_digests,
            UNCHECKED_TRACE, {'one.csv': '1' * 64})
        self.assertIn('two.csv', str(error))
        self.assertNotIn('one.csv', str(error))
        self.assertEqual(
            {'one.csv': '1' * 64, 'two.csv': '2' * 64},
            traces.expected_digests(UNCHECKED_TRACE, {
                'one.csv': '1' * 64, 'two.csv': '2' * 64}))
        self.assertEqual(
            {'one.csv': '1' * 64, 'two.csv': None},
            traces.expected_digests(UNCHECKED_TRACE, {'one.csv': '1' * 64},
                                    insecure=True))

    def test_digest_of_unknown_file(self):
        error = self.assertRaises(
            exception.InvalidInput, traces.expected_digests, TEST_TRACE,
            {'other.csv': JOBS_SHA256})
        self.assertIn("no file 'other.csv'", str(error))


class TestDownloadFromFileMirror(base.TestCase):
    """:func:`traces.download` on a ``file://`` mirror (no network)."""

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
            traces, '_CATALOGUE',
            traces._CATALOGUE + (TEST_TRACE, UNCHECKED_TRACE))
        patcher.start()
        self.addCleanup(patcher.stop)

    def serve(self, trace, name, content):
        os.makedirs(os.path.join(self.mirror, trace), exist_ok=True)
        with open(os.path.join(self.mirror, trace, name), 'wb') as stream:
            stream.write(content)

    def download(self, name='test-trace', **kw):
        return traces.download(name, cache_dir=self.cache,
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
                         [i.id for i in workload.read_workload(path)])
        # Second time from the cache: the mirror is not read.
        os.unlink(os.path.join(self.mirror, 'test-trace', 'jobs.csv'))
        self.assertEqual([path], self.download())

    def test_mismatch_leaves_nothing(self):
        corrupt = JOBS.replace(b'b,5', b'b,6')
        self.serve('test-trace', 'jobs.csv', corrupt)
        error = self.assertRaises(traces.ChecksumMismatch, self.download)
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
        self.assertEqual(JOBS_SHA256, traces.file_sha256(path))

    def test_missing_file_is_a_download_error(self):
        os.unlink(os.path.join(self.mirror, 'test-trace', 'jobs.csv'))
        self.assertRaises(traces.DownloadError, self.download)
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
        error = self.assertRaises(exception.InvalidInput, traces.download,
                                  'wta', cache_dir=self.cache)
        self.assertIn('wta.atlarge-research.com', str(error))

    def test_bad_mirror(self):
        error = self.assertRaises(exception.InvalidInput, traces.download,
                                  'test-trace', cache_dir=self.cache,
                                  base_url='ftp://example.invalid/')
        self.assertIn('--mirror', str(error))


class TestTracesCommand(base.TestCase):

    def test_list_table(self):
        code, out, err = run_cli('traces', 'list')
        self.assertEqual(0, code, err)
        lines = out.splitlines()
        self.assertEqual(['NAME', 'FORMAT', 'SIZE', 'CHECKSUM', 'LICENCE'],
                         lines[0].split())
        self.assertEqual([t.name for t in traces.catalogue()],
                         [line.split()[0] for line in lines[1:]])
        row = {line.split()[0]: line for line in lines[1:]}
        self.assertEqual(['alibaba-gpu-2023', 'alibaba', '613', 'KiB',
                          'yes', 'research', 'or', 'study', 'use'],
                         row['alibaba-gpu-2023'].split())
        self.assertEqual(['google-2011', 'google2011', '?', 'no',
                          'CC-BY-4.0'], row['google-2011'].split())

    def test_list_json(self):
        code, out, err = run_cli('traces', 'list', '--format', 'json')
        self.assertEqual(0, code, err)
        rows = json.loads(out)
        self.assertEqual([t.name for t in traces.catalogue()],
                         [row['name'] for row in rows])
        by_name = {row['name']: row for row in rows}
        self.assertEqual('gwf', by_name['gwf-askalon-ee']['format'])
        self.assertTrue(by_name['gwf-askalon-ee']['verified'])
        self.assertFalse(by_name['swf-nasa-ipsc']['verified'])
        self.assertIsNone(by_name['wta']['verified'])

    def test_show(self):
        code, out, err = run_cli('traces', 'show', 'google-2011')
        self.assertEqual(0, code, err)
        self.assertIn('Citation:    John Wilkes. More Google cluster data.',
                      out)
        self.assertIn('CC-BY-4.0', out)
        self.assertIn('https://storage.googleapis.com/clusterdata-2011-2/'
                      'machine_events/part-00000-of-00001.csv.gz', out)
        self.assertIn('unknown (give --sha256)', out)

    def test_show_json(self):
        code, out, err = run_cli('traces', 'show', 'alibaba-gpu-2023',
                                 '--format', 'json')
        self.assertEqual(0, code, err)
        shown = json.loads(out)
        self.assertEqual(json.loads(json.dumps(
            traces.get('alibaba-gpu-2023').to_dict())), shown)
        self.assertIn('Weng', shown['citation'])

    def test_unknown_trace(self):
        for action in ('show', 'download'):
            code, out, err = run_cli('traces', action, 'nope')
            self.assertEqual(2, code)
            self.assertEqual('', out)
            self.assertEqual(1, len(err.splitlines()), err)
            self.assertIn("unknown trace 'nope'", err)

    def test_download_without_checksum_is_refused_before_fetching(self):
        with mock.patch('urllib.request.urlopen') as urlopen:
            code, out, err = run_cli('traces', 'download', 'google-2011',
                                     '--cache-dir', '/nonexistent/cache')
        self.assertEqual(2, code)
        self.assertFalse(urlopen.called)
        self.assertEqual(1, len(err.splitlines()), err)
        self.assertIn('--insecure-no-checksum', err)

    def test_bad_sha256_option(self):
        for argv, message in (
                (['google-2011', '--sha256', 'a' * 64],
                 'google-2011 has 2 files: write FILE=DIGEST'),
                (['swf-nasa-ipsc', '--sha256', 'abc'],
                 'expected 64 hexadecimal digits'),
                (['swf-nasa-ipsc', '--sha256', 'x.gz=' + 'a' * 64],
                 "no file 'x.gz'"),
                (['swf-nasa-ipsc', '--timeout', '0',
                  '--insecure-no-checksum'], '--timeout')):
            code, out, err = run_cli('traces', 'download', *argv)
            self.assertEqual(2, code, argv)
            self.assertEqual(1, len(err.splitlines()), err)
            self.assertIn(message, err)

    def test_non_finite_or_absurd_timeout_is_refused(self):
        # Regression of issue 11: NaN was accepted, inf ended in a
        # traceback from the socket layer.
        for value in ('nan', 'inf', '-1', '1e9'):
            with mock.patch('urllib.request.urlopen') as urlopen:
                code, out, err = run_cli(
                    'traces', 'download', 'swf-nasa-ipsc', '--timeout',
                    value, '--insecure-no-checksum', '--cache-dir',
                    '/nonexistent/cache')
            self.assertEqual(2, code, err)
            self.assertFalse(urlopen.called)
            self.assertEqual(1, len(err.splitlines()), err)
            self.assertIn('--timeout', err)

    def test_empty_cache_dir_is_refused(self):
        code, out, err = run_cli('traces', 'download', 'swf-nasa-ipsc',
                                 '--insecure-no-checksum', '--cache-dir',
                                 ' ')
        self.assertEqual(2, code, err)
        self.assertIn('--cache-dir: expected a directory', err)

    def test_parse_sha256(self):
        trace = traces.get('swf-nasa-ipsc')
        self.assertEqual({'NASA-iPSC-1993-3.1-cln.swf.gz': 'a' * 64},
                         traces_cmd.parse_sha256(['A' * 64], trace))
        self.assertEqual(
            {'NASA-iPSC-1993-3.1-cln.swf.gz': 'b' * 64},
            traces_cmd.parse_sha256(
                ['NASA-iPSC-1993-3.1-cln.swf.gz=' + 'b' * 64], trace))
        self.assertRaises(exception.InvalidInput, traces_cmd.parse_sha256,
                          ['a' * 64, 'b' * 64], trace)
