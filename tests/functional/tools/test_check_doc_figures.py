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

"""The docs check: every figure the README and the docs quote, re-run.

``test_short_figures_of_the_docs_reproduce`` runs the short form
(``--short``: the tables whose commands have ``--limit``, the first
1,000 Alibaba pods over five seeds and two policies, some 35 s of CPU);
the whole-trace tables are ``tox -e docs-figures``. The other tests
check the check on a small document: a quoted figure edited, or too few
seeds, fails it.
"""

import importlib.util
import io
import os
import re

import fixtures
import testtools

from tests import base

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))))
ALIBABA = os.path.join(os.path.dirname(REPO), 'shared', 'data',
                       'alibaba_gpu_v2023')


def load_tool():
    spec = importlib.util.spec_from_file_location(
        'check_doc_figures',
        os.path.join(REPO, 'tools', 'check_doc_figures.py'))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


tool = load_tool()

WORKLOAD = (
    'id,submit_s,duration_s,vcpus,memory_mb,disk_gb,service_class,'
    'preemptible,constraints\n'
    'a,0,100,4,4000,0,silver,false,\n'
    'c,10,50,4,4000,0,bronze,false,\n'
    'b,20,,4,4000,0,gold,false,\n')

DOCUMENT = """Title
=====

Run::

    preemptible-sched simulate --workload {workload} --hosts 1 \\
        --host-flavor 4:8000:0 --until 400 --seeds {seeds} --policy qos \\
        --output q
    preemptible-sched simulate --workload {workload} --hosts 1 \\
        --host-flavor 4:8000:0 --until 400 --seeds {seeds} \\
        --policy priority --output p

.. checked figures

=========== ===== ======== =========
metric      qos   priority intervals
=========== ===== ======== =========
Hosts       1 ± 0 1 ± 0    overlap
Preemptions {preemptions} 1 ± 0    {intervals}
=========== ===== ======== =========
"""


class TestCheckDocFigures(base.TestCase):

    def setUp(self):
        super().setUp()
        self.tmp = self.useFixture(fixtures.TempDir()).path
        self.workload = os.path.join(self.tmp, 'w.csv')
        with open(self.workload, 'w') as stream:
            stream.write(WORKLOAD)

    def check(self, paths, **kw):
        out = io.StringIO()
        code = tool.check(paths, out=out, **kw)
        return code, out.getvalue()

    def document(self, seeds='0-4', preemptions='0 ± 0',
                 intervals='separate'):
        path = os.path.join(self.tmp, 'doc.rst')
        with open(path, 'w') as stream:
            stream.write(DOCUMENT.format(
                workload=self.workload, seeds=seeds,
                preemptions=preemptions, intervals=intervals))
        return path

    def test_quoted_figures_reproduced_and_an_edit_caught(self):
        # On the one host, gold b preempts silver a under priority-based
        # whatever the seed; QoS-driven lets a (not at risk) run to its
        # end: 1 and 0 preemptions every seed, intervals of no width.
        # The same commands writing elsewhere, in a second file: run once.
        other = os.path.join(self.tmp, 'other.rst')
        with open(self.document()) as stream, open(other, 'w') as copy:
            copy.write(stream.read().replace('--output ', '--output x'))
        code, out = self.check([self.document(), other])
        self.assertEqual(0, code, out)
        self.assertIn('12 quoted figures checked (2 commands run), '
                      '0 drifted', out)
        path = self.document(preemptions='2 ± 0', intervals='overlap')
        code, out = self.check([path])
        self.assertEqual(1, code, out)
        self.assertEqual(
            ['%s:19: Preemptions, qos: quoted 2 ± 0, measured 0 ± 0' % path,
             '%s:19: Preemptions: quoted intervals overlap, measured '
             'separate' % path], out.splitlines()[:-1])

    def test_fewer_than_five_seeds_refused(self):
        code, out = self.check([self.document(seeds='0-3')])
        self.assertEqual(2, code, out)
        self.assertIn('replicates over 4 seeds (--seeds), fewer than 5',
                      out)

    def test_a_table_needs_its_commands(self):
        path = os.path.join(self.tmp, 'bare.rst')
        with open(path, 'w') as stream:
            stream.write(DOCUMENT.split('Run::')[0] +
                         DOCUMENT.split('--output p\n')[1])
        code, out = self.check([path])
        self.assertEqual(2, code, out)
        self.assertIn('no simulate command above the table for qos, '
                      'priority', out)

    @testtools.skipUnless(
        os.path.exists(os.path.join(ALIBABA, 'openb_pod_list_default.csv')),
        'the Alibaba trace is not at %s' % ALIBABA)
    def test_short_figures_of_the_docs_reproduce(self):
        traces = os.path.join(self.tmp, 'traces')
        os.mkdir(traces)
        os.symlink(ALIBABA, os.path.join(traces, 'alibaba-gpu-2023'))
        code, out = self.check(
            [os.path.join(REPO, 'README.rst'),
             os.path.join(REPO, 'doc', 'source')],
            traces=traces, only_short=True)
        self.assertEqual(0, code, out)
        checked = re.search(r'(\d+) quoted figures checked', out)
        self.assertGreaterEqual(int(checked.group(1)), 20, out)
