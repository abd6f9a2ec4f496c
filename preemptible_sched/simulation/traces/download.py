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

"""Fetch the files of a catalogued trace (:mod:`.catalogue`) into a cache.

:func:`download` fetches the files of a trace into
``<cache dir>/<trace name>/<file name>``:

- every file is streamed to a temporary file beside its final place,
  checked, then renamed over it (:func:`os.replace`), so a failure leaves
  nothing half-written: a download that fails or does not match its
  checksum is deleted, and so are the directories it created;
- every file has a total deadline (``deadline``, :data:`DEFAULT_DEADLINE`)
  besides the per-read ``timeout``, and a size limit: its catalogued size,
  else ``max_bytes`` (:data:`MAX_DOWNLOAD_BYTES`); a server announcing
  more is refused unread, and a ``file://`` mirror's file must be a
  regular file (a FIFO would block, ``/dev/zero`` never end);
- a file already in the cache that matches its checksum is not downloaded
  again;
- a file whose checksum the catalogue does not know needs one from the
  caller (``sha256={file: digest}``) or ``insecure=True``; with
  ``insecure=True`` a cached copy is used as it is.

The cache directory is, in this order: the ``cache_dir`` argument,
``$PREEMPTIBLE_SCHED_TRACES_DIR``, ``$XDG_CACHE_HOME/preemptible-sched/
traces`` (when ``XDG_CACHE_HOME`` is an absolute path) or
``~/.cache/preemptible-sched/traces``. ``base_url`` (``--mirror``) fetches
every file from ``<base_url>/<trace name>/<file name>`` instead of its
upstream URL: the layout of the cache, so a cache directory served by any
static web server (or read through ``file://``) is a mirror.

Errors: :class:`DownloadError` when the transfer fails (network, HTTP
status, timeout, deadline, size limit); :class:`ChecksumMismatch` (an
:class:`~preemptible_sched.exception.InvalidInput`) when the bytes are not
the expected ones; :class:`~preemptible_sched.exception.InvalidInput` for
everything else (unknown trace, missing checksum, unwritable directory).
"""

import dataclasses
import hashlib
import http.client
import logging
import os
import stat
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

from preemptible_sched import exception
from preemptible_sched.simulation.traces import catalogue
from preemptible_sched.simulation.traces import checksums

LOG = logging.getLogger(__name__)

#: Environment variable naming the cache directory.
CACHE_ENV = 'PREEMPTIBLE_SCHED_TRACES_DIR'
#: Seconds to wait for a server before giving up (per read).
DEFAULT_TIMEOUT = 60.0
#: Seconds one file may take in all, however steadily its bytes come (a
#: server sending a byte a second never trips the per-read timeout): an
#: hour is some 2 GB at a slow 5 Mbit/s, twice the largest catalogued file.
DEFAULT_DEADLINE = 3600.0
#: Largest file fetched when the catalogue does not know its size (the
#: exact size when it does): twice the largest catalogued file.
MAX_DOWNLOAD_BYTES = 4 * 1024 * 1024 * 1024

_CHUNK = 1 << 16
_URL_SCHEMES = ('http', 'https', 'file')


class DownloadError(exception.PreemptibleSchedException):
    """A file could not be fetched (network, HTTP status, timeout)."""


class ChecksumMismatch(exception.InvalidInput):
    """The bytes fetched are not the ones expected; nothing was kept."""

    def __init__(self, trace, name, url, expected, actual):
        self.expected = expected
        self.actual = actual
        super().__init__(
            '%s/%s' % (trace, name), None,
            'sha256 mismatch: expected %s, got %s (from %s); nothing was '
            'written' % (expected, actual, url))


# -- The cache ---------------------------------------------------------------

def default_cache_dir(environ=None):
    """``$PREEMPTIBLE_SCHED_TRACES_DIR``, else the XDG cache directory."""
    environ = os.environ if environ is None else environ
    if environ.get(CACHE_ENV):
        return environ[CACHE_ENV]
    base = environ.get('XDG_CACHE_HOME', '')
    # The XDG base directory specification: relative paths are invalid.
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser('~'), '.cache')
    return os.path.join(base, 'preemptible-sched', 'traces')


def file_url(trace, trace_file, base_url=None):
    """Where to fetch ``trace_file``: upstream, or ``base_url``'s copy."""
    if base_url:
        return '%s/%s/%s' % (base_url.rstrip('/'),
                             urllib.parse.quote(trace.name),
                             urllib.parse.quote(trace_file.name))
    return trace_file.url


def check_url(url, source='--mirror'):
    scheme = urllib.parse.urlsplit(url).scheme.lower()
    if scheme not in _URL_SCHEMES:
        raise exception.InvalidInput(
            source, None, 'expected an http://, https:// or file:// URL, '
            'got %r' % url)
    return url


def download(name, cache_dir=None, base_url=None, sha256=None,
             insecure=False, timeout=DEFAULT_TIMEOUT,
             deadline=DEFAULT_DEADLINE, max_bytes=MAX_DOWNLOAD_BYTES):
    """Fetch the files of trace ``name`` into the cache; their paths.

    ``sha256`` maps file names to the digests to check when the catalogue
    has none; ``insecure`` accepts files without any. See the module
    documentation for the cache, the mirror and the errors.
    """
    trace = catalogue.get(name)
    if not trace.files:
        raise exception.InvalidInput(
            trace.name, None, 'nothing to download: %s' % (
                trace.notes or 'see %s' % trace.page))
    if base_url:
        check_url(base_url)
    digests = checksums.expected_digests(trace, sha256, insecure)
    urls = [file_url(trace, f, base_url) for f in trace.files]
    for trace_file, url in zip(trace.files, urls):
        if not url:
            raise exception.InvalidInput(
                '%s/%s' % (trace.name, trace_file.name), None,
                'no download URL is known; see %s (or give --mirror)'
                % trace.page)
        check_url(url, '%s/%s' % (trace.name, trace_file.name))
    directory = os.path.join(cache_dir or default_cache_dir(), trace.name)
    bounds = Bounds(timeout, deadline, max_bytes)
    return [fetch_file(trace, trace_file, url, directory,
                       digests[trace_file.name], bounds)
            for trace_file, url in zip(trace.files, urls)]


@dataclasses.dataclass(frozen=True)
class Bounds:
    """What one file's transfer may take: seconds per read, seconds in
    all, bytes when the catalogue does not know its size.
    """

    timeout: float
    deadline: float
    max_bytes: int


def _cached(path, expected):
    """Whether the cached file at ``path`` can be used as it is."""
    if not os.path.isfile(path):
        return False
    if expected is None:
        LOG.warning('%s: using the cached copy, which nothing verifies '
                    '(--insecure-no-checksum)', path)
        return True
    actual = checksums.file_sha256(path)
    if actual == expected:
        return True
    LOG.warning('%s: cached copy has sha256 %s, expected %s; downloading '
                'it again', path, actual, expected)
    return False


def fetch_file(trace, trace_file, url, directory, expected, bounds):
    path = os.path.join(directory, trace_file.name)
    try:
        if _cached(path, expected):
            return path
    except OSError as error:
        raise exception.InvalidInput(path, None, 'cannot read the cached '
                                     'copy: %s' % _reason(error)) from None
    created = _make_dirs(directory)
    temporary = None
    try:
        try:
            handle, temporary = tempfile.mkstemp(
                dir=directory, prefix='.%s.' % trace_file.name,
                suffix='.part')
            stream = os.fdopen(handle, 'wb')
        except OSError as error:
            raise exception.InvalidInput(
                directory, None, 'cannot write to the cache directory: %s'
                % _reason(error)) from None
        with stream:
            actual = _copy(url, stream, trace, trace_file, bounds)
            stream.flush()
            os.fsync(stream.fileno())
        if expected is not None and actual != expected:
            raise ChecksumMismatch(trace.name, trace_file.name, url,
                                   expected, actual)
        if expected is None:
            LOG.warning('%s/%s: not verified (--insecure-no-checksum); its '
                        'sha256 is %s', trace.name, trace_file.name, actual)
        os.replace(temporary, path)
        temporary = None
        return path
    except OSError as error:
        raise exception.InvalidInput(
            path, None, 'cannot write to the cache: %s' % _reason(error)
        ) from None
    finally:
        if temporary is not None:
            _remove(temporary)
            _remove_dirs(created)


def _copy(url, stream, trace, trace_file, bounds):
    """Stream ``url`` into ``stream`` within ``bounds``; its SHA-256.

    Transfer problems raise :class:`DownloadError`; those of ``stream``
    (the cache) propagate as they are.
    """
    digest = hashlib.sha256()
    total = 0
    limit = trace_file.size if trace_file.size is not None \
        else bounds.max_bytes
    ends = time.monotonic() + bounds.deadline
    request = urllib.request.Request(
        url, headers={'User-Agent': 'preemptible-sched-traces'})
    LOG.debug('downloading %s', url)
    _check_local(url)
    with _network(url):
        # download() let only http, https and file (a local mirror) URLs
        # through check_url, and checks every file's SHA-256.
        response = urllib.request.urlopen(  # nosec B310
            request, timeout=min(bounds.timeout, bounds.deadline))
    with response:
        announced = response.headers.get('Content-Length')
        if announced and announced.strip().isdigit() and \
                trace_file.size is None and int(announced) > limit:
            raise DownloadError(
                '%s: %s bytes announced, more than %d (--max-bytes)'
                % (url, announced.strip(), limit))
        # read1: what has come, at once; read(n) would wait for n bytes
        # however slowly they come.
        read = getattr(response, 'read1', response.read)
        while True:
            with _network(url):
                chunk = read(_CHUNK)
            if not chunk:
                break
            total += len(chunk)
            if trace_file.size is not None and total > trace_file.size:
                raise exception.InvalidInput(
                    '%s/%s' % (trace.name, trace_file.name), None,
                    'size mismatch: expected %d bytes, got more (from %s); '
                    'nothing was written' % (trace_file.size, url))
            if total > limit:
                raise DownloadError('%s: more than %d bytes (--max-bytes); '
                                    'nothing was written' % (url, limit))
            if time.monotonic() > ends:
                raise DownloadError(
                    '%s: not complete within %g s (--deadline; %d bytes '
                    'so far); nothing was written' % (url, bounds.deadline,
                                                      total))
            digest.update(chunk)
            stream.write(chunk)
    return digest.hexdigest()


def _check_local(url):
    """A ``file://`` URL must name a regular file (see the module)."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme.lower() != 'file':
        return
    path = urllib.request.url2pathname(parts.path)
    try:
        info = os.stat(path)
    except OSError:
        return      # urlopen says why, as for any missing file
    if not stat.S_ISREG(info.st_mode):
        kinds = ((stat.S_ISDIR, 'a directory'), (stat.S_ISFIFO, 'a FIFO'),
                 (stat.S_ISCHR, 'a character device'),
                 (stat.S_ISBLK, 'a block device'),
                 (stat.S_ISSOCK, 'a socket'))
        kind = next((name for test, name in kinds if test(info.st_mode)),
                    'not a plain file')
        raise DownloadError('%s: not a regular file (%s)' % (url, kind))


class _network:
    """Turn the errors of a transfer from ``url`` into DownloadError."""

    def __init__(self, url):
        self.url = url

    def __enter__(self):
        return self

    def __exit__(self, kind, error, traceback):
        if error is None:
            return False
        if isinstance(error, urllib.error.HTTPError):
            message = 'HTTP %s %s' % (error.code, error.reason)
        elif isinstance(error, urllib.error.URLError):
            message = _reason(error.reason)
        elif isinstance(error, (OSError, ValueError,
                                http.client.HTTPException)):
            # Timeouts, resets, truncated or malformed responses.
            message = _reason(error)
        else:
            return False
        raise DownloadError('%s: %s' % (self.url, message)) from None


def _reason(error):
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error) or type(error).__name__


def _make_dirs(directory):
    """Create ``directory`` and its missing parents; those created."""
    missing = []
    current = os.path.abspath(directory)
    while not os.path.isdir(current):
        missing.append(current)
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as error:
        _remove_dirs(missing)
        raise exception.InvalidInput(
            directory, None, 'cannot create the cache directory: %s'
            % _reason(error)) from None
    return missing


def _remove(path):
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _remove_dirs(directories):
    """Remove the directories :func:`_make_dirs` created, if still empty."""
    for directory in directories:   # deepest first
        try:
            os.rmdir(directory)
        except FileNotFoundError:
            continue   # never created (makedirs failed below it)
        except OSError:
            break      # not empty, or not ours to remove


def human_size(size):
    """``size`` bytes for people: ``'562 KiB'``; ``'?'`` if unknown."""
    if size is None:
        return '?'
    value = float(size)
    for unit in ('B', 'KiB', 'MiB', 'GiB'):
        if value < 1024 or unit == 'GiB':
            return ('%d %s' % (value, unit) if unit == 'B'
                    else '%.3g %s' % (value, unit))
        value /= 1024
    return '%d B' % size   # not reached
