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


"""The real traces the simulator reads: where they come from, and a cache.

:func:`catalogue` lists every supported trace (:class:`Trace`): its
upstream page, licence, citation and the concrete files to download
(:class:`TraceFile`), each with the reader that takes it (a workload
format of :mod:`.workload`, a machine list format of
:mod:`.infrastructure`, or ``gwa-t-12``, the utilisation trace of the fake
compute driver) and, when it could be checked, its SHA-256.

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
import re
import stat
import tempfile
import time
import typing
import urllib.error
import urllib.parse
import urllib.request

from preemptible_sched import exception

LOG = logging.getLogger(__name__)

#: Environment variable naming the cache directory.
CACHE_ENV = 'PREEMPTIBLE_SCHED_TRACES_DIR'

#: What each role of file is read as: role -> formats its reader knows.
#: ``workload``: ``--workload`` (:data:`.workload.FORMATS`);
#: ``machines``: ``--machines`` (:data:`.infrastructure.MACHINE_FORMATS`);
#: ``utilization``: ``[fake_driver] utilization_trace``.
ROLES = ('workload', 'machines', 'utilization')
UTILIZATION_FORMATS = ('gwa-t-12',)

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
_SHA256 = re.compile(r'^[0-9a-f]{64}$')
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


@dataclasses.dataclass(frozen=True)
class TraceFile:
    """One file of a trace, as it is stored in the cache.

    ``name`` is its file name in the cache; ``url`` where it is
    downloaded from (None: no stable URL is known); ``role`` and
    ``format`` the reader that takes it; ``sha256`` and ``size`` (bytes)
    are given only when they were checked against the upstream bytes.
    ``packed`` is ``'zip'`` for an archive to unpack before use.
    """

    name: str
    url: typing.Optional[str]
    role: str
    format: str
    sha256: typing.Optional[str] = None
    size: typing.Optional[int] = None
    packed: typing.Optional[str] = None
    description: str = ''


@dataclasses.dataclass(frozen=True)
class Trace:
    """A trace of the catalogue.

    ``format`` is the reader name of its main file (``--workload-format``
    for workloads), or None when no reader of this project takes it
    (``reader`` then says so).
    """

    name: str
    title: str
    format: typing.Optional[str]
    description: str
    page: str
    licence: str
    licence_note: str
    citation: str
    files: typing.Tuple[TraceFile, ...] = ()
    reader: str = ''
    notes: str = ''

    @property
    def size(self):
        """Total bytes of the files, None unless every size is known."""
        sizes = [f.size for f in self.files]
        if not sizes or None in sizes:
            return None
        return sum(sizes)

    def file(self, name):
        for trace_file in self.files:
            if trace_file.name == name:
                return trace_file
        raise exception.InvalidInput(
            self.name, None, 'no file %r (files: %s)' % (
                name, ', '.join(f.name for f in self.files) or 'none'))

    def to_dict(self):
        result = dataclasses.asdict(self)
        result['size'] = self.size
        return result


# -- The catalogue -----------------------------------------------------------

_GITHUB_RAW = 'https://raw.githubusercontent.com/%s/%s/%s'
_ALIBABA = ('alibaba/clusterdata',
            '7a6c496e4f4b6ce6150be8f881cb051bf2abff42',
            'cluster-trace-gpu-v2023/csv/')
_GOOGLE = 'https://storage.googleapis.com/clusterdata-2011-2/'
_PWA = 'https://www.cs.huji.ac.il/labs/parallel/workload/'
_GWA_T12 = ('http://gwa.ewi.tudelft.nl/fileadmin/pds/trace-archives/'
            'grid-workloads-archive/datasets/gwa-t-12/')
_TIMO = ('Timovanmilligen/opendc',
         '1c237377d726484edc7782d5c374b8bea84f4372',
         'opendc-experiments/opendc-experiments-timo/src/main/resources/')
_OPENDC = ('atlarge-research/opendc',
           '691036deb92b9e236d1a33c6f3066f98a96ba0e6',
           'opendc-trace/opendc-trace-api/src/test/resources/bitbrains/')


def _raw(repo, name):
    return _GITHUB_RAW % (repo[0], repo[1], repo[2] + name)


_PWA_CITATION = (
    'Dror G. Feitelson, Dan Tsafrir and David Krakov. Experience with '
    'using the Parallel Workloads Archive. Journal of Parallel and '
    'Distributed Computing 74(10):2967-2982, 2014. '
    'doi:10.1016/j.jpdc.2014.06.013')
_PWA_LICENCE_NOTE = (
    'The Parallel Workloads Archive states no licence. It asks users to '
    'refer to the archive (%s) as the source, to cite the paper below, and '
    'to acknowledge whoever provided the log (see the log\'s page). See '
    'upstream for the terms.' % _PWA)
_GWA_CITATION = (
    'Alexandru Iosup, Hui Li, Mathieu Jan, Shanny Anoep, Catalin '
    'Dumitrescu, Lex Wolters and Dick H.J. Epema. The Grid Workloads '
    'Archive. Future Generation Computer Systems 24(7):672-686, 2008.')
_WTA_CITATION = (
    'Laurens Versluis, Roland Matha, Sacheendra Talluri, Tim Hegeman, Radu '
    'Prodan, Ewa Deelman and Alexandru Iosup. The Workflow Trace Archive: '
    'Open-Access Data From Public and Private Computing Infrastructures. '
    'IEEE Transactions on Parallel and Distributed Systems '
    '31(9):2170-2184, 2020. doi:10.1109/TPDS.2020.2984821')
_BITBRAINS_CITATION = (
    'Siqi Shen, Vincent van Beek and Alexandru Iosup. Statistical '
    'Characterization of Business-Critical Workloads Hosted in Cloud '
    'Datacenters. 15th IEEE/ACM International Symposium on Cluster, Cloud '
    'and Grid Computing (CCGrid), 2015, pp. 465-474.')
_BITBRAINS_PAGE = 'http://gwa.ewi.tudelft.nl/datasets/gwa-t-12-bitbrains'
_BITBRAINS_READER = (
    'The fake compute driver replays one per-VM CSV file as the CPU '
    'utilisation of every instance: [fake_driver] utilization_model = '
    'replay, utilization_trace = the file (see doc/source/testbed.rst).')


def _swf(name, log, directory, title, description, acknowledge):
    return Trace(
        name=name, title='Parallel Workloads Archive: %s' % title,
        format='swf', description=description,
        page=_PWA + directory + '/', licence='see upstream',
        licence_note=_PWA_LICENCE_NOTE + ' This log: acknowledge %s.'
        % acknowledge,
        citation=_PWA_CITATION,
        files=(TraceFile(log, _PWA + directory + '/' + log, 'workload',
                         'swf', description='The cleaned log, gzipped.'),),
        reader='--workload-format swf (jobs are independent requests; '
        'classes from --class-map by queue number or --default-class).',
        notes='No checksum is built in: give --sha256 or '
        '--insecure-no-checksum.')


_CATALOGUE = (
    Trace(
        name='alibaba-gpu-2023',
        title='Alibaba GPU cluster trace 2023 (openb)',
        format='alibaba',
        description='The pods and nodes of a heterogeneous GPU cluster of '
        'Alibaba PAI (cluster-trace-gpu-v2023): 8,152 pods with their CPU, '
        'memory and GPU requests, QoS class (LS, BE, Burstable, '
        'Guaranteed), phase, and creation, scheduling and deletion times '
        'in seconds; 1,523 nodes with their CPU, memory and GPUs. Upstream '
        'also has sampled variants of the pod list (openb_pod_list_*.csv).',
        page='https://github.com/alibaba/clusterdata/tree/master/'
        'cluster-trace-gpu-v2023',
        licence='research or study use',
        licence_note='No licence file. The alibaba/clusterdata README: '
        '"You may use trace however you want as long as it is for reseach '
        'or study purpose", and asks to be told of publications using it.',
        citation='Qizhen Weng, Lingyun Yang, Yinghao Yu, Wei Wang, Xiaochuan '
        'Tang, Guodong Yang and Liping Zhang. Beware of Fragmentation: '
        'Scheduling GPU-Sharing Workloads with Fragmentation Gradient '
        'Descent. 2023 USENIX Annual Technical Conference (USENIX ATC 23). '
        'https://www.usenix.org/conference/atc23/presentation/weng',
        files=(
            TraceFile('openb_pod_list_default.csv',
                      _raw(_ALIBABA, 'openb_pod_list_default.csv'),
                      'workload', 'alibaba',
                      '1ee7ed79c27a3b0861cda8ddba86a004'
                      'c6aba904caafa329a76ae93ca63834a8', 575468,
                      description='Pod list (8,152 pods).'),
            TraceFile('openb_node_list_all_node.csv',
                      _raw(_ALIBABA, 'openb_node_list_all_node.csv'),
                      'machines', 'alibaba',
                      '5a85c2af79c66a1efff8bbcbda430400'
                      'aae56d8431370d738480967e1a9c6b15', 52287,
                      description='Node list (1,523 nodes).'),
        ),
        reader='--workload-format alibaba for the pods; --machines for '
        'the nodes (with --size-factor).',
        notes='Files pinned to alibaba/clusterdata commit %s.'
        % _ALIBABA[1]),
    Trace(
        name='google-2011',
        title='Google cluster data 2011 (clusterdata-2011-2)',
        format='google2011',
        description='29 days of a Borg cell of about 12.5k machines, May '
        '2011 (trace version 2.1). This entry fetches the first of the '
        '500 parts of task_events and the machine_events table; the whole '
        'trace (about 41 GB compressed) is in the Google Cloud Storage '
        'bucket clusterdata-2011-2 (gsutil).',
        page='https://github.com/google/cluster-data/blob/master/'
        'ClusterData2011_2.md',
        licence='CC-BY-4.0',
        licence_note='The data and trace documentation are made available '
        'under the Creative Commons Attribution 4.0 licence '
        '(https://creativecommons.org/licenses/by/4.0/).',
        citation='John Wilkes. More Google cluster data. Google research '
        'blog, November 2011. And: Charles Reiss, John Wilkes and Joseph '
        'L. Hellerstein. Google cluster-usage traces: format + schema. '
        'Technical report, Google Inc., November 2011, revised 2014-11-17 '
        'for version 2.1.',
        files=(
            TraceFile('task_events-part-00000-of-00500.csv.gz',
                      _GOOGLE + 'task_events/part-00000-of-00500.csv.gz',
                      'workload', 'google2011',
                      description='First part of task_events '
                      '(header-less, 13 columns).'),
            TraceFile('machine_events-part-00000-of-00001.csv.gz',
                      _GOOGLE + 'machine_events/'
                      'part-00000-of-00001.csv.gz',
                      'machines', 'google2011',
                      description='machine_events (header-less).'),
        ),
        reader='--workload-format google2011 for task_events; --machines '
        'for machine_events (sizes are normalised to the largest '
        'machine, so take the hosts from machine_events).',
        notes='No checksum is built in: give --sha256 FILE=DIGEST for '
        'each file, or --insecure-no-checksum.'),
    _swf('swf-nasa-ipsc', 'NASA-iPSC-1993-3.1-cln.swf.gz', 'l_nasa_ipsc',
         'NASA Ames iPSC/860',
         'Three months (October to December 1993) of the 128-node iPSC/860 '
         'hypercube of the NAS division at NASA Ames; the cleaned log. '
         'The log has no arrival times: submit times are start times.',
         'Bill Nitzberg, who provided the log (reference: D. G. Feitelson '
         'and B. Nitzberg, Job characteristics of a production parallel '
         'scientific workload on the NASA Ames iPSC/860, JSSPP 1995, LNCS '
         '949, pp. 337-360)'),
    _swf('swf-sdsc-sp2', 'SDSC-SP2-1998-4.2-cln.swf.gz', 'l_sdsc_sp2',
         'SDSC SP2',
         'The IBM SP2 of the San Diego Supercomputer Center; the cleaned '
         'log (flurries removed). Holds submit, wait and run times, '
         'requested and used nodes and times.',
         'Victor Hazlewood, who provided the log'),
    Trace(
        name='gwf-askalon-ee',
        title='Grid Workloads Archive format: Askalon workflows (EE)',
        format='gwf',
        description='30,746 jobs in 758 workflows of the Askalon grid '
        'workflow system, in the Grid Workloads Format (GWF): WorkflowID, '
        'JobID, SubmitTime, RunTime, NProcs, ReqNProcs, Dependencies. The '
        'copy is the one in an OpenDC experiment repository; the name '
        'suggests the Workflow Trace Archive trace askalon_ee converted '
        'to GWF, which could not be confirmed.',
        page='https://github.com/Timovanmilligen/opendc/tree/%s/%s'
        % (_TIMO[1], _TIMO[2].rstrip('/')),
        licence='MIT (repository); data: see upstream',
        licence_note='The file is in a repository under the MIT licence '
        '(Copyright (c) 2017 AtLarge Research). The terms of the trace '
        'data itself are not stated there: see the Grid Workloads Archive '
        '(http://gwa.ewi.tudelft.nl) and the Workflow Trace Archive '
        '(https://wta.atlarge-research.com).',
        citation=_GWA_CITATION + ' For the Askalon traces of the Workflow '
        'Trace Archive: ' + _WTA_CITATION,
        files=(
            TraceFile('askalon_workload_ee.gwf',
                      _raw(_TIMO, 'askalon_workload_ee.gwf'),
                      'workload', 'gwf',
                      'e79aaa90d54a41b83fc6c89b8a9889b7'
                      'ef20e3ca90f5c44c8c1ddfa3ae7c16aa', 2713509),
        ),
        reader='--workload-format gwf (each job is a task of its '
        'workflow, placed once the jobs it depends on have ended; the SC18 '
        'experiment runs on it, see etc/preemptible-sched/experiments/'
        'sc18).',
        notes='File pinned to Timovanmilligen/opendc commit %s.'
        % _TIMO[1]),
    Trace(
        name='wta',
        title='Workflow Trace Archive (parquet)',
        format=None,
        description='Workflow traces from clusters, grids and clouds in '
        'the WTA format: Parquet tables (Snappy-compressed) of workloads, '
        'workflows, tasks, task states, resources, resource states and '
        'data transfers.',
        page='https://wta.atlarge-research.com/',
        licence='see upstream',
        licence_note='The terms of each trace are on the archive.',
        citation=_WTA_CITATION,
        reader='None yet: no reader of this project takes the WTA '
        'format; convert a trace to the canonical CSV (or GWF) first.',
        notes='No stable download URL is known here: get the traces from '
        'https://wta.atlarge-research.com (format: '
        'https://wta.atlarge-research.com/traceformat.html).'),
    Trace(
        name='bitbrains-faststorage',
        title='Bitbrains GWA-T-12: fastStorage',
        format='gwa-t-12',
        description='Performance metrics of 1,250 VMs of the Bitbrains '
        'datacenter connected to fast SAN storage (of the 1,750 of '
        'GWA-T-12), one CSV file per VM, one sample every 5 minutes: '
        'timestamp, CPU cores, CPU capacity provisioned and used (MHz), '
        'memory, disk and network throughput.',
        page=_BITBRAINS_PAGE,
        licence='see upstream',
        licence_note='See the Grid Workloads Archive page of the trace.',
        citation=_BITBRAINS_CITATION,
        files=(TraceFile('fastStorage.zip', _GWA_T12 + 'fastStorage.zip',
                         'utilization', 'gwa-t-12', packed='zip',
                         description='Per-VM CSV files, zipped.'),),
        reader=_BITBRAINS_READER,
        notes='No checksum is built in: give --sha256 or '
        '--insecure-no-checksum. Unzip, then name one VM file.'),
    Trace(
        name='bitbrains-rnd',
        title='Bitbrains GWA-T-12: Rnd',
        format='gwa-t-12',
        description='Performance metrics of 500 VMs of the Bitbrains '
        'datacenter on fast SAN or slower NAS storage, in three '
        'sub-directories by month; same columns as fastStorage.',
        page=_BITBRAINS_PAGE,
        licence='see upstream',
        licence_note='See the Grid Workloads Archive page of the trace.',
        citation=_BITBRAINS_CITATION,
        files=(TraceFile('rnd.zip', _GWA_T12 + 'rnd.zip', 'utilization',
                         'gwa-t-12', packed='zip',
                         description='Per-VM CSV files, zipped.'),),
        reader=_BITBRAINS_READER,
        notes='No checksum is built in: give --sha256 or '
        '--insecure-no-checksum. Unzip, then name one VM file.'),
    Trace(
        name='bitbrains-vm-sample',
        title='Bitbrains GWA-T-12: one VM',
        format='gwa-t-12',
        description='The CPU, memory, disk and network samples of one '
        'Bitbrains VM, as kept in the tests of OpenDC: a small trace for '
        'the utilisation replay of the fake driver.',
        page='https://github.com/atlarge-research/opendc/tree/%s/%s'
        % (_OPENDC[1], _OPENDC[2].rstrip('/')),
        licence='MIT (repository); data: see upstream',
        licence_note='The file is in a repository under the MIT licence '
        '(Copyright (c) 2017 AtLarge Research); the data is from GWA-T-12 '
        '(%s), whose terms are upstream.' % _BITBRAINS_PAGE,
        citation=_BITBRAINS_CITATION,
        files=(TraceFile('bitbrains.csv', _raw(_OPENDC, 'bitbrains.csv'),
                         'utilization', 'gwa-t-12',
                         '89ab899a39596ca5b95f6e1bd668f0ef'
                         '1c675014cf5baca817b341d6bd77c6eb', 1010846),),
        reader=_BITBRAINS_READER,
        notes='File pinned to atlarge-research/opendc commit %s.'
        % _OPENDC[1]),
)


def catalogue():
    """Every trace of the catalogue, in the order they are listed."""
    return _CATALOGUE


def get(name):
    """The trace called ``name``; :class:`InvalidInput` if there is none."""
    for trace in catalogue():
        if trace.name == name:
            return trace
    raise exception.InvalidInput(
        'traces', None, 'unknown trace %r (known: %s)' % (
            name, ', '.join(t.name for t in catalogue())))


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
    trace = get(name)
    if not trace.files:
        raise exception.InvalidInput(
            trace.name, None, 'nothing to download: %s' % (
                trace.notes or 'see %s' % trace.page))
    if base_url:
        check_url(base_url)
    digests = expected_digests(trace, sha256, insecure)
    urls = [file_url(trace, f, base_url) for f in trace.files]
    for trace_file, url in zip(trace.files, urls):
        if not url:
            raise exception.InvalidInput(
                '%s/%s' % (trace.name, trace_file.name), None,
                'no download URL is known; see %s (or give --mirror)'
                % trace.page)
        check_url(url, '%s/%s' % (trace.name, trace_file.name))
    directory = os.path.join(cache_dir or default_cache_dir(), trace.name)
    bounds = _Bounds(timeout, deadline, max_bytes)
    return [_fetch(trace, trace_file, url, directory,
                   digests[trace_file.name], bounds)
            for trace_file, url in zip(trace.files, urls)]


@dataclasses.dataclass(frozen=True)
class _Bounds:
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
    actual = file_sha256(path)
    if actual == expected:
        return True
    LOG.warning('%s: cached copy has sha256 %s, expected %s; downloading '
                'it again', path, actual, expected)
    return False


def _fetch(trace, trace_file, url, directory, expected, bounds):
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
