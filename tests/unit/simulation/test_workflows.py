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

"""Workflows: the dependency graph of a trace, and the SC18 metrics."""

import collections

from preemptible_sched import exception
from preemptible_sched import objects
from preemptible_sched.simulation.traces import records
from preemptible_sched.simulation import workflows
from tests import base


def task(task_id, workflow='w', depends_on=(), duration=10.0, submit=0.0,
         workflow_submit=None):
    return records.WorkloadItem(
        id=task_id, submit_s=submit, duration_s=duration,
        resources=objects.Resources(1, 0, 0), workflow=workflow,
        depends_on=tuple(depends_on), workflow_submit_s=workflow_submit)


class TestArtifactNjsl(base.TestCase):

    def test_integer_division_of_the_makespan(self):
        # Waited 25 s, ran 10 s: 35 // 10 = 3 (the paper's reading would
        # divide by the critical path instead).
        self.assertEqual(3, workflows.artifact_njsl(35, 25, 35))
        self.assertEqual(1, workflows.artifact_njsl(10, 0, 10))
        self.assertEqual(2, workflows.artifact_njsl(29, 15, 29))

    def test_zero_length_jobs_divide_by_one(self):
        # Submitted at 0, started and ended at 10: 10 // max(1, 0).
        self.assertEqual(10, workflows.artifact_njsl(10, 10, 10))


class TestCriticalPath(base.TestCase):

    def test_longest_chain_of_run_times(self):
        # a(10) -> b(30) -> d(5); a -> c(50) -> d: 10 + 50 + 5 = 65.
        items = [task('a', duration=10),
                 task('b', depends_on=['a'], duration=30),
                 task('c', depends_on=['a'], duration=50),
                 task('d', depends_on=['b', 'c'], duration=5),
                 task('x', workflow='v', duration=7)]
        self.assertEqual({'w': 65.0, 'v': 7.0},
                         workflows.critical_paths(items))

    def test_long_chains_do_not_recurse(self):
        items = [task('t0')] + [task('t%d' % i, depends_on=['t%d' % (i - 1)],
                                     duration=1.0) for i in range(1, 5000)]
        self.assertEqual({'w': 10.0 + 4999}, workflows.critical_paths(items))


class TestCloseDependencies(base.TestCase):

    def close(self, items, dropped=()):
        skipped = collections.Counter()
        kept = workflows.close_dependencies('trace', items, set(dropped),
                                            skipped)
        return [item.id for item in kept], dict(skipped)

    def test_dependents_of_a_skipped_task_are_skipped_too(self):
        items = [task('b', depends_on=['a']), task('c', depends_on=['b']),
                 task('d')]
        self.assertEqual((['d'], {'depends on a skipped task': 2}),
                         self.close(items, dropped=['a']))

    def test_unknown_dependency_is_an_error(self):
        error = self.assertRaises(exception.InvalidInput, self.close,
                                  [task('b', depends_on=['zz'])])
        self.assertIn('task b depends on zz', str(error))

    def test_cycle_is_an_error(self):
        items = [task('a', depends_on=['c']), task('b', depends_on=['a']),
                 task('c', depends_on=['b']), task('d')]
        error = self.assertRaises(exception.InvalidInput, self.close, items)
        self.assertIn('dependency cycle', str(error))
        self.assertRaises(exception.InvalidInput, self.close,
                          [task('s', depends_on=['s'])])


class TestWorkflowSubmit(base.TestCase):

    def test_every_task_at_its_workflows_time(self):
        items = [task('a', submit=5), task('b', submit=9),
                 task('c', workflow='v', submit=3, workflow_submit=1.0),
                 records.WorkloadItem('x', 4.0, 1.0,
                                      objects.Resources(1, 0, 0))]
        self.assertEqual([5.0, 5.0, 1.0, 4.0], [
            item.submit_s for item in workflows.at_workflow_submit(items)])


class TestWorkflowMetrics(base.TestCase):

    def test_hand_computed_job(self):
        # Job w: a submitted (recorded) at 1, started 11, ended 21; b at 1,
        # started 21 (waited for a), ended 51. Job v: one task 11 -> 11.
        items = [task('a', duration=10),
                 task('b', depends_on=['a'], duration=30),
                 task('c', workflow='v', duration=0)]
        times = [workflows.TaskTimes('a', 'w', 1.0, 11.0, 21.0),
                 workflows.TaskTimes('b', 'w', 1.0, 21.0, 51.0),
                 workflows.TaskTimes('c', 'v', 11.0, 11.0, 11.0)]
        summary, rows = workflows.workflow_metrics(times, items)
        # TRT (20 + 50 + 0) / 3; JMS (50 + 0) / 2; JWT (10 + 0) / 2;
        # NJSL w: 50 // 40 = 1, v: 0 // 1 = 0; critical path w 40 s:
        # 50 / 40, v 0 s (floored to 1): 0.
        self.assertEqual({'jobs': 2, 'tasks': 3, 'unfinished_jobs': 0,
                          'trt_mean_s': 70 / 3, 'jms_mean_s': 25.0,
                          'jwt_mean_s': 5.0, 'njsl_mean': 0.5,
                          'njsl_critical_path_mean': 1.25 / 2}, summary)
        self.assertEqual(['v', 'w'], [row['job'] for row in rows])
        self.assertEqual(dict(zip(workflows.JOB_COLUMNS, (
            'w', 2, 1.0, 11.0, 51.0, 50.0, 10.0, 1, 40.0, 1.25))), rows[1])

    def test_unfinished_jobs_are_counted_not_averaged(self):
        items = [task('a'), task('b', workflow='v')]
        times = [workflows.TaskTimes('a', 'w', 0.0, 0.0, 10.0),
                 workflows.TaskTimes('b', 'v', 0.0, None, None)]
        summary, rows = workflows.workflow_metrics(times, items)
        self.assertEqual((1, 10.0, 10.0), (summary['unfinished_jobs'],
                                           summary['jms_mean_s'],
                                           summary['trt_mean_s']))
        self.assertEqual(['w'], [row['job'] for row in rows])
