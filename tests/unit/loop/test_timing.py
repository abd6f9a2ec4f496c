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

"""Stage timing: what a pass records, on hand-set performance counters.

The counters are replaced by lists of readings (binary fractions, so the
sums are exact): a lap reads the CPU counter then the wall counter when it
starts, and the wall counter then the CPU counter when it ends.
"""

import fixtures
import testtools

from preemptible_sched.loop import timing


class FakeCounters:
    """``time`` for the timing module: readings handed out in order."""

    def __init__(self):
        self.wall = []
        self.cpu = []

    def lap(self, wall, cpu, wall_start=10.0, cpu_start=2.0):
        """Queue the readings of one lap lasting ``wall`` and ``cpu``."""
        self.wall += [wall_start, wall_start + wall]
        self.cpu += [cpu_start, cpu_start + cpu]

    def perf_counter(self):
        return self.wall.pop(0)

    def thread_time(self):
        return self.cpu.pop(0)


class StageStatsTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.counters = FakeCounters()
        self.useFixture(fixtures.MockPatch(
            'preemptible_sched.loop.timing.time', self.counters))
        self.stats = timing.StageStats()

    def lap(self, stage, size=0, wall=0.25, cpu=0.125):
        self.counters.lap(wall, cpu)
        with self.stats.stopwatch(stage, size):
            pass


class TestPass(StageStatsTestCase):

    def test_laps_of_a_stage_add_up_within_a_pass(self):
        self.stats.begin_pass(3, 12.5)
        self.lap('R4', 5, wall=0.25, cpu=0.125)
        self.lap('J2', 1, wall=0.5, cpu=0.5)
        self.lap('R4', 7, wall=0.75, cpu=0.25)
        # Nothing is recorded before the pass ends.
        self.assertEqual([], self.stats.passes)
        self.stats.end_pass()
        # One entry per stage, in the order the stages first ran.
        self.assertEqual([(3, 12.5, 'R4', 2, 12, 1.0, 0.375),
                          (3, 12.5, 'J2', 1, 1, 0.5, 0.5)],
                         self.stats.passes)

    def test_rows_are_in_milliseconds(self):
        self.stats.begin_pass(1, 4.0)
        self.lap('T2', 3, wall=0.25, cpu=0.125)
        self.stats.end_pass()
        self.assertEqual([(1, 4.0, 'T2', 1, 3, 250.0, 125.0)],
                         self.stats.rows())

    def test_passes_are_kept_apart(self):
        self.stats.begin_pass(1, 0.0)
        self.lap('T1', 1)
        self.stats.end_pass()
        self.stats.begin_pass(2, 30.0)
        self.lap('T1', 2)
        self.lap('T1', 2)
        self.stats.end_pass()
        self.assertEqual([(1, 0.0, 'T1', 1, 1), (2, 30.0, 'T1', 2, 4)],
                         [row[:5] for row in self.stats.passes])

    def test_ending_twice_or_without_a_pass_records_nothing_more(self):
        self.stats.end_pass()
        self.assertEqual([], self.stats.passes)
        self.stats.begin_pass(1, 0.0)
        self.lap('R1', 1)
        self.stats.end_pass()
        self.stats.end_pass()
        self.assertEqual(1, len(self.stats.passes))

    def test_lap_outside_a_pass_is_a_row_of_its_own(self):
        # Before any pass: pass 0 at time 0.
        self.lap('T4', 3, wall=0.5, cpu=0.25)
        self.assertEqual([(0, 0.0, 'T4', 1, 3, 0.5, 0.25)],
                         self.stats.passes)
        # After a pass: that pass's number and time, never merged.
        self.stats.begin_pass(7, 70.0)
        self.lap('T4', 1)
        self.stats.end_pass()
        self.lap('T4', 2)
        self.lap('T4', 4)
        self.assertEqual([(0, 0.0, 'T4', 1, 3), (7, 70.0, 'T4', 1, 1),
                          (7, 70.0, 'T4', 1, 2), (7, 70.0, 'T4', 1, 4)],
                         [row[:5] for row in self.stats.passes])

    def test_a_stage_outside_the_reference_list_is_recorded(self):
        self.stats.begin_pass(1, 0.0)
        self.lap('X1', 2)
        self.lap('J2', 1)
        self.lap('X1', 3)
        self.stats.end_pass()
        self.stats.begin_pass(2, 1.0)
        self.lap('X1', 4)
        self.stats.end_pass()
        self.assertEqual([(1, 'X1', 2, 5), (1, 'J2', 1, 1), (2, 'X1', 1, 4)],
                         [(row[0], row[2], row[3], row[4])
                          for row in self.stats.passes])

    def test_large_pass_numbers_and_sizes(self):
        self.stats.begin_pass(2 ** 40, 1e9)
        self.lap('R4', 2 ** 40)
        self.stats.end_pass()
        self.assertEqual([(2 ** 40, 1e9, 'R4', 1, 2 ** 40)],
                         [row[:5] for row in self.stats.passes])

    def test_decision_latencies(self):
        self.stats.add_decision(0.5)
        self.stats.add_decision(0.25)
        self.assertEqual([0.5, 0.25], self.stats.decisions)


class TestSummary(StageStatsTestCase):

    def test_hand_computed(self):
        # Pass 1: R4 twice (250 + 500 ms wall, 125 + 250 ms CPU, sizes 4
        # and 6), T2 once. Pass 2: R4 once (1000 ms wall, 500 ms CPU).
        self.stats.begin_pass(1, 0.0)
        self.lap('R4', 4, wall=0.25, cpu=0.125)
        self.lap('R4', 6, wall=0.5, cpu=0.25)
        self.lap('T2', 9, wall=0.125, cpu=0.0625)
        self.stats.end_pass()
        self.stats.begin_pass(2, 5.0)
        self.lap('R4', 1, wall=1.0, cpu=0.5)
        self.stats.end_pass()
        summary = self.stats.summary_ms()
        self.assertEqual({
            'name': 'filtering (R2-R4)', 'passes': 2, 'iterations': 3,
            'input_size': 11, 'total_ms': 1750.0, 'cpu_total_ms': 875.0,
            'max_ms': 1000.0, 'mean_ms': 875.0, 'cpu_mean_ms': 437.5},
            summary['R4'])
        self.assertEqual({
            'name': 'queue order (J3/T2)', 'passes': 1, 'iterations': 1,
            'input_size': 9, 'total_ms': 125.0, 'cpu_total_ms': 62.5,
            'max_ms': 125.0, 'mean_ms': 125.0, 'cpu_mean_ms': 62.5},
            summary['T2'])

    def test_max_is_the_longest_pass_whatever_the_order(self):
        for number, wall in enumerate((0.5, 0.25, 0.125), 1):
            self.stats.begin_pass(number, 0.0)
            self.lap('T10', 1, wall=wall)
            self.stats.end_pass()
        self.assertEqual(500.0, self.stats.summary_ms()['T10']['max_ms'])

    def test_max_of_laps_shorter_than_a_millisecond(self):
        self.stats.begin_pass(1, 0.0)
        self.lap('R1', 1, wall=2 ** -11)        # 0.48828125 ms
        self.stats.end_pass()
        self.assertEqual(0.48828125,
                         self.stats.summary_ms()['R1']['max_ms'])

    def test_stages_in_pass_order_then_unknown_ones_by_name(self):
        self.stats.begin_pass(1, 0.0)
        for stage in ('Z9', 'T4', 'A1', 'R1', 'J2', 'T10'):
            self.lap(stage)
        self.stats.end_pass()
        summary = self.stats.summary_ms()
        self.assertEqual(['J2', 'R1', 'T10', 'T4', 'A1', 'Z9'],
                         list(summary))
        # A stage of no reference name is called by its code.
        self.assertEqual('A1', summary['A1']['name'])
        self.assertEqual('preemption', summary['T10']['name'])

    def test_empty(self):
        self.assertEqual({}, self.stats.summary_ms())
        self.assertEqual([], self.stats.rows())


class TestReferenceStages(testtools.TestCase):

    def test_codes_in_the_order_of_a_pass(self):
        self.assertEqual(['J2', 'T2', 'T1', 'R1', 'R4', 'R5', 'T10', 'T4'],
                         [code for code, _, _ in timing.STAGES])
        self.assertEqual('weighing and selection', timing.STAGE_NAMES['R5'])
