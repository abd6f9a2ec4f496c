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

"""The SHA-256 checksums of trace files: computed, checked, expected.

A file the catalogue (:mod:`.catalogue`) has no checksum for needs one
from the caller, or ``insecure=True`` (see :mod:`.download`).
"""

import hashlib
import re

from preemptible_sched import exception

_CHUNK = 1 << 16
_SHA256 = re.compile(r'^[0-9a-f]{64}$')


def file_sha256(path):
    """The SHA-256 of the file at ``path``, in hex."""
    digest = hashlib.sha256()
    with open(path, 'rb') as stream:
        for chunk in iter(lambda: stream.read(_CHUNK), b''):
            digest.update(chunk)
    return digest.hexdigest()


def check_sha256(value, source='--sha256'):
    """``value`` as a lower-case hex SHA-256, or :class:`InvalidInput`."""
    digest = value.strip().lower()
    if not _SHA256.match(digest):
        raise exception.InvalidInput(
            source, None, 'expected 64 hexadecimal digits, got %r' % value)
    return digest


def expected_digests(trace, given=None, insecure=False):
    """The SHA-256 each file of ``trace`` must have: {name: digest/None}.

    ``given`` maps file names to digests the caller vouches for; a digest
    the catalogue knows cannot be replaced by another. Without
    ``insecure``, a file with no digest at all is an error.
    """
    given = dict(given or {})
    for file_name in given:
        trace.file(file_name)
    digests = {}
    for trace_file in trace.files:
        known = trace_file.sha256
        mine = given.get(trace_file.name)
        if mine:
            mine = check_sha256(mine)
        if known and mine and known != mine:
            raise exception.InvalidInput(
                '--sha256', None, '%s/%s: the catalogue expects %s, not %s'
                % (trace.name, trace_file.name, known, mine))
        digests[trace_file.name] = known or mine
    missing = [name for name, digest in digests.items() if not digest]
    if missing and not insecure:
        raise exception.InvalidInput(
            trace.name, None, 'no checksum is known for %s: give --sha256 '
            '%s=DIGEST (from a source you trust) or --insecure-no-checksum'
            % (', '.join(missing), missing[0]))
    return digests
