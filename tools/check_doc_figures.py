#!/usr/bin/env python3
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

"""Re-run the simulations whose figures the README and the docs quote.

A quoted figure lives in a *figures table*: an reStructuredText simple
table right after the comment ``.. checked figures`` (invisible once
rendered), whose first column is headed ``metric`` and holds the labels
``simulate --seeds`` prints (``gold SLO fulfilment (%)``), whose next
columns are headed by policy names and hold ``mean ± half-width`` cells as
``simulate --seeds`` prints them, and whose optional last column, headed
``intervals``, says of the two policies ``separate`` or ``overlap``
(:func:`replications.separation`). Its commands are the ``preemptible-sched
simulate`` lines of the literal blocks between the previous figures table
(or the top of the file) and this one, one per policy column (by their
``--policy``); each must replicate over at least :data:`MIN_SEEDS` seeds
(``--seeds``).

Each command is run as written but with ``--output`` a temporary directory
and ``--no-plots``, its paths under ``traces/`` read from ``--traces DIR``
instead (where ``preemptible-sched traces download NAME --cache-dir DIR``
or ``traces import`` put them); the cells are recomputed from the runs'
summary.json files with the code ``simulate`` prints them with, and
compared with the table's as text. A command that appears in several
tables runs once; ``--jobs`` commands run at once (default 2).
``--short`` runs only the tables whose commands all have ``--limit``
(the functional test's form, well under a minute); without it, every
table (the whole-trace ones take minutes: ``tox -e docs-figures``).

Exits 0 when every quoted figure is reproduced, 1 listing each drift
(file, line, metric, policy, quoted and measured), 2 on a malformed table.

Usage: check_doc_figures.py [--short] [--traces DIR] [--jobs N]
                            FILE_OR_DIR [...]
"""

import argparse
from concurrent import futures
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

from preemptible_sched.simulation import replications
from preemptible_sched.simulation import report_replications

MARKER = '.. checked figures'
SCRIPT = 'preemptible-sched'
#: Fewest seeds a quoted figure is measured over.
MIN_SEEDS = 5
_RUN = ('import sys; from preemptible_sched.cmd import sched; '
        'sys.exit(sched.main(sys.argv[1:]))')


class Malformed(Exception):
    """A figures table or its commands cannot be checked."""


def rst_files(paths):
    for path in paths:
        if os.path.isdir(path):
            for root, _dirs, names in sorted(os.walk(path)):
                for name in sorted(names):
                    if name.endswith('.rst'):
                        yield os.path.join(root, name)
        else:
            yield path


def literal_commands(lines):
    """``(line number, command)`` of every ``preemptible-sched simulate``
    line of the literal blocks, continuation lines joined.
    """
    found = []
    in_block, indent, pending, start = False, None, '', None
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if not in_block:
            in_block = stripped.endswith('::')
            indent = None
            continue
        if not stripped:
            continue
        current = len(line) - len(line.lstrip())
        if indent is None:
            indent = current if current else None
            in_block = bool(current)
            if not in_block:
                continue
        if current < indent:
            in_block, indent = stripped.endswith('::'), None
            continue
        start = start or number
        pending += stripped.rstrip('\\').strip() + ' '
        if not stripped.endswith('\\'):
            words = pending.split()
            if words[:2] == [SCRIPT, 'simulate']:
                found.append((start, pending.strip()))
            pending, start = '', None
    return found


def tables(path):
    """The figures tables of ``path``: dicts with ``line``, ``policies``,
    ``intervals`` (whether that column is there), ``rows`` (``(line,
    metric, cells, interval)``) and ``commands`` (policy -> command).
    """
    with open(path, encoding='utf-8') as stream:
        lines = stream.read().splitlines()
    commands = literal_commands(lines)
    found = []
    previous = 0
    for index, line in enumerate(lines):
        if line.strip() != MARKER:
            continue
        table = _table(path, lines, index + 1)
        table['commands'] = _commands(
            path, index + 1, table['policies'],
            [command for number, command in commands
             if previous < number <= index])
        previous = index + 1
        found.append(table)
    return found


def _table(path, lines, start):
    """The simple table after the marker at line ``start``."""
    index = start
    while index < len(lines) and not lines[index].strip():
        index += 1
    border = lines[index] if index < len(lines) else ''
    if not re.fullmatch(r'=+( +=+)+ *', border):
        raise Malformed('%s:%d: no table after %r' % (path, start, MARKER))
    spans = [match.span() for match in re.finditer('=+', border)]

    def cells(text):
        return [text[begin:(end if number < len(spans) - 1 else None)]
                .strip() for number, (begin, end) in enumerate(spans)]

    header = cells(lines[index + 1])
    if header[0] != 'metric' or lines[index + 2].strip() != border.strip():
        raise Malformed('%s:%d: a figures table is headed metric, then the '
                        'policies' % (path, index + 2))
    intervals = header[-1] == 'intervals'
    policies = header[1:-1] if intervals else header[1:]
    if not policies or (intervals and len(policies) != 2):
        raise Malformed('%s:%d: the intervals column needs two policies'
                        % (path, index + 2))
    rows = []
    index += 3
    while index < len(lines) and lines[index].strip() != border.strip():
        row = cells(lines[index])
        rows.append((index + 1, row[0], dict(zip(policies, row[1:])),
                     row[-1] if intervals else None))
        index += 1
    return {'line': start, 'policies': policies, 'intervals': intervals,
            'rows': rows}


def _commands(path, line, policies, commands):
    """Policy -> the command of that column, checked."""
    by_policy = {}
    for command in commands:
        words = shlex.split(command)
        policy = _option(words, '--policy')
        if policy in policies:
            by_policy[policy] = words
    missing = [policy for policy in policies if policy not in by_policy]
    if missing:
        raise Malformed('%s:%d: no simulate command above the table for '
                        '%s' % (path, line, ', '.join(missing)))
    for policy, words in by_policy.items():
        seeds = _option(words, '--seeds') or ''
        count = 0
        for part in seeds.split(','):
            bounds = part.split('-')
            if all(bound.isdigit() for bound in bounds):
                count += int(bounds[-1]) - int(bounds[0]) + 1
        if count < MIN_SEEDS:
            raise Malformed('%s:%d: the %s command replicates over %d '
                            'seeds (--seeds), fewer than %d' % (
                                path, line, policy, count, MIN_SEEDS))
    return by_policy


def _option(words, name):
    for index, word in enumerate(words):
        if word == name and index + 1 < len(words):
            return words[index + 1]
        if word.startswith(name + '='):
            return word.split('=', 1)[1]
    return None


def short(table):
    """Whether every command of ``table`` has ``--limit``."""
    return all(_option(words, '--limit') for words in
               table['commands'].values())


def without_output(words):
    """``words`` without ``--output DIR``: the same run wherever it
    writes.
    """
    kept = []
    skip = False
    for word in words:
        if skip or word == '--output':
            skip = not skip
            continue
        kept.append(word)
    return tuple(kept)


def run(words, traces, scratch):
    """Run one documented command (:func:`without_output`); the
    summary.json of each seed.
    """
    argv = [os.path.join(traces, word[len('traces/'):])
            if traces and word.startswith('traces/') else word
            for word in words[1:]]
    output = tempfile.mkdtemp(dir=scratch)
    argv += ['--no-plots', '--output', output]
    result = subprocess.run([sys.executable, '-c', _RUN] + argv,
                            capture_output=True, text=True)
    if result.returncode:
        raise Malformed('%s: exit %d: %s' % (
            ' '.join(words), result.returncode,
            (result.stderr.strip().splitlines() or [''])[-1]))
    with open(os.path.join(output, 'replications.json')) as stream:
        seeds = json.load(stream)['seeds']
    summaries = []
    for seed in seeds:
        with open(os.path.join(output, 'seed%d' % seed,
                               'summary.json')) as stream:
            summaries.append(json.load(stream))
    return summaries


def compare(path, table, measured):
    """The drifts of ``table`` from ``measured`` (policy -> metrics by
    label), as lines to print.
    """
    drifts = []
    for line, label, cells, interval in table['rows']:
        found = {}
        for policy, quoted in cells.items():
            metric = measured[policy].get(label)
            cell = metric.cell() if metric else 'no such metric'
            found[policy] = metric
            if cell != quoted:
                drifts.append('%s:%d: %s, %s: quoted %s, measured %s' % (
                    path, line, label, policy, quoted, cell))
        if interval is not None:
            first, second = (found[policy] for policy in table['policies'])
            verdict = first and second and replications.separation(
                first.estimate, second.estimate)
            verdict = 'separate' if verdict in ('higher', 'lower') else (
                verdict or 'no interval')
            if verdict != interval:
                drifts.append('%s:%d: %s: quoted intervals %s, measured %s'
                              % (path, line, label, interval, verdict))
    return drifts


def check(paths, traces=None, only_short=False, out=sys.stdout, jobs=2):
    """Check every figures table of ``paths``, running up to ``jobs``
    commands at once; returns the exit code.
    """
    drifts = []
    checked = 0
    with tempfile.TemporaryDirectory() as scratch:
        try:
            found = [(path, table) for path in rst_files(paths)
                     for table in tables(path)
                     if short(table) or not only_short]
            commands = list(dict.fromkeys(
                without_output(words) for _path, table in found
                for words in table['commands'].values()))
            with futures.ThreadPoolExecutor(max(1, jobs)) as pool:
                runs = dict(zip(commands, pool.map(
                    lambda words: run(words, traces, scratch), commands)))
        except Malformed as error:
            out.write('%s\n' % error)
            return 2
    for path, table in found:
        measured = {
            policy: {metric.label: metric for metric in
                     report_replications.estimates(
                         runs[without_output(words)])}
            for policy, words in table['commands'].items()}
        drifts += compare(path, table, measured)
        checked += sum(len(row[2]) + (row[3] is not None)
                       for row in table['rows'])
    for drift in drifts:
        out.write(drift + '\n')
    out.write('%d quoted figures checked (%d commands run), %d drifted\n'
              % (checked, len(runs), len(drifts)))
    return 1 if drifts else 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--short', action='store_true',
                        help='Only the tables whose commands have --limit.')
    parser.add_argument('--traces', metavar='DIR',
                        help='Where the traces the commands read from '
                        'traces/ are (default: ./traces).')
    parser.add_argument('--jobs', type=int, default=2, metavar='N',
                        help='Commands run at once (default 2).')
    parser.add_argument('paths', nargs='+', metavar='FILE_OR_DIR')
    args = parser.parse_args(argv)
    return check(args.paths, args.traces, args.short, jobs=args.jobs)


if __name__ == '__main__':
    sys.exit(main())
