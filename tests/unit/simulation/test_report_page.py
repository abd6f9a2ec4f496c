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

"""report.html: self-contained, escaped, the same bytes for the same
inputs, written whole or not at all."""

import base64
import os
from unittest import mock

import fixtures

from preemptible_sched.simulation import report_page
from preemptible_sched.simulation import report_tables
from tests import base

#: The smallest PNG: one transparent pixel.
PIXEL = base64.b64decode(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAC'
    'hwGA60e6kgAAAABJRU5ErkJggg==')


def table(title='Workflows', note='JMS: makespan <of a job>'):
    return report_tables.Table(
        title, ['Policy', 'JMS (s)'],
        [['srtf', '7,923 ± 2'], ['<script>', '1']], ['left', 'right'], note)


class TestReportPage(base.TestCase):

    def setUp(self):
        super().setUp()
        self.dir = self.useFixture(fixtures.TempDir()).path
        with open(os.path.join(self.dir, 'fulfilment_a.png'), 'wb') as f:
            f.write(PIXEL)
        os.mkdir(os.path.join(self.dir, 'a'))
        with open(os.path.join(self.dir, 'a', 'nested.png'), 'wb') as f:
            f.write(PIXEL)
        self.conf = os.path.join(self.dir, 'srtf.conf')
        with open(self.conf, 'w') as stream:
            stream.write('[scheduler]\nqueue_policy = srtf\n')

    def write(self, **kwargs):
        path = report_page.write(
            self.dir, 'Experiment sc18', 'Workload <askalon>.',
            [table()], command=['preemptible-sched', 'experiment',
                                '--output', 'my results'],
            sources=[('srtf.conf', self.conf)], **kwargs)
        with open(path, encoding='utf-8') as stream:
            return path, stream.read()

    def test_tables_figures_command_and_sources(self):
        path, page = self.write()
        self.assertEqual(os.path.join(self.dir, 'report.html'), path)
        self.assertIn('<h2>Workflows</h2>', page)
        self.assertIn('7,923 ± 2', page)
        self.assertIn('JMS: makespan &lt;of a job&gt;', page)
        # The figure of the directory, embedded; not those below it.
        self.assertIn('src="data:image/png;base64,%s"'
                      % base64.b64encode(PIXEL).decode(), page)
        self.assertEqual(1, page.count('<img '))
        self.assertIn('fulfilment_a.png', page)
        # The command as a shell reads it back.
        self.assertIn('preemptible-sched experiment --output '
                      '&#x27;my results&#x27;', page)
        self.assertIn('queue_policy = srtf', page)

    def test_everything_is_escaped_and_nothing_is_loaded(self):
        _, page = self.write()
        self.assertNotIn('<script', page)
        self.assertIn('&lt;script&gt;', page)
        self.assertIn('Workload &lt;askalon&gt;.', page)
        # Self-contained: no link, no remote source.
        for needle in ('http://', 'https://', '<link', 'src="file'):
            self.assertNotIn(needle, page)

    def test_same_inputs_same_bytes(self):
        _, first = self.write()
        _, second = self.write()
        self.assertEqual(first, second)

    def test_a_long_source_is_cut(self):
        with open(self.conf, 'w') as stream:
            stream.write('x' * (report_page.MAX_SOURCE_BYTES + 10))
        _, page = self.write()
        self.assertIn('(cut at %d bytes)' % report_page.MAX_SOURCE_BYTES,
                      page)
        self.assertLess(len(page), report_page.MAX_SOURCE_BYTES + 10000)

    def test_an_unreadable_source_is_named(self):
        os.remove(self.conf)
        _, page = self.write()
        self.assertIn('(cannot read %s: No such file or directory)'
                      % self.conf, page)

    def test_written_whole_or_not_at_all(self):
        path, before = self.write()
        with mock.patch.object(report_page, 'render',
                               side_effect=OSError('disk full')):
            self.assertRaises(OSError, self.write)
        with mock.patch('os.replace', side_effect=OSError('disk full')):
            self.assertRaises(OSError, self.write)
        with open(path, encoding='utf-8') as stream:
            self.assertEqual(before, stream.read())
