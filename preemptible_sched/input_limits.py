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

"""Bounds on untrusted input, and the checks that enforce them.

Every parser of the package (scenario files, workloads, traces,
infrastructure files, command-line options, RPC payloads) takes its limits
from here, so a value accepted by one way in is accepted by all of them.
Each check raises :class:`~preemptible_sched.exception.InvalidInput` naming
the source (a file, an option, a message) and the field, with a one-line
message; none of them lets any other exception out for any input.

The limits:

``MAX_INPUT_BYTES``
    Largest file read (scenario, workload, trace, infrastructure): 64 MiB.
``MAX_NESTING``
    Deepest nesting of lists and mappings in a parsed document.
``MAX_NODES``
    Most values (scalars, lists, mappings) in one parsed document, counted
    through YAML aliases (so a "billion laughs" document is refused).
``MAX_INSTANCES_PER_REQUEST``
    Most instances in one request (``num_instances``).
``MAX_RESOURCE``
    Largest value of one size field (vCPUs, MiB of memory, GiB of disk,
    reserved amounts), far beyond any real host.
``MAX_TRACE_BYTES``
    Largest workload trace read (after decompression): real traces are
    bigger than scenarios (a part of the Google 2011 ``task_events`` is
    some 30 MB, the largest SWF logs some 100 MB), but a gzip bomb is not.
``MAX_TRACE_LINES``
    Most lines (blank ones included) of a CSV-like file.
``MAX_LINE_BYTES``
    Longest line of a CSV-like file (trace, infrastructure).
``MAX_PRIORITY``
    Largest priority of a request or instance.
``MAX_TIME``
    Largest time or duration in seconds (some 317,000 years: the Google
    2011 trace's "after the end of the trace" time, 2**63 - 1 microseconds,
    still fits).
``MAX_HOSTS``
    Most hosts in a simulation or infrastructure file.
``MAX_COUNT``
    Largest count of anything else (requests kept, runs, repetitions).
``MAX_SEED``
    Largest random seed (seeds are integers in ``0..MAX_SEED``).
``MAX_FACTOR``
    Largest multiplier, ratio or scale factor.
``MAX_SIZE_FACTOR``
    Largest ``--size-factor``: a cloud that many times its peak demand.
"""

import json
import math
import os
import stat

from preemptible_sched import exception

#: Largest input file read, in bytes (64 MiB).
MAX_INPUT_BYTES = 64 * 1024 * 1024
#: Deepest nesting of lists and mappings in a parsed document.
MAX_NESTING = 32
#: Most values in one parsed document, YAML aliases expanded.
MAX_NODES = 2 * 1000 * 1000
#: Most instances in one request (``num_instances``).
MAX_INSTANCES_PER_REQUEST = 1000
#: Largest value of one size field (vCPUs, MiB, GiB).
MAX_RESOURCE = 1e9
#: Largest workload trace read, in bytes, after decompression (256 MiB).
MAX_TRACE_BYTES = 256 * 1024 * 1024
#: Most lines of a CSV-like file, blank ones included.
MAX_TRACE_LINES = 10 * 1000 * 1000
#: Longest line of a CSV-like file, in bytes (1 MiB).
MAX_LINE_BYTES = 1024 * 1024
#: Largest priority of a request or instance.
MAX_PRIORITY = 1e9
#: Largest time or duration, in seconds.
MAX_TIME = 1e13
#: Most hosts in a simulation or an infrastructure file.
MAX_HOSTS = 100 * 1000
#: Largest count of requests kept, runs, repetitions and the like.
MAX_COUNT = 1000 * 1000
#: Largest random seed.
MAX_SEED = 2 ** 32 - 1
#: Largest multiplier, ratio or scale factor.
MAX_FACTOR = 1e6
#: Largest ``--size-factor`` (multiple of a workload's peak demand).
MAX_SIZE_FACTOR = 1000.0
#: Longest error message printed, in characters.
MAX_MESSAGE = 500


def _shown(value, limit=60):
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + '...'


def one_line(text, limit=MAX_MESSAGE):
    """``text`` with control characters escaped, on one line, shortened.

    For error messages that quote user input (a host name with a newline
    in it must not split the message over two lines).
    """
    text = str(text)
    out = []
    for char in text:
        if char == '\\' or char.isprintable() or char == ' ':
            out.append(char)
        else:
            out.append(char.encode('unicode_escape',
                                   'backslashreplace').decode('ascii'))
    text = ''.join(out)
    if len(text) > limit:
        text = text[:limit - 3] + '...'
    return text


def finite_number(value, source, field, minimum=None, maximum=None,
                  exclusive_minimum=False):
    """``value`` as a finite float within bounds, else InvalidInput.

    Accepts ``int`` and ``float`` (never ``bool``, never a string); an
    integer too large for a float, NaN and the infinities are refused.
    ``minimum``/``maximum`` are inclusive unless ``exclusive_minimum``.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise exception.InvalidInput(
            source, field, 'expected a number, got %s' % _shown(value))
    try:
        number = float(value)
    except OverflowError:
        raise exception.InvalidInput(source, field,
                                     'number too large: %s' % _shown(value))
    if not math.isfinite(number):
        raise exception.InvalidInput(
            source, field, 'expected a finite number, got %s' % number)
    if minimum is not None:
        if number < minimum or (exclusive_minimum and number == minimum):
            raise exception.InvalidInput(
                source, field, 'must be %s %g, got %s' % (
                    '>' if exclusive_minimum else '>=', minimum,
                    _shown(value)))
    if maximum is not None and number > maximum:
        raise exception.InvalidInput(
            source, field, 'must be <= %g, got %s' % (maximum,
                                                      _shown(value)))
    return number


def integer(value, source, field, minimum=None, maximum=None):
    """``value`` as an ``int`` within bounds, else InvalidInput.

    Only a true ``int`` passes: ``True``, ``2.0`` and ``"2"`` are refused.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise exception.InvalidInput(
            source, field, 'expected an integer, got %s' % _shown(value))
    if minimum is not None and value < minimum:
        raise exception.InvalidInput(
            source, field, 'must be >= %s, got %s' % (minimum,
                                                      _shown(value)))
    if maximum is not None and value > maximum:
        raise exception.InvalidInput(
            source, field, 'must be <= %s, got %s' % (maximum,
                                                      _shown(value)))
    return value


def positive_int(value, source, field, maximum=MAX_COUNT):
    """``value`` as an ``int`` in ``1..maximum``, else InvalidInput."""
    return integer(value, source, field, minimum=1, maximum=maximum)


def resource(value, source, field, maximum=MAX_RESOURCE):
    """A size (vCPUs, MiB, GiB): a finite float in ``0..maximum``."""
    return finite_number(value, source, field, minimum=0, maximum=maximum)


def parse_number(text, source, field, minimum=None, maximum=None,
                 exclusive_minimum=False):
    """A command-line or text value as a finite float within bounds.

    ``text`` may already be a number. ``nan``, ``inf`` and anything
    ``float()`` does not take are refused with InvalidInput.
    """
    if isinstance(text, str):
        try:
            value = float(text.strip())
        except ValueError:
            raise exception.InvalidInput(
                source, field, 'expected a number, got %s' % _shown(text))
    else:
        value = text
    return finite_number(value, source, field, minimum=minimum,
                         maximum=maximum,
                         exclusive_minimum=exclusive_minimum)


def open_regular(path, source_name=None):
    """``path`` opened for reading in binary, if it is a regular file.

    FIFOs, devices, sockets and directories are refused with InvalidInput
    before anything is read, and opening never blocks (a FIFO with no
    writer). The caller closes the file (``with``).
    """
    source = path if source_name is None else source_name
    flags = os.O_RDONLY | getattr(os, 'O_NONBLOCK', 0) | getattr(
        os, 'O_CLOEXEC', 0)
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            raise exception.InvalidInput(
                source, None, 'not a regular file (%s)' % _kind(info))
        fd = os.open(path, flags)
    except (OSError, ValueError, TypeError) as error:
        raise exception.InvalidInput(source, None, 'cannot read file: %s' % (
            getattr(error, 'strerror', None) or error))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise exception.InvalidInput(
                source, None, 'not a regular file (%s)' % _kind(info))
        # Back to blocking reads: a regular file never blocks anyway.
        os.set_blocking(fd, True)
        return os.fdopen(fd, 'rb')
    except BaseException:
        os.close(fd)
        raise


def read_bounded_bytes(path, source_name=None, max_bytes=MAX_INPUT_BYTES):
    """The bytes of the regular file at ``path``, at most ``max_bytes``.

    FIFOs, devices, sockets and directories are refused before anything
    is read (opening never blocks), so is a file larger than
    ``max_bytes``; ``source_name`` (default ``path``) names the file in
    the error.
    """
    source = path if source_name is None else source_name
    with open_regular(path, source) as stream:
        try:
            size = os.fstat(stream.fileno()).st_size
            if size > max_bytes:
                raise exception.InvalidInput(
                    source, None, 'file too large: %d bytes (limit %d)' % (
                        size, max_bytes))
            data = stream.read(max_bytes + 1)
        except OSError as error:
            raise exception.InvalidInput(
                source, None, 'cannot read file: %s' % (error.strerror or
                                                        error))
    if len(data) > max_bytes:
        raise exception.InvalidInput(
            source, None, 'file too large: more than %d bytes' % max_bytes)
    return data


def _kind(info):
    mode = info.st_mode
    for test, name in ((stat.S_ISDIR, 'a directory'),
                       (stat.S_ISFIFO, 'a FIFO'),
                       (stat.S_ISCHR, 'a character device'),
                       (stat.S_ISBLK, 'a block device'),
                       (stat.S_ISSOCK, 'a socket')):
        if test(mode):
            return name
    return 'not a plain file'


def decode_text(data, source):
    """``data`` (bytes) decoded as UTF-8 (a leading BOM is dropped)."""
    try:
        return data.decode('utf-8-sig')
    except UnicodeDecodeError as error:
        line = data.count(b'\n', 0, error.start) + 1
        raise exception.InvalidInput(
            source, 'line %d' % line, 'not UTF-8 text: byte 0x%02x at '
            'offset %d' % (data[error.start], error.start))


def read_bounded_text(path, source_name=None, max_bytes=MAX_INPUT_BYTES):
    """The text of the regular UTF-8 file at ``path`` (see above)."""
    source = path if source_name is None else source_name
    return decode_text(read_bounded_bytes(path, source, max_bytes), source)


def _field(parts):
    text = ''
    for part in parts:
        text += '[%d]' % part if isinstance(part, int) else (
            '.%s' % part if text else str(part))
    return one_line(text or '(top level)', 120)


def check_tree(data, source, max_depth=MAX_NESTING, max_nodes=MAX_NODES):
    """Check a parsed JSON/YAML document is plain, finite and bounded.

    Plain: only mappings with string keys, lists, strings (valid Unicode,
    no lone surrogates), ``int``, ``float``, ``bool`` and ``None``.
    Finite: no NaN or infinity, no integer beyond the float range.
    Bounded: nesting at most ``max_depth``, at most ``max_nodes`` values
    counted through shared references (YAML aliases). Iterative: no
    recursion, whatever the depth. Returns ``data``.
    """
    stack = [(data, 0, ())]
    count = 0
    while stack:
        value, depth, where = stack.pop()
        count += 1
        if count > max_nodes:
            raise exception.InvalidInput(
                source, None, 'document too large: more than %d values '
                '(YAML aliases count each time they are used)' % max_nodes)
        if isinstance(value, dict):
            if depth >= max_depth:
                raise exception.InvalidInput(
                    source, _field(where[:4]) + '...',
                    'nested too deeply (limit %d levels)' % max_depth)
            for key, item in value.items():
                if not isinstance(key, str):
                    raise exception.InvalidInput(
                        source, _field(where),
                        'keys must be strings, got %s' % _shown(key))
                _check_string(key, source, where)
                stack.append((item, depth + 1, where + (key,)))
        elif isinstance(value, list):
            if depth >= max_depth:
                raise exception.InvalidInput(
                    source, _field(where[:4]) + '...',
                    'nested too deeply (limit %d levels)' % max_depth)
            for index, item in enumerate(value):
                stack.append((item, depth + 1, where + (index,)))
        elif isinstance(value, str):
            _check_string(value, source, where)
        elif isinstance(value, bool) or value is None:
            pass
        elif isinstance(value, (int, float)):
            finite_number(value, source, _field(where))
        else:
            raise exception.InvalidInput(
                source, _field(where), 'unsupported value of type %s' %
                type(value).__name__)
    return data


def _check_string(value, source, where):
    try:
        value.encode('utf-8')
    except UnicodeEncodeError:
        raise exception.InvalidInput(source, _field(where),
                                     'invalid Unicode (lone surrogate)')


def parse_json(text, source, max_depth=MAX_NESTING):
    """Parse JSON ``text`` strictly and :func:`check_tree` the result.

    ``NaN``, ``Infinity``, numbers beyond the float range and integers of
    more digits than Python converts are refused (naming the field that
    holds them), like deep nesting.
    """
    try:
        # NaN, Infinity and 1e400 parse (as float NaN and infinities) so
        # that check_tree can name the field that holds them.
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise exception.InvalidInput(
            source, 'line %d column %d' % (error.lineno, error.colno),
            'malformed JSON: %s' % error.msg)
    except RecursionError:
        raise exception.InvalidInput(
            source, None, 'nested too deeply (limit %d levels)' % max_depth)
    except (ValueError, MemoryError) as error:
        raise exception.InvalidInput(source, None, 'malformed JSON: %s'
                                     % one_line(error, 200))
    return check_tree(data, source, max_depth)


def parse_yaml(text, source, max_depth=MAX_NESTING):
    """Parse YAML ``text`` with ``safe_load`` and :func:`check_tree` it.

    Timestamps, binary and sets are refused (they are not JSON), like
    ``.nan``/``.inf``, deep nesting and alias bombs.
    """
    import yaml

    loader = getattr(yaml, 'CSafeLoader', yaml.SafeLoader)
    try:
        # Events first (no recursion, whatever the depth): a document
        # nested too deeply is refused before it is built.
        depth = 0
        for event in yaml.parse(text, Loader=loader):
            if isinstance(event, (yaml.SequenceStartEvent,
                                  yaml.MappingStartEvent)):
                depth += 1
                if depth > max_depth:
                    raise exception.InvalidInput(
                        source, 'line %d' % (event.start_mark.line + 1),
                        'nested too deeply (limit %d levels)' % max_depth)
            elif isinstance(event, (yaml.SequenceEndEvent,
                                    yaml.MappingEndEvent)):
                depth -= 1
        # A safe loader (CSafeLoader or SafeLoader): no Python objects.
        data = yaml.load(text, Loader=loader)  # nosec B506
    except yaml.YAMLError as error:
        mark = getattr(error, 'problem_mark', None)
        where = 'line %d' % (mark.line + 1) if mark else None
        raise exception.InvalidInput(
            source, where, 'malformed YAML: %s'
            % one_line(getattr(error, 'problem', None) or error, 200))
    except RecursionError:
        raise exception.InvalidInput(
            source, None, 'nested too deeply (limit %d levels)' % max_depth)
    except (ValueError, TypeError, OverflowError, MemoryError) as error:
        raise exception.InvalidInput(source, None, 'malformed YAML: %s'
                                     % one_line(error, 200))
    return check_tree(data, source, max_depth)


def load_document(path, source_name=None, max_bytes=MAX_INPUT_BYTES,
                  max_depth=MAX_NESTING):
    """Read a JSON (or, by extension, YAML) file with every check above."""
    source = path if source_name is None else source_name
    text = read_bounded_text(path, source, max_bytes)
    if os.path.splitext(path)[1].lower() in ('.yaml', '.yml'):
        return parse_yaml(text, source, max_depth)
    return parse_json(text, source, max_depth)
