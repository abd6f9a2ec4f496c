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

import os
import random

import fixtures

from preemptible_sched.compute import utilization
from preemptible_sched import exception
from tests import base

# The real Bitbrains GWA-T-12 sample the project ships beside the code.
BITBRAINS = os.path.join(
    os.path.dirname(__file__), '..', '..', '..', '..', 'shared', 'data',
    'bitbrains_small', 'bitbrains_single_vm.csv')

HEADER = ('Timestamp [ms];\tCPU cores;\tCPU capacity provisioned [MHZ];\t'
          'CPU usage [MHZ];\tCPU usage [%]\n')


class _FixedRandom:
    """Stands in for the driver's generator: fixed draws."""

    def __init__(self, randrange=0, bits=0):
        self._randrange = randrange
        self._bits = bits

    def randrange(self, stop):
        return self._randrange % stop

    def getrandbits(self, count):
        return self._bits


class TestConstant(base.TestCase):

    def test_same_share_at_any_time(self):
        track = utilization.ConstantUtilization(0.3).start(random.Random(1))
        self.assertEqual([0.3, 0.3, 0.3],
                         [track.at(t) for t in (0, 17.5, 86400)])

    def test_clamped(self):
        self.assertEqual(1.0, utilization.ConstantUtilization(1.5).at(0))
        self.assertEqual(0.0, utilization.ConstantUtilization(-1).at(0))


class TestRandomWalk(base.TestCase):

    def test_starts_at_start_and_holds_for_an_interval(self):
        model = utilization.RandomWalkUtilization(0.5, 0.1, 60.0)
        track = model.start(random.Random(3))
        self.assertEqual(0.5, track.at(0))
        self.assertEqual(0.5, track.at(59.9))
        self.assertEqual(track.at(60), track.at(119.9))

    def test_steps_bounded_by_step(self):
        track = utilization.RandomWalkUtilization(0.5, 0.1, 60.0).start(
            random.Random(3))
        values = [track.at(60 * i) for i in range(200)]
        for before, after in zip(values, values[1:]):
            self.assertLessEqual(abs(after - before), 0.1 + 1e-12)
        self.assertGreater(len(set(values)), 1)

    def test_bounded_to_unit_interval(self):
        track = utilization.RandomWalkUtilization(0.9, 1.0, 1.0).start(
            random.Random(5))
        values = [track.at(i) for i in range(2000)]
        self.assertEqual(0.0, min(values))
        self.assertEqual(1.0, max(values))

    def test_zero_step_is_constant(self):
        track = utilization.RandomWalkUtilization(0.4, 0.0, 10.0).start(
            random.Random(5))
        self.assertEqual({0.4}, {track.at(i * 10) for i in range(50)})

    def test_does_not_depend_on_when_it_is_read(self):
        model = utilization.RandomWalkUtilization(0.5, 0.2, 10.0)
        forward = model.start(_FixedRandom(bits=42))
        backward = model.start(_FixedRandom(bits=42))
        expected = [forward.at(i * 10) for i in range(30)]
        # Reading the far end first draws the same steps.
        backward.at(295)
        self.assertEqual(expected, [backward.at(i * 10) for i in range(30)])

    def test_one_draw_per_instance_from_the_driver(self):
        rng = random.Random(9)
        model = utilization.RandomWalkUtilization(0.5, 0.2, 10.0)
        model.start(rng).at(1000)
        reference = random.Random(9)
        reference.getrandbits(64)
        self.assertEqual(reference.random(), rng.random())


class TraceFileMixin:

    def write_trace(self, text, name='trace.csv'):
        path = os.path.join(self.useFixture(fixtures.TempDir()).path, name)
        with open(path, 'w', encoding='utf-8') as trace:
            trace.write(text)
        return path


class TestTraceReplay(TraceFileMixin, base.TestCase):

    def test_share_is_usage_over_capacity(self):
        path = self.write_trace(
            HEADER +
            '1000;\t1;\t2000.0;\t500.0;\t25.0\n'
            '1300;\t1;\t2000.0;\t1000.0;\t50.0\n'
            '1600;\t1;\t2000.0;\t1500.0;\t75.0\n')
        trace = utilization.TraceUtilization.from_file(path)
        self.assertEqual([0.0, 300.0, 600.0], trace.times)
        self.assertEqual([0.25, 0.5, 0.75], trace.shares)
        self.assertEqual(900.0, trace.period)

    def test_replay_by_runtime_from_offset_and_loops(self):
        trace = utilization.TraceUtilization([0, 300, 600],
                                             [0.1, 0.2, 0.3])
        self.assertEqual([0.1, 0.1, 0.2, 0.3, 0.1],
                         [trace.share(0, t)
                          for t in (0, 299.9, 300, 899.9, 900)])
        # From sample 2 (t=600): 0.3, then wraps to 0.1 at runtime 300.
        self.assertEqual([0.3, 0.1, 0.2],
                         [trace.share(2, t) for t in (0, 300, 600)])

    def test_track_starts_at_drawn_sample(self):
        trace = utilization.TraceUtilization([0, 300, 600],
                                             [0.1, 0.2, 0.3])
        track = trace.start(_FixedRandom(randrange=1))
        self.assertEqual([0.2, 0.3, 0.1],
                         [track.at(t) for t in (0, 300, 600)])

    def test_usage_above_capacity_clamped(self):
        trace = utilization.TraceUtilization([0], [1.7])
        self.assertEqual(1.0, trace.share(0, 12345))

    def test_file_without_header_uses_positions(self):
        path = self.write_trace('0; 1; 1000; 100\n60; 1; 1000; 250\n')
        trace = utilization.TraceUtilization.from_file(path)
        self.assertEqual([0.0, 60.0], trace.times)
        self.assertEqual([0.1, 0.25], trace.shares)

    def test_columns_found_by_name(self):
        path = self.write_trace(
            'CPU usage [MHZ]; Timestamp [ms]; CPU capacity provisioned '
            '[MHZ]\n\n300; 10; 600\n')
        trace = utilization.TraceUtilization.from_file(path)
        self.assertEqual([0.5], trace.shares)

    def test_real_bitbrains_file(self):
        if not os.path.exists(BITBRAINS):
            self.skipTest('Bitbrains sample not found at %s' % BITBRAINS)
        trace = utilization.TraceUtilization.from_file(BITBRAINS)
        # 8620 lines: the header and 8619 samples, 5 minutes apart.
        self.assertEqual(8619, len(trace.times))
        # 1378906798 - 1376314846 s, plus one 300 s sampling interval.
        self.assertEqual(2591952.0 + 300.0, trace.period)
        first = 19.06666159933333 / 2599.999309
        third = 17.333328726666668 / 2599.999309
        self.assertAlmostEqual(0.0073333333, first, places=9)
        self.assertEqual([first, first, third],
                         [trace.share(0, t) for t in (0, 300, 600)])
        self.assertEqual(first, trace.share(0, trace.period))
        # The last sample: 0.0 MHz used.
        self.assertEqual(0.0, trace.share(8618, 0))


class TestMalformedTrace(TraceFileMixin, base.TestCase):

    def assertInvalid(self, text, field, message_part):
        path = self.write_trace(text)
        error = self.assertRaises(exception.InvalidInput,
                                  utilization.TraceUtilization.from_file,
                                  path)
        self.assertEqual(path, error.source)
        self.assertEqual(field, error.field)
        self.assertIn(message_part, error.message)
        message = str(error)
        self.assertNotIn('\n', message)
        self.assertTrue(message.startswith(path), message)
        return message

    def test_not_a_number_names_file_and_line(self):
        message = self.assertInvalid(
            HEADER + '0; 1; 2600; 10; 0\n300; 1; 2600; abc; 0\n',
            'line 3', "CPU usage [MHZ] 'abc' is not a number")
        self.assertIn(': line 3: ', message)

    def test_nan_is_not_a_number(self):
        self.assertInvalid(HEADER + '0; 1; nan; 10; 0\n', 'line 2',
                           'CPU capacity provisioned [MHZ]')

    def test_too_few_fields(self):
        self.assertInvalid(HEADER + '0; 1; 2600\n', 'line 2',
                           'expected at least 4')

    def test_zero_capacity(self):
        self.assertInvalid(HEADER + '0; 1; 0; 0; 0\n', 'line 2',
                           'must be > 0')

    def test_negative_usage(self):
        self.assertInvalid(HEADER + '0; 1; 2600; -1; 0\n', 'line 2',
                           'must be >= 0')

    def test_time_going_backwards(self):
        self.assertInvalid(
            HEADER + '600; 1; 2600; 1; 0\n600; 1; 2600; 1; 0\n', 'line 3',
            "Timestamp [ms] '600' is not after the previous sample")

    def test_header_without_usage_column(self):
        self.assertInvalid('Timestamp [ms]; CPU cores; CPU capacity '
                           'provisioned [MHZ]\n0; 1; 2600\n', 'line 1',
                           "no 'CPU usage [MHZ]' column")

    def test_empty_file(self):
        self.assertInvalid(HEADER, None, 'no samples')

    def test_missing_file(self):
        path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'absent.csv')
        error = self.assertRaises(exception.InvalidInput,
                                  utilization.TraceUtilization.from_file,
                                  path)
        self.assertEqual(path, error.source)
        self.assertIn('cannot read', str(error))
