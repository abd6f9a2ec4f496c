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

"""What the figures are drawn on: the time axis's unit, and the note a
command prints when matplotlib cannot be imported."""

from unittest import mock

from preemptible_sched.simulation import plot_canvas
from tests import base


class TestPlotCanvas(base.TestCase):

    def test_time_scale(self):
        self.assertEqual((3600.0, 'h'), plot_canvas.time_scale(0.0))
        self.assertEqual((3600.0, 'h'),
                         plot_canvas.time_scale(72 * 3600.0))
        self.assertEqual((86400.0, 'days'),
                         plot_canvas.time_scale(73 * 3600.0))

    def test_skipped_note_says_how_to_get_the_plots(self):
        with mock.patch.object(plot_canvas, '_import_error',
                               ImportError("No module named 'matplotlib'")):
            note = plot_canvas.skipped_note()
        self.assertIn('plots skipped', note)
        self.assertIn("No module named 'matplotlib'", note)
        self.assertIn("pip install '.[plots]'", note)
        self.assertNotIn('\n', note)
