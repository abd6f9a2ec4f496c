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

"""Files a user already has, put into the trace cache.

``preemptible-sched traces import NAME PATH...``: for a machine that cannot
reach the traces' servers, the files fetched elsewhere (or a copy of a
cache or a mirror) go into the cache exactly as a download would put them
there (:mod:`.download`: verified, copied atomically, nothing
half-written), so every command that reads the cache finds them.
"""

import os
import pathlib

from preemptible_sched import exception
from preemptible_sched.simulation.traces import catalogue
from preemptible_sched.simulation.traces import checksums
from preemptible_sched.simulation.traces import download


def import_files(name, paths, cache_dir=None, sha256=None, insecure=False):
    """Put files a user already has into the cache; their cached paths.

    Each of ``paths`` is one of the trace's files (its base name is the
    file's name) or a directory holding them, as ``DIR/FILE`` or
    ``DIR/NAME/FILE`` (a cache or a mirror). Every file is verified as a
    download is (``sha256``, ``insecure``) and copied into the cache
    atomically; a directory must hold every file of the trace, and a file
    that is none of the trace's is refused, naming it, before anything is
    copied.
    """
    trace = catalogue.get(name)
    if not trace.files:
        raise exception.InvalidInput(
            trace.name, None, 'nothing to import: %s' % (
                trace.notes or 'see %s' % trace.page))
    known = {trace_file.name: trace_file for trace_file in trace.files}
    found = {}
    for path in paths:
        if os.path.isdir(path):
            for trace_file in trace.files:
                candidates = [os.path.join(path, trace.name, trace_file.name),
                              os.path.join(path, trace_file.name)]
                hit = next((c for c in candidates if os.path.isfile(c)),
                           None)
                if hit is None:
                    raise exception.InvalidInput(
                        path, None, 'no %s in it (looked for %s)' % (
                            trace_file.name, ' and '.join(candidates)))
                found.setdefault(trace_file.name, hit)
        elif os.path.isfile(path):
            base = os.path.basename(path)
            if base not in known:
                raise exception.InvalidInput(
                    path, None, 'not a file of trace %s (its files: %s)' % (
                        trace.name, ', '.join(sorted(known))))
            found.setdefault(base, path)
        else:
            raise exception.InvalidInput(path, None,
                                         'no such file or directory')
    digests = checksums.expected_digests(trace, sha256, insecure)
    directory = os.path.join(cache_dir or download.default_cache_dir(),
                             trace.name)
    # A local copy: the catalogued size is checked exactly, and an
    # uncatalogued one may be as large as a download may.
    bounds = download.Bounds(download.DEFAULT_TIMEOUT,
                             download.DEFAULT_DEADLINE,
                             download.MAX_DOWNLOAD_BYTES)
    return [download.fetch_file(
        trace, known[file_name], pathlib.Path(os.path.abspath(path)).as_uri(),
        directory, digests[file_name], bounds)
        for file_name, path in found.items()]
