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

The counters are replaced by clocks that hand out readings in nanoseconds,
moved forward by hand: a lap reads the wall counter at both ends, a pass
reads the wall counter then the CPU counter when it begins and the CPU
counter then the wall counter when it ends (the times are whole
nanoseconds and, but for one, binary fractions of a second, so the sums
are exact).
"""

import fixtures
import testtools

from preemptible_sched.loop import timing

NS = 10 ** 9


class FakeCounters:
    """The wall and CPU counters of the timing module, set by hand."""

    def __init__(self):
        self.wall = 10 * NS
        self.cpu = 2 * NS
        self.cpu_reads = 0

    def spend(self, wall, cpu=None):
        """Let ``wall`` seconds pass, ``cpu`` of them computing (all of
        them when not given).
        """
        self.wall += round(wall * NS)
        self.cpu += round((wall if cpu is None else cpu) * NS)

    def wall_ns(self):
        return self.wall

    def cpu_ns(self):
        self.cpu_reads += 1
        return self.cpu


class StageStatsTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.counters = FakeCounters()
        self.useFixture(fixtures.MockPatch(
            'preemptible_sched.loop.timing._wall_ns',
            self.counters.wall_ns))
        self.useFixture(fixtures.MockPatch(
            'preemptible_sched.loop.timing._cpu_ns', self.counters.cpu_ns))
        self.stats = timing.StageStats()

    def lap(self, stage, size=0, wall=0.25, cpu=None):
        with self.stats.stopwatch(stage, size):
            self.counters.spend(wall, cpu)

    def between(self, wall, cpu=None):
        """Time spent in the pass outside any stage."""
        self.counters.spend(wall, cpu)


class TestPass(StageStatsTestCase):

    def test_laps_of_a_stage_add_up_within_a_pass(self):
        self.stats.begin_pass(3, 12.5)
        self.lap('R4', 5, wall=0.25, cpu=0.125)
        self.lap('J2', 1, wall=0.5, cpu=0.25)
        self.lap('R4', 7, wall=0.75, cpu=0.375)
        # Nothing is recorded before the pass ends.
        self.assertEqual([], self.stats.passes)
        self.stats.end_pass()
        # One entry per stage, in the order the stages first ran.
        self.assertEqual([(3, 12.5, 'R4', 2, 12, 1.0, 0.5),
                          (3, 12.5, 'J2', 1, 1, 0.5, 0.25)],
                         self.stats.passes)

    def test_each_pass_counts_only_its_own_laps(self):
        # The stages' lap objects serve pass after pass: nothing of one
        # pass may leak into the next, nor a stage that did not run.
        self.stats.begin_pass(1, 0.0)
        self.lap('R4', 5, wall=0.5, cpu=0.5)
        self.lap('R4', 2, wall=0.25, cpu=0.25)
        self.lap('T10', 3, wall=0.25, cpu=0.25)
        self.stats.end_pass()
        self.stats.begin_pass(2, 1.0)
        self.lap('R4', 1, wall=0.125, cpu=0.125)
        self.stats.end_pass()
        self.stats.begin_pass(3, 2.0)
        self.stats.end_pass()
        self.assertEqual([(1, 0.0, 'R4', 2, 7, 0.75, 0.75),
                          (1, 0.0, 'T10', 1, 3, 0.25, 0.25),
                          (2, 1.0, 'R4', 1, 1, 0.125, 0.125)],
                         self.stats.passes)

    def test_the_pass_cpu_time_is_shared_by_wall_time(self):
        # 2 s of wall time, 1.5 s of CPU time: each stage is charged 3/4
        # of its wall time, whatever its own laps computed.
        self.stats.begin_pass(1, 0.0)
        self.lap('R4', 1, wall=0.5, cpu=0.5)
        self.between(0.5, cpu=0.25)
        self.lap('T10', 1, wall=0.25, cpu=0.0)
        self.lap('R4', 1, wall=0.75, cpu=0.75)
        self.stats.end_pass()
        self.assertEqual([('R4', 1.25, 0.9375), ('T10', 0.25, 0.1875)],
                         [(row[2], row[5], row[6])
                          for row in self.stats.passes])
        # The stages' CPU time is the pass's, less what ran between them.
        self.assertEqual(1.5 - 0.375,
                         sum(row[6] for row in self.stats.passes))

    def test_a_stage_is_never_charged_more_cpu_than_wall_time(self):
        # A CPU clock coarser than the wall clock can say more.
        self.stats.begin_pass(1, 0.0)
        self.lap('R5', 2, wall=0.25, cpu=0.5)
        self.stats.end_pass()
        self.assertEqual([(0.25, 0.25)],
                         [row[5:] for row in self.stats.passes])

    def test_a_pass_that_took_no_time(self):
        self.stats.begin_pass(1, 0.0)
        self.lap('T2', 4, wall=0.0)
        self.stats.end_pass()
        self.assertEqual([(1, 0.0, 'T2', 1, 4, 0.0, 0.0)],
                         self.stats.passes)

    def test_the_cpu_clock_is_read_twice_a_pass_whatever_its_laps(self):
        self.stats.begin_pass(1, 0.0)
        for _ in range(5):
            self.lap('R4', 1)
            self.lap('R5', 1)
        self.stats.end_pass()
        self.assertEqual(2, self.counters.cpu_reads)

    def test_nested_laps(self):
        # R5 around T10 around another R5 lap: each block's whole time
        # goes to its stage (the inner R5 lap counts twice in R5).
        self.stats.begin_pass(1, 0.0)
        with self.stats.stopwatch('R5', 3):
            self.counters.spend(0.25)
            with self.stats.stopwatch('T10', 2):
                self.counters.spend(0.25)
                self.lap('R5', 1, wall=0.5)
            self.counters.spend(0.125)
        self.stats.end_pass()
        self.assertEqual([('R5', 2, 4, 1.625), ('T10', 1, 2, 0.75)],
                         [(row[2], row[3], row[4], row[5])
                          for row in self.stats.passes])

    def test_a_lap_that_raises_is_timed_and_the_error_passes(self):
        self.stats.begin_pass(1, 0.0)

        def fail():
            with self.stats.stopwatch('T4', 1):
                self.counters.spend(0.5)
                raise ValueError('boom')

        self.assertRaises(ValueError, fail)
        self.stats.end_pass()
        self.assertEqual([('T4', 1, 1, 0.5)],
                         [(row[2], row[3], row[4], row[5])
                          for row in self.stats.passes])

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

    def test_stage_walls_since_reads_only_the_new_records(self):
        stats = timing.StageStats()
        stats.begin_pass(1, 0.0)
        stats._append('R4', 1, 10, 0.5, 0.5)
        stats._append('R5', 1, 10, 0.25, 0.25)
        stats.end_pass()
        end, walls = stats.stage_walls_since(0)
        self.assertEqual((2, [('R4', 0.5), ('R5', 0.25)]), (end, walls))
        self.assertEqual((2, []), stats.stage_walls_since(end))
        stats.begin_pass(2, 1.0)
        stats._append('T4', 2, 3, 0.125, 0.125)
        stats.end_pass()
        self.assertEqual((3, [('T4', 0.125)]), stats.stage_walls_since(2))
        # A record not wholly written yet waits.
        stats._records += bytes(10)
        self.assertEqual((3, []), stats.stage_walls_since(3))
        self.assertEqual(3, len(stats.passes))
        self.assertEqual(3, sum(entry['passes'] for entry
                                in stats.summary_ms().values()))

    def test_ending_twice_or_without_a_pass_records_nothing_more(self):
        self.stats.end_pass()
        self.assertEqual([], self.stats.passes)
        self.stats.begin_pass(1, 0.0)
        self.lap('R1', 1)
        self.stats.end_pass()
        self.stats.end_pass()
        self.assertEqual(1, len(self.stats.passes))

    def test_lap_outside_a_pass_is_a_row_of_its_own(self):
        # Before any pass: pass 0 at time 0, with its own CPU time.
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

    def test_laps_outside_a_pass_join_their_stage(self):
        # A lone lap of a reference stage and of another stage: each
        # keeps its code, and the summary counts them with the laps of
        # the same stage in passes.
        self.lap('T4', 1, wall=0.5)
        self.lap('X9', 2, wall=0.25)
        self.stats.begin_pass(1, 5.0)
        self.lap('T4', 3, wall=0.25)
        self.lap('X9', 4, wall=0.125)
        self.stats.end_pass()
        self.lap('X9', 8, wall=1.0)
        self.assertEqual(['T4', 'X9', 'T4', 'X9', 'X9'],
                         [row[2] for row in self.stats.passes])
        summary = self.stats.summary_ms()
        self.assertEqual(
            {'T4': (2, 4, 750.0), 'X9': (3, 14, 1375.0)},
            {stage: (entry['passes'], entry['input_size'],
                     entry['total_ms'])
             for stage, entry in summary.items()})

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
        self.lap('R1', 1, wall=0.000125)
        self.stats.end_pass()
        self.assertEqual(0.125,
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
