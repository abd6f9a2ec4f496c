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

"""Tiny Workflow Trace Archive traces for the tests, written with pyarrow."""

import os

import pyarrow
import pyarrow.parquet


def write_trace(directory, tasks, workflows=None, timestamps=False):
    """A WTA trace in ``directory``: ``tasks`` are tuples (id, workflow,
    submit_s, runtime_s, cores, parents) written to
    ``tasks/schema-1.0/part.0.parquet`` in milliseconds (``ts_submit``
    as a timestamp column with ``timestamps``); ``workflows`` (id,
    submit_s) to ``workflows/schema-1.0/part.0.parquet``. Returns the
    directory.
    """
    folder = os.path.join(directory, 'tasks', 'schema-1.0')
    os.makedirs(folder)
    submit = pyarrow.array([int(task[2] * 1000) for task in tasks],
                           pyarrow.int64())
    if timestamps:
        submit = submit.cast(pyarrow.timestamp('ms'))
    table = pyarrow.table({
        'id': pyarrow.array([task[0] for task in tasks], pyarrow.int64()),
        'workflow_id': pyarrow.array([task[1] for task in tasks],
                                     pyarrow.int64()),
        'ts_submit': submit,
        'runtime': pyarrow.array([int(task[3] * 1000) for task in tasks],
                                 pyarrow.int64()),
        'resource_amount_requested': pyarrow.array(
            [float(task[4]) for task in tasks], pyarrow.float64()),
        'parents': pyarrow.array([list(task[5]) for task in tasks],
                                 pyarrow.list_(pyarrow.int64())),
    })
    pyarrow.parquet.write_table(table, os.path.join(folder,
                                                    'part.0.parquet'))
    if workflows is not None:
        folder = os.path.join(directory, 'workflows', 'schema-1.0')
        os.makedirs(folder)
        pyarrow.parquet.write_table(pyarrow.table({
            'id': pyarrow.array([row[0] for row in workflows],
                                pyarrow.int64()),
            'ts_submit': pyarrow.array([int(row[1] * 1000)
                                        for row in workflows],
                                       pyarrow.int64())}),
            os.path.join(folder, 'part.0.parquet'))
    os.makedirs(os.path.join(directory, 'workload'), exist_ok=True)
    return directory
