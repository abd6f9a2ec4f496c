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

"""Hidden staging directories beside an output, and those a killed run left.

An output directory ``DIR`` is written first in ``.<DIR's name>.<pid>.
<random>.tmp`` beside it, then moved in whole (``simulate``'s files,
``experiment``'s cells). A run stopped by an exception, Ctrl-C or SIGTERM
removes its own; one killed outright (SIGKILL, the OOM killer, a power
cut) cannot. The next run writing to ``DIR`` removes those whose process
no longer runs (:func:`remove_stale`): those of a live process (another
run writing to the same place, or a later process that happens to have
the same pid) are left alone, and so is anything not named this way.
"""

import os
import re
import shutil
import tempfile

#: What follows ``.<name>.`` in a staging directory's name.
_STAGING = re.compile(r'^([0-9]+)\.[A-Za-z0-9_]+\.tmp$')


def _prefix(directory, pid):
    return '.%s.%d.' % (os.path.basename(directory), pid)


def make(directory):
    """A new staging directory for ``directory`` (an absolute path, its
    parent created if missing), stale ones removed first.
    """
    parent = os.path.dirname(directory)
    os.makedirs(parent, exist_ok=True)
    remove_stale(directory)
    return tempfile.mkdtemp(prefix=_prefix(directory, os.getpid()),
                            suffix='.tmp', dir=parent)


def _running(pid):
    """Whether process ``pid`` exists (it may not be ours)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True    # exists, but belongs to someone else
    return True


def remove_stale(directory):
    """Remove staging directories of ``directory`` whose process is gone;
    returns the paths removed.
    """
    directory = os.path.abspath(directory)
    parent = os.path.dirname(directory)
    prefix = '.%s.' % os.path.basename(directory)
    removed = []
    try:
        names = os.listdir(parent)
    except OSError:
        return removed
    for name in names:
        match = name.startswith(prefix) and _STAGING.match(
            name[len(prefix):])
        if not match or _running(int(match.group(1))):
            continue
        path = os.path.join(parent, name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed
