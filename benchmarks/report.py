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


def log(message):
    """Progress on stderr, so stdout stays pure JSON."""
    sys.stderr.write(message + '\n')
    sys.stderr.flush()


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
