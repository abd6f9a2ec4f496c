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

"""What every benchmark prints besides its figures.

Imported as a sibling module: running ``python benchmarks/<name>.py`` puts
this directory on ``sys.path``.
"""

import json
import os
import platform
import subprocess
import sys
import time

import tqdm


def log(message):
    """Progress on stderr, so stdout stays pure JSON; above a progress
    bar of :func:`progress`, if one is drawn, instead of through it.
    """
    tqdm.tqdm.write(message, file=sys.stderr)
    sys.stderr.flush()


def progress(iterable, label, unit='steps', total=None):
    """``iterable``, with a progress bar on stderr (done, rate and ETA)
    while it is iterated, if stderr is a terminal; as it is otherwise, so
    that logs and CI output get the :func:`log` lines only.

    Wrap the outer loops only (sizes, cases, problem sizes): the bar's
    redraws must not land inside a timed section.
    """
    if not sys.stderr.isatty():
        return iterable
    return tqdm.tqdm(iterable, desc=label, unit=unit, total=total,
                     file=sys.stderr, leave=False, dynamic_ncols=True)


def source_revision():
    """The git commit of the checkout measured, and whether it is dirty."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        commit = subprocess.run(
            ['git', '-C', root, 'rev-parse', '--short', 'HEAD'],
            capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(
            ['git', '-C', root, 'status', '--porcelain', '--',
             'preemptible_sched'],
            capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return {'commit': commit, 'dirty': bool(dirty)}


def machine():
    """The machine and the code a result was measured on."""
    return {
        'python': platform.python_version(),
        'implementation': platform.python_implementation(),
        'platform': platform.platform(),
        'processor': platform.processor() or platform.machine(),
        'cpu_count': os.cpu_count(),
        'date': time.strftime('%Y-%m-%d'),
        'source': source_revision(),
    }


def emit(result, output=None):
    """Print ``result`` as JSON on stdout, and write it to ``output``."""
    text = json.dumps(result, indent=2)
    print(text)
    if output:
        with open(output, 'w') as stream:
            stream.write(text + '\n')
