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

"""Google clusterdata-2011-2 ``task_events`` (``google2011``), and their
``task_constraints``.

Google clusterdata-2011-2 ``task_events``: 13 columns in the
documented order, with or without a header row. One request per task
(``<jobID>-<task index>``), submitted at its first SUBMIT event
(microseconds in the trace); it runs from its first SCHEDULE after
that to its next EVICT, FAIL, FINISH, KILL or LOST event, or until
``--until`` when either is missing. Resubmissions are not replayed
(the simulator makes its own preemptions) and UPDATE events are
ignored. Skipped: tasks with no SUBMIT event, and tasks that ended
without ever being scheduled (they never ran). CPU and RAM requests
are normalised to the largest machine and kept as they are (empty:
0), so read the hosts from ``machine_events``, in the same units, with
:func:`infrastructure.read_machines`. Disk 0: machines report none.
Class from the priority (algorithms.md section 4): >= 9 gold, 2..8
silver, 0..1 bronze, unless ``class_map`` maps the priority as written
in the trace; ``priority`` keeps the raw value.
"""

import dataclasses
import typing

from preemptible_sched import constraints as constraint_language
from preemptible_sched import input_limits as limits
from preemptible_sched import objects
from preemptible_sched.simulation.traces import records

FIELDS = ('timestamp', 'missing info', 'job ID', 'task index',
          'machine ID', 'event type', 'user', 'scheduling class',
          'priority', 'CPU request', 'memory request',
          'disk request', 'different-machine constraint')
#: Numeric columns of task_events not read otherwise (checked anyway).
_GOOGLE_NUMBERS = ('missing info', 'machine ID', 'scheduling class',
                   'disk request', 'different-machine constraint')
_SUBMIT, _SCHEDULE = 0, 1
_ENDS = (2, 3, 4, 5, 6)   # EVICT, FAIL, FINISH, KILL, LOST
_LAST_EVENT = 8           # UPDATE_RUNNING


def google_class(priority):
    """The service class of a Google 2011 priority (algorithms.md s. 4)."""
    if priority >= 9:
        return 'gold'
    return 'silver' if priority >= 2 else 'bronze'


@dataclasses.dataclass
class _Task:
    """A Google task's lifecycle so far: its request and first run."""

    item: records.WorkloadItem
    scheduled: typing.Optional[float] = None
    ended: typing.Optional[float] = None
    died_pending: bool = False


def read(path, class_map, default_class, skipped, constraints_path=None):
    tasks = {}     # (job ID, task index) -> _Task
    orphans = set()
    for record in records.positional_records(path, FIELDS, 'task_events'):
        key = (record.text('job ID', required=True),
               record.text('task index', required=True))
        records.check_numbers(record, _GOOGLE_NUMBERS)
        when = record.number('timestamp',
                             maximum=limits.MAX_TIME * 1e6) / 1e6
        event = record.number('event type')
        if event > _LAST_EVENT or event != int(event):
            raise record.error('event type', 'expected 0..%d, got %s'
                               % (_LAST_EVENT, record.text('event type')))
        task = tasks.get(key)
        if task is None:
            if event == _SUBMIT:
                tasks[key] = _Task(_google_item(record, key, when,
                                                class_map))
            else:
                orphans.add(key)
        elif event == _SCHEDULE and task.scheduled is None:
            task.scheduled = when
        elif event in _ENDS and task.scheduled is None:
            task.died_pending = True
        elif event in _ENDS and task.ended is None:
            task.ended = max(when, task.scheduled)
    if orphans - set(tasks):
        skipped['no SUBMIT event'] += len(orphans - set(tasks))
    if constraints_path is not None:
        for key, found in task_constraints(constraints_path,
                                           tasks).items():
            tasks[key].item = dataclasses.replace(tasks[key].item,
                                                  constraints=found)
    for task in tasks.values():
        if task.scheduled is None and task.died_pending:
            skipped['ended before being scheduled'] += 1
        elif task.ended is None:
            yield task.item
        else:
            yield dataclasses.replace(
                task.item, duration_s=task.ended - task.scheduled)


def _google_item(record, key, when, class_map):
    priority = record.number('priority', maximum=limits.MAX_PRIORITY)
    return records.WorkloadItem(
        id='%s-%s' % key, submit_s=when, duration_s=None,
        resources=objects.Resources(
            record.size('CPU request', default=0.0),
            record.size('memory request', default=0.0)),
        service_class=class_map.get(record.text('priority'),
                                    google_class(priority)),
        priority=priority, user=record.text('user') or None)


_CONSTRAINT_FIELDS = ('timestamp', 'job ID', 'task index',
                      'comparison operator', 'attribute name',
                      'attribute value')
#: task_constraints operator codes, in order.
GOOGLE_OPERATORS = (constraint_language.EQUAL, constraint_language.NOT_EQUAL,
                    constraint_language.LESS, constraint_language.GREATER)


def task_constraints(path, tasks):
    """``{(job ID, task index): constraints}`` of a Google
    ``task_constraints`` file (``time, job ID, task index, comparison
    operator, attribute name, attribute value``; header optional, plain
    or gzipped) for the tasks in ``tasks``; other rows are skipped as the
    file streams by.

    Operators 0 equal, 1 not equal, 2 less than, 3 greater than become
    ``name=value``, ``name!=value``, ``name<value``, ``name>value``
    (:mod:`preemptible_sched.constraints`); less and greater need a
    number. A task constraining one attribute twice with one operator
    keeps the latest row (by time, then file order).
    """
    latest = {}    # (task, constraint key) -> (time, value)
    for record in records.positional_records(path, _CONSTRAINT_FIELDS,
                                             'task_constraints'):
        when = record.number('timestamp',
                             maximum=limits.MAX_TIME * 1e6)
        code = record.number('comparison operator')
        if code not in (0, 1, 2, 3):
            raise record.error('comparison operator', 'expected 0 (equal), '
                               '1 (not equal), 2 (less than) or 3 (greater '
                               'than), got %s'
                               % record.text('comparison operator'))
        task = (record.text('job ID', required=True),
                record.text('task index', required=True))
        name = record.text('attribute name', required=True)
        value = record.text('attribute value')
        operator = GOOGLE_OPERATORS[int(code)]
        if operator in (constraint_language.LESS,
                        constraint_language.GREATER) and \
                constraint_language.number(value) is None:
            raise record.error('attribute value', 'less than and greater '
                               'than need a number, got %s'
                               % limits.one_line(repr(value), 60))
        if task not in tasks:
            continue
        entry = (task, constraint_language.key(name, operator))
        if entry not in latest or latest[entry][0] <= when:
            latest[entry] = (when, value)
    found = {}
    for (task, key), (_, value) in latest.items():
        found.setdefault(task, {})[key] = value
    return found
