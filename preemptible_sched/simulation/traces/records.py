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

"""What every trace reader shares: the requests and the reading helpers.

A reader yields :class:`WorkloadItem` requests in file order and counts
what it skips in a :class:`Skipped`.

Hostile input: only regular files are read (a FIFO or a device is refused
before anything is read), of at most ``limits.MAX_TRACE_BYTES`` after
decompression and ``limits.MAX_TRACE_LINES`` lines, each of at most
``limits.MAX_LINE_BYTES``, in UTF-8.
Every number must be finite and within its bound: times and durations
within ``0..limits.MAX_TIME`` seconds, sizes within
``0..limits.MAX_RESOURCE`` (see :mod:`preemptible_sched.input_limits`).

In every CSV-like format, rows starting with ``#`` are comments. Every
problem raises :class:`InvalidInput` naming the file and ``line N: field
F`` (lines count from 1, the header included).

The reading helpers (:func:`csv_rows`, :class:`Record`,
:func:`header_records`) are shared with :mod:`..infrastructure`.
"""

import collections
import csv
import dataclasses
import gzip
import math
import typing
import zlib

from preemptible_sched import constraints as constraint_language
from preemptible_sched import exception
from preemptible_sched import input_limits as limits
from preemptible_sched.input_limits import regular_files
from preemptible_sched import objects

#: The default of a value that has none: it is required.
REQUIRED = object()


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
    with regular_files.open_regular(path) as raw:
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

    def number(self, column, default=REQUIRED, minimum=0.0,
               maximum=limits.MAX_TIME):
        """The column as a finite float in ``minimum..maximum``;
        ``default`` if empty (no default: the value is required).
        """
        text = self.values.get(column, '')
        if not text:
            if default is REQUIRED:
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

    def size(self, column, default=REQUIRED, scale=1.0):
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


def check_numbers(record, columns):
    """Check that the columns not read otherwise hold finite numbers (or
    nothing): a NaN is refused even where it would change nothing.
    """
    for column in columns:
        record.number(column, default=None, minimum=None)


def known(record, column, maximum=limits.MAX_TIME):
    """An archive number where -1 means unknown: None for -1."""
    value = record.number(column, minimum=None, maximum=maximum)
    if value == -1:
        return None
    if value < 0:
        raise record.error(column, 'must be >= 0 or -1 (unknown), got %s'
                           % record.text(column))
    return value
