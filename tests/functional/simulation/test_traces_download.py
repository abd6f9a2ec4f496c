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


"""``preemptible-sched traces download`` against a local HTTP server.

The server listens on 127.0.0.1 (port chosen by the system) in a thread
and serves files from memory; the command fetches them with ``--mirror``.
Nothing leaves the machine.
"""

import hashlib
import http.server
import io
import os
import shutil
import tempfile
import threading
import time
from unittest import mock

import testtools

from preemptible_sched.cmd import sched
from preemptible_sched.cmd import traces as traces_cmd
from preemptible_sched.compute import utilization
from preemptible_sched.simulation import infrastructure
from preemptible_sched.simulation.traces import catalogue
from preemptible_sched.simulation.traces import checksums
from preemptible_sched.simulation.traces import download
from preemptible_sched.simulation.traces import reading
from tests import base

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))))
DATA = os.path.join(os.path.dirname(REPO), 'shared', 'data')

# The samples beside the checkout that are byte for byte catalogue files.
SHIPPED = {
    ('alibaba-gpu-2023', 'openb_pod_list_default.csv'):
        'alibaba_gpu_v2023/openb_pod_list_default.csv',
    ('alibaba-gpu-2023', 'openb_node_list_all_node.csv'):
        'alibaba_gpu_v2023/openb_node_list_all_node.csv',
    ('gwf-askalon-ee', 'askalon_workload_ee.gwf'):
        'gwf/askalon_workload_ee.gwf',
    ('bitbrains-vm-sample', 'bitbrains.csv'):
        'bitbrains_small/bitbrains_single_vm.csv',
}

JOBS = (b'id,submit_s,duration_s,vcpus,memory_mb\n'
        b'a,0,10,1,512\n'
        b'b,5,20,2,1024\n')
JOBS_SHA256 = hashlib.sha256(JOBS).hexdigest()
CORRUPT = JOBS.replace(b'b,5', b'b,6')

TEST_TRACE = catalogue.Trace(
    name='test-trace', title='Test', format='csv', description='Jobs.',
    page='https://example.invalid/', licence='test',
    licence_note='Test data.', citation='None.',
    files=(catalogue.TraceFile('jobs.csv', 'https://example.invalid/jobs.csv',
                               'workload', 'csv', JOBS_SHA256, len(JOBS)),),
    reader='--workload-format csv')
UNCHECKED_TRACE = catalogue.Trace(
    name='test-unchecked', title='Test', format='csv', description='Jobs.',
    page='https://example.invalid/', licence='test',
    licence_note='Test data.', citation='None.',
    files=(catalogue.TraceFile('jobs.csv', 'https://example.invalid/jobs.csv',
                               'workload', 'csv'),),
    reader='--workload-format csv')

# Longest a test waits for anything.
TIMEOUT = 10.0


class _Handler(http.server.BaseHTTPRequestHandler):
    """GET of ``server.files[path]``; 404 otherwise."""

    def do_GET(self):
        self.server.requests.append(self.path)
        if self.server.mode is not None:
            self._hostile(self.server.mode)
            return
        if self.server.stall.is_set():
            # Say nothing until the test is over (bounded).
            self.server.release.wait(TIMEOUT)
            return
        content = self.server.files.get(self.path)
        if content is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header('Content-Type', 'application/octet-stream')
        self.send_header('Content-Length', str(len(content)))
        self.end_headers()
        self.wfile.write(content)

    def _hostile(self, mode):
        """``drip``: one byte every 50 ms, each well within any timeout;
        ``endless``: no length and no end; ``huge``: a length of 1 TB. All
        stop when the test is over (or after ``TIMEOUT``).
        """
        self.send_response(200)
        if mode == 'huge':
            self.send_header('Content-Length', str(10 ** 12))
        self.end_headers()
        deadline = time.monotonic() + TIMEOUT
        try:
            while not self.server.release.is_set() and \
                    time.monotonic() < deadline:
                if mode == 'drip':
                    self.wfile.write(b'x')
                    self.wfile.flush()
                    time.sleep(0.05)
                else:
                    self.wfile.write(b'x' * 65536)
        except OSError:
            pass    # the client gave up, as it should

    def log_message(self, *args):
        pass


class LocalServer:
    """An HTTP server on 127.0.0.1 in a thread, until ``stop``."""

    def __init__(self):
        self.httpd = http.server.ThreadingHTTPServer(('127.0.0.1', 0),
                                                     _Handler)
        self.httpd.daemon_threads = True
        self.httpd.files = {}
        self.httpd.requests = []
        self.httpd.stall = threading.Event()
        self.httpd.mode = None
        self.httpd.release = threading.Event()
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={'poll_interval': 0.05},
            daemon=True)
        self.thread.start()

    @property
    def url(self):
        return 'http://127.0.0.1:%d/traces' % self.httpd.server_address[1]

    def put(self, trace, name, content):
        self.httpd.files['/traces/%s/%s' % (trace, name)] = content

    @property
    def requests(self):
        return list(self.httpd.requests)

    def stop(self):
        self.httpd.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(TIMEOUT)


class TracesDownloadTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.cache = os.path.join(self.tmp, 'cache')
        # Never a proxy for the local server; never the user's cache.
        environ = mock.patch.dict(os.environ, {
            'no_proxy': '127.0.0.1,localhost',
            'NO_PROXY': '127.0.0.1,localhost',
            download.CACHE_ENV: os.path.join(self.tmp, 'default-cache')})
        environ.start()
        self.addCleanup(environ.stop)
        patcher = mock.patch.object(
            catalogue, '_CATALOGUE',
            catalogue._CATALOGUE + (TEST_TRACE, UNCHECKED_TRACE))
        patcher.start()
        self.addCleanup(patcher.stop)
        self.server = LocalServer()
        self.addCleanup(self.server.stop)

    def run_cli(self, *argv):
        commands = sched._COMMANDS
        if traces_cmd not in commands:
            commands = commands + (traces_cmd,)
        out, err = io.StringIO(), io.StringIO()
        with mock.patch.object(sched, '_COMMANDS', commands), \
                mock.patch('sys.stdout', out), mock.patch('sys.stderr', err):
            code = sched.main(list(argv))
        return code, out.getvalue(), err.getvalue()

    def download(self, name='test-trace', *extra):
        return self.run_cli('traces', 'download', name, '--cache-dir',
                            self.cache, '--mirror', self.server.url,
                            '--timeout', '5', *extra)

    def assertFailed(self, result, code, *fragments):
        """One line on stderr, nothing on stdout, nothing in the cache."""
        got, out, err = result
        self.assertEqual(code, got, err)
        self.assertEqual('', out)
        self.assertEqual(1, len(err.splitlines()), err)
        self.assertNotIn('Traceback', err)
        for fragment in fragments:
            self.assertIn(fragment, err)
        self.assertFalse(os.path.exists(self.cache),
                         list(os.walk(self.cache)))

    def cached(self, trace='test-trace'):
        return sorted(os.listdir(os.path.join(self.cache, trace)))


class TestDownload(TracesDownloadTestCase):

    def test_download_through_the_mirror(self):
        self.server.put('test-trace', 'jobs.csv', JOBS)
        code, out, err = self.download()
        self.assertEqual(0, code, err)
        path = os.path.join(self.cache, 'test-trace', 'jobs.csv')
        self.assertEqual(path + '\n', out)
        with open(path, 'rb') as stream:
            self.assertEqual(JOBS, stream.read())
        self.assertEqual(JOBS_SHA256, checksums.file_sha256(path))
        self.assertEqual(['jobs.csv'], self.cached())
        self.assertEqual(['/traces/test-trace/jobs.csv'],
                         self.server.requests)
        # What it fetched is a workload the simulator reads.
        self.assertEqual(['a', 'b'],
                         [item.id for item in reading.read_workload(path)])

    def test_second_download_uses_the_cache(self):
        self.server.put('test-trace', 'jobs.csv', JOBS)
        first = self.download()
        self.assertEqual(0, first[0], first[2])
        self.server.httpd.files.clear()
        second = self.download()
        self.assertEqual(first[:2], second[:2])
        self.assertEqual(1, len(self.server.requests))

    def test_corrupted_file_is_rejected_and_nothing_is_left(self):
        self.server.put('test-trace', 'jobs.csv', CORRUPT)
        self.assertFailed(
            self.download(), 2, 'test-trace/jobs.csv', 'sha256 mismatch',
            'expected %s, got %s' % (JOBS_SHA256,
                                     hashlib.sha256(CORRUPT).hexdigest()),
            self.server.url)

    def test_corrupted_cached_copy_is_downloaded_again(self):
        os.makedirs(os.path.join(self.cache, 'test-trace'))
        path = os.path.join(self.cache, 'test-trace', 'jobs.csv')
        with open(path, 'wb') as stream:
            stream.write(CORRUPT)
        self.server.put('test-trace', 'jobs.csv', JOBS)
        code, out, err = self.download()
        self.assertEqual(0, code, err)
        self.assertEqual(JOBS_SHA256, checksums.file_sha256(path))
        self.assertEqual(['jobs.csv'], self.cached())

    def test_failed_download_keeps_the_cached_copy(self):
        # A bad cached copy is replaced only by a verified one.
        os.makedirs(os.path.join(self.cache, 'test-trace'))
        path = os.path.join(self.cache, 'test-trace', 'jobs.csv')
        with open(path, 'wb') as stream:
            stream.write(CORRUPT)
        self.server.put('test-trace', 'jobs.csv', CORRUPT)
        code, out, err = self.download()
        self.assertEqual(2, code, err)
        self.assertIn('sha256 mismatch', err.splitlines()[-1])
        self.assertEqual(['jobs.csv'], self.cached())
        with open(path, 'rb') as stream:
            self.assertEqual(CORRUPT, stream.read())

    def test_too_long_a_file_is_cut_short(self):
        self.server.put('test-trace', 'jobs.csv', JOBS + b'x' * 100000)
        self.assertFailed(self.download(), 2,
                          'size mismatch: expected %d bytes' % len(JOBS))

    def test_missing_file_exits_1(self):
        self.assertFailed(self.download(), 1, 'download failed',
                          'HTTP 404')

    def test_server_down_exits_1(self):
        url = self.server.url
        self.server.stop()
        code, out, err = self.run_cli(
            'traces', 'download', 'test-trace', '--cache-dir', self.cache,
            '--mirror', url, '--timeout', '5')
        self.assertFailed((code, out, err), 1, 'download failed',
                          'Connection refused')
        # The way offline: a directory in the download layout as a mirror.
        self.assertIn('put the files in a directory as DIR/test-trace/FILE '
                      'and run: preemptible-sched traces download '
                      'test-trace --mirror file://DIR', err)
        self.assertIn('preemptible-sched traces import test-trace FILE...',
                      err)

    def test_silent_server_times_out(self):
        self.server.put('test-trace', 'jobs.csv', JOBS)
        self.server.httpd.stall.set()
        self.assertFailed(
            self.run_cli('traces', 'download', 'test-trace', '--cache-dir',
                         self.cache, '--mirror', self.server.url,
                         '--timeout', '0.3'),
            1, 'download failed', 'timed out')

    def test_dripping_server_meets_the_total_deadline(self):
        # Each byte comes well within --timeout: only a total deadline
        # ends the download.
        self.server.httpd.mode = 'drip'
        started = time.monotonic()
        self.assertFailed(self.download('test-trace', '--deadline', '1'), 1,
                          'download failed', 'not complete within 1 s')
        self.assertLess(time.monotonic() - started, 5)

    def test_endless_file_meets_the_size_limit(self):
        self.server.httpd.mode = 'endless'
        self.assertFailed(self.download('test-unchecked',
                                        '--insecure-no-checksum',
                                        '--max-bytes', '1000000'), 1,
                          'download failed',
                          'more than 1000000 bytes (--max-bytes)')

    def test_announced_size_over_the_limit_is_refused_unread(self):
        self.server.httpd.mode = 'huge'
        self.assertFailed(self.download('test-unchecked',
                                        '--insecure-no-checksum'), 1,
                          'download failed', '1000000000000 bytes announced',
                          'more than %d' % download.MAX_DOWNLOAD_BYTES)

    def test_a_file_mirror_of_special_files(self):
        mirror = os.path.join(self.tmp, 'mirror', 'test-unchecked')
        os.makedirs(mirror)
        os.mkfifo(os.path.join(mirror, 'jobs.csv'))
        self.assertFailed(self.run_cli(
            'traces', 'download', 'test-unchecked', '--cache-dir',
            self.cache, '--mirror', 'file://%s' % os.path.dirname(mirror),
            '--insecure-no-checksum'), 1, 'download failed',
            'not a regular file (a FIFO)')
        os.unlink(os.path.join(mirror, 'jobs.csv'))
        os.symlink('/dev/zero', os.path.join(mirror, 'jobs.csv'))
        self.assertFailed(self.run_cli(
            'traces', 'download', 'test-unchecked', '--cache-dir',
            self.cache, '--mirror', 'file://%s' % os.path.dirname(mirror),
            '--insecure-no-checksum'), 1, 'download failed',
            'not a regular file (a character device)')

    def test_unwritable_cache_directory(self):
        self.server.put('test-trace', 'jobs.csv', JOBS)
        not_a_directory = os.path.join(self.tmp, 'file')
        with open(not_a_directory, 'w'):
            pass
        code, out, err = self.run_cli(
            'traces', 'download', 'test-trace', '--cache-dir',
            os.path.join(not_a_directory, 'cache'), '--mirror',
            self.server.url)
        self.assertEqual(2, code, err)
        self.assertEqual(1, len(err.splitlines()), err)
        self.assertIn('cannot create the cache directory', err)
        self.assertEqual([], self.server.requests)

    def test_default_cache_directory_from_the_environment(self):
        self.server.put('test-trace', 'jobs.csv', JOBS)
        code, out, err = self.run_cli('traces', 'download', 'test-trace',
                                      '--mirror', self.server.url)
        self.assertEqual(0, code, err)
        self.assertEqual(
            os.path.join(os.environ[download.CACHE_ENV], 'test-trace',
                         'jobs.csv') + '\n', out)


class TestUncheckedDownload(TracesDownloadTestCase):

    def setUp(self):
        super().setUp()
        self.server.put('test-unchecked', 'jobs.csv', JOBS)

    def test_refused_without_a_checksum(self):
        self.assertFailed(self.download('test-unchecked'), 2,
                          'no checksum is known for jobs.csv')
        self.assertEqual([], self.server.requests)

    def test_checksum_given(self):
        code, out, err = self.download('test-unchecked', '--sha256',
                                       JOBS_SHA256)
        self.assertEqual(0, code, err)
        self.assertEqual(['jobs.csv'], self.cached('test-unchecked'))

    def test_wrong_checksum_given(self):
        self.assertFailed(
            self.download('test-unchecked', '--sha256',
                          'jobs.csv=' + '0' * 64),
            2, 'sha256 mismatch', 'expected %s' % ('0' * 64))

    def test_insecure(self):
        code, out, err = self.download('test-unchecked',
                                       '--insecure-no-checksum')
        self.assertEqual(0, code, err)
        self.assertIn(JOBS_SHA256, err)   # logged, to be pinned later
        self.assertEqual(['jobs.csv'], self.cached('test-unchecked'))
        # The cached copy is used as it is.
        code, out, err = self.download('test-unchecked',
                                       '--insecure-no-checksum')
        self.assertEqual(0, code, err)
        self.assertEqual(1, len(self.server.requests))


@testtools.skipUnless(os.path.isdir(DATA),
                      'the shared samples are not at %s' % DATA)
class TestCatalogueFiles(TracesDownloadTestCase):
    """The catalogue's checksums against the samples beside the checkout
    (taken byte for byte from the same upstream commits).
    """

    def shipped(self, trace, name):
        path = os.path.join(DATA, SHIPPED[trace, name])
        if not os.path.exists(path):
            self.skipTest('%s is missing' % path)
        return path

    def test_shipped_samples_are_the_catalogued_files(self):
        for (trace_name, name), _ in sorted(SHIPPED.items()):
            trace_file = catalogue.get(trace_name).file(name)
            path = self.shipped(trace_name, name)
            self.assertEqual(trace_file.sha256, checksums.file_sha256(path),
                             path)
            self.assertEqual(trace_file.size, os.path.getsize(path), path)

    def test_shipped_samples_read_as_catalogued(self):
        for (trace_name, name), _ in sorted(SHIPPED.items()):
            trace_file = catalogue.get(trace_name).file(name)
            path = self.shipped(trace_name, name)
            if trace_file.role == 'workload':
                self.assertEqual(10, len(reading.read_workload(
                    path, trace_file.format, limit=10)))
            elif trace_file.role == 'machines':
                self.assertTrue(infrastructure.read_machines(
                    path, trace_file.format))
            else:
                self.assertTrue(
                    utilization.TraceUtilization.from_file(path).shares)

    def test_download_alibaba_with_its_catalogue_checksums(self):
        for name in ('openb_pod_list_default.csv',
                     'openb_node_list_all_node.csv'):
            with open(self.shipped('alibaba-gpu-2023', name), 'rb') as f:
                self.server.put('alibaba-gpu-2023', name, f.read())
        code, out, err = self.download('alibaba-gpu-2023')
        self.assertEqual(0, code, err)
        pods, nodes = out.splitlines()
        self.assertEqual(os.path.join(self.cache, 'alibaba-gpu-2023',
                                      'openb_pod_list_default.csv'), pods)
        self.assertEqual(100, len(reading.read_workload(pods, limit=100)))
        self.assertEqual(1523, len(infrastructure.read_machines(nodes)))
