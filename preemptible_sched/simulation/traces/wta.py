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

"""Workflow Trace Archive (WTA) traces (``wta``), read with pyarrow.

Workflow Trace Archive (parquet), a directory with ``tasks/`` (and
optionally ``workflows/`` and ``workload/``), read with pyarrow. A
task (``id``, ``workflow_id``, ``ts_submit`` and ``runtime`` in
milliseconds, ``resource_amount_requested`` cores, ``parents``) is a
request ``<workflow_id>-<id>`` waiting for its ``parents``; times are
converted to seconds. Tasks with a negative (unknown) submit time,
run time or core count are skipped. ``workflows/`` (``id``,
``ts_submit``) gives the workflows' submit times; ``workload/`` is
not read. Class: ``default_class``.

The parquet tables:

A WTA trace is a directory of parquet tables: ``tasks/`` (required),
``workflows/`` and ``workload/`` (each a folder of parquet files, often
under a ``schema-1.0`` sub-folder). Only what a scheduler replays is read:

``tasks``
    ``id``, ``workflow_id``, ``ts_submit`` (milliseconds; an integer or
    a timestamp), ``runtime`` (milliseconds), ``resource_amount_requested``
    (cores) and ``parents`` (a list of task ids; optional, none when
    missing or null; any other value is refused).
``workflows`` (optional)
    ``id`` and ``ts_submit``: the workflows' submit times.

Times come back in seconds. A negative value is the archive's "unknown"
and is passed on for the caller to skip; NaN, infinite or absurd values,
missing columns, nulls in required columns, a task given twice (the same
``id`` in the same workflow) and unreadable files raise
:class:`InvalidInput` naming the directory, the table and the column.

A table's files are found here, not by pyarrow, as pyarrow would (names
starting with ``.`` or ``_`` left out), so that what pyarrow would follow
for ever or block on is refused unread: a symbolic link loop, a
directory reached twice, a FIFO, a device.
"""

import dataclasses
import math
import os
import stat
import typing

from preemptible_sched import exception
from preemptible_sched import extras
from preemptible_sched import input_limits as limits
from preemptible_sched.input_limits import regular_files
from preemptible_sched import objects
from preemptible_sched.simulation.traces import records

pyarrow = extras.optional_module('pyarrow')
pyarrow_dataset = extras.optional_module('pyarrow.dataset')
pyarrow_types = extras.optional_module('pyarrow.types')

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


#: Leading characters of the names pyarrow leaves out of a dataset.
_IGNORED = ('.', '_')


def _table_files(path, name):
    """The files of table ``name`` (see the module), sorted."""
    files, seen, total = [], set(), 0
    pending = [name]
    while pending:
        relative = pending.pop()
        where = os.path.join(path, relative)
        try:
            info = os.stat(where)
        except OSError as error:
            raise exception.InvalidInput(path, relative, 'cannot read: %s'
                                         % (error.strerror or error))
        if stat.S_ISDIR(info.st_mode):
            if (info.st_dev, info.st_ino) in seen:
                raise exception.InvalidInput(
                    path, relative, 'symbolic link loop (a directory '
                    'reached twice)')
            seen.add((info.st_dev, info.st_ino))
            try:
                names = os.listdir(where)
            except OSError as error:
                raise exception.InvalidInput(path, relative, 'cannot '
                                             'read: %s' % (error.strerror or
                                                           error))
            pending += [os.path.join(relative, entry)
                        for entry in sorted(names, reverse=True)
                        if not entry.startswith(_IGNORED)]
        elif stat.S_ISREG(info.st_mode):
            files.append(where)
            total += info.st_size
            if total > limits.MAX_TRACE_BYTES:
                raise exception.InvalidInput(
                    path, name, 'table too large: more than %d bytes'
                    % limits.MAX_TRACE_BYTES)
        else:
            try:
                regular_files.open_regular(where).close()
            except exception.InvalidInput as error:
                # The kind of file (a FIFO, a device), under our names.
                raise exception.InvalidInput(path, relative,
                                             error.message) from None
    return files


def _table(path, name, columns, optional=()):
    """The columns of table ``name`` that exist, as Python lists."""
    files = _table_files(path, name)
    try:
        dataset = pyarrow_dataset.dataset(files, format='parquet',
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
        if pyarrow_types.is_timestamp(array.type):
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
    first = {}
    for row in range(len(table['id'])):
        where = 'tasks: row %d: field %%s' % (row + 1)
        workflow = str(table['workflow_id'][row])
        key = (workflow, str(table['id'][row]))
        if key in first:
            raise exception.InvalidInput(
                path, where % 'id', 'duplicate task %s of workflow %s '
                '(first on row %d)' % (limits.one_line(key[1], 60),
                                       limits.one_line(workflow, 60),
                                       first[key] + 1))
        first[key] = row
        if not isinstance(parents[row], (list, type(None))):
            raise exception.InvalidInput(
                path, where % 'parents', 'expected a list of task ids, got '
                '%s' % limits.one_line(repr(parents[row]), 60))
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


def read(path, class_map, default_class, skipped):
    for task in read_tasks(path):
        ids = '%s-%s' % (task.workflow, task.id)
        if task.submit_s < 0 or task.runtime_s < 0 or task.cores <= 0:
            skipped['unknown submit time, run time or processors'] += 1
            skipped.ids.add(ids)
            continue
        yield records.WorkloadItem(
            id=ids, submit_s=task.submit_s, duration_s=task.runtime_s,
            resources=objects.Resources(task.cores, 0.0),
            service_class=default_class, workflow=task.workflow,
            depends_on=tuple('%s-%s' % (task.workflow, parent)
                             for parent in task.parents),
            workflow_submit_s=task.workflow_submit_s)
