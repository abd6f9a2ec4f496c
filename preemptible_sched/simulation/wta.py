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

"""Workflow Trace Archive (WTA) traces, read with pyarrow.

A WTA trace is a directory of parquet tables: ``tasks/`` (required),
``workflows/`` and ``workload/`` (each a folder of parquet files, often
under a ``schema-1.0`` sub-folder). Only what a scheduler replays is read:

``tasks``
    ``id``, ``workflow_id``, ``ts_submit`` (milliseconds; an integer or
    a timestamp), ``runtime`` (milliseconds), ``resource_amount_requested``
    (cores) and ``parents`` (a list of task ids; optional, none when
    missing or null).
``workflows`` (optional)
    ``id`` and ``ts_submit``: the workflows' submit times.

Times come back in seconds. A negative value is the archive's "unknown"
and is passed on for the caller to skip; NaN, infinite or absurd values,
missing columns, nulls in required columns and unreadable files raise
:class:`InvalidInput` naming the directory, the table and the column.
"""

import dataclasses
import math
import os
import typing

import pyarrow
import pyarrow.dataset
import pyarrow.types

from preemptible_sched import exception
from preemptible_sched import limits

TASK_COLUMNS = ('id', 'workflow_id', 'ts_submit', 'runtime',
                'resource_amount_requested')

#: Milliseconds in the archive, seconds here.
_MS = 1000.0


@dataclasses.dataclass(frozen=True)
class Task:
    """One row of the ``tasks`` table, times in seconds."""

    id: str
    workflow: str
    submit_s: float
    runtime_s: float
    cores: float
    parents: typing.Tuple[str, ...]
    workflow_submit_s: typing.Optional[float] = None


def is_trace(path):
    """Whether ``path`` is a directory holding a ``tasks`` table."""
    return os.path.isdir(os.path.join(path, 'tasks'))


def _table(path, name, columns, optional=()):
    """The columns of table ``name`` that exist, as Python lists."""
    folder = os.path.join(path, name)
    total = 0
    for root, _dirs, files in os.walk(folder):
        total += sum(os.path.getsize(os.path.join(root, file))
                     for file in files)
    if total > limits.MAX_TRACE_BYTES:
        raise exception.InvalidInput(
            path, name, 'table too large: more than %d bytes'
            % limits.MAX_TRACE_BYTES)
    try:
        dataset = pyarrow.dataset.dataset(folder, format='parquet',
                                          exclude_invalid_files=False)
        present = set(dataset.schema.names)
        missing = [column for column in columns if column not in present]
        if missing:
            raise exception.InvalidInput(
                path, '%s: field %s' % (name, missing[0]),
                'missing column')
        wanted = list(columns) + [column for column in optional
                                  if column in present]
        table = dataset.to_table(columns=wanted)
    except (pyarrow.ArrowException, OSError) as error:
        raise exception.InvalidInput(
            path, name, 'cannot read the parquet table: %s'
            % limits.one_line(error, 200)) from None
    result = {}
    for column in wanted:
        array = table.column(column)
        if pyarrow.types.is_timestamp(array.type):
            array = array.cast(pyarrow.timestamp('ms')).cast(pyarrow.int64())
        if column in columns and array.null_count:
            raise exception.InvalidInput(
                path, '%s: field %s' % (name, column),
                '%d null value(s)' % array.null_count)
        result[column] = array.to_pylist()
    return result


def _number(path, where, value, scale=1.0, maximum=limits.MAX_TIME):
    try:
        number = float(value) / scale
    except (TypeError, ValueError):
        raise exception.InvalidInput(path, where, 'not a number: %s'
                                     % limits.one_line(repr(value), 60))
    if not math.isfinite(number) or number > maximum:
        raise exception.InvalidInput(
            path, where, 'must be a finite number <= %g, got %s'
            % (maximum, limits.one_line(repr(value), 60)))
    return number


def _workflow_submits(path):
    if not os.path.isdir(os.path.join(path, 'workflows')):
        return {}
    table = _table(path, 'workflows', ('id', 'ts_submit'))
    return {str(workflow): _number(path, 'workflows: field ts_submit',
                                   submit, _MS)
            for workflow, submit in zip(table['id'], table['ts_submit'])}


def read_tasks(path):
    """The :class:`Task` rows of the trace at ``path``, in table order."""
    table = _table(path, 'tasks', TASK_COLUMNS, ('parents',))
    submits = _workflow_submits(path)
    parents = table.get('parents') or [None] * len(table['id'])
    for row in range(len(table['id'])):
        where = 'tasks: row %d: field %%s' % (row + 1)
        workflow = str(table['workflow_id'][row])
        yield Task(
            id=str(table['id'][row]), workflow=workflow,
            submit_s=_number(path, where % 'ts_submit',
                             table['ts_submit'][row], _MS),
            runtime_s=_number(path, where % 'runtime',
                              table['runtime'][row], _MS),
            cores=_number(path, where % 'resource_amount_requested',
                          table['resource_amount_requested'][row],
                          maximum=limits.MAX_RESOURCE),
            parents=tuple(str(parent) for parent in parents[row] or ()),
            workflow_submit_s=submits.get(workflow))
