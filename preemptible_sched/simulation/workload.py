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

"""Workload traces: the requests a simulation replays.

:func:`read_workload` turns a trace into :class:`WorkloadItem` requests
sorted by submit time (file order breaks ties) and shifts the times so the
first request is submitted at 0 s: traces start at arbitrary offsets and
the simulated clock starts at 0 (``time_origin='trace'`` keeps the
trace's times). ``limit`` then keeps the first N requests ("a 1,000-pod
prefix").

Workflow traces (``gwf``, ``wta``) give each task its ``workflow`` and the
tasks it ``depends_on``; the scheduler loop places a task only once those
have ended (stage T1). A task that depends on a skipped task (or on one
beyond ``limit``) is skipped too; a dependency on a task the trace does
not have, or a cycle, is an error. With ``task_submit='workflow'`` every
task enters the queue at its workflow's submit time (the ``workflows``
table of a WTA trace, else its earliest task's).

Units: seconds, vCPUs (fractional allowed), memory in MB, disk in GB;
except ``google2011``, whose requests are normalised (see below).

Formats (``FORMATS``; ``auto`` asks :func:`detect_format`):

``csv``
    The canonical CSV, header required: ``id,submit_s,duration_s,vcpus,
    memory_mb,disk_gb,service_class,preemptible,constraints``. The last
    four columns may be left out or empty: disk 0, ``default_class``,
    not preemptible (true/false, yes/no, 1/0), no constraints
    (``key=value;key=value``; ``key!=value``, ``key<number`` and
    ``key>number`` too, see :mod:`preemptible_sched.constraints`). An
    empty ``duration_s`` runs until ``--until``. Optional SLA columns:
    ``sla_satisfaction,sla_reputation,sla_resources,sla_replicas``
    (``premium``, ``advanced`` or ``best_effort``, the four together or none),
    ``sequential_s`` (a moldable request: its cores are sized by the
    scheduler and it runs ``sequential_s / cores``; ``vcpus`` may then
    be empty and ``duration_s`` must be), ``user`` and ``expected_vcpus``
    (the cores the request declares it will use, at most ``vcpus``: the
    load-aware weighers take it instead of predicting). Unknown columns
    are an error: they are usually typos.
``alibaba``
    Alibaba GPU 2023 pod list (``openb_pod_list_*.csv``). vCPUs are
    ``cpu_milli / 1000``; ``memory_mib`` is taken as MB, the unit the
    scheduler accounts in; disk 0; the GPU columns are ignored. A pod is
    submitted at ``creation_time`` and runs ``deletion_time -
    scheduled_time`` (how long it ran in the real cluster; its wait is
    for the simulator to decide). Pods with no ``scheduled_time`` never
    ran and are skipped (in the default list: all 897 ``Pending`` pods of
    8,152); a pod with no ``deletion_time`` runs until ``--until``; a
    deletion before the scheduling is an error. ``qos`` gives the class
    through ``ALIBABA_CLASSES`` updated with ``class_map``.
``swf``
    Standard Workload Format (Parallel Workloads Archive), plain or
    gzipped: ``;`` comments, 18 whitespace-separated fields, -1 for
    unknown. id = job number; submit = submit time; duration = run time;
    vCPUs = allocated processors, or requested ones when unknown; memory
    = requested memory (KB per processor) x processors / 1024, else used
    memory likewise, else 0. Jobs with an unknown submit time, run time or
    processor count are skipped. Class: ``class_map`` by queue number (as
    written), else ``default_class``.
``gwf``
    Grid Workloads Archive, the comma-separated variant with the header
    ``WorkflowID, JobID, SubmitTime, RunTime, NProcs, ReqNProcs,
    Dependencies`` (padded fields; blank and ``#`` lines ignored). Each
    job is a request ``<WorkflowID>-<JobID>`` of workflow ``WorkflowID``;
    ``Dependencies`` lists, separated by spaces, the JobIDs of the same
    workflow it waits for. vCPUs = NProcs, or ReqNProcs when NProcs <= 0;
    memory 0; duration = RunTime (zero-length jobs are kept); jobs with
    -1 times are skipped. Class: ``default_class``.
``wta``
    Workflow Trace Archive (parquet), a directory with ``tasks/`` (and
    optionally ``workflows/`` and ``workload/``), read with pyarrow. A
    task (``id``, ``workflow_id``, ``ts_submit`` and ``runtime`` in
    milliseconds, ``resource_amount_requested`` cores, ``parents``) is a
    request ``<workflow_id>-<id>`` waiting for its ``parents``; times are
    converted to seconds. Tasks with a negative (unknown) submit time,
    run time or core count are skipped. ``workflows/`` (``id``,
    ``ts_submit``) gives the workflows' submit times; ``workload/`` is
    not read. Class: ``default_class``.
``google2011``
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

Hostile input: only regular files are read (a FIFO or a device is refused
before anything is read), of at most ``limits.MAX_TRACE_BYTES`` after
decompression and ``limits.MAX_TRACE_LINES`` lines, each of at most
``limits.MAX_LINE_BYTES``, in UTF-8.
Every number must be finite and within its bound: times and durations
within ``0..limits.MAX_TIME`` seconds, sizes within
``0..limits.MAX_RESOURCE`` (see :mod:`preemptible_sched.input_limits`).

In every CSV-like format, rows starting with ``#`` are comments. Only
``csv`` requests can be preemptible. Every problem raises
:class:`InvalidInput` naming the file and ``line N: field F`` (lines count
from 1, the header included). Skipped records are logged as a warning and
counted by :func:`read_workload_with_stats`.

The reading helpers (:func:`csv_rows`, :class:`Record`,
:func:`header_records`) are shared with :mod:`.infrastructure`.
"""

import collections
import csv
import dataclasses
import functools
import gzip
import logging
import math
import typing
import zlib

from preemptible_sched import constraints as constraint_language
from preemptible_sched import exception
from preemptible_sched import input_limits as limits
from preemptible_sched import objects
from preemptible_sched.service_classes import sla
from preemptible_sched.simulation import user_sampling
from preemptible_sched.simulation import workflows
from preemptible_sched.simulation import wta

LOG = logging.getLogger(__name__)

FORMATS = ('csv', 'alibaba', 'swf', 'gwf', 'google2011', 'wta')

#: Alibaba pod QoS -> service class; ``class_map`` adds or overrides.
ALIBABA_CLASSES = {'Guaranteed': 'gold', 'LS': 'silver',
                   'Burstable': 'silver', 'BE': 'bronze'}

_REQUIRED = object()


class Skipped(collections.Counter):
    """Records a reader skipped, by reason, and the ids of the skipped
    workflow tasks (their dependents are skipped too).
    """

    def __init__(self):
        super().__init__()
        self.ids = set()


@dataclasses.dataclass(frozen=True)
class WorkloadItem:
    """One request of a trace: when it arrives, how long it runs, its size.

    ``duration_s`` is the running time it needs (None: until the end of the
    simulation); ``priority`` is the trace's raw priority, when it has one.
    A workflow task names its ``workflow``, the ids of the items it
    ``depends_on`` and, when the trace gives it, ``workflow_submit_s``.
    """

    id: str
    submit_s: float
    duration_s: typing.Optional[float]
    resources: objects.Resources
    service_class: typing.Optional[str] = None
    preemptible: bool = False
    constraints: typing.Mapping[str, str] = dataclasses.field(
        default_factory=dict)
    priority: typing.Optional[float] = None
    #: SLA levels (objects.SLALevels), a moldable request's sequential
    #: run time and who submitted it (canonical CSV only)
    sla: typing.Optional[objects.SLALevels] = None
    sequential_s: typing.Optional[float] = None
    user: typing.Optional[str] = None
    #: the cores it declares it will use (canonical CSV only; None:
    #: undeclared, the load-aware weighers predict its use)
    expected_vcpus: typing.Optional[float] = None
    workflow: typing.Optional[str] = None
    depends_on: typing.Tuple[str, ...] = ()
    workflow_submit_s: typing.Optional[float] = None


# -- Reading helpers, shared with infrastructure ----------------------------

def lines(path, max_bytes=None):
    """Yield the lines of a text file, gunzipped when it ends in ``.gz``
    (UTF-8, a byte-order mark ignored).

    Only a regular file is read; more than ``max_bytes`` (default
    ``limits.MAX_TRACE_BYTES``, after decompression), a line longer than
    ``limits.MAX_LINE_BYTES``, a corrupt gzip stream or bytes that are not
    UTF-8 raise :class:`InvalidInput`.
    """
    if max_bytes is None:
        max_bytes = limits.MAX_TRACE_BYTES
    with limits.open_regular(path) as raw:
        stream = gzip.GzipFile(fileobj=raw, mode='rb') if str(
            path).endswith('.gz') else raw
        total = number = 0
        while True:
            try:
                line = stream.readline(limits.MAX_LINE_BYTES + 1)
            except (OSError, EOFError, zlib.error) as error:
                raise exception.InvalidInput(
                    path, 'line %d' % (number + 1), 'cannot read file: %s'
                    % limits.one_line(getattr(error, 'strerror', None) or
                                      error, 200)) from None
            if not line:
                return
            number += 1
            total += len(line)
            if number > limits.MAX_TRACE_LINES:
                raise exception.InvalidInput(
                    path, 'line %d' % number, 'more than %d lines'
                    % limits.MAX_TRACE_LINES)
            if total > max_bytes:
                raise exception.InvalidInput(
                    path, 'line %d' % number, 'file too large: more than '
                    '%d bytes' % max_bytes)
            if len(line) > limits.MAX_LINE_BYTES:
                raise exception.InvalidInput(
                    path, 'line %d' % number, 'line longer than %d bytes'
                    % limits.MAX_LINE_BYTES)
            if number == 1 and line.startswith(b'\xef\xbb\xbf'):
                line = line[3:]
            try:
                text = line.decode('utf-8')
            except UnicodeDecodeError as error:
                raise exception.InvalidInput(
                    path, 'line %d' % number, 'not UTF-8 text: byte 0x%02x '
                    'at column %d' % (line[error.start], error.start + 1)
                ) from None
            yield text


def csv_rows(path, max_bytes=None):
    """Yield ``(line number, stripped fields)`` of each non-blank row."""
    reader = csv.reader(lines(path, max_bytes))
    try:
        for fields in reader:
            fields = [field.strip() for field in fields]
            if any(fields):
                yield reader.line_num, fields
    except csv.Error as error:
        raise exception.InvalidInput(
            path, 'line %d' % reader.line_num, 'malformed CSV: %s'
            % limits.one_line(error, 200)) from None


def first_row(path, comment='#'):
    """The fields of the first row that is not a comment, or None."""
    rows = csv_rows(path)
    try:
        for _, fields in rows:
            if not fields[0].startswith(comment):
                return fields
        return None
    finally:
        rows.close()


def column_key(name):
    """How header names are matched: no case, single inner spaces."""
    return ' '.join(name.split()).lower()


def is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


class Record:
    """One row of a trace by column, able to say where it came from.

    ``names`` maps a column key to the name the file spells it with, so
    errors quote the header.
    """

    def __init__(self, path, line, values, names=None):
        self.path = path
        self.line = line
        self.values = values
        self.names = names or {}

    def error(self, column, message):
        where = 'line %d' % self.line
        if column:
            where += ': field %s' % self.names.get(column, column)
        return exception.InvalidInput(self.path, where, message)

    def text(self, column, required=False):
        text = self.values.get(column, '')
        if required and not text:
            raise self.error(column, 'missing value')
        return text

    def number(self, column, default=_REQUIRED, minimum=0.0,
               maximum=limits.MAX_TIME):
        """The column as a finite float in ``minimum..maximum``;
        ``default`` if empty (no default: the value is required).
        """
        text = self.values.get(column, '')
        if not text:
            if default is _REQUIRED:
                raise self.error(column, 'missing value')
            return default
        value = float(text) if is_number(text) else math.nan
        if not math.isfinite(value):
            raise self.error(column, '%s is not a number'
                             % limits.one_line(repr(text), 60))
        if minimum is not None and value < minimum:
            raise self.error(column, 'must be >= %g, got %s'
                             % (minimum, limits.one_line(text, 60)))
        if maximum is not None and value > maximum:
            raise self.error(column, 'must be <= %g, got %s'
                             % (maximum, limits.one_line(text, 60)))
        return value

    def size(self, column, default=_REQUIRED, scale=1.0):
        """A size (vCPUs, MB, GB) in ``0..limits.MAX_RESOURCE``, given in
        units ``scale`` times smaller (``cpu_milli``: 1000).
        """
        return self.number(column, default,
                           maximum=limits.MAX_RESOURCE * scale)

    def pairs(self, column):
        """The column as ``key=value;key=value`` (empty: no pairs)."""
        pairs = {}
        for pair in filter(None, (p.strip() for p in
                                  self.text(column).split(';'))):
            key, sep, value = pair.partition('=')
            if not sep or not key.strip():
                raise self.error(column, 'expected key=value;key=value, '
                                 'got %r' % pair)
            pairs[key.strip()] = value.strip()
        return pairs

    def constraints(self, column):
        """The column as constraints ``k=v;k!=v;k<v;k>v`` (see
        :mod:`preemptible_sched.constraints`; empty: none).
        """
        try:
            return constraint_language.parse(self.text(column))
        except constraint_language.BadConstraint as error:
            raise self.error(column, str(error)) from None

    def identifier(self, column, seen):
        """The column's text, required and not in ``seen`` (id -> line),
        which it is added to.
        """
        value = self.text(column, required=True)
        if value in seen:
            raise self.error(column, 'duplicate id %r (first on line %d)'
                             % (value, seen[value]))
        seen[value] = self.line
        return value


def header_records(path, required, optional=(), strict=False, comment='#',
                   max_bytes=None):
    """Yield a :class:`Record` per data row of a CSV file with a header.

    Columns are keyed by :func:`column_key`. A missing ``required`` column
    is an error on the header line, and so is a column named twice (as
    :func:`column_key` reads the names); with ``strict`` so is a column
    neither required nor ``optional``. Rows starting with ``comment`` are
    skipped.
    """
    header = None
    for line, fields in csv_rows(path, max_bytes):
        if fields[0].startswith(comment):
            continue
        if header is None:
            header = [column_key(field) for field in fields]
            names = dict(zip(header, fields))
            _check_header(path, line, header, names, required, optional,
                          strict)
            continue
        if len(fields) != len(header):
            raise exception.InvalidInput(
                path, 'line %d' % line, 'expected %d fields as in the '
                'header, found %d' % (len(header), len(fields)))
        yield Record(path, line, dict(zip(header, fields)), names)
    if header is None:
        raise exception.InvalidInput(path, None, 'empty file: no header')


def _check_header(path, line, header, names, required, optional, strict):
    first = {}
    for index, column in enumerate(header):
        if column in first:
            # Else the last of the two would win, silently.
            raise exception.InvalidInput(
                path, 'line %d: field %s' % (line, limits.one_line(
                    names[column], 60)), 'duplicate column (also field %d)'
                % (first[column] + 1))
        first[column] = index
    for column in header:
        if strict and column not in required and column not in optional:
            raise exception.InvalidInput(
                path, 'line %d: field %s' % (line, names[column]),
                'unknown column (known: %s)'
                % ', '.join(tuple(required) + tuple(optional)))
    for column in required:
        if column not in header:
            raise exception.InvalidInput(
                path, 'line %d: field %s' % (line, column),
                'missing required column')


def positional_records(path, columns, what, max_bytes=None):
    """Yield a :class:`Record` per row of a CSV file whose fields are
    ``columns`` in order (as in the Google traces); a first row that does
    not start with a number is a header row and is skipped. ``what`` names
    the table in errors.
    """
    for index, (line, fields) in enumerate(csv_rows(path, max_bytes)):
        if index == 0 and not is_number(fields[0]):
            continue
        if len(fields) != len(columns):
            raise exception.InvalidInput(
                path, 'line %d' % line, 'expected %d %s fields, found %d'
                % (len(columns), what, len(fields)))
        yield Record(path, line, dict(zip(columns, fields)))


def _check_numbers(record, columns):
    """Check that the columns not read otherwise hold finite numbers (or
    nothing): a NaN is refused even where it would change nothing.
    """
    for column in columns:
        record.number(column, default=None, minimum=None)


def _known(record, column, maximum=limits.MAX_TIME):
    """An archive number where -1 means unknown: None for -1."""
    value = record.number(column, minimum=None, maximum=maximum)
    if value == -1:
        return None
    if value < 0:
        raise record.error(column, 'must be >= 0 or -1 (unknown), got %s'
                           % record.text(column))
    return value


# -- Format readers: yield WorkloadItems in file order ----------------------

_CSV_REQUIRED = ('id', 'submit_s', 'duration_s', 'vcpus', 'memory_mb')
_CSV_OPTIONAL = ('disk_gb', 'service_class', 'preemptible', 'constraints',
                 'sla_satisfaction', 'sla_reputation', 'sla_resources',
                 'sla_replicas', 'sequential_s', 'user', 'expected_vcpus')
#: The SLA service of each SLA column of the canonical CSV.
_SLA_COLUMNS = {'satisfaction_time': 'sla_satisfaction',
                'reputation': 'sla_reputation',
                'resources': 'sla_resources', 'replicas': 'sla_replicas'}
_BOOLEANS = {'': False, 'false': False, 'no': False, '0': False,
             'true': True, 'yes': True, '1': True}


def _read_csv(path, class_map, default_class, skipped):
    seen = {}
    for record in header_records(path, _CSV_REQUIRED, _CSV_OPTIONAL,
                                 strict=True):
        flag = record.text('preemptible').lower()
        if flag not in _BOOLEANS:
            raise record.error('preemptible', 'expected true/false, yes/no '
                               'or 1/0, got %r' % record.text('preemptible'))
        sequential = record.number('sequential_s', default=None)
        duration = record.number('duration_s', default=None)
        if sequential is not None and duration is not None:
            raise record.error('duration_s', 'a moldable request (with '
                               'sequential_s) runs sequential_s / cores: '
                               'leave duration_s empty')
        levels = _sla_levels(record)
        vcpus = record.size('vcpus', default=_REQUIRED if sequential is None
                            else 0.0)
        if sequential is not None and levels is None and not vcpus:
            raise record.error('vcpus', 'a moldable request without SLA '
                               'levels runs on the vCPUs it gives: '
                               'must be > 0')
        yield WorkloadItem(
            id=record.identifier('id', seen),
            submit_s=record.number('submit_s'),
            duration_s=duration,
            resources=objects.Resources(
                vcpus, record.size('memory_mb'),
                record.size('disk_gb', default=0.0)),
            service_class=record.text('service_class') or default_class,
            preemptible=_BOOLEANS[flag],
            constraints=record.constraints('constraints'),
            sla=levels, sequential_s=sequential,
            user=record.text('user') or None,
            expected_vcpus=_expected_vcpus(record, vcpus))


def _expected_vcpus(record, vcpus):
    """The cores a request of ``vcpus`` declares it will use, or None."""
    expected = record.number('expected_vcpus', default=None)
    if expected is None:
        return None
    if not expected > 0:
        raise record.error('expected_vcpus', 'must be > 0, got %s'
                           % record.text('expected_vcpus'))
    if vcpus and expected > vcpus:
        raise record.error('expected_vcpus', 'declares %g cores for a '
                           'request of %g vCPUs' % (expected, vcpus))
    return expected


def _sla_levels(record):
    return sla.levels(
        {service: record.text(column)
         for service, column in _SLA_COLUMNS.items()},
        record.path, lambda service: 'line %d: field %s' % (
            record.line, record.names.get(_SLA_COLUMNS[service],
                                          _SLA_COLUMNS[service])))


_ALIBABA_REQUIRED = ('name', 'cpu_milli', 'memory_mib', 'qos',
                     'creation_time', 'deletion_time', 'scheduled_time')


def _read_alibaba(path, class_map, default_class, skipped):
    classes = dict(ALIBABA_CLASSES, **class_map)
    seen = {}
    for record in header_records(path, _ALIBABA_REQUIRED):
        _check_numbers(record, ('num_gpu', 'gpu_milli'))
        name = record.identifier('name', seen)
        resources = objects.Resources(
            record.size('cpu_milli', scale=1000) / 1000,
            record.size('memory_mib'))
        qos = record.text('qos', required=True)
        if qos not in classes:
            raise record.error('qos', 'no service class for QoS %r (known: '
                               '%s); map it with class_map'
                               % (qos, ', '.join(sorted(classes))))
        creation = record.number('creation_time')
        scheduled = record.number('scheduled_time', default=None)
        deletion = record.number('deletion_time', default=None)
        if scheduled is None:
            skipped['never scheduled'] += 1
            continue
        if deletion is not None and deletion < scheduled:
            raise record.error('deletion_time', 'before scheduled_time '
                               '(%s)' % record.text('scheduled_time'))
        yield WorkloadItem(
            id=name, submit_s=creation,
            duration_s=None if deletion is None else deletion - scheduled,
            resources=resources, service_class=classes[qos])


_SWF_FIELDS = ('job_number', 'submit_time', 'wait_time', 'run_time',
               'allocated_processors', 'average_cpu_time', 'used_memory',
               'requested_processors', 'requested_time', 'requested_memory',
               'status', 'user_id', 'group_id', 'executable', 'queue',
               'partition', 'preceding_job', 'think_time')


def _read_swf(path, class_map, default_class, skipped):
    seen = {}
    for line, text in enumerate(lines(path), start=1):
        fields = text.split()
        if not fields or fields[0].startswith(';'):
            continue
        if len(fields) != len(_SWF_FIELDS):
            raise exception.InvalidInput(
                path, 'line %d' % line, 'expected %d whitespace-separated '
                'fields, found %d' % (len(_SWF_FIELDS), len(fields)))
        record = Record(path, line, dict(zip(_SWF_FIELDS, fields)))
        # Every SWF field is a number (-1: unknown), even those not used.
        _check_numbers(record, _SWF_FIELDS)
        job = record.identifier('job_number', seen)
        submit = _known(record, 'submit_time')
        run_time = _known(record, 'run_time')
        procs = _known(record, 'allocated_processors', limits.MAX_RESOURCE)
        if procs is None:
            procs = _known(record, 'requested_processors',
                           limits.MAX_RESOURCE)
        memory_kb = _known(record, 'requested_memory',
                           limits.MAX_RESOURCE * 1024) or _known(
            record, 'used_memory', limits.MAX_RESOURCE * 1024) or 0.0
        if submit is None or run_time is None or procs is None:
            skipped['unknown submit time, run time or processors'] += 1
            continue
        memory_mb = memory_kb * procs / 1024
        if memory_mb > limits.MAX_RESOURCE:
            raise record.error('requested_memory', 'memory x processors is '
                               '%g MB, more than %g' % (
                                   memory_mb, limits.MAX_RESOURCE))
        yield WorkloadItem(
            id=job, submit_s=submit, duration_s=run_time,
            resources=objects.Resources(procs, memory_mb),
            service_class=class_map.get(record.text('queue'),
                                        default_class))


_GWF_REQUIRED = ('workflowid', 'jobid', 'submittime', 'runtime', 'nprocs')


def _read_gwf(path, class_map, default_class, skipped):
    seen = {}
    for record in header_records(path, _GWF_REQUIRED, comment='#'):
        _check_numbers(record, ('reqnprocs',))
        ids = '%s-%s' % (record.text('workflowid', required=True),
                         record.text('jobid', required=True))
        if ids in seen:
            raise record.error('jobid', 'duplicate job %r (first on line '
                               '%d)' % (ids, seen[ids]))
        seen[ids] = record.line
        submit = _known(record, 'submittime')
        run_time = _known(record, 'runtime')
        procs = _known(record, 'nprocs', limits.MAX_RESOURCE)
        if not procs and record.text('reqnprocs'):
            procs = _known(record, 'reqnprocs', limits.MAX_RESOURCE) or None
        workflow = record.text('workflowid')
        depends_on = []
        for job in record.text('dependencies').split():
            if not is_number(job) and not job.isidentifier():
                raise record.error('dependencies', 'expected JobIDs '
                                   'separated by spaces, got %r' % job)
            depends_on.append('%s-%s' % (workflow, job))
        if submit is None or run_time is None or not procs:
            skipped['unknown submit time, run time or processors'] += 1
            skipped.ids.add(ids)
            continue
        yield WorkloadItem(id=ids, submit_s=submit, duration_s=run_time,
                           resources=objects.Resources(procs, 0.0),
                           service_class=default_class, workflow=workflow,
                           depends_on=tuple(depends_on))


def _read_wta(path, class_map, default_class, skipped):
    for task in wta.read_tasks(path):
        ids = '%s-%s' % (task.workflow, task.id)
        if task.submit_s < 0 or task.runtime_s < 0 or task.cores <= 0:
            skipped['unknown submit time, run time or processors'] += 1
            skipped.ids.add(ids)
            continue
        yield WorkloadItem(
            id=ids, submit_s=task.submit_s, duration_s=task.runtime_s,
            resources=objects.Resources(task.cores, 0.0),
            service_class=default_class, workflow=task.workflow,
            depends_on=tuple('%s-%s' % (task.workflow, parent)
                             for parent in task.parents),
            workflow_submit_s=task.workflow_submit_s)


_GOOGLE_FIELDS = ('timestamp', 'missing info', 'job ID', 'task index',
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

    item: WorkloadItem
    scheduled: typing.Optional[float] = None
    ended: typing.Optional[float] = None
    died_pending: bool = False


def _read_google(path, class_map, default_class, skipped,
                 constraints_path=None):
    tasks = {}     # (job ID, task index) -> _Task
    orphans = set()
    for record in positional_records(path, _GOOGLE_FIELDS, 'task_events'):
        key = (record.text('job ID', required=True),
               record.text('task index', required=True))
        _check_numbers(record, _GOOGLE_NUMBERS)
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
    return WorkloadItem(
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
    for record in positional_records(path, _CONSTRAINT_FIELDS,
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


_READERS = {'csv': _read_csv, 'alibaba': _read_alibaba, 'swf': _read_swf,
            'gwf': _read_gwf, 'google2011': _read_google,
            'wta': _read_wta}

# Columns (as column keys) that tell each CSV-like format; the reader then
# reports any other column missing.
_HEADERS = (('csv', {'id', 'submit_s'}),
            ('alibaba', {'name', 'qos', 'creation_time'}),
            ('google2011', {'jobid', 'event type', 'priority'}),
            ('gwf', {'workflowid', 'jobid'}))


def detect_format(path):
    """The format of the workload at ``path``, by extension or header.

    ``.swf``/``.swf.gz`` is swf, ``.gwf`` gwf and a directory with a
    ``tasks`` folder wta; otherwise the first row that is not a ``#``
    comment decides: a ``;`` comment is swf, a known header names its
    format, and 13 fields starting with numbers are a header-less Google
    ``task_events`` file.
    """
    if wta.is_trace(path):
        return 'wta'
    name = path.lower()
    name = name[:-3] if name.endswith('.gz') else name
    if name.endswith('.swf'):
        return 'swf'
    if name.endswith('.gwf'):
        return 'gwf'
    fields = first_row(path) or ['']
    if fields[0].startswith(';'):
        return 'swf'
    columns = {column_key(field) for field in fields}
    for fmt, header in _HEADERS:
        if header <= columns:
            return fmt
    if len(fields) == len(_GOOGLE_FIELDS) and all(
            fields[i].isdigit() for i in (0, 2, 3, 5)):
        return 'google2011'
    raise exception.InvalidInput(path, None, 'cannot tell the workload '
                                 'format; give --workload-format')


def read_workload_with_stats(path, fmt='auto', class_map=None,
                             default_class=None, limit=None,
                             time_origin='first_request', task_submit='task',
                             task_constraints=None, sample_users=0,
                             sample_share=1.0, sample_seed=0):
    """:func:`read_workload`, and what was read: ``{'format': fmt,
    'requests': requests before the limit, 'skipped': {reason: count}}``,
    and with user sampling ``'user_sampling'``
    (:func:`.user_sampling.sample`'s stats).
    """
    if fmt == 'auto':
        fmt = detect_format(path)
    elif fmt not in FORMATS:
        raise exception.InvalidInput(
            '--workload-format', None, 'unknown format %r (valid: auto, %s)'
            % (fmt, ', '.join(FORMATS)))
    if limit is not None and limit < 1:
        raise exception.InvalidInput('limit', None,
                                     'must be >= 1, got %r' % limit)
    reader = _READERS[fmt]
    if task_constraints is not None:
        if fmt != 'google2011':
            raise exception.InvalidInput(
                task_constraints, None, 'task_constraints go with a '
                'google2011 workload, not a %s one' % fmt)
        reader = functools.partial(_read_google,
                                   constraints_path=task_constraints)
    skipped = Skipped()
    items = list(reader(path, class_map or {}, default_class, skipped))
    items = workflows.close_dependencies(path, items, skipped.ids, skipped)
    sampled = None
    if sample_users:
        kept, sampled = user_sampling.sample(items, sample_users,
                                             sample_share, sample_seed)
        LOG.info('%s: kept %d of %d users (%d of %d requests); by '
                 'cluster, kept/users: %s', path, sampled['kept_users'],
                 sampled['users'], len(kept), len(items), ', '.join(
                     '%(kept)d/%(users)d' % c for c in sampled['clusters']))
        left_out = {item.id for item in items} - {item.id for item in kept}
        items = workflows.close_dependencies(path, kept, left_out,
                                             collections.Counter())
    if task_submit == 'workflow':
        items = workflows.at_workflow_submit(items)
    items.sort(key=lambda item: item.submit_s)
    if limit is not None and limit < len(items):
        kept = workflows.close_dependencies(path, items[:limit],
                                            {item.id for item in
                                             items[limit:]},
                                            collections.Counter())
        dropped = limit - len(kept)
    else:
        kept, dropped = items, 0
    reasons = ', '.join('%d %s' % (count, reason)
                        for reason, count in sorted(skipped.items()))
    if not items:
        raise exception.InvalidInput(path, None, 'no requests to replay%s'
                                     % (' (skipped: %s)' % reasons
                                        if reasons else ''))
    if skipped:
        LOG.warning('%s: skipped %s', path, reasons)
    if dropped:
        LOG.warning('%s: %d task(s) of the first %d depend on tasks beyond '
                    'the limit and are left out', path, dropped, limit)
    stats = {'format': fmt, 'requests': len(items), 'skipped': dict(skipped)}
    if sampled is not None:
        stats['user_sampling'] = sampled
    if time_origin == 'trace':
        if items[0].submit_s < 0:
            raise exception.InvalidInput(
                path, None, 'request %s is submitted at %g s: negative '
                'times cannot be kept ([replay] time_origin = trace)'
                % (items[0].id, items[0].submit_s))
        return kept, stats
    start = items[0].submit_s
    return [dataclasses.replace(
        item, submit_s=item.submit_s - start,
        workflow_submit_s=None if item.workflow_submit_s is None
        else item.workflow_submit_s - start) for item in kept], stats


def read_workload(path, fmt='auto', class_map=None, default_class=None,
                  limit=None, time_origin='first_request', task_submit='task',
                  task_constraints=None, sample_users=0, sample_share=1.0,
                  sample_seed=0):
    """The requests of the trace at ``path``, sorted, first at 0 s.

    ``fmt`` is one of ``FORMATS`` or ``auto``; ``class_map`` maps the
    trace's classes (Alibaba QoS, SWF queue, Google priority, as written)
    to service classes; ``default_class`` is the class of requests the
    trace gives none (canonical CSV, SWF, GWF); ``limit`` keeps the first
    N requests; ``time_origin`` (``first_request`` or ``trace``) and
    ``task_submit`` (``task`` or ``workflow``) are those of ``[replay]``.
    ``task_constraints`` is a Google ``task_constraints`` file for a
    ``google2011`` workload (:func:`task_constraints`). ``sample_users``
    clusters (0: no sampling) keep ``sample_share`` of each cluster's
    users, drawn with ``sample_seed`` (:mod:`.user_sampling`), before the
    limit. Raises :class:`InvalidInput` on any problem.
    """
    return read_workload_with_stats(
        path, fmt, class_map, default_class, limit, time_origin,
        task_submit, task_constraints, sample_users, sample_share,
        sample_seed)[0]
