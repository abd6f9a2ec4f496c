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

Here are the limits and the checks of numbers and text; reading files
within them is :mod:`.regular_files`, parsing JSON and YAML documents
:mod:`.documents`.

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

import math

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


def shown(value, limit=60):
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
            source, field, 'expected a number, got %s' % shown(value))
    try:
        number = float(value)
    except OverflowError:
        raise exception.InvalidInput(source, field,
                                     'number too large: %s' % shown(value))
    if not math.isfinite(number):
        raise exception.InvalidInput(
            source, field, 'expected a finite number, got %s' % number)
    if minimum is not None:
        if number < minimum or (exclusive_minimum and number == minimum):
            raise exception.InvalidInput(
                source, field, 'must be %s %g, got %s' % (
                    '>' if exclusive_minimum else '>=', minimum,
                    shown(value)))
    if maximum is not None and number > maximum:
        raise exception.InvalidInput(
            source, field, 'must be <= %g, got %s' % (maximum,
                                                      shown(value)))
    return number


def integer(value, source, field, minimum=None, maximum=None):
    """``value`` as an ``int`` within bounds, else InvalidInput.

    Only a true ``int`` passes: ``True``, ``2.0`` and ``"2"`` are refused.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise exception.InvalidInput(
            source, field, 'expected an integer, got %s' % shown(value))
    if minimum is not None and value < minimum:
        raise exception.InvalidInput(
            source, field, 'must be >= %s, got %s' % (minimum,
                                                      shown(value)))
    if maximum is not None and value > maximum:
        raise exception.InvalidInput(
            source, field, 'must be <= %s, got %s' % (maximum,
                                                      shown(value)))
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
                source, field, 'expected a number, got %s' % shown(text))
    else:
        value = text
    return finite_number(value, source, field, minimum=minimum,
                         maximum=maximum,
                         exclusive_minimum=exclusive_minimum)
