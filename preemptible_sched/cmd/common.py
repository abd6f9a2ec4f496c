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

"""What the commands of ``preemptible-sched`` share about their command
line: the options of ``simulate`` and ``experiment``, the check of an
``--output`` directory, the exit of a run stopped by a signal, and the
``db sync`` command line the operations commands suggest.
"""

import contextlib
import os
import signal
import sys

from preemptible_sched import exception
from preemptible_sched import input_limits as limits
from preemptible_sched.simulation.traces import reading


#: The command line being run, as ``preemptible-sched`` was given it
#: (set by :func:`preemptible_sched.cmd.sched.main`): what report.html
#: says made it.
invocation = []


def add_arguments(parser):
    """The options shared by ``simulate`` and ``experiment``."""
    parser.add_argument('--workload-format', default='auto',
                        choices=('auto',) + reading.FORMATS,
                        help='Format of the workload (default: from the '
                        'file name and header).')
    parser.add_argument('--class-map', metavar='KEY=CLASS[,KEY=CLASS]',
                        help='Map trace classes to service classes, e.g. '
                        '"LS=gold,BE=bronze" for the Alibaba QoS column, '
                        'queue numbers for SWF, priorities for Google '
                        '2011.')
    parser.add_argument('--default-class', metavar='CLASS',
                        help='Class of requests the trace gives none.')
    parser.add_argument('--limit', type=int, metavar='N',
                        help='Replay only the first N requests.')
    parser.add_argument('--infrastructure', metavar='FILE',
                        help='Hosts as the canonical CSV '
                        '(name,vcpus,memory_mb,disk_gb,attributes).')
    parser.add_argument('--hosts', type=int, metavar='N',
                        help='N identical hosts of --host-flavor.')
    parser.add_argument('--host-flavor', metavar='VCPUS:MEMORY_MB[:DISK_GB]',
                        help='Size of each host of --hosts.')
    parser.add_argument('--machines', metavar='FILE',
                        help='Machine list to sample hosts from with '
                        '--size-factor: an Alibaba node list, Google '
                        'machine_events or the canonical CSV.')
    parser.add_argument('--until', type=float, metavar='SECONDS',
                        help='End of the run (default: once every request '
                        'has ended).')
    parser.add_argument('--no-plots', action='store_true',
                        help='Do not draw the figures.')


#: Exit codes of a run stopped by SIGTERM and by Ctrl-C (SIGINT).
EXIT_TERMINATED, EXIT_INTERRUPTED = 128 + 15, 128 + 2


class Stopped(BaseException):
    """SIGTERM arrived: unwind (removing staging directories), then exit.

    A BaseException, like KeyboardInterrupt, so that no ``except
    Exception`` on the way swallows it.
    """


@contextlib.contextmanager
def stoppable():
    """Turn SIGTERM into :class:`Stopped` while the block runs.

    ``finally`` blocks then run (a staging directory is removed) instead
    of the process vanishing with them undone. A second SIGTERM kills as
    usual. Outside the main thread the block runs as it is.
    """
    def handler(signum, frame):
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        raise Stopped()

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:   # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def stopped_exit(command, kind):
    """Say on stderr that ``command`` stopped; the exit code."""
    sys.stderr.write('preemptible-sched: %s %s; nothing written\n' % (
        command, 'terminated (SIGTERM)' if kind is Stopped else
        'interrupted'))
    return EXIT_TERMINATED if kind is Stopped else EXIT_INTERRUPTED


def check_output(path, option='--output'):
    """``path`` if the results can go there: a directory, existing or not.

    Refused: an empty name (it would write into the current directory),
    an existing file that is not a directory, a NUL byte, and a path whose
    nearest existing ancestor is not a writable directory.
    """
    if not isinstance(path, str) or not path.strip():
        raise exception.InvalidInput(option, None, 'must name a directory '
                                     '(got an empty name)')
    if '\0' in path:
        raise exception.InvalidInput(option, None, 'contains a NUL byte')
    try:
        if os.path.lexists(path) and not os.path.isdir(path):
            raise exception.InvalidInput(
                option, None, '%s exists and is not a directory'
                % limits.one_line(path, 200))
        ancestor = os.path.dirname(os.path.abspath(path))
        while not os.path.lexists(ancestor):
            ancestor = os.path.dirname(ancestor)
        if not os.path.isdir(ancestor):
            raise exception.InvalidInput(
                option, None, '%s is not a directory'
                % limits.one_line(ancestor, 200))
        if not os.access(ancestor, os.W_OK | os.X_OK):
            raise exception.InvalidInput(
                option, None, 'cannot create %s: %s is not writable'
                % (limits.one_line(path, 200),
                   limits.one_line(ancestor, 200)))
    except (OSError, ValueError) as error:
        raise exception.InvalidInput(option, None, 'unusable path: %s'
                                     % limits.one_line(error, 200))
    return path


def sync_command(argv_files):
    """The ``db sync`` command line for the nova.conf files given."""
    return 'preemptible-sched-manage %s db sync' % ' '.join(
        '--config-file %s' % path for path in argv_files)


#: Most seeds in one ``--seeds``.
MAX_SEEDS = 1000

#: The seeds ``simulate`` and ``experiment`` replicate over when neither
#: ``--seed`` nor ``--seeds`` is given: five, enough for a 95 % interval
#: that says something (one seed's figure can be one request's luck).
DEFAULT_SEEDS = '0-4'


def parse_seeds(text):
    """The seeds of ``--seeds``: ``0-4``, ``1,3,7`` or both mixed
    (``0-2,9``), in the order given, each once.

    Raises InvalidInput naming ``--seeds`` for anything else, a seed out
    of ``0..limits.MAX_SEED``, a backward range or more than
    :data:`MAX_SEEDS` seeds.
    """
    seeds = []
    for part in text.split(','):
        bounds = part.strip().split('-')
        if len(bounds) > 2 or not all(
                bound.strip().isdigit() and len(bound.strip()) <= 20
                for bound in bounds):
            raise exception.InvalidInput(
                '--seeds', None, 'expected seeds like 0-4 or 1,3,7, got %s'
                % limits.one_line(repr(text), 60))
        low, high = int(bounds[0]), int(bounds[-1])
        if high > limits.MAX_SEED:
            raise exception.InvalidInput(
                '--seeds', None, 'seeds must be within 0..%d, got %d'
                % (limits.MAX_SEED, high))
        if high < low:
            raise exception.InvalidInput(
                '--seeds', None, 'range %d-%d goes backwards' % (low, high))
        if high - low >= MAX_SEEDS or len(seeds) + high - low >= MAX_SEEDS:
            raise exception.InvalidInput(
                '--seeds', None, 'at most %d seeds' % MAX_SEEDS)
        seeds.extend(seed for seed in range(low, high + 1)
                     if seed not in seeds)
    return seeds
