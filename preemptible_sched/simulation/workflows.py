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

"""Workflows: dependencies of a trace's tasks, and the workflow metrics.

A workflow (a *job* in the reference architecture's words) is a set of
tasks with dependencies. The trace readers give every task its
``workflow`` and the ids it ``depends_on``; :func:`close_dependencies`
checks that graph once, when the trace is read, and the scheduler loop
releases a task once the tasks it depends on have ended (stage T1).

The metrics (:func:`workflow_metrics`) follow the SC18 reference
architecture experiments (see ``doc/source/sc18.rst``):

* task response time (TRT): completion - recorded submit;
* job makespan (JMS): last completion - first recorded submit of its tasks;
* job waiting time (JWT): first start - first recorded submit;
* normalised job schedule length, two ways: ``njsl`` as the published
  artifact computes it, ``JMS // max(1, last completion - first start)``
  in whole seconds (integer division, per job), and
  ``njsl_critical_path``, the paper's definition, JMS over the job's
  critical path (the longest chain of run times through its dependencies,
  at the trace's reference speed; at least 1 s).

The recorded submit time is the time of the pass that admitted the task
(with ``[scheduler] pass_mode = quantum``, the pass after its arrival).
"""

import collections
import dataclasses
import math
import typing

from preemptible_sched import exception

#: Columns of ``jobs.csv``.
JOB_COLUMNS = ('job', 'tasks', 'first_submit_s', 'first_start_s',
               'last_completion_s', 'makespan_s', 'waiting_s', 'njsl',
               'critical_path_s', 'njsl_critical_path')


@dataclasses.dataclass(frozen=True)
class TaskTimes:
    """When one task was submitted (as recorded), started and completed."""

    id: str
    workflow: str
    submit_s: float
    start_s: typing.Optional[float]
    end_s: typing.Optional[float]


def close_dependencies(path, items, dropped, skipped):
    """``items`` without those that depend, directly or not, on a task
    of ``dropped`` (ids; counted in ``skipped``), in the same order.

    A dependency on an id neither among the items nor dropped, and a
    dependency cycle, raise InvalidInput naming ``path`` and a task.
    """
    if not any(item.depends_on for item in items):
        return items
    known = {item.id for item in items}
    dependents = collections.defaultdict(list)
    for item in items:
        for dependency in item.depends_on:
            if dependency not in known and dependency not in dropped:
                raise exception.InvalidInput(
                    path, None, 'task %s depends on %s, which the trace '
                    'does not have' % (item.id, dependency))
            dependents[dependency].append(item.id)
    gone = set()
    frontier = [task for task in dropped if task in dependents]
    while frontier:
        task = frontier.pop()
        for dependent in dependents.get(task, ()):
            if dependent not in gone:
                gone.add(dependent)
                frontier.append(dependent)
    if gone:
        skipped['depends on a skipped task'] += len(gone)
    kept = [item for item in items if item.id not in gone]
    _check_acyclic(path, kept, dependents)
    return kept


def _check_acyclic(path, items, dependents):
    """Kahn's algorithm: every task must be reachable from tasks without
    dependencies.
    """
    unmet = {item.id: len(set(item.depends_on)) for item in items}
    ready = [task for task, count in unmet.items() if not count]
    seen = 0
    while ready:
        task = ready.pop()
        seen += 1
        for dependent in set(dependents.get(task, ())):
            if dependent in unmet:
                unmet[dependent] -= 1
                if not unmet[dependent]:
                    ready.append(dependent)
    if seen < len(unmet):
        stuck = sorted(task for task, count in unmet.items() if count)
        raise exception.InvalidInput(
            path, None, 'dependency cycle: task %s waits, directly or not, '
            'for itself' % stuck[0])


def at_workflow_submit(items):
    """``items`` with every workflow task submitted at its workflow's
    submit time: the one the trace gives, else its earliest task's.
    """
    first = {}
    for item in items:
        if item.workflow is None:
            continue
        given = item.workflow_submit_s
        submit = item.submit_s if given is None else given
        first[item.workflow] = min(first.get(item.workflow, submit), submit)
    return [item if item.workflow is None else
            dataclasses.replace(item, submit_s=first[item.workflow])
            for item in items]


def critical_paths(items):
    """``{workflow: length}``: the longest chain of run times through the
    dependencies of each workflow (items in any order, acyclic).
    """
    by_id = {item.id: item for item in items if item.workflow is not None}
    finish = {}
    for task in by_id:
        if task in finish:
            continue
        # Iterative depth-first search: chains can be thousands long.
        stack = [(task, False)]
        while stack:
            current, expanded = stack.pop()
            if current in finish:
                continue
            item = by_id[current]
            if not expanded:
                stack.append((current, True))
                stack.extend((dependency, False) for dependency
                             in item.depends_on if dependency not in finish)
                continue
            finish[current] = (item.duration_s or 0.0) + max(
                (finish[dependency] for dependency in item.depends_on),
                default=0.0)
    paths = {}
    for task, length in finish.items():
        workflow = by_id[task].workflow
        paths[workflow] = max(paths.get(workflow, 0.0), length)
    return paths


def artifact_njsl(makespan, first_start, last_completion):
    """The published artifact's normalised schedule length of one job:
    ``makespan // max(1, last_completion - first_start)``: a floor
    division (the artifact's integer division on its whole seconds), so
    a job that ran 10 s after waiting 25 s has 35 // 10 = 3, not 3.5.
    """
    return int(makespan // max(1.0, last_completion - first_start))


def workflow_metrics(tasks, items):
    """``(summary, job rows)`` of a run.

    ``tasks`` are :class:`TaskTimes`; ``items`` the workload items (for
    the critical paths). Jobs with a task that never completed are left
    out of the job means and counted in ``unfinished_jobs``; the TRT mean
    is over the tasks that completed.
    """
    by_job = collections.defaultdict(list)
    for task in tasks:
        by_job[task.workflow].append(task)
    paths = critical_paths(items)
    rows = []
    unfinished = 0
    for job in sorted(by_job, key=_natural):
        times = by_job[job]
        if any(task.end_s is None for task in times):
            unfinished += 1
            continue
        first_submit = min(task.submit_s for task in times)
        first_start = min(task.start_s for task in times)
        last_completion = max(task.end_s for task in times)
        makespan = last_completion - first_submit
        path = paths.get(job, 0.0)
        rows.append({
            'job': job, 'tasks': len(times),
            'first_submit_s': first_submit, 'first_start_s': first_start,
            'last_completion_s': last_completion, 'makespan_s': makespan,
            'waiting_s': first_start - first_submit,
            'njsl': artifact_njsl(makespan, first_start, last_completion),
            'critical_path_s': path,
            'njsl_critical_path': makespan / max(1.0, path)})
    done = [task for task in tasks if task.end_s is not None]
    summary = {
        'jobs': len(by_job), 'tasks': len(tasks),
        'unfinished_jobs': unfinished,
        'trt_mean_s': _mean([task.end_s - task.submit_s for task in done]),
        'jms_mean_s': _mean([row['makespan_s'] for row in rows]),
        'jwt_mean_s': _mean([row['waiting_s'] for row in rows]),
        'njsl_mean': _mean([row['njsl'] for row in rows]),
        'njsl_critical_path_mean': _mean([row['njsl_critical_path']
                                          for row in rows]),
    }
    return summary, rows


def _mean(values):
    return math.fsum(values) / len(values) if values else None


def _natural(name):
    """Workflow ids in numeric order when they are numbers."""
    return (0, int(name), '') if name.isdigit() else (1, 0, name)
