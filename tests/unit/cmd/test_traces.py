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

"""``preemptible-sched traces``: list, show, download and import."""

import io
import json
import os
from unittest import mock

import fixtures

from preemptible_sched.cmd import sched
from preemptible_sched.cmd import traces as traces_cmd
from preemptible_sched import exception
from preemptible_sched.simulation.traces import catalogue
from tests import base
from tests.unit.simulation.traces import samples


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


class TestTracesCommand(base.TestCase):

    def test_list_table(self):
        code, out, err = run_cli('traces', 'list')
        self.assertEqual(0, code, err)
        lines = out.splitlines()
        self.assertEqual(['NAME', 'FORMAT', 'SIZE', 'CHECKSUM', 'LICENCE'],
                         lines[0].split())
        self.assertEqual([t.name for t in catalogue.catalogue()],
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
        self.assertEqual([t.name for t in catalogue.catalogue()],
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
            catalogue.get('alibaba-gpu-2023').to_dict())), shown)
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
        trace = catalogue.get('swf-nasa-ipsc')
        self.assertEqual({'NASA-iPSC-1993-3.1-cln.swf.gz': 'a' * 64},
                         traces_cmd.parse_sha256(['A' * 64], trace))
        self.assertEqual(
            {'NASA-iPSC-1993-3.1-cln.swf.gz': 'b' * 64},
            traces_cmd.parse_sha256(
                ['NASA-iPSC-1993-3.1-cln.swf.gz=' + 'b' * 64], trace))
        self.assertRaises(exception.InvalidInput, traces_cmd.parse_sha256,
                          ['a' * 64, 'b' * 64], trace)


class TestTracesImport(base.TestCase):

    def setUp(self):
        super().setUp()
        self.tmp = self.useFixture(fixtures.TempDir()).path
        self.cache = os.path.join(self.tmp, 'cache')
        patcher = mock.patch.object(
            catalogue, '_CATALOGUE',
            catalogue._CATALOGUE + (samples.TEST_TRACE,))
        patcher.start()
        self.addCleanup(patcher.stop)

    def write(self, name, content):
        path = os.path.join(self.tmp, name)
        with open(path, 'wb') as stream:
            stream.write(content)
        return path

    def test_import_prints_the_cached_path(self):
        given = self.write('jobs.csv', samples.JOBS)
        code, out, err = run_cli('traces', 'import', 'test-trace', given,
                                 '--cache-dir', self.cache)
        self.assertEqual((0, ''), (code, err))
        cached = os.path.join(self.cache, 'test-trace', 'jobs.csv')
        self.assertEqual(cached + '\n', out)
        with open(cached, 'rb') as stream:
            self.assertEqual(samples.JOBS, stream.read())

    def test_bad_input_is_one_line_and_exit_2(self):
        other = self.write('other.csv', samples.JOBS)
        corrupt = self.write('jobs.csv', samples.JOBS + b'c,9,9,9,9\n')
        for argv, message in (
                (['test-trace', other], 'not a file of trace test-trace'),
                (['test-trace', corrupt], 'size mismatch'),
                (['test-trace', os.path.join(self.tmp, 'missing.csv')],
                 'no such file or directory'),
                (['test-trace', ' '], 'PATH: expected a path'),
                (['no-such-trace', corrupt], "unknown trace")):
            code, out, err = run_cli('traces', 'import', *argv,
                                     '--cache-dir', self.cache)
            self.assertEqual(2, code, argv)
            self.assertEqual('', out)
            self.assertEqual(1, len(err.splitlines()), err)
            self.assertIn(message, err)
            self.assertNotIn('Traceback', err)
        self.assertFalse(os.path.exists(os.path.join(self.cache,
                                                     'test-trace')))
