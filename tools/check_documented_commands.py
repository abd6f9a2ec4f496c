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

"""Check that every command shown in the README and the docs parses.

Scans reStructuredText files for literal blocks (``::`` and
``code-block:: console|shell|bash``) and, in them, for command lines that
start with one of the project's console scripts (after ``$`` or ``&&``
too, continuation lines joined). Each is run with ``--help`` appended:
argparse then checks that the subcommands and options exist and exits 0
before anything is read or run. Synopses (lines with ``[``, ``|``, ``...``
or upper-case placeholders) are skipped. Exits 1 listing the failures.

Usage: check_documented_commands.py FILE_OR_DIR [...]
"""

import os
import re
import shlex
import subprocess
import sys

SCRIPTS = ('preemptible-sched', 'preemptible-scheduler',
           'preemptible-compute', 'preemptible-sched-manage',
           'preemptible-sched-status', 'preemptible-nova-scheduler',
           'preemptible-nova-one-pass')
_SYNOPSIS = re.compile(r'[\[\]|]|\.\.\.|\b[A-Z][A-Z_]{2,}\b')


def rst_files(paths):
    for path in paths:
        if os.path.isdir(path):
            for root, _dirs, names in os.walk(path):
                for name in sorted(names):
                    if name.endswith('.rst'):
                        yield os.path.join(root, name)
        else:
            yield path


def literal_lines(text):
    """Lines of the literal blocks of ``text``, continuations joined."""
    lines = text.splitlines()
    in_block = False
    indent = None
    pending = ''
    for line in lines:
        stripped = line.strip()
        if not in_block:
            if stripped.endswith('::') or stripped.startswith(
                    '.. code-block::'):
                in_block, indent = True, None
            continue
        if not stripped:
            continue
        current = len(line) - len(line.lstrip())
        if indent is None:
            if current == 0:
                in_block = False
                continue
            indent = current
        if current < indent:
            in_block = False
            if stripped.endswith('::'):
                in_block, indent = True, None
            continue
        pending += stripped.rstrip('\\').strip() + ' '
        if not stripped.endswith('\\'):
            yield pending.strip()
            pending = ''


def commands(text):
    for line in literal_lines(text):
        for part in re.split(r'&&|;', line):
            part = part.strip().lstrip('$').strip()
            words = part.split()
            if not words or words[0] not in SCRIPTS:
                continue
            if _SYNOPSIS.search(part):
                continue
            yield part


def check(command):
    argv = shlex.split(command) + ['--help']
    result = subprocess.run(argv, capture_output=True, text=True,
                            timeout=120)
    return result.returncode, (result.stderr or result.stdout).strip()


def main(paths):
    failures = []
    count = 0
    for path in rst_files(paths):
        with open(path, encoding='utf-8') as stream:
            text = stream.read()
        for command in commands(text):
            count += 1
            code, output = check(command)
            if code != 0:
                failures.append('%s: %s: exit %d: %s' % (
                    path, command, code, output.splitlines()[-1]
                    if output else ''))
    for failure in failures:
        print(failure)
    print('%d documented commands checked, %d failed' % (count,
                                                         len(failures)))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:] or ['README.rst', 'doc/source']))
