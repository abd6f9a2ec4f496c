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

"""The SC18 experiment configurations on a trace small enough to follow
by hand: dependencies, the 10 s quantum, host speeds, FIFO and SRTF.

The shipped ``fifo-bestfit.conf`` and ``srtf-bestfit.conf`` run through
``preemptible-sched simulate`` (the production loop, under the virtual
clock) on two single-core hosts, ``A`` at the reference 4000 MHz and
``B`` at 2000 MHz (tasks take twice as long there), with six tasks in four
workflows:

====  ========  ======  =======  ============
task  workflow  submit  runtime  depends on
====  ========  ======  =======  ============
t1    0         2       30
t2    0         2       10       t1
t3    1         4       5
t4    2         15      20
t5    2         16      5
t6    3         17      8
====  ========  ======  =======  ============

Passes run at 1, 11, 21 ... s. Each test's docstring follows the passes.
"""

import csv
import io
import json
import os
import tempfile
from unittest import mock

import fixtures

from preemptible_sched.cmd import sched
from tests import base
from tests import wta_traces

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
EXPERIMENT = os.path.join(REPO, 'etc', 'preemptible-sched', 'experiments',
                          'sc18')

TRACE = ('WorkflowID, JobID, SubmitTime, RunTime, NProcs, ReqNProcs, '
         'Dependencies\n'
         '0, 1, 2, 30, 1, 1,\n'
         '0, 2, 2, 10, 1, 1, 1\n'
         '1, 3, 4, 5, 1, 1,\n'
         '2, 4, 15, 20, 1, 1,\n'
         '2, 5, 16, 5, 1, 1,\n'
         '3, 6, 17, 8, 1, 1,\n')
#: The same tasks as WTA rows (id, workflow, submit, runtime, cores,
#: parents).
WTA_TASKS = [(1, 0, 2, 30, 1, ()), (2, 0, 2, 10, 1, (1,)),
             (3, 1, 4, 5, 1, ()), (4, 2, 15, 20, 1, ()),
             (5, 2, 16, 5, 1, ()), (6, 3, 17, 8, 1, ())]
HOSTS = 'name,vcpus,memory_mb,cpu_mhz\nA,1,1024,4000\nB,1,1024,2000\n'


class Sc18Case(base.TestCase):
    """The small trace and hosts, and a way to simulate them."""

    def setUp(self):
        super().setUp()
        self.tmp = self.useFixture(fixtures.TempDir()).path
        self.trace = self.write('small.gwf', TRACE)
        self.hosts = self.write('hosts.csv', HOSTS)

    def write(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, 'w') as stream:
            stream.write(text)
        return path

    def simulate(self, conf, workload=None, extra=()):
        """``conf`` of the experiment, then the files ``extra``."""
        output = self.output = tempfile.mkdtemp(dir=self.tmp)
        out, err = io.StringIO(), io.StringIO()
        with mock.patch('sys.stdout', out), mock.patch('sys.stderr', err):
            code = sched.main([
                'simulate', '--config-file', os.path.join(EXPERIMENT, conf)
            ] + [argument for path in extra
                 for argument in ('--config-file', path)] + [
                '--workload', workload or self.trace,
                '--infrastructure', self.hosts, '--no-plots', '--seed', '0',
                '--output', output])
        self.assertEqual(0, code, err.getvalue())
        with open(os.path.join(output, 'summary.json')) as stream:
            summary = json.load(stream)
        with open(os.path.join(output, 'jobs.csv')) as stream:
            jobs = {row['job']: row for row in csv.DictReader(stream)}
        with open(os.path.join(output, 'instances.csv')) as stream:
            hosts = {row['id']: row['host'] for row in csv.DictReader(stream)}
        return summary, jobs, hosts

    @staticmethod
    def times(jobs, columns=('first_submit_s', 'first_start_s',
                             'last_completion_s', 'njsl')):
        return {job: tuple(float(row[column]) for column in columns)
                for job, row in jobs.items()}


class TestSc18(Sc18Case):

    def test_fifo_best_fit(self):
        """Pass 11: t1, t3 (submit 11); t2 waits for t1. t1 -> A (both
        hosts leave 0: the first registered), ends 41; t3 -> B, 5 s at half
        speed, ends 21.
        Pass 21: t4, t5, t6 arrive (submit 21). t4 -> B, 40 s, ends 61; t5
        finds no host, t6 is then skipped.
        Pass 41: t1 ended, t2 released; FIFO puts t2 (arrived at 2) before
        t5: t2 -> A, ends 51.
        Pass 51: t5 -> A, ends 56. Pass 61: t6 -> A (both free), ends 69.
        """
        summary, jobs, hosts = self.simulate('fifo-bestfit.conf')
        self.assertEqual({'0': (11, 11, 51, 1), '1': (11, 11, 21, 1),
                          '2': (21, 21, 61, 1), '3': (21, 61, 69, 6)},
                         self.times(jobs))
        self.assertEqual({'0-1': 'A', '0-2': 'A', '1-3': 'B', '2-4': 'B',
                          '2-5': 'A', '3-6': 'A'}, hosts)
        flow = summary['workflow_metrics']
        # JMS (40 + 10 + 40 + 48) / 4; JWT (0 + 0 + 0 + 40) / 4; NJSL
        # (1 + 1 + 1 + 48 // 8) / 4; TRT (30 + 40 + 10 + 40 + 35 + 48) / 6;
        # critical paths 40, 5, 20, 8: (1 + 2 + 2 + 6) / 4.
        self.assertEqual({'jobs': 4, 'tasks': 6, 'unfinished_jobs': 0,
                          'jms_mean_s': 34.5, 'jwt_mean_s': 10.0,
                          'njsl_mean': 2.25, 'trt_mean_s': 203 / 6,
                          'njsl_critical_path_mean': 2.75}, flow)

    def test_srtf_best_fit(self):
        """Pass 11: t3 (work 5) before t1 (30): t3 -> A, ends 16; t1 -> B,
        60 s, ends 71.
        Pass 21: t5 (5), t6 (8), t4 (20): t5 -> A, ends 26; t6 fails.
        Pass 31: t6 -> A, ends 39. Pass 41: t4 -> A, ends 61.
        Pass 71: t1 ended, t2 released -> A (both free), ends 81.
        """
        summary, jobs, hosts = self.simulate('srtf-bestfit.conf')
        self.assertEqual({'0': (11, 11, 81, 1), '1': (11, 11, 16, 1),
                          '2': (21, 21, 61, 1), '3': (21, 31, 39, 2)},
                         self.times(jobs))
        self.assertEqual({'0-1': 'B', '0-2': 'A', '1-3': 'A', '2-4': 'A',
                          '2-5': 'A', '3-6': 'A'}, hosts)
        flow = summary['workflow_metrics']
        # JMS (70 + 5 + 40 + 18) / 4; JWT 10 / 4; NJSL (1 + 1 + 1 + 2) / 4;
        # TRT (60 + 70 + 5 + 40 + 5 + 18) / 6.
        self.assertEqual((33.25, 2.5, 1.25, 33.0), (
            flow['jms_mean_s'], flow['jwt_mean_s'], flow['njsl_mean'],
            flow['trt_mean_s']))

    def test_per_pass_stage_samples(self):
        summary, _, _ = self.simulate('srtf-bestfit.conf')
        stages = summary['stage_time_ms']
        for stage in ('J2', 'T1', 'T2', 'R4', 'R5', 'T4'):
            self.assertIn(stage, stages)
        # T2's input is the eligible queue, summed over the passes: 2 (at
        # 11) + 3 (21) + 2 (31) + 1 (41) + 1 (71, t2 released).
        self.assertEqual(9, stages['T2']['input_size'])

    def test_wta_trace_gives_the_same_result(self):
        directory = wta_traces.write_trace(os.path.join(self.tmp, 'wta'),
                                           WTA_TASKS)
        gwf, gwf_jobs, gwf_hosts = self.simulate('fifo-bestfit.conf')
        wta, wta_jobs, wta_hosts = self.simulate('fifo-bestfit.conf',
                                                 directory)
        self.assertEqual(gwf['workflow_metrics'], wta['workflow_metrics'])
        self.assertEqual(gwf_jobs, wta_jobs)
        self.assertEqual(gwf_hosts, wta_hosts)


class TestTryEveryRequest(Sc18Case):
    """``[scheduler] try_every_request = true``, as the artifact's passes:
    the same decisions, more filterings (R4) after a failure.
    """

    def filterings(self):
        """R4 runs per pass of the last run, as {pass time: runs}."""
        with open(os.path.join(self.output, 'stages.csv')) as stream:
            return {float(row['time_s']): int(row['iterations'])
                    for row in csv.DictReader(stream)
                    if row['stage'] == 'R4'}

    def compare(self, conf):
        every = self.write('every.conf',
                           '[scheduler]\ntry_every_request = true\n')
        default = self.simulate(conf)
        default_runs = self.filterings()
        tried = self.simulate(conf, extra=[every])
        self.assertEqual(default[0]['workflow_metrics'],
                         tried[0]['workflow_metrics'])
        self.assertEqual(default[1], tried[1])
        self.assertEqual(default[2], tried[2])
        return default_runs, self.filterings()

    def test_fifo(self):
        """The passes of test_fifo_best_fit. Pass 21: t4 placed, t5 fails,
        t6 dropped (2) or tried (3). Pass 31 (A busy until 41, B until
        61): t5 fails, t6 dropped (1) or tried (2). Pass 41: t2 placed, t5
        fails, t6 dropped (2) or tried (3). Passes 11 (t1, t3), 51 (t5
        placed, t6 fails last) and 61 (t6) have nothing after a failure.
        """
        default, every = self.compare('fifo-bestfit.conf')
        self.assertEqual({11: 2, 21: 2, 31: 1, 41: 2, 51: 2, 61: 1},
                         default)
        self.assertEqual({11: 2, 21: 3, 31: 2, 41: 3, 51: 2, 61: 1}, every)

    def test_srtf(self):
        """The passes of test_srtf_best_fit. Pass 21: t5 placed, t6 fails,
        t4 dropped (2) or tried (3); only there does a request follow a
        failure (pass 31: t6 placed, t4 fails last).
        """
        default, every = self.compare('srtf-bestfit.conf')
        self.assertEqual({11: 2, 21: 2, 31: 2, 41: 1, 71: 1}, default)
        self.assertEqual({11: 2, 21: 3, 31: 2, 41: 1, 71: 1}, every)
