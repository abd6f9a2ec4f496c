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

"""The real traces the simulator reads: where they come from.

:func:`catalogue` lists every supported trace (:class:`Trace`): its
upstream page, licence, citation and the concrete files to download
(:class:`TraceFile`), each with the reader that takes it (a workload
format of :mod:`.reading`, a machine list format of
:mod:`..infrastructure`, or ``gwa-t-12``, the utilisation trace of the
fake compute driver) and, when it could be checked, its SHA-256.
:mod:`.download` fetches them into a cache.
"""

import dataclasses
import typing

from preemptible_sched import exception

#: What each role of file is read as: role -> formats its reader knows.
#: ``workload``: ``--workload`` (:data:`.reading.FORMATS`);
#: ``machines``: ``--machines`` (:data:`..infrastructure.MACHINE_FORMATS`);
#: ``utilization``: ``[fake_driver] utilization_trace``.
ROLES = ('workload', 'machines', 'utilization')
UTILIZATION_FORMATS = ('gwa-t-12',)


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
