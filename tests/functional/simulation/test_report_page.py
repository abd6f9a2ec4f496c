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

"""report.html opened in a real browser: headless Chromium (Debian's
``chromium`` package, which ``.ci/run`` installs) renders its tables and
draws its figures.
"""

import os
import shutil
import subprocess

import fixtures
import numpy

from preemptible_sched.simulation import report_page
from preemptible_sched.simulation import report_tables
from tests import base

CHROMIUM = shutil.which('chromium') or shutil.which('chromium-browser')


class TestInChromium(base.TestCase):

    def setUp(self):
        super().setUp()
        if CHROMIUM is None:
            self.skipTest('no chromium on PATH (apt-get install chromium)')
        import matplotlib
        matplotlib.use('Agg')
        from matplotlib import pyplot
        self.pyplot = pyplot
        self.dir = self.useFixture(fixtures.TempDir()).path
        # A figure of one colour that nothing else on the page has.
        red = numpy.zeros((120, 240, 3))
        red[:, :, 0] = 1.0
        pyplot.imsave(os.path.join(self.dir, 'fulfilment_red.png'), red)
        self.path = report_page.write(
            self.dir, 'Experiment sc18', 'Workload askalon.',
            [report_tables.Table('Workflows', ['Policy', 'JMS (s)'],
                                 [['srtf-bestfit', '7,923 ± 2']],
                                 ['left', 'right'], 'Per job.')],
            command=['preemptible-sched', 'experiment'])

    def chromium(self, *args):
        profile = self.useFixture(fixtures.TempDir()).path
        result = subprocess.run(
            [CHROMIUM, '--headless', '--no-sandbox', '--disable-gpu',
             '--user-data-dir=%s' % profile] + list(args) +
            ['file://' + self.path], capture_output=True, timeout=120)
        self.assertEqual(0, result.returncode, result.stderr[-2000:])
        return result.stdout.decode('utf-8')

    def test_the_tables_render(self):
        dom = self.chromium('--dump-dom')
        self.assertIn('<h1>Experiment sc18</h1>', dom)
        self.assertIn('<td>srtf-bestfit', dom)
        self.assertIn('7,923 ± 2', dom)
        self.assertIn('<figcaption>fulfilment_red.png</figcaption>', dom)

    def test_the_figure_is_drawn(self):
        shot = os.path.join(self.dir, 'shot.png')
        self.chromium('--window-size=1000,900', '--screenshot=%s' % shot)
        pixels = self.pyplot.imread(shot)[:, :, :3]
        red = ((pixels[:, :, 0] > 0.9) & (pixels[:, :, 1] < 0.1) &
               (pixels[:, :, 2] < 0.1))
        # The 240 x 120 figure, drawn at its size (some scaling allowed).
        self.assertGreater(red.sum(), 0.8 * 240 * 120)
