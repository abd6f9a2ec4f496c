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

"""The directory of one finished cell of an experiment, written whole.

A cell's directory (``<workload>/<policy>/<level>/seed<seed>`` in the
output directory, see :mod:`.experiment`) holds::

    instances.csv      instances.parquet   one row per request
    stages.csv         stages.parquet      one row per (pass, stage)
    summary.json                           the run's figures
    cell.json                              the manifest

It is written in a hidden staging directory beside it
(``.seed<seed>.<pid>.<random>.tmp``, :mod:`.staging`) and renamed into
place with one ``os.replace``: the directory is there complete or not at
all, whenever the command is stopped or killed. The manifest names the
cell, the digest of everything the cell's result depends on (its
workload, hosts, policy, seed, end time and configuration files, see
:mod:`.fingerprint`) and the size and SHA-256 of each file. A cell is
*done* (:func:`is_done`) when its directory has a manifest with the
same digest and every file it lists, at its size: a run started again
keeps those cells and runs the others; a cell whose configuration
changed is run again and replaced.
"""

import contextlib
import json
import os
import shutil
import types

from preemptible_sched import extras
from preemptible_sched.loop import timing
from preemptible_sched.simulation import report
from preemptible_sched.simulation import staging
from preemptible_sched.simulation.traces import checksums

pa = extras.optional_module('pyarrow')
parquet = extras.optional_module('pyarrow.parquet')

MANIFEST_FILE = 'cell.json'
INSTANCES_PARQUET = 'instances.parquet'
STAGES_PARQUET = 'stages.parquet'
#: Bumped when the files of a cell change: older cells are run again.
LAYOUT = 1

#: Parquet types of the kinds of :data:`report.INSTANCE_COLUMNS`.
_ARROW_KINDS = {'text': 'string', 'float': 'float64', 'int': 'int64',
                'bool': 'bool'}
_STAGE_COLUMNS = timing.COLUMNS + ('stage_name',)
_STAGE_KINDS = ('int64', 'float64', 'string', 'int64', 'int64', 'float64',
                'float64', 'string')


def manifest_of(cell, digest):
    """The identity part of a cell's manifest."""
    return {'layout': LAYOUT, 'cell': {
        'workload': cell.workload, 'policy': cell.policy,
        'size_factor': cell.size_factor, 'seed': cell.seed},
        'digest': digest}


def _read_manifest(directory):
    try:
        with open(os.path.join(directory, MANIFEST_FILE)) as stream:
            manifest = json.load(stream)
    except (OSError, ValueError):
        return None
    return manifest if isinstance(manifest, dict) else None


def is_done(output, cell, digest):
    """Whether the directory of ``cell`` in ``output`` is complete and was
    written for the inputs of ``digest``.
    """
    directory = os.path.join(output, cell.path)
    manifest = _read_manifest(directory)
    if manifest is None:
        return False
    files = manifest.pop('files', None)
    if manifest != manifest_of(cell, digest) or not isinstance(files, dict):
        return False
    for name, entry in files.items():
        try:
            size = os.stat(os.path.join(directory, name)).st_size
        except (OSError, ValueError):
            return False
        if not isinstance(entry, dict) or size != entry.get('bytes'):
            return False
    return True


def _write_parquet(path, columns, kinds, rows):
    table = pa.table(
        {name: pa.array([row[index] for row in rows], type=kind)
         for index, (name, kind) in enumerate(zip(columns, kinds))})
    parquet.write_table(table, path)


def _instance_rows(records):
    return [tuple(getattr(record, name)
                  for name, _kind in report.INSTANCE_COLUMNS)
            for record in records]


def _stage_rows(stages):
    return [tuple(row) + (timing.STAGE_NAMES.get(row[2], row[2]),)
            for row in stages]


def write(output, cell, digest, summary, records, stages):
    """Write the directory of a finished cell into ``output``, all or
    nothing; an earlier directory of the cell is replaced.
    """
    target = os.path.abspath(os.path.join(output, cell.path))
    staged = staging.make(target)
    trash = None
    try:
        report.write_outputs(staged, records, summary, plots=False,
                             stages=stages)
        _write_parquet(
            os.path.join(staged, INSTANCES_PARQUET),
            [name for name, _kind in report.INSTANCE_COLUMNS],
            [_ARROW_KINDS[kind] for _name, kind in report.INSTANCE_COLUMNS],
            _instance_rows(records))
        _write_parquet(os.path.join(staged, STAGES_PARQUET),
                       _STAGE_COLUMNS, _STAGE_KINDS, _stage_rows(stages))
        manifest = manifest_of(cell, digest)
        manifest['files'] = {
            name: {'bytes': os.stat(os.path.join(staged, name)).st_size,
                   'sha256': checksums.file_sha256(
                       os.path.join(staged, name))}
            for name in sorted(os.listdir(staged))}
        with open(os.path.join(staged, MANIFEST_FILE), 'w') as stream:
            stream.write(json.dumps(manifest, indent=2, sort_keys=True) +
                         '\n')
        if os.path.lexists(target):
            # Not this configuration's (or incomplete): out of the way in
            # one rename, removed once the new one is in.
            trash = staging.make(target)
            os.rename(target, os.path.join(trash, 'replaced'))
        os.replace(staged, target)
    finally:
        shutil.rmtree(staged, ignore_errors=True)
        if trash is not None:
            shutil.rmtree(trash, ignore_errors=True)


def read_summary(output, cell):
    """The summary.json of a finished cell."""
    with open(os.path.join(output, cell.path, report.SUMMARY_FILE)) as stream:
        return json.load(stream)


def read_records(output, cell):
    """What the figures need of a finished cell's instances (service
    class, preemptible, availability), from its Parquet file.
    """
    table = parquet.read_table(
        os.path.join(output, cell.path, INSTANCES_PARQUET),
        columns=['service_class', 'preemptible', 'availability'])
    return [types.SimpleNamespace(**row) for row in table.to_pylist()]


def remove_stale(output, cell):
    """Remove the staging directories a killed run left beside the
    directory of ``cell``.
    """
    with contextlib.suppress(OSError):
        staging.remove_stale(os.path.join(output, cell.path))
