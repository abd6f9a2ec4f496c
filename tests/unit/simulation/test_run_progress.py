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

"""The progress of a long run
(:mod:`preemptible_sched.simulation.run_progress`): a bar at a terminal,
a summary line elsewhere.
"""

import io
from unittest import mock

from preemptible_sched.simulation import run_progress
from tests import base


class FakeClock:

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


class Terminal(io.StringIO):

    def isatty(self):
        return True


class TestProgress(base.TestCase):

    def test_summary_line_when_not_a_terminal(self):
        stream = io.StringIO()
        clock = FakeClock()
        progress = run_progress.Progress(1000, stream=stream,
                                         label='simulate qos', clock=clock)
        self.assertEqual('summary', progress.mode)
        self.assertFalse(progress.enabled)
        progress.update(500, simulated_s=3600.0, events=6000)
        self.assertEqual('', stream.getvalue())
        clock.now = 3.2
        progress.update(1000, simulated_s=2 * 86400.0, events=12345)
        progress.close()
        progress.close()
        self.assertEqual(
            'simulate qos: 1,000 requests, 12,345 events in 3.2 s '
            '(3,858 events/s), simulated 2.0 d\n', stream.getvalue())

    def test_summary_without_events(self):
        stream = io.StringIO()
        clock = FakeClock()
        with run_progress.Progress(10, stream=stream, label='qos',
                                   clock=clock) as progress:
            clock.now = 1.25
            progress.update(10)
        self.assertEqual('qos: 10 requests in 1.2 s\n', stream.getvalue())

    def test_no_summary_when_the_run_fails(self):
        stream = io.StringIO()

        def fail():
            with run_progress.Progress(10, stream=stream) as progress:
                progress.update(5)
                raise RuntimeError('boom')

        self.assertRaises(RuntimeError, fail)
        self.assertEqual('', stream.getvalue())

    def test_disabled_writes_nothing(self):
        stream = Terminal()
        progress = run_progress.Progress(10, stream=stream, enabled=False)
        self.assertEqual('off', progress.mode)
        progress.update(5, 10.0, 3)
        progress.update(10, 20.0, 6)
        progress.close()
        self.assertEqual('', stream.getvalue())

    def test_bar_on_a_terminal(self):
        stream = Terminal()
        clock = FakeClock()
        progress = run_progress.Progress(100, stream=stream, label='sim',
                                         clock=clock)
        self.assertTrue(progress.enabled)
        clock.now = 2.0
        progress.update(45, simulated_s=5 * 3600.0, events=900)
        text = stream.getvalue()
        self.assertIn('sim:  45%|', text)
        self.assertIn('45/100 requests', text)
        self.assertIn('simulated 5.0 h', text)
        self.assertIn('450 events/s', text)
        self.assertIn('ETA', text)
        progress.close()
        self.assertTrue(stream.getvalue().endswith('\n'))
        # The bar is the report at a terminal: no summary line after it.
        self.assertNotIn('events in', stream.getvalue())

    def test_redraws_at_most_every_half_second(self):
        stream = Terminal()
        clock = FakeClock()
        progress = run_progress.Progress(100, stream=stream, label='sim',
                                         clock=clock)
        progress.update(10)
        clock.now = 0.4
        progress.update(20)
        self.assertNotIn('20/100', stream.getvalue())
        clock.now = 0.5
        progress.update(30)
        self.assertIn('30/100', stream.getvalue())
        # The end is always drawn.
        clock.now = 0.6
        progress.update(100)
        self.assertIn('100/100', stream.getvalue())

    def test_close_draws_the_last_update(self):
        stream = Terminal()
        with run_progress.Progress(100, stream=stream, label='sim',
                                   clock=FakeClock()) as progress:
            progress.update(10)
            progress.update(20, simulated_s=60.0)
        self.assertIn('20/100', stream.getvalue().splitlines()[-1])
        self.assertIn('simulated 60 s', stream.getvalue().splitlines()[-1])

    def test_follow_reads_the_clock_and_the_events(self):
        stream = io.StringIO()
        simulation = mock.Mock(events=42)
        simulation.clock.now.return_value = 7200.0
        with run_progress.Progress(3, stream=stream, label='sim',
                                   clock=FakeClock()) as progress:
            progress.follow(simulation)(3)
        self.assertEqual((3, 7200.0, 42), (progress.done,
                                           progress.simulated_s,
                                           progress.events))
