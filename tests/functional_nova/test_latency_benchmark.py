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

"""The latency benchmark (``benchmarks/nova_select_latency.py``).

Its measuring test case, in each mode, on two hosts with two requests per
case, in this process: every request ACTIVE after one timed
``select_destinations`` call, exactly one victim per request on the full
cloud (on the host the new server took), none otherwise, and the cloud
restored after each. No figure is checked: these are wall times. Then its
figures on hand-made samples, the whole script in a subprocess (pure JSON
on stdout) and its exit 2 without Nova.
"""

import importlib
import json
import os
import subprocess
import sys

import fixtures
from nova.scheduler import manager as nova_manager

from preemptible_sched.nova import manager
from tests import base as tests_base
from tests.functional_nova import base

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
BENCHMARKS = os.path.join(ROOT, 'benchmarks')
SCRIPT = os.path.join(BENCHMARKS, 'nova_select_latency.py')

# The benchmark imports its sibling ``report`` as a top-level module, as
# ``python benchmarks/<name>.py`` does.
sys.path.insert(0, BENCHMARKS)
try:
    latency = importlib.import_module('nova_select_latency')
finally:
    sys.path.remove(BENCHMARKS)

REQUESTS = 2


class QuickRun(latency.bench_class(base)):
    """Every case of ``MODE``, ``REQUESTS`` timed requests each."""

    HOSTS = ('host1', 'host2')

    def run_cases(self):
        rows = {}
        for case in latency.MODE_CASES[self.MODE]:
            rows[case] = self.measure(case, REQUESTS, warmup=0)
        return rows

    def check_rows(self, rows):
        for case, found in rows.items():
            self.assertEqual(REQUESTS, len(found), case)
            victims = 1 if case == 'full_normal' else 0
            for row in found:
                self.assertEqual('ACTIVE', row['status'], (case, row))
                self.assertEqual(1, row['select_calls'], (case, row))
                self.assertIsNotNone(row['wall_s'])
                self.assertIsNotNone(row['cpu_s'])
                self.assertEqual(victims, row['victims'], (case, row))
                self.assertEqual(victims, row['deleted'], (case, row))
                self.assertTrue(row['deleted_are_victims'], (case, row))
                # The victim was on the host the new server took.
                self.assertEqual([row['host']] * victims,
                                 row['victim_hosts'], (case, row))
                self.assertTrue(row['restored'], (case, row))

    def check_cloud(self, cases):
        """After the last request: what the last case started from."""
        per_host = latency.SPOT_PER_HOST if 'full_normal' in cases else 0
        servers = self.by_host()
        self.assertEqual({host: per_host for host in self.HOSTS},
                         {host: len(found) for host, found in servers.items()})
        for found in servers.values():
            for server in found:
                self.assertEqual('ACTIVE', server['status'])
                self.assertEqual('spot', server['flavor']['original_name'])
        self.assert_usages_match_servers()
        # One call per boot: each timed request, the full cloud's fill
        # and each refill (one per full_normal request).
        boots = REQUESTS * len(cases)
        if 'full_normal' in cases:
            boots += len(self.HOSTS) * latency.SPOT_PER_HOST + REQUESTS
        self.assertEqual(boots, len(self.samples))


class TestStock(QuickRun):

    MODE = 'stock'

    def test_quick_run(self):
        self.assertIs(nova_manager.SchedulerManager,
                      type(self.scheduler_service.manager))
        rows = self.run_cases()
        self.assertEqual(['empty_normal'], list(rows))
        self.check_rows(rows)
        self.check_cloud(rows)


class TestOnePass(QuickRun):

    MODE = 'one_pass'

    def test_quick_run(self):
        self.assertIsInstance(self.scheduler_service.manager,
                              manager.PreemptibleSchedulerManager)
        self.assertEqual('one_pass', manager.CONF.preemptible_sched.mode)
        rows = self.run_cases()
        self.assertEqual(list(latency.CASES), list(rows))
        self.check_rows(rows)
        self.check_cloud(rows)


class TestRetry(QuickRun):

    MODE = 'retry'

    def test_quick_run(self):
        self.assertIsInstance(self.scheduler_service.manager,
                              manager.PreemptibleSchedulerManager)
        self.assertEqual('retry', manager.CONF.preemptible_sched.mode)
        rows = self.run_cases()
        self.assertEqual(list(latency.CASES), list(rows))
        self.check_rows(rows)
        self.check_cloud(rows)


def _row(mode, case, walls, cpus, victims=0, restored=True):
    return [{'wall_s': wall, 'cpu_s': cpu, 'select_calls': 1,
             'status': 'ACTIVE', 'host': 'host1', 'victims': victims,
             'deleted': victims, 'deleted_are_victims': True,
             'victim_hosts': ['host1'] * victims, 'restored': restored}
            for wall, cpu in zip(walls, cpus)]


class TestFigures(tests_base.TestCase):

    def test_spread_in_milliseconds(self):
        """1, 2 and 6 ms: mean 3; deviations -2, -1, 3, squares 4 + 1 +
        9 = 14 over n - 1 = 2: sd = sqrt(7) = 2.6458; median 2.
        """
        found = latency.spread([0.001, 0.002, 0.006])
        self.assertAlmostEqual(3.0, found['mean_ms'])
        self.assertAlmostEqual(7 ** 0.5, found['sd_ms'])
        self.assertAlmostEqual(2.0, found['median_ms'])
        self.assertAlmostEqual(1.0, found['min_ms'])
        self.assertAlmostEqual(6.0, found['max_ms'])
        self.assertEqual(3, found['n'])

    def test_ratios_and_checks(self):
        """Stock: wall 2 and 4 ms (mean 3, median 3), CPU 1 and 3 (mean
        2); one-pass empty: wall 3 and 6 (mean 4.5), CPU 2 and 4 (mean 3):
        one_pass/stock wall 4.5 / 3 = 1.5, CPU 3 / 2 = 1.5. Full cloud:
        one-pass wall 10 and 10, retry 40 and 60 (mean 50): 5.0; CPU 8
        and 12 (mean 10) against 20 and 20: 2.0.
        """
        rows = {
            'stock': {'empty_normal': _row('stock', 'empty_normal',
                                           [0.002, 0.004], [0.001, 0.003])},
            'one_pass': {
                'empty_normal': _row('one_pass', 'empty_normal',
                                     [0.003, 0.006], [0.002, 0.004]),
                'full_normal': _row('one_pass', 'full_normal',
                                    [0.010, 0.010], [0.008, 0.012], 1)},
            'retry': {
                'full_normal': _row('retry', 'full_normal',
                                    [0.040, 0.060], [0.020, 0.020], 1)},
        }
        results = {mode: {case: latency.summarise(mode, case, found)
                          for case, found in cases.items()}
                   for mode, cases in rows.items()}
        self.assertEqual('1', results['stock']['empty_normal']['paper_case'])
        self.assertEqual('2c', results['retry']['full_normal']['paper_case'])
        ratios = latency.ratios(results)
        self.assertAlmostEqual(1.5, ratios['one_pass/stock']['wall_mean'])
        self.assertAlmostEqual(1.5, ratios['one_pass/stock']['cpu_mean'])
        self.assertAlmostEqual(5.0, ratios['retry/one_pass']['wall_mean'])
        self.assertAlmostEqual(2.0, ratios['retry/one_pass']['cpu_mean'])
        self.assertEqual({True}, set(latency.checks(results).values()))
        # A request whose cloud was not restored, or a full-cloud request
        # without its victim, fails its check.
        rows['retry']['full_normal'][1]['restored'] = False
        rows['one_pass']['full_normal'][0]['victims'] = 0
        results = {mode: {case: latency.summarise(mode, case, found)
                          for case, found in cases.items()}
                   for mode, cases in rows.items()}
        checks = latency.checks(results)
        self.assertFalse(checks['cloud restored after every request'])
        self.assertFalse(checks['victims as expected (one per full_normal '
                                'request, else none)'])
        self.assertTrue(checks['every request ACTIVE'])


class TestRounds(tests_base.TestCase):

    def test_split_as_even_as_can_be(self):
        self.assertEqual([26] * 5, latency.split(130, 5))
        self.assertEqual([3, 3, 2, 2], latency.split(10, 4))
        # Fewer requests than rounds: one request per round.
        self.assertEqual([1, 1], latency.split(2, 5))

    def test_rotation_shifts_the_modes_by_one_each_round(self):
        modes = ('stock', 'one_pass', 'retry')
        self.assertEqual(
            [['stock', 'one_pass', 'retry'], ['one_pass', 'retry', 'stock'],
             ['retry', 'stock', 'one_pass'], ['stock', 'one_pass', 'retry']],
            [latency.rotation(modes, number) for number in range(4)])

    def test_modes_take_turns_and_each_keeps_its_requests(self):
        """Hosts 1 and 3, five requests in two rounds (3 then 2): each
        round runs every mode once, rotated; each mode's figures hold
        all five requests of each case; ratios per host count. The
        harness is replaced by canned rows (CPU 1 ms per request for
        stock, 2 ms for one_pass, 3 ms for retry): one_pass/stock = 2.
        """
        calls = []

        def run_mode(base_module, mode, hosts, requests, warmup, label=''):
            calls.append((hosts, mode, requests, warmup))
            cpu = {'stock': 0.001, 'one_pass': 0.002, 'retry': 0.003}[mode]
            found = {case: _row(mode, case, [cpu] * requests,
                                [cpu] * requests,
                                int(case == 'full_normal'))
                     for case in latency.MODE_CASES[mode]}
            return found, {'mode': mode}

        self.useFixture(fixtures.MockPatchObject(latency, 'run_mode',
                                                 run_mode))
        # measure_all lifts Nova's test timeout for its own harnesses.
        self.useFixture(fixtures.EnvironmentVariable('OS_TEST_TIMEOUT'))
        args = latency.parse_args(['--hosts', '1,3', '--requests', '5',
                                   '--rounds', '2', '--warmup', '0'])
        report = latency.measure_all(base, args)
        self.assertEqual(
            [(1, 'stock', 3, 0), (1, 'one_pass', 3, 0), (1, 'retry', 3, 0),
             (1, 'one_pass', 2, 0), (1, 'retry', 2, 0), (1, 'stock', 2, 0),
             (3, 'stock', 3, 0), (3, 'one_pass', 3, 0), (3, 'retry', 3, 0),
             (3, 'one_pass', 2, 0), (3, 'retry', 2, 0), (3, 'stock', 2, 0)],
            calls)
        self.assertEqual([[hosts, number, mode]
                          for hosts in (1, 3) for number, modes in (
                              (1, latency.MODES),
                              (2, ('one_pass', 'retry', 'stock')))
                          for mode in modes],
                         report['config']['schedule'])
        self.assertEqual([3, 2], report['config']['requests_per_round'])
        self.assertEqual([1, 3], report['config']['hosts'])
        self.assertEqual(['1', '3'], list(report['results']))
        for hosts, results in report['results'].items():
            for mode, cases in results.items():
                for case, row in cases.items():
                    self.assertEqual(5, row['requests'], (hosts, case))
                    self.assertEqual(5, row['cpu']['n'], (hosts, case))
            ratios = report['ratios'][hosts]
            self.assertAlmostEqual(2.0, ratios['one_pass/stock']['cpu_mean'])
            self.assertAlmostEqual(1.5,
                                   ratios['retry/one_pass']['cpu_median'])
        self.assertEqual({True}, set(report['checks'].values()))

    def test_host_counts(self):
        self.assertEqual([4, 16, 64], latency.host_counts('4,16,64'))
        self.assertEqual([4, 16], latency.host_counts('4,16,4'))
        for bad in ('', '4,x', '0', '4,-1'):
            self.assertRaises(latency.argparse.ArgumentTypeError,
                              latency.host_counts, bad)


class TestScript(tests_base.TestCase):
    """The script as a command, in a subprocess (it runs Nova's fixtures
    itself).
    """

    def run_script(self, *args, env=None, timeout=280):
        return subprocess.run([sys.executable, SCRIPT] + list(args),
                              cwd=ROOT, capture_output=True, text=True,
                              timeout=timeout, env=env, check=False)

    def test_quick_run_prints_only_json_with_both_ratios(self):
        result = self.run_script('--quick', '--hosts', '1', '--requests',
                                 '2', '--warmup', '0')
        self.assertEqual(0, result.returncode, result.stderr[-2000:])
        report = json.loads(result.stdout)
        self.assertEqual(['1'], list(report['results']))
        results = report['results']['1']
        self.assertEqual({'stock': ['empty_normal'],
                          'one_pass': list(latency.CASES),
                          'retry': list(latency.CASES)},
                         {mode: list(cases) for mode, cases
                          in results.items()})
        # --quick: one round.
        self.assertEqual([[1, 1, 'stock'], [1, 1, 'one_pass'],
                          [1, 1, 'retry']], report['config']['schedule'])
        for mode, cases in results.items():
            for case, row in cases.items():
                self.assertEqual(2, row['requests'], (mode, case))
                self.assertEqual(2, row['active'], (mode, case))
                self.assertEqual(2, row['wall']['n'], (mode, case))
                self.assertEqual(int(case == 'full_normal') * 2,
                                 row['victims'], (mode, case))
        self.assertEqual(['one_pass/stock', 'retry/one_pass'],
                         list(report['ratios']['1']))
        self.assertEqual({True}, set(report['checks'].values()))
        settings = report['config']['settings']
        for mode in ('one_pass', 'retry'):
            self.assertEqual(mode, settings[mode]['mode'])
        self.assertNotIn('mode', settings['stock'])
        self.assertEqual([1], report['config']['hosts'])

    def test_without_nova_one_line_and_exit_2(self):
        result = self.run_script('--quick',
                                 env=base.env_without_nova(self))
        self.assertEqual(2, result.returncode, result.stderr)
        self.assertEqual('', result.stdout)
        lines = result.stderr.strip().splitlines()
        self.assertEqual(1, len(lines), result.stderr)
        self.assertIn('not importable (no Nova here)', lines[0])

    def test_bad_option_exits_2(self):
        result = self.run_script('--modes', 'stock,fast')
        self.assertEqual(2, result.returncode)
        self.assertEqual('', result.stdout)
        self.assertIn('--modes: unknown fast', result.stderr.splitlines()[-1])
        result = self.run_script('--hosts', '4,x')
        self.assertEqual(2, result.returncode)
        self.assertEqual('', result.stdout)
        self.assertIn('--hosts', result.stderr.splitlines()[-1])
