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

"""A fuzzing campaign against the real command line, in subprocesses.

Generates hostile inputs by category, runs ``python -m
preemptible_sched.cmd.sched ...`` (the ``preemptible-sched`` console
script) on each in a fresh directory with a timeout, several at once, and
prints a JSON summary on stdout: per category and in total, the number of

``runs``
    commands run;
``tracebacks``
    runs whose stderr holds ``Traceback``;
``hangs``
    runs still going at the timeout (killed then);
``killed``
    runs ended by a signal they were not sent (negative return code);
``ignored_sigterms``
    runs still going ``SIGTERM_GRACE`` (10) seconds after a SIGTERM
    (killed then);
``nonfinite_accepted``
    runs that succeeded (exit 0; 0 or 1 for ``decide``, which exits 1 for
    "no valid host") on an input holding NaN or an infinity;
``multi_line_errors``
    runs that exited 2 with more than one line on stderr, not each a
    message of its own (``preemptible-sched: ...``: a file with several
    problems gives one line each; a warning logged beside it is not part of
    it) nor argparse's usage (counted as ``usage_errors``);
``half_written``
    runs that left an output they should not have: any hidden ``.*.tmp``
    entry, or an output directory after a failed run;
``unexpected_exit``
    runs that exited with a code the command does not document;

plus ``exit_codes`` (code -> runs) and up to ``--examples`` failing runs
per category (argv and the end of stderr), to reproduce them.

Categories (``CATEGORIES``; ``--categories`` picks some):

``scenarios``
    ``decide`` on hostile scenario files;
``workloads``
    ``simulate`` on hostile traces of every format;
``infrastructure``
    hostile host lists and machine lists;
``options``
    hostile option values of ``decide``, ``simulate``, ``experiment`` and
    ``traces download``;
``signals``
    ``simulate`` and ``experiment`` stopped by SIGTERM or SIGKILL while
    they run, then run again;
``sla``
    ``simulate`` on SLA workloads (levels, sequential run times, users),
    SLA host lists (reputation categories, blades of 0.5 to 64 cores) and
    ``[sla]`` options, one of the three hostile at a time;
``traces``
    ``simulate`` on hostile GWF files (dependency cycles, unknown or
    thousands of parents, duplicate jobs) and WTA directories (parquet
    tables with duplicate tasks, NaN, nulls, wrong types, missing columns,
    parent cycles; corrupt or truncated files, symbolic link loops, FIFOs,
    a link to ``/dev/zero``, one table read twice, mismatched schemas);
``definitions``
    ``experiment --definition`` on hostile YAML and JSON definitions
    (values out of range or of the wrong type, paths to special files,
    encodings);
``special_paths``
    every path option (``--config-file``, ``--config-dir``, ``decide
    --scenario``, ``experiment --definition`` and ``--workload``,
    ``simulate --workload``, ``--infrastructure``, ``--machines``,
    ``--machine-attributes``, ``--task-constraints``, ``--output``,
    ``traces download --cache-dir`` and a ``file://`` ``--mirror``) on
    ``/dev/zero``, ``/dev/null``, ``/dev/stdin``, ``/proc/self/mem``, a
    FIFO, a directory, a symbolic link loop (of one link or two), a
    dangling link and a link to ``/dev/zero``;
``configs``
    ``decide`` under hostile configuration files (any registered option
    given a hostile value, unknown groups, ``$`` reference loops, bad
    URLs, special files as log files, encodings).

Each category is a function ``generate(rng, count, shared)`` returning
:class:`dict` cases (see :func:`run_case`); more categories (RPC messages)
plug in by adding a function to ``CATEGORIES``.

Usage::

    python tools/fuzz_campaign.py                # full size, ~60-80 min
    python tools/fuzz_campaign.py --quick 20     # 20 cases per category
    python tools/fuzz_campaign.py --categories scenarios,options

The full size (``SIZES``): 2,100 scenario files, 300 workloads, 150
infrastructure files, 400 option sets, 24 signal runs, 200 SLA runs, 300
traces, 200 definitions, 260 special paths and 250 configuration files
(4,184 runs). Exit 0 when no run failed in any of the ways above, 1
otherwise.
"""

import argparse
import copy
import gzip
import json
import math
import multiprocessing
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENARIOS = os.path.join(REPO, 'etc', 'preemptible-sched', 'scenarios')
WORKLOADS = os.path.join(REPO, 'etc', 'preemptible-sched', 'workloads')
COMMAND = [sys.executable, '-m', 'preemptible_sched.cmd.sched']

#: Cases per category at full size.
SIZES = {'scenarios': 2100, 'workloads': 300, 'infrastructure': 150,
         'options': 400, 'signals': 24, 'sla': 200, 'traces': 300,
         'definitions': 200, 'special_paths': 260, 'configs': 250}

#: Exit codes each command documents (0 ok, 1 no valid host / download
#: failed, 2 bad input, 130 Ctrl-C, 143 SIGTERM).
EXIT_CODES = {'decide': (0, 1, 2), 'simulate': (0, 2, 143),
              'experiment': (0, 2, 143), 'traces': (0, 1, 2)}

# -- Hostile values ---------------------------------------------------------

NONFINITE = (float('nan'), float('inf'), float('-inf'))
ABSURD = (-1, -1e-9, 1e9 + 1, 1e15, 1e308, 2 ** 63, 10 ** 400, 2.0, 0.5,
          True, False, '1', '', None, [], {}, [1], 'nan', 'Infinity')
NUMBER_TEXTS = ('nan', 'NaN', '-nan', 'inf', '-inf', 'Infinity',
                '+Infinity', '1e308', '1e309', '-1e309', '1e400', '-1',
                '-0', '0', '1e-400', '2.0', '0.5', '1e9', '1000000001',
                '1e13', '1e15', '9' * 400, '9' * 5000, '0x10', '1_000',
                '\u0661\u0662', '', ' ', 'one', '1e', '.', '1,5', 'true',
                '100000000', '4294967296', '-4294967296')
NASTY_TEXTS = ('', ' ', 'a\nb', 'a\rb', 'a,b', 'a;b=c', '"', "'", '\\',
               '%s%d', '\u2028', '\x1b[31m', '\ufeff', 'x' * 3000,
               '\U0001f600', '#', ';comment', '=', 'k=v;k', 'a\tb')


def _nonfinite_number(value):
    return isinstance(value, float) and not math.isfinite(value)


def _has_nonfinite(document):
    stack = [document]
    while stack:
        item = stack.pop()
        if _nonfinite_number(item):
            return True
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _text_nonfinite(text):
    lowered = text.strip().lower().lstrip('+-')
    return lowered in ('nan', 'inf', 'infinity', '1e309', '1e400')


# -- Scenarios --------------------------------------------------------------

def _base_scenarios():
    found = []
    for name in sorted(os.listdir(SCENARIOS)):
        with open(os.path.join(SCENARIOS, name)) as stream:
            found.append(json.load(stream))
    return found


def _places(document, prefix=()):
    places = [(prefix, document)]
    if isinstance(document, dict):
        for key, value in document.items():
            places += _places(value, prefix + (key,))
    elif isinstance(document, list):
        for index, value in enumerate(document):
            places += _places(value, prefix + (index,))
    return places


def _set(document, path, value):
    target = document
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value


def _numeric_places(document):
    return [path for path, value in _places(document)
            if path and isinstance(value, (int, float)) and
            not isinstance(value, bool)]


def _mutate_scenario(rng, document):
    """One hostile change to ``document``; a label saying which."""
    kind = rng.choice((
        'nonfinite', 'nonfinite', 'absurd', 'absurd', 'num_instances',
        'id_clash', 'wrong_type', 'drop', 'unknown_field', 'config',
        'huge_list', 'string_chaos'))
    numeric = _numeric_places(document)
    if kind == 'nonfinite' and numeric:
        path = rng.choice(numeric)
        _set(document, path, rng.choice(NONFINITE))
    elif kind == 'absurd' and numeric:
        path = rng.choice(numeric)
        _set(document, path, rng.choice(ABSURD))
    elif kind == 'num_instances':
        document['request']['num_instances'] = rng.choice(
            (0, -1, 2.0, 1.5, 1001, 100000, 10 ** 20, '2', True, None,
             float('nan'), float('inf'), 1000, 3))
    elif kind == 'id_clash':
        ids = [value for path, value in _places(document)
               if path[-1:] == ('id',) and isinstance(value, str)]
        document['request']['id'] = rng.choice(ids or ['x'])
        if rng.random() < 0.3:
            document['request']['num_instances'] = 2
            document['request']['id'] = ids[0].rsplit('-', 1)[0] if ids \
                else 'x'
    elif kind == 'wrong_type':
        places = [path for path, _ in _places(document) if path]
        path = rng.choice(places)
        _set(document, path, rng.choice(
            ([], {}, 'text', None, True, 1, [[[]]], {'a': {'b': 1}})))
    elif kind == 'drop':
        places = [path for path, value in _places(document)
                  if path and isinstance(path[-1], str)]
        path = rng.choice(places)
        target = document
        for part in path[:-1]:
            target = target[part]
        target.pop(path[-1], None)
    elif kind == 'unknown_field':
        places = [path for path, value in _places(document)
                  if isinstance(value, dict)]
        path = rng.choice(places)
        target = document
        for part in path:
            target = target[part]
        target[rng.choice(NASTY_TEXTS)] = rng.choice(ABSURD)
    elif kind == 'config':
        group, option, value = rng.choice((
            ('preemptible', 'billing_period_cost_multiplier', 'nan'),
            ('preemptible', 'runtime_cost_multiplier', 'inf'),
            ('preemptible', 'count_cost_multiplier', float('nan')),
            ('filter_scheduler', 'termination_cost_weight_multiplier',
             '-inf'),
            ('filter_scheduler', 'termination_cost_weight_multiplier',
             1e308),
            ('compute', 'cpu_allocation_ratio', 'nan'),
            ('compute', 'cpu_allocation_ratio', -1),
            ('preemptible', 'billing_period', 'inf'),
            ('scheduler', 'preemption_strategy', 'nope'),
            ('nosuchgroup', 'x', 1), ('DEFAULT', 'debug', 'maybe'),
            ('DEFAULT', 'config_file', '/etc/passwd'),
            ('filter_scheduler', 'enabled_filters', [None, None]),
            ('filter_scheduler', 'enabled_filters', {'a': 1}),
            ('filter_scheduler', 'nosuchoption', 1)))
        document.setdefault('config', {}).setdefault(group, {})[option] = \
            value
    elif kind == 'huge_list':
        document['hosts'] = document['hosts'] * rng.choice((2, 50, 2000))
    elif kind == 'string_chaos':
        places = [path for path, value in _places(document)
                  if path and isinstance(value, str)]
        path = rng.choice(places)
        _set(document, path, rng.choice(NASTY_TEXTS + ('\ud800',)))
    else:
        kind = 'unchanged'
    return kind


def _safe_mutation(rng, document):
    """:func:`_mutate_scenario`, on a document an earlier change may have
    left without the part it changes.
    """
    try:
        return _mutate_scenario(rng, document)
    except (KeyError, IndexError, TypeError, AttributeError):
        return 'unchanged'


def _json_bytes(document):
    return json.dumps(document, allow_nan=True).encode(
        'utf-8', 'surrogatepass')


def _yaml_bytes(document):
    import yaml
    try:
        return yaml.safe_dump(document, allow_unicode=True).encode(
            'utf-8', 'surrogatepass')
    except (yaml.YAMLError, UnicodeError):
        return _json_bytes(document)


_YAML_ODDITIES = (
    b'hosts: []\nrequest: {vcpus: .nan, memory_mb: 1}\n',
    b'hosts: []\nrequest: {vcpus: .inf, memory_mb: 1}\n',
    b'hosts: [{name: a, vcpus: -.inf, memory_mb: 1}]\nrequest: {vcpus: 1,'
    b' memory_mb: 1}\n',
    b'now: 2020-01-01\nhosts: []\nrequest: {vcpus: 1, memory_mb: 1}\n',
    b'hosts: !!binary aGk=\nrequest: {}\n',
    b'hosts: !!set {a}\nrequest: {}\n',
    b'hosts: !!python/object/apply:os.system ["true"]\nrequest: {}\n',
    b'a: &a ["x","x","x","x","x","x","x","x","x"]\n'
    b'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,'
    b'*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,'
    b'*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: &g [*f,*f,*f,*f,'
    b'*f,*f,*f,*f,*f]\nh: [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n',
    b'? [1, 2]\n: 3\n', b'1: 2\n', b'--- a\n--- b\n', b'\t- x\n',
    b'hosts: []\nrequest: {vcpus: 1e400, memory_mb: 1}\n',
    b'hosts: []\nrequest: {vcpus: 0x1F, memory_mb: 0o17}\n',
    b'hosts: []\nrequest: {num_instances: 2.0, vcpus: 1, memory_mb: 1}\n',
)


def _encoding_variant(rng, data):
    kind = rng.choice(('latin1', 'utf16', 'truncate', 'nul', 'bom', 'ff',
                       'empty', 'garbage'))
    if kind == 'latin1':
        return kind, data.replace(b'"host-A"', b'"h\xe9te"', 1) + b'\xe9'
    if kind == 'utf16':
        return kind, data.decode('utf-8', 'replace').encode('utf-16')
    if kind == 'truncate':
        return kind, data[:rng.randrange(max(1, len(data)))]
    if kind == 'nul':
        cut = rng.randrange(max(1, len(data)))
        return kind, data[:cut] + b'\0' + data[cut:]
    if kind == 'bom':
        return kind, b'\xef\xbb\xbf' + data
    if kind == 'ff':
        return kind, b'\xff\xfe' + data[:50]
    if kind == 'empty':
        return kind, b''
    return kind, bytes(rng.randrange(256) for _ in range(
        rng.randrange(1, 400)))


def gen_scenarios(rng, count, shared):
    """``decide`` on hostile scenario files."""
    bases = _base_scenarios()
    cases = []
    specials = [
        ('fifo', {'fifo': ['scenario.json']}, 'scenario.json'),
        ('dev_zero', {}, '/dev/zero'),
        ('dev_null', {}, '/dev/null'),
        ('directory', {'dirs': ['scenario.json']}, 'scenario.json'),
        ('huge_file', {}, shared['huge_file']),
        ('missing', {}, 'missing.json'),
        ('empty_name', {}, ''),
        ('proc_file', {}, '/proc/self/status'),
    ]
    for index in range(count):
        case = {'category': 'scenarios', 'command': 'decide',
                'nonfinite': False, 'accept': (0, 1)}
        choice = index % 20
        name = 'scenario.json'
        if choice == 0 and index // 20 < len(specials) * 3:
            label, extra, path = specials[(index // 20) % len(specials)]
            case.update(extra)
            case['label'] = label
            case['argv'] = ['decide', '--scenario', path]
            cases.append(case)
            continue
        document = copy.deepcopy(rng.choice(bases))
        labels = [_safe_mutation(rng, document)
                  for _ in range(rng.choice((1, 1, 1, 2, 3)))]
        config = document.get('config')
        case['nonfinite'] = _has_nonfinite(document) or any(
            isinstance(value, str) and _text_nonfinite(value)
            for _, value in _places(config if isinstance(config, dict)
                                    else {}))
        if choice in (1, 2):
            name = 'scenario.yaml'
            data = _yaml_bytes(document)
            labels.append('yaml')
        elif choice == 3:
            name = 'scenario.yaml'
            data = rng.choice(_YAML_ODDITIES)
            labels = ['yaml_oddity']
            case['nonfinite'] = b'.nan' in data or b'.inf' in data or \
                b'1e400' in data
        elif choice == 4:
            depth = rng.choice((33, 100, 1000, 10 ** 5, 10 ** 6))
            name = rng.choice(('scenario.json', 'scenario.yaml'))
            data = (b'[' * depth + b']' * depth) if rng.random() < 0.5 \
                else (b'{"a":' * depth + b'1' + b'}' * depth)
            labels = ['deep_nesting']
            case['nonfinite'] = False
        elif choice == 5:
            label, data = _encoding_variant(rng, _json_bytes(document))
            labels.append(label)
        elif choice == 6:
            data = _json_bytes(document)
            token = rng.choice((b'NaN', b'Infinity', b'-Infinity',
                                b'1e400', b'-1e999'))
            data = data.replace(b': 8,', b': ' + token + b',', 1)
            labels.append('literal')
            case['nonfinite'] = case['nonfinite'] or token in data
        elif choice == 7:
            data = _json_bytes(document).replace(
                b'"vcpus": 8', b'"vcpus": ' + b'9' * rng.choice(
                    (20, 309, 400, 4300, 5000)), 1)
            labels.append('long_integer')
        else:
            data = _json_bytes(document)
        case['files'] = {name: data}
        case['label'] = '+'.join(labels)
        case['argv'] = ['decide', '--scenario', name] + (
            ['--format', 'table'] if rng.random() < 0.2 else [])
        cases.append(case)
    return cases


# -- Workloads --------------------------------------------------------------

_WORKLOAD_FORMATS = {
    'csv': ('w.csv', 'id,submit_s,duration_s,vcpus,memory_mb,disk_gb,'
            'service_class,preemptible,constraints',
            ['r', '0', '100', '1', '100', '0', 'gold', 'false', ''],
            (1, 2, 3, 4, 5)),
    'alibaba': ('pods.csv', 'name,cpu_milli,memory_mib,num_gpu,gpu_milli,'
                'gpu_spec,qos,pod_phase,creation_time,deletion_time,'
                'scheduled_time',
                ['p', '1000', '100', '0', '0', '', 'LS', 'Running', '0',
                 '200', '5'], (1, 2, 3, 4, 8, 9, 10)),
    'gwf': ('w.gwf', 'WorkflowID, JobID, SubmitTime, RunTime, NProcs, '
            'ReqNProcs, Dependencies', ['1', '2', '0', '10', '1', '1', ''],
            (2, 3, 4, 5)),
    'google2011': ('task_events.csv', None,
                   ['1000000', '', '7', '0', '42', '0', 'u', '2', '9', '0.5',
                    '0.25', '0.001', '0'], (0, 5, 8, 9, 10)),
    'swf': ('w.swf', None,
            ['1', '0', '-1', '10', '2', '-1', '-1', '2', '-1', '1024', '1',
             '1', '1', '-1', '1', '-1', '-1', '-1'], (1, 3, 4, 7, 9)),
}


def _quote(cell):
    if any(char in cell for char in ',"\n\r') or cell != cell.strip():
        return '"%s"' % cell.replace('"', '""')
    return cell


def _workload_text(rng, fmt):
    name, header, good, numeric = _WORKLOAD_FORMATS[fmt]
    rows = []
    nonfinite = False
    for index in range(rng.randrange(1, 8)):
        row = list(good)
        if fmt == 'google2011':
            row[2] = str(7 + index)
        else:
            row[0] = '%s%d' % (row[0], index)
        for _ in range(rng.choice((0, 1, 1, 2, 3))):
            column = rng.choice(numeric) if rng.random() < 0.8 else \
                rng.randrange(len(row))
            value = rng.choice(NUMBER_TEXTS + NASTY_TEXTS)
            if fmt == 'swf':
                value = value.replace(' ', '').replace('\n', '') or '-1'
            row[column] = value
            nonfinite = nonfinite or (column in numeric and
                                      _text_nonfinite(value))
        rows.append(row)
        if fmt == 'google2011' and rng.random() < 0.7:
            ended = list(row)
            ended[0] = str(int(row[0]) + 5000000) if row[0].isdigit() \
                and len(row[0]) < 20 else row[0]
            ended[5] = '1'
            rows.append(ended)
    if fmt == 'swf':
        text = '; hostile\n' + ''.join(' '.join(row) + '\n' for row in rows)
    else:
        lines = [header] if header else []
        lines += [','.join(_quote(cell) for cell in row) for row in rows]
        text = '\n'.join(lines) + '\n'
    return name, text, nonfinite


def _simulate_argv(name, rng, output='out'):
    argv = ['simulate', '--workload', name, '--no-plots', '--output',
            output, '--hosts', '2', '--host-flavor', '4:8000']
    argv += ['--until', rng.choice(('600', '3600', '0', '100'))]
    if rng.random() < 0.3:
        argv += ['--policy', rng.choice(('qos', 'priority', 'dual_state'))]
    if rng.random() < 0.3:
        argv += ['--default-class', rng.choice(('gold', 'bronze',
                                                'silver'))]
    return argv


def gen_workloads(rng, count, shared):
    """``simulate`` on hostile traces of every workload format."""
    cases = []
    formats = sorted(_WORKLOAD_FORMATS)
    specials = (('fifo', {'fifo': ['w.csv']}, 'w.csv'),
                ('dev_zero', {}, '/dev/zero'),
                ('directory', {'dirs': ['w.csv']}, 'w.csv'),
                ('huge_file', {}, shared['huge_file']),
                ('gzip_zeros', {}, shared['gzip_zeros']),
                ('gzip_newlines', {}, shared['gzip_newlines']),
                ('corrupt_gzip', {'files': {
                    'w.csv.gz': b'\x1f\x8b\x08\x00garbage'}}, 'w.csv.gz'),
                ('not_gzip', {'files': {'w.csv.gz': b'id,submit_s\n'}},
                 'w.csv.gz'),
                ('long_line', {'files': {'w.csv': b'id,' + b'x' * (
                    2 * 1024 * 1024) + b'\n'}}, 'w.csv'),
                ('latin1', {'files': {'w.csv': b'id,submit_s,duration_s,'
                                      b'vcpus,memory_mb\nr\xe9,0,1,1,1\n'}},
                 'w.csv'),
                ('empty', {'files': {'w.csv': b''}}, 'w.csv'),
                ('bom_utf16', {'files': {'w.csv': 'id,submit_s\n'.encode(
                    'utf-16')}}, 'w.csv'))
    for index in range(count):
        case = {'category': 'workloads', 'command': 'simulate',
                'accept': (0,), 'outputs': ['out']}
        if index % 15 == 0:
            label, extra, path = specials[(index // 15) % len(specials)]
            case.update(copy.deepcopy(extra))
            case.update(label=label, nonfinite=False,
                        argv=_simulate_argv(path, rng))
            cases.append(case)
            continue
        fmt = formats[index % len(formats)]
        name, text, nonfinite = _workload_text(rng, fmt)
        data = text.encode('utf-8', 'surrogatepass')
        if rng.random() < 0.15:
            name += '.gz'
            data = gzip.compress(data)
        argv = _simulate_argv(name, rng)
        if rng.random() < 0.5:
            argv += ['--workload-format', fmt]
        case.update(label=fmt, nonfinite=nonfinite, files={name: data},
                    argv=argv)
        cases.append(case)
    return cases


# -- Infrastructure ----------------------------------------------------------

_HOST_FORMATS = {
    'csv': ('name,vcpus,memory_mb,disk_gb,attributes',
            ['h', '4', '8000', '0', 'zone=a'], (1, 2, 3)),
    'alibaba': ('sn,cpu_milli,memory_mib,gpu,model',
                ['n', '64000', '262144', '2', 'V100'], (1, 2, 3)),
    'google2011': (None, ['0', '5', '0', 'p1', '0.5', '0.25'],
                   (0, 2, 4, 5)),
}

_SMALL_WORKLOAD = (b'id,submit_s,duration_s,vcpus,memory_mb\n'
                   b'a,0,100,1,100\nb,5,50,1,100\n')


def gen_infrastructure(rng, count, shared):
    """``simulate --infrastructure`` and ``--machines`` on hostile hosts."""
    cases = []
    for index in range(count):
        fmt = sorted(_HOST_FORMATS)[index % len(_HOST_FORMATS)]
        header, good, numeric = _HOST_FORMATS[fmt]
        rows, nonfinite = [], False
        for number in range(rng.randrange(1, 6)):
            row = list(good)
            row[1 if fmt == 'google2011' else 0] += str(number)
            for _ in range(rng.choice((0, 1, 1, 2))):
                column = rng.choice(numeric) if rng.random() < 0.8 else \
                    rng.randrange(len(row))
                value = rng.choice(NUMBER_TEXTS + NASTY_TEXTS)
                row[column] = value
                nonfinite = nonfinite or (column in numeric and
                                          _text_nonfinite(value))
            rows.append(row)
        lines = ([header] if header else []) + [
            ','.join(_quote(cell) for cell in row) for row in rows]
        data = ('\n'.join(lines) + '\n').encode('utf-8', 'surrogatepass')
        if index % 25 == 0:
            data = bytes(rng.randrange(256) for _ in range(200))
        files = {'w.csv': _SMALL_WORKLOAD, 'hosts.csv': data}
        argv = ['simulate', '--workload', 'w.csv', '--no-plots', '--output',
                'out', '--until', '300']
        if fmt == 'csv' and rng.random() < 0.5:
            argv += ['--infrastructure', 'hosts.csv']
        else:
            factor = rng.choice(('0.5', '1', '2', '10', '999', 'nan', 'inf',
                                 '1e6', '-1', '0'))
            nonfinite = nonfinite or _text_nonfinite(factor)
            argv += ['--machines', 'hosts.csv', '--size-factor', factor]
        cases.append({'category': 'infrastructure', 'command': 'simulate',
                      'label': fmt, 'files': files, 'argv': argv,
                      'nonfinite': nonfinite, 'accept': (0,),
                      'outputs': ['out']})
    return cases


# -- Options -----------------------------------------------------------------

_EXPERIMENT_WORKLOAD = (b'id,submit_s,duration_s,vcpus,memory_mb,disk_gb,'
                        b'service_class,preemptible,constraints\n'
                        b'r1,0,50,1,100,0,gold,false,\n'
                        b'r2,5,30,1,100,0,bronze,false,\n')


def _option_value(rng):
    return rng.choice(NUMBER_TEXTS + NASTY_TEXTS)


def gen_options(rng, count, shared):
    """Hostile option values of decide, simulate, experiment, traces."""
    cases = []
    scenario = os.path.join(SCENARIOS, 'paper-snapshot-1.json')
    for index in range(count):
        which = ('simulate', 'simulate', 'experiment', 'decide',
                 'traces')[index % 5]
        files, outputs = {}, []
        nonfinite = False
        if which == 'simulate':
            options = {'--until': '300', '--hosts': '2',
                       '--host-flavor': '4:8000', '--seed': '0',
                       '--output': 'out'}
            for _ in range(rng.choice((1, 1, 2))):
                option = rng.choice(('--until', '--hosts', '--host-flavor',
                                     '--seed', '--limit', '--size-factor',
                                     '--output', '--class-map',
                                     '--default-class', '--policy'))
                value = _option_value(rng)
                if option == '--host-flavor':
                    value = '%s:%s' % (rng.choice(NUMBER_TEXTS),
                                       rng.choice(NUMBER_TEXTS))
                if option == '--output':
                    value = rng.choice(('', ' ', 'w.csv', '/dev/null',
                                        '/proc/nope/out', 'a' * 300,
                                        'x/' * 200, '.', 'out'))
                options[option] = value
                nonfinite = nonfinite or (
                    option not in ('--output', '--class-map',
                                   '--default-class', '--policy') and
                    any(_text_nonfinite(part) for part in value.split(':')))
            if '--size-factor' in options:
                options.pop('--hosts')
                options.pop('--host-flavor')
                options['--machines'] = os.path.join(
                    WORKLOADS, 'qos-validation-hosts.csv')
            files['w.csv'] = _SMALL_WORKLOAD
            argv = ['simulate', '--workload', 'w.csv', '--no-plots']
            if rng.random() < 0.2:
                files['open.csv'] = _SMALL_WORKLOAD + b'c,9,,1,100\n'
                argv[2] = 'open.csv'
                if rng.random() < 0.7:
                    options.pop('--until', None)
            for option, value in options.items():
                argv += [option, value]
            outputs = [options.get('--output', 'out')]
        elif which == 'experiment':
            options = {'--hosts': '2', '--host-flavor': '4:8000',
                       '--seeds': '0', '--policies': 'qos',
                       '--jobs': '1', '--until': '200', '--output': 'out'}
            option = rng.choice(('--seeds', '--size-factors', '--jobs',
                                 '--policies', '--until', '--limit',
                                 '--output', '--hosts'))
            if option in ('--seeds', '--size-factors', '--policies'):
                value = ','.join(_option_value(rng) for _ in range(
                    rng.randrange(1, 4)))
                if rng.random() < 0.1:
                    value = ','.join(str(n) for n in range(5000))
            elif option == '--output':
                value = rng.choice(('', 'w.csv', '/dev/null', '.'))
            else:
                value = _option_value(rng)
            options[option] = value
            if option == '--size-factors':
                options.pop('--hosts')
                options.pop('--host-flavor')
                options['--machines'] = os.path.join(
                    WORKLOADS, 'qos-validation-hosts.csv')
            nonfinite = option not in ('--output', '--policies') and any(
                _text_nonfinite(part) for part in value.split(','))
            files['w.csv'] = _EXPERIMENT_WORKLOAD
            argv = ['experiment', '--workload', 'w.csv', '--no-plots']
            for key, item in options.items():
                argv += [key, item]
            outputs = [options['--output']]
        elif which == 'decide':
            argv = ['decide', '--scenario', rng.choice((
                scenario, '', '/dev/zero', '/', 'nope.json', 'a' * 5000,
                '/proc/self/mem', '/etc/shadow', scenario + '/x'))]
            if rng.random() < 0.3:
                argv += ['--format', _option_value(rng)]
        else:
            argv = ['traces', 'download', rng.choice((
                'alibaba-gpu-2023', 'swf-sdsc-sp2', 'wta', 'nope', '',
                '../etc', _option_value(rng)))]
            option = rng.choice(('--timeout', '--sha256', '--cache-dir',
                                 '--mirror'))
            value = _option_value(rng)
            if option == '--timeout':
                nonfinite = _text_nonfinite(value)
            argv += [option, value, '--mirror', 'file:///nonexistent/m']
            if option != '--cache-dir':
                argv += ['--cache-dir', 'cache']
        cases.append({'category': 'options', 'command': which,
                      'label': which, 'files': files, 'argv': argv,
                      'nonfinite': nonfinite,
                      'accept': (0, 1) if which == 'decide' else (0,),
                      'outputs': [o for o in outputs if o.strip() and
                                  not o.startswith('/') and
                                  o not in ('.', 'w.csv')]})
    return cases


# -- Signals -----------------------------------------------------------------

def _long_workload(requests=150):
    lines = [b'id,submit_s,duration_s,vcpus,memory_mb,disk_gb,'
             b'service_class,preemptible,constraints']
    for index in range(requests):
        lines.append(b'r%d,%d,%d,1,100,0,%s,false,' % (
            index, index, 50 + index % 300,
            (b'gold', b'silver', b'bronze')[index % 3]))
    return b'\n'.join(lines) + b'\n'


def gen_signals(rng, count, shared):
    """simulate/experiment stopped by SIGTERM or SIGKILL, then rerun."""
    cases = []
    for index in range(count):
        which = ('experiment', 'simulate')[index % 2]
        sig = (signal.SIGTERM, signal.SIGTERM, signal.SIGKILL)[index % 3]
        if which == 'experiment':
            argv = ['experiment', '--workload', 'w.csv', '--hosts', '4',
                    '--host-flavor', '4:8000', '--policies', 'qos,priority',
                    '--seeds', '0', '--jobs', '2', '--until', '1000',
                    '--no-plots', '--output', 'out']
        else:
            argv = ['simulate', '--workload', 'w.csv', '--hosts', '4',
                    '--host-flavor', '4:8000', '--until', '1000',
                    '--no-plots', '--output', 'out']
        cases.append({
            'category': 'signals', 'command': which,
            'label': '%s-%s' % (which, signal.Signals(sig).name),
            'files': {'w.csv': _long_workload()}, 'argv': argv,
            'nonfinite': False, 'accept': (0,), 'outputs': ['out'],
            'signal': (int(sig), rng.uniform(1.5, 12.0)),
            'rerun': sig == signal.SIGKILL, 'timeout': 300.0})
    return cases


# -- SLA ----------------------------------------------------------------------

SLA_DIR = os.path.join(REPO, 'etc', 'preemptible-sched', 'experiments', 'sla')
_LEVELS = ('premium', 'advanced', 'best_effort')
_SLA_HEADER = ('id,submit_s,duration_s,vcpus,memory_mb,disk_gb,'
               'sla_satisfaction,sla_reputation,sla_resources,sla_replicas,'
               'sequential_s,user')
_SLA_OPTIONS = (
    ('sla', 'reference_cores', ('smallest', 'per_category', 'configured',
                                'nope', '', '0')),
    ('sla', 'reference_cores_value', ('2', '3', '0', '-1', '100001', 'nan',
                                      '1e9', '4.5', '')),
    ('sla', 'premium_replicas', ('0', '1', '-1', '1000', '1001', 'nan',
                                 '2.5', '99999999999999999999')),
    ('sla', 'advanced_replicas', ('0', '-3', '1e3', 'inf')),
    ('sla', 'best_effort_replicas', ('0', '1000', 'x')),
    ('sla', 'replicas_count', ('total', 'extra', 'copies', '')),
    ('sla', 'satisfaction_time_weight', ('0', '-1', 'nan', 'inf', '1e7',
                                         '1e-300')),
    ('sla', 'reputation_weight', ('0', '1e6', '-inf')),
    ('sla', 'resources_weight', ('0', '0.5', 'NaN')),
    ('sla', 'replicas_weight', ('0', '2', '1e308')),
    ('sla', 'price', ('per_class', 'nope', '')),
    ('sla', 'premium_core_hour_rate', ('0', '-1', 'nan', '1e9', '1e10')),
    ('scheduler', 'queue_policy', ('promethee', 'fifo', 'nope')),
    ('scheduler', 'on_no_valid_host', ('wait', 'fail', 'nope')),
    ('filter_scheduler', 'enabled_filters', (
        'compute, resources, reputation, anti_affinity', 'reputation',
        'anti_affinity', '', 'nope')),
)


def _sla_conf(rng, hostile):
    """sla.conf, with hostile values if ``hostile``; whether a number
    option got NaN or an infinity.
    """
    with open(os.path.join(SLA_DIR, 'sla.conf')) as stream:
        text = stream.read()
    nonfinite = False
    extra = {}
    for _ in range(rng.choice((1, 1, 2, 3)) if hostile else 0):
        group, option, values = rng.choice(_SLA_OPTIONS)
        value = rng.choice(values + (rng.choice(NUMBER_TEXTS),))
        extra.setdefault(group, {})[option] = value
        nonfinite = nonfinite or (option.endswith(('weight', 'rate',
                                                   'replicas', '_value')) and
                                  _text_nonfinite(value))
    for group, options in extra.items():
        text += '\n[%s]\n' % group + ''.join(
            '%s = %s\n' % (option, value.replace('\n', ' '))
            for option, value in options.items())
    return text, nonfinite


def _sla_rows(rng, hostile):
    rows, nonfinite = [], False
    count = rng.randrange(1, 10)
    hostile_row = rng.randrange(count) if hostile else -1
    for index in range(count):
        level = rng.choice(_LEVELS)
        row = ['r%d' % index, str(rng.choice((0, 0, 3, 60))), '', '',
               '1024', '0'] + [level] * 4 + ['300', level]
        if rng.random() < 0.3:
            row[6:10] = [rng.choice(_LEVELS) for _ in range(4)]
        for _ in range(rng.choice((1, 1, 2)) if index == hostile_row
                       else 0):
            column = rng.choice((1, 2, 3, 4, 6, 7, 8, 9, 10, 11))
            if column in (6, 7, 8, 9):
                value = rng.choice(('', 'gold', 'PREMIUM', 'premium ',
                                    'best-effort', 'none') + NASTY_TEXTS)
            else:
                value = rng.choice(NUMBER_TEXTS + NASTY_TEXTS)
                nonfinite = nonfinite or (column != 11 and
                                          _text_nonfinite(value))
            row[column] = value
        rows.append(row)
    return rows, nonfinite


def _sla_hosts(rng, hostile):
    rows = []
    categories = ('high', 'average', 'low')
    for index in range(rng.randrange(1, 10)):
        row = ['h%d' % index, rng.choice(('32', '32', '8', '3', '2', '1',
                                          '0.5', '0', '64')),
               '131072', '500', 'reputation=%s' % categories[index % 3]]
        if hostile and rng.random() < 0.3:
            row[4] = rng.choice(('', 'reputation=', 'reputation=HIGH',
                                 'reputation=high;reputation=low',
                                 'reputation=top', 'zone=a', 'reputation'))
        if hostile and rng.random() < 0.2:
            row[1] = rng.choice(NUMBER_TEXTS)
        rows.append(row)
    return rows, any(_text_nonfinite(row[1]) for row in rows)


def _csv_bytes(header, rows):
    lines = [header] + [','.join(_quote(cell) for cell in row)
                        for row in rows]
    return ('\n'.join(lines) + '\n').encode('utf-8', 'surrogatepass')


def gen_sla(rng, count, shared):
    """``simulate`` on hostile SLA workloads, hosts and [sla] options."""
    cases = []
    for _ in range(count):
        # One part hostile (or none): the others as a valid run has them,
        # so that the hostile part is read as far as it goes.
        hostile = rng.choice(('rows', 'hosts', 'hosts', 'conf', 'none'))
        rows, bad_rows = _sla_rows(rng, hostile == 'rows')
        hosts, bad_hosts = _sla_hosts(rng, hostile == 'hosts')
        conf, bad_conf = _sla_conf(rng, hostile == 'conf')
        argv = ['simulate', '--workload', 'w.csv', '--config-file',
                'sla.conf', '--until', rng.choice(('600', '3600')),
                '--no-plots', '--output', 'out']
        if rng.random() < 0.85:
            argv += ['--infrastructure', 'hosts.csv']
        else:
            argv += ['--hosts', rng.choice(('1', '2', '3')),
                     '--host-flavor', rng.choice(('2:8000', '1:4000',
                                                  '32:131072'))]
            bad_hosts = False   # hosts.csv is not read
        cases.append({
            'category': 'sla', 'command': 'simulate', 'label': hostile,
            'files': {'w.csv': _csv_bytes(_SLA_HEADER, rows),
                      'hosts.csv': _csv_bytes(
                          'name,vcpus,memory_mb,disk_gb,attributes', hosts),
                      'sla.conf': conf.encode('utf-8', 'surrogatepass')},
            'argv': argv, 'nonfinite': bad_rows or bad_hosts or bad_conf,
            'accept': (0,), 'outputs': ['out']})
    return cases


# -- GWF and WTA traces -------------------------------------------------------

_GWF_HEADER = ('# a hostile GWF trace\n'
               'WorkflowID, JobID, SubmitTime, RunTime, NProcs, ReqNProcs, '
               'Dependencies\n')


def _gwf_case(rng):
    jobs = rng.randrange(1, 8)
    rows, nonfinite = [], False
    for job in range(jobs):
        parents = [str(p) for p in range(job) if rng.random() < 0.3]
        rows.append(['7', str(job), str(job * 10), '20', '1', '1',
                     ' '.join(parents)])
    label = rng.choice(('cycle', 'self', 'unknown', 'duplicate', 'nasty',
                        'numbers', 'many_deps', 'columns', 'plain'))
    if label == 'cycle' and jobs > 1:
        rows[0][6] = str(jobs - 1)
        rows[-1][6] = '0'
    elif label == 'self':
        rows[-1][6] = rows[-1][1]
    elif label == 'unknown':
        rows[-1][6] = rng.choice(('999', '-1', '0x1', '1.5', 'a b c'))
    elif label == 'duplicate':
        rows.append(list(rows[0]))
    elif label == 'nasty':
        rows[rng.randrange(jobs)][rng.randrange(7)] = rng.choice(
            NASTY_TEXTS)
    elif label == 'numbers':
        column = rng.choice((2, 3, 4, 5))
        value = rng.choice(NUMBER_TEXTS)
        rows[rng.randrange(jobs)][column] = value
        nonfinite = _text_nonfinite(value)
    elif label == 'many_deps':
        rows[-1][6] = ' '.join(str(rng.randrange(10 ** 6))
                               for _ in range(rng.choice((10, 5000))))
    elif label == 'columns':
        rows[rng.randrange(jobs)].append('extra')
    text = _GWF_HEADER + ''.join(', '.join(row) + '\n' for row in rows)
    return label, {'w.gwf': text.encode('utf-8', 'surrogatepass')}, \
        'w.gwf', nonfinite


def _parquet(columns):
    """Parquet bytes of ``columns`` (name -> values); each column typed
    as its values allow (text when they mix types).
    """
    import pyarrow
    import pyarrow.parquet
    arrays = {}
    for name, values in columns.items():
        try:
            arrays[name] = pyarrow.array(values)
        except (pyarrow.ArrowException, TypeError, ValueError, OverflowError):
            arrays[name] = pyarrow.array([None if value is None else
                                          repr(value) for value in values])
    sink = pyarrow.BufferOutputStream()
    pyarrow.parquet.write_table(pyarrow.table(arrays), sink)
    return sink.getvalue().to_pybytes()


def _wta_columns(rng):
    count = rng.randrange(1, 7)
    columns = {
        'id': list(range(1, count + 1)),
        'workflow_id': [rng.choice((0, 5))] * count,
        'ts_submit': [rng.randrange(0, 10 ** 6) for _ in range(count)],
        'runtime': [rng.randrange(1, 10 ** 6) for _ in range(count)],
        'resource_amount_requested': [float(rng.choice((1, 2, 4)))
                                      for _ in range(count)],
        'parents': [[p for p in range(1, i + 1) if rng.random() < 0.3]
                    for i in range(count)],
    }
    return count, columns


def _wta_case(rng):
    count, columns = _wta_columns(rng)
    label = rng.choice((
        'duplicate_id', 'nonfinite', 'absurd', 'null', 'text_type',
        'missing_column', 'parents_unknown', 'parents_cycle', 'self_parent',
        'parents_wrong_type', 'empty_table', 'workflows', 'corrupt',
        'truncated', 'symlink_loop_dir', 'symlink_loop_file', 'fifo',
        'tasks_file', 'dangling', 'dev_zero_link', 'same_file_twice',
        'schema_mismatch', 'plain'))
    nonfinite = False
    row = rng.randrange(count)
    files, extra = {}, {}
    if label == 'duplicate_id' and count > 1:
        columns['id'][-1] = columns['id'][0]
        columns['workflow_id'][-1] = columns['workflow_id'][0]
    elif label == 'nonfinite':
        column = rng.choice(('ts_submit', 'runtime',
                             'resource_amount_requested'))
        columns[column] = [float(value) for value in columns[column]]
        columns[column][row] = rng.choice(NONFINITE)
        nonfinite = True
    elif label == 'absurd':
        column = rng.choice(('ts_submit', 'runtime',
                             'resource_amount_requested', 'id'))
        value = rng.choice((-1, 0, 2 ** 62, -2 ** 62, 1e30, 1e-300))
        if isinstance(value, float):
            columns[column] = [float(item) for item in columns[column]]
        columns[column][row] = value
    elif label == 'null':
        columns[rng.choice(list(columns))][row] = None
    elif label == 'text_type':
        column = rng.choice(list(columns))
        columns[column] = [rng.choice(NASTY_TEXTS + NUMBER_TEXTS)
                           for _ in range(count)]
        nonfinite = column != 'parents' and column != 'id' and \
            column != 'workflow_id' and any(
                _text_nonfinite(value) for value in columns[column])
    elif label == 'missing_column':
        columns.pop(rng.choice(('id', 'workflow_id', 'ts_submit', 'runtime',
                                'resource_amount_requested')))
    elif label == 'parents_unknown':
        columns['parents'][row] = [999]
    elif label == 'parents_cycle' and count > 1:
        columns['parents'][0] = [count]
        columns['parents'][-1] = [1]
    elif label == 'self_parent':
        columns['parents'][row] = [columns['id'][row]]
    elif label == 'parents_wrong_type':
        columns['parents'] = [rng.choice(('1', '', [[1]], {'a': 1}, 1.5))
                              for _ in range(count)]
    elif label == 'empty_table':
        columns = {name: [] for name in columns}
    data = _parquet(columns)
    files['trace/tasks/part.0.parquet'] = data
    files['trace/workload/.keep'] = b''
    if label == 'workflows':
        submits = rng.choice(([1, 2, 3], [float('nan'), 1.0, 2.0],
                              [None, 1, 2], ['a', 'b', 'c'], [1, 2]))
        files['trace/workflows/part.0.parquet'] = _parquet({
            'id': [0, 0, 5][:len(submits)], 'ts_submit': submits})
        nonfinite = _has_nonfinite(submits)
    elif label == 'corrupt':
        files['trace/tasks/part.0.parquet'] = b'PAR1' + bytes(
            rng.randrange(256) for _ in range(200)) + b'PAR1'
    elif label == 'truncated':
        files['trace/tasks/part.0.parquet'] = data[:rng.randrange(
            1, len(data))]
    elif label == 'symlink_loop_dir':
        extra['symlinks'] = {'trace/tasks/loop': '.'}
    elif label == 'symlink_loop_file':
        extra['symlinks'] = {'trace/tasks/a.parquet': 'b.parquet',
                             'trace/tasks/b.parquet': 'a.parquet'}
    elif label == 'fifo':
        extra['fifo'] = ['trace/tasks/part.1.parquet']
    elif label == 'tasks_file':
        files.pop('trace/tasks/part.0.parquet')
        files['trace/tasks'] = data
    elif label == 'dangling':
        extra['symlinks'] = {'trace/tasks/x.parquet': 'nowhere.parquet'}
    elif label == 'dev_zero_link':
        extra['symlinks'] = {'trace/tasks/z.parquet': '/dev/zero'}
    elif label == 'same_file_twice':
        extra['symlinks'] = {'trace/tasks/copy': '.'} if rng.random() < 0.5 \
            else {'trace/tasks/part.1.parquet': 'part.0.parquet'}
    elif label == 'schema_mismatch':
        other = dict(columns)
        other['id'] = ['x%d' % value for value in range(len(columns.get(
            'id', [])))]
        files['trace/tasks/part.1.parquet'] = _parquet(other)
    return label, files, extra, nonfinite


def gen_traces(rng, count, shared):
    """``simulate`` on hostile GWF files and WTA (parquet) directories."""
    cases = []
    for index in range(count):
        extra = {}
        if index % 2:
            label, files, name, nonfinite = _gwf_case(rng)
            label = 'gwf-' + label
        else:
            label, files, extra, nonfinite = _wta_case(rng)
            label, name = 'wta-' + label, 'trace'
        argv = _simulate_argv(name, rng)
        if rng.random() < 0.3:
            argv += ['--workload-format', 'gwf' if name == 'w.gwf' else 'wta']
        case = {'category': 'traces', 'command': 'simulate',
                'label': label, 'files': files, 'argv': argv,
                'nonfinite': nonfinite, 'accept': (0,), 'outputs': ['out']}
        case.update(extra)
        cases.append(case)
    return cases


# -- Experiment definitions ---------------------------------------------------

def _definition_files():
    with open(os.path.join(WORKLOADS, 'qos-validation.csv'), 'rb') as stream:
        workload = b''.join(stream.readlines()[:25])
    with open(os.path.join(WORKLOADS, 'qos-validation-hosts.csv'),
              'rb') as stream:
        hosts = stream.read()
    return {'w.csv': workload, 'hosts.csv': hosts,
            'a.conf': b'[scheduler]\npreemption_strategy = qos\n',
            'b.conf': b'[scheduler]\npreemption_strategy = priority\n'}


def _base_definition(rng):
    document = {'workloads': [{'path': 'w.csv'}],
                'infrastructures': [{'infrastructure': 'hosts.csv'}],
                'seeds': [0], 'until': 300}
    if rng.random() < 0.5:
        document['strategies'] = ['qos', 'priority']
        document['baseline'] = 'qos'
    else:
        document['configurations'] = {'a': 'a.conf', 'b': 'b.conf'}
        document['baseline'] = 'a'
    if rng.random() < 0.3:
        document['infrastructures'].append({'hosts': 2, 'flavor': '4:8000'})
    return document


_DEFINITION_VALUES = {
    ('seeds',): ([0, 1], [], [-1], [2 ** 40], list(range(2000)), [0, 0],
                 ['0'], [0.5], 0, None, [float('nan')]),
    ('until',): (0, -1, 1e300, float('nan'), float('inf'), '300', None, 1),
    ('jobs',): (0, -1, 1, 2, 10 ** 6, 1.5, 'two', float('inf')),
    ('replications',): ('seeds', 'workloads', 'nope', None, 1),
    ('baseline',): ('nope', '', None, 1, 'priority'),
    ('strategies',): ([], ['qos', 'qos'], ['nope'], 'qos', [None],
                      ['dual_state', 'retry', 'plain', 'qos', 'priority']),
    ('workloads', 0, 'path'): ('/dev/zero', 'fifo.csv', '.', 'loop.csv',
                               'missing.csv', '', '/', 'w.csv/x', 'a' * 5000,
                               '/proc/self/mem'),
    ('workloads', 0, 'limit'): (0, -1, 10 ** 20, 1.5, 'ten', float('nan')),
    ('workloads', 0, 'format'): ('csv', 'wta', 'gwf', 'nope', ''),
    ('workloads', 0, 'class_map'): ({}, {'a': 'nope'}, 'x', [1]),
    ('infrastructures', 0, 'infrastructure'): ('/dev/zero', 'fifo.csv', '.',
                                               'loop.csv', 'w.csv'),
    ('infrastructures', 0, 'size_factors'): ([], [0], [-1],
                                             [float('nan')], [1e9], ['1']),
    ('configurations', 'a'): ('/dev/zero', 'fifo.conf', '.', 'loop.conf',
                              'missing.conf', 'w.csv', 'huge.conf'),
}


def gen_definitions(rng, count, shared):
    """``experiment --definition`` on hostile definitions (YAML, JSON)."""
    cases = []
    base_files = _definition_files()
    for index in range(count):
        document = _base_definition(rng)
        labels = []
        nonfinite = False
        for _ in range(rng.choice((1, 1, 2))):
            kind = rng.choice(('value', 'value', 'value', 'generic'))
            if kind == 'value':
                path, values = rng.choice(sorted(
                    _DEFINITION_VALUES.items(), key=repr))
                value = copy.deepcopy(rng.choice(values))
                try:
                    _set(document, path, value)
                except (KeyError, IndexError, TypeError):
                    continue
                labels.append('.'.join(str(part) for part in path))
                nonfinite = nonfinite or _has_nonfinite(value)
            else:
                places = [path for path, _ in _places(document) if path]
                path = rng.choice(places)
                value = rng.choice(ABSURD + ([], {}, 'text'))
                _set(document, path, copy.deepcopy(value))
                labels.append('generic')
                nonfinite = nonfinite or _has_nonfinite(value)
        files = dict(base_files)
        fmt = rng.choice(('yaml', 'json'))
        data = _yaml_bytes(document) if fmt == 'yaml' else \
            _json_bytes(document)
        if index % 10 == 0:
            label, data = _encoding_variant(rng, data)
            labels.append(label)
        files['definition.' + fmt] = data
        files['huge.conf'] = b'[DEFAULT]\n' + b'#' * (5 * 1024 * 1024)
        cases.append({
            'category': 'definitions', 'command': 'experiment',
            'label': '+'.join(labels) or 'plain', 'files': files,
            'fifo': ['fifo.csv', 'fifo.conf'],
            'symlinks': {'loop.csv': 'loop.csv', 'loop.conf': 'loop.conf'},
            'argv': ['experiment', '--definition', 'definition.' + fmt,
                     '--no-plots', '--output', 'out'],
            'nonfinite': nonfinite, 'accept': (0,), 'outputs': ['out']})
    return cases


# -- Special files as paths ---------------------------------------------------

#: Special things a path option may name: label -> (case extras, path).
_SPECIAL_PATHS = {
    'dev_zero': ({}, '/dev/zero'),
    'dev_null': ({}, '/dev/null'),
    'fifo': ({'fifo': ['special']}, 'special'),
    'directory': ({'dirs': ['special']}, 'special'),
    'symlink_loop': ({'symlinks': {'special': 'special'}}, 'special'),
    'symlink_pair': ({'symlinks': {'special': 'other',
                                   'other': 'special'}}, 'special'),
    'dangling': ({'symlinks': {'special': 'nowhere'}}, 'special'),
    'to_dev_zero': ({'symlinks': {'special': '/dev/zero'}}, 'special'),
    'proc': ({}, '/proc/self/mem'),
    'dev_stdin': ({}, '/dev/stdin'),
}


def _special_argv(option, path):
    """The command line giving ``path`` to ``option``; the command."""
    scenario = os.path.join(SCENARIOS, 'paper-snapshot-1.json')
    simulate = ['simulate', '--workload', 'w.csv', '--hosts', '2',
                '--host-flavor', '4:8000', '--until', '300', '--no-plots',
                '--output', 'out']
    if option == '--config-file':
        return ['--config-file', path, 'decide', '--scenario', scenario], \
            'decide'
    if option == '--config-dir':
        return ['--config-dir', path, 'decide', '--scenario', scenario], \
            'decide'
    if option == 'decide --scenario':
        return ['decide', '--scenario', path], 'decide'
    if option == 'experiment --definition':
        return ['experiment', '--definition', path, '--no-plots',
                '--output', 'out'], 'experiment'
    if option == 'experiment --workload':
        return ['experiment', '--workload', path, '--hosts', '2',
                '--host-flavor', '4:8000', '--until', '300', '--no-plots',
                '--output', 'out'], 'experiment'
    if option == 'simulate --workload':
        return ['simulate', '--workload', path] + simulate[3:], 'simulate'
    if option in ('--infrastructure', '--machines'):
        argv = ['simulate', '--workload', 'w.csv', option, path,
                '--until', '300', '--no-plots', '--output', 'out']
        return argv + (['--size-factor', '1'] if option == '--machines'
                       else []), 'simulate'
    if option == '--machine-attributes':
        return ['simulate', '--workload', 'w.csv', '--machines',
                'machine_events.csv', '--size-factor', '1', option, path,
                '--until', '300', '--no-plots', '--output', 'out'], \
            'simulate'
    if option == '--task-constraints':
        return ['simulate', '--workload', 'task_events.csv'] + \
            simulate[3:] + [option, path], 'simulate'
    if option == 'simulate --output':
        return simulate[:-1] + [path], 'simulate'
    if option == 'traces --cache-dir':
        return ['traces', 'download', 'alibaba-gpu-2023', '--cache-dir',
                path, '--mirror', 'file:///nonexistent/m'], 'traces'
    if option == 'traces --mirror':
        return ['traces', 'download', 'alibaba-gpu-2023', '--cache-dir',
                'cache', '--mirror', path], 'traces'
    raise ValueError(option)


_PATH_OPTIONS = ('--config-file', '--config-dir', 'decide --scenario',
                 'experiment --definition', 'experiment --workload',
                 'simulate --workload', '--infrastructure', '--machines',
                 '--machine-attributes', '--task-constraints',
                 'simulate --output', 'traces --cache-dir', 'traces --mirror')


def gen_special_paths(rng, count, shared):
    """Every path option on special files: devices, FIFOs, directories,
    symbolic link loops, dangling links; and a directory of them as
    ``--config-dir`` and as a ``file://`` mirror.
    """
    cases = []
    combos = [(option, label) for option in _PATH_OPTIONS
              for label in sorted(_SPECIAL_PATHS)]
    for index in range(count):
        option, label = combos[index % len(combos)]
        extra, path = copy.deepcopy(_SPECIAL_PATHS[label])
        if option in ('--config-dir', 'traces --mirror') and \
                not path.startswith('/'):
            # The special file inside the directory given.
            name = 'special.conf' if option == '--config-dir' else \
                'alibaba-gpu-2023/openb_pod_list_default.csv'
            moved = {}
            for key in ('fifo', 'dirs'):
                if key in extra:
                    moved[key] = ['d/' + name]
            if 'symlinks' in extra:
                moved['symlinks'] = {
                    ('d/' + name if link == 'special' else 'd/' + link):
                    (target if target.startswith('/') else
                     os.path.basename(name) if target == 'special'
                     else target)
                    for link, target in extra['symlinks'].items()}
            extra = moved
            path = 'd'
        argv, command = _special_argv(option, path)
        if option == 'traces --mirror':
            argv[-1] = 'file://' + (path if path.startswith('/') else
                                    '{case}/' + path)
        files = {'w.csv': _SMALL_WORKLOAD,
                 'machine_events.csv': b'0,5,0,p1,0.5,0.25\n'
                                       b'0,6,0,p1,0.5,0.25\n',
                 'task_events.csv': b'1000000,,7,0,42,0,u,2,9,0.5,0.25,'
                                    b'0.001,0\n'}
        if option in ('--config-dir', 'traces --mirror') and path == 'd':
            files['d/.keep'] = b''
        case = {'category': 'special_paths', 'command': command,
                'label': '%s:%s' % (option, label), 'files': files,
                'argv': argv, 'nonfinite': False,
                'accept': (0, 1) if command in ('decide', 'traces')
                else (0,), 'outputs': [] if option == 'simulate --output'
                else ['out']}
        case.update(extra)
        cases.append(case)
    return cases


# -- Configuration files ------------------------------------------------------

def _registered_options():
    """``[(group, name, kind)]`` of every option of the project;
    ``kind`` is ``number`` for integer and float options.
    """
    from oslo_config import types

    from preemptible_sched.conf import opts
    found = []
    for group, options in opts.list_opts():
        name = getattr(group, 'name', group) or 'DEFAULT'
        for opt in options:
            kind = 'number' if isinstance(opt.type, (
                types.Integer, types.Float)) else 'other'
            found.append((name, opt.dest, kind))
    return sorted(found)


_CONFIG_ODDITIES = (
    b'[DEFAULT]\ndebug = maybe\n',
    b'[DEFAULT]\nx = $x\n[scheduler]\nmax_attempts = $x\n',
    b'[DEFAULT]\na = $b\nb = $a\n[scheduler]\nmax_attempts = $a\n',
    b'[scheduler\nmax_attempts = 3\n',
    b'no section = 1\n',
    b'[scheduler]\nmax_attempts\n',
    b'[scheduler]\n  max_attempts = 3\n',
    b'[scheduler]\nmax_attempts = 3\nmax_attempts = 4\n',
    b'[DEFAULT]\nlog_config_append = /dev/zero\n',
    b'[DEFAULT]\nlog_config_append = /proc/self/mem\n',
    b'[DEFAULT]\nlog_config_append = c.conf\n',
    b'[DEFAULT]\nlog_file = /dev/full/x\n',
    b'[DEFAULT]\nlog_dir = /dev/zero\n',
    b'[DEFAULT]\nstate_path = /dev/zero\n',
    b'[database]\nconnection = sqlite:////dev/zero\n',
    b'[database]\nconnection = mysql+pymysql://u:secret@[::1/db\n',
    b'[DEFAULT]\ntransport_url = rabbit://u:secret@[::1\n',
    b'[nova]\nx = 1\n[api_database]\nconnection = sqlite://\n',
    b'[filter_scheduler]\nenabled_filters = ' + b'compute,' * 5000 + b'\n',
    b'[filter_scheduler]\nweighers = \n',
    b'\xef\xbb\xbf[scheduler]\nmax_attempts = 3\n',
    b'[scheduler]\nmax_attempts = 3\x00\n',
    b'[scheduler]\nmax_attempts = \xff\n',
)


def gen_configs(rng, count, shared):
    """``decide`` under hostile configuration files."""
    options = _registered_options()
    scenario = os.path.join(SCENARIOS, 'paper-snapshot-1.json')
    cases = []
    for index in range(count):
        nonfinite = False
        if index % 8 == 0:
            data = rng.choice(_CONFIG_ODDITIES)
            label = 'oddity'
        else:
            sections = {}
            for _ in range(rng.choice((1, 1, 2, 4))):
                group, name, kind = rng.choice(options)
                value = rng.choice(NUMBER_TEXTS + NASTY_TEXTS) \
                    if kind == 'number' or rng.random() < 0.5 else \
                    rng.choice(NASTY_TEXTS + ('nope', 'true', '1,2', ''))
                value = value.replace('\n', ' ').replace('\r', ' ')
                sections.setdefault(group, {})[name] = value
                nonfinite = nonfinite or (kind == 'number' and
                                          _text_nonfinite(value))
            if rng.random() < 0.1:
                sections.setdefault(rng.choice(NASTY_TEXTS[1:]).replace(
                    ']', '').replace('\n', ' ') or 'x', {})['y'] = '1'
            data = ''.join('[%s]\n%s' % (group, ''.join(
                '%s = %s\n' % item for item in values.items()))
                for group, values in sections.items()).encode(
                    'utf-8', 'surrogatepass')
            label = 'options'
            if index % 8 == 1:
                label, data = _encoding_variant(rng, data)
        argv = ['decide', '--scenario', scenario]
        if rng.random() < 0.5:
            argv += ['--config-file', 'c.conf']
        else:
            argv = ['--config-file', 'c.conf'] + argv
        cases.append({'category': 'configs', 'command': 'decide',
                      'label': label, 'files': {'c.conf': data},
                      'argv': argv, 'nonfinite': nonfinite,
                      'accept': (0, 1)})
    return cases


#: Category name -> generator ``(rng, count, shared) -> [case]``.
CATEGORIES = {
    'scenarios': gen_scenarios,
    'workloads': gen_workloads,
    'infrastructure': gen_infrastructure,
    'options': gen_options,
    'signals': gen_signals,
    'sla': gen_sla,
    'traces': gen_traces,
    'definitions': gen_definitions,
    'special_paths': gen_special_paths,
    'configs': gen_configs,
}


# -- Running -----------------------------------------------------------------

def _prepare(directory, case):
    for name, data in (case.get('files') or {}).items():
        path = os.path.join(directory, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'wb') as stream:
            stream.write(data)
    for name in case.get('fifo') or ():
        os.makedirs(os.path.dirname(os.path.join(directory, name)),
                    exist_ok=True)
        os.mkfifo(os.path.join(directory, name))
    for name in case.get('dirs') or ():
        os.makedirs(os.path.join(directory, name))
    for name, target in (case.get('symlinks') or {}).items():
        os.makedirs(os.path.dirname(os.path.join(directory, name)),
                    exist_ok=True)
        os.symlink(target, os.path.join(directory, name))


def _hidden_temporaries(directory):
    found = []
    for root, dirs, files in os.walk(directory):
        for name in dirs + files:
            if name.startswith('.') and name.endswith(('.tmp', '.part')):
                found.append(os.path.relpath(os.path.join(root, name),
                                             directory))
    return found


#: Seconds a command has to stop after SIGTERM (issue 26: every state).
SIGTERM_GRACE = 10.0


def _execute(argv, directory, timeout, stop=None):
    """Run the command; ``(returncode or None on timeout, stderr, whether
    it outlived SIGTERM_GRACE after a SIGTERM)``. ``{case}`` in an
    argument is the case's directory.
    """
    argv = [arg.replace('{case}', directory) for arg in argv]
    process = subprocess.Popen(
        COMMAND + argv, cwd=directory, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        start_new_session=True, env=dict(os.environ, PYTHONPATH=REPO))
    ignored = False
    try:
        if stop:
            sig, delay = stop
            try:
                process.wait(timeout=delay)
            except subprocess.TimeoutExpired:
                os.kill(process.pid, sig)
                if sig == signal.SIGTERM:
                    try:
                        process.wait(timeout=SIGTERM_GRACE)
                    except subprocess.TimeoutExpired:
                        ignored = True
                        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        return None, err.decode('utf-8', 'replace'), ignored
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    if stop:
        # Workers of a killed experiment: make sure none lingers.
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except OSError:
            pass
    return process.returncode, err.decode('utf-8', 'replace'), ignored


#: How each line of an error starts: a file with several problems gives
#: one complete line each (definitions, configuration files).
_MESSAGE_PREFIXES = ('preemptible-sched: ',)
#: A log record below ERROR beside the error (a deprecated option's
#: warning): not part of the error.
_NOTICE = re.compile(r'^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ \d+ '
                     r'(DEBUG|INFO|WARNING) ')


def _is_usage(lines):
    return bool(lines) and lines[0].startswith('usage:')


def run_case(args):
    """Run one case in a fresh directory; ``(case, findings)``.

    A case is a dict: ``category``, ``command``, ``label``, ``argv``
    (relative paths resolve in the case's directory), ``files`` (name ->
    bytes to write first), ``fifo``/``dirs`` (names to create as FIFOs or
    directories), ``symlinks`` (name -> target), ``nonfinite`` (the input
    holds NaN or an infinity), ``accept`` (exit codes meaning "input
    accepted"), ``outputs`` (paths that must not exist after a failure),
    ``signal`` (``(signal, delay)``: sent after ``delay`` seconds),
    ``rerun`` (run again after the signal, the same outputs expected) and
    ``timeout`` (more
    seconds than ``--timeout`` for a slow case).
    """
    case, timeout, base = args
    timeout = max(timeout, case.get('timeout') or 0)
    directory = tempfile.mkdtemp(prefix='case.', dir=base)
    findings = {}
    try:
        _prepare(directory, case)
        existed = {path: os.path.exists(os.path.join(directory, path))
                   for path in case.get('outputs') or ()}
        started = time.monotonic()
        code, err, ignored = _execute(case['argv'], directory, timeout,
                                      case.get('signal'))
        if ignored:
            findings['ignored_sigterm'] = True
        if case.get('rerun'):
            code, err, _ = _execute(case['argv'], directory, timeout)
        findings['elapsed'] = time.monotonic() - started
        findings['code'] = code
        lines = [line for line in err.splitlines() if line.strip()]
        if 'Traceback' in err:
            findings['traceback'] = True
        if code is None:
            findings['hang'] = True
        elif code < 0 and not case.get('signal') and not ignored:
            findings['killed'] = True
        elif code < 0 and case.get('rerun'):
            findings['killed'] = True
        if code is not None and code in case.get('accept', (0,)) and \
                case.get('nonfinite'):
            findings['nonfinite_accepted'] = True
        if code == 2:
            if _is_usage(lines):
                findings['usage_error'] = True
            elif len(lines) > 1 and not all(
                    line.startswith(_MESSAGE_PREFIXES) or
                    _NOTICE.match(line) for line in lines):
                findings['multi_line_error'] = True
        allowed = EXIT_CODES.get(case['command'], (0, 1, 2))
        if code is not None and code >= 0 and code not in allowed:
            findings['unexpected_exit'] = True
        half = _hidden_temporaries(directory)
        if code != 0:
            half += [path for path, before in existed.items()
                     if not before and os.path.lexists(
                         os.path.join(directory, path)) and not
                     _complete(os.path.join(directory, path),
                               case['command'])]
        if half:
            findings['half_written'] = half
        findings['stderr'] = err[-600:]
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    return case, findings


def _complete(path, command):
    """An output left after a stop is fine only if it is whole."""
    if command == 'experiment':
        return os.path.exists(os.path.join(path, 'comparison.csv'))
    return os.path.exists(os.path.join(path, 'summary.json'))


FAILURES = ('traceback', 'hang', 'killed', 'ignored_sigterm',
            'nonfinite_accepted', 'multi_line_error', 'half_written',
            'unexpected_exit')
_COUNTERS = {'traceback': 'tracebacks', 'hang': 'hangs',
             'killed': 'killed', 'ignored_sigterm': 'ignored_sigterms',
             'nonfinite_accepted': 'nonfinite_accepted',
             'multi_line_error': 'multi_line_errors',
             'half_written': 'half_written',
             'unexpected_exit': 'unexpected_exit',
             'usage_error': 'usage_errors'}


def _empty_counts():
    counts = {'runs': 0}
    counts.update({name: 0 for name in _COUNTERS.values()})
    counts['exit_codes'] = {}
    return counts


def _shared_files(base):
    """Big inputs made once: a 100 MB file and two gzip bombs."""
    shared = {'huge_file': os.path.join(base, 'huge.json'),
              'gzip_zeros': os.path.join(base, 'zeros.csv.gz'),
              'gzip_newlines': os.path.join(base, 'newlines.csv.gz')}
    with open(shared['huge_file'], 'wb') as stream:
        stream.write(b'{"hosts": [], "request": {"description": "')
        stream.truncate(100 * 1000 * 1000)
    block = b'\0' * (1 << 20)
    with gzip.open(shared['gzip_zeros'], 'wb', compresslevel=1) as stream:
        for _ in range(300):
            stream.write(block)
    block = b'\n' * (1 << 20)
    with gzip.open(shared['gzip_newlines'], 'wb',
                   compresslevel=1) as stream:
        stream.write(b'id,submit_s,duration_s,vcpus,memory_mb\n')
        for _ in range(300):
            stream.write(block)
    return shared


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--quick', type=int, metavar='N',
                        help='N cases per category (a smoke run).')
    parser.add_argument('--categories', default=','.join(CATEGORIES),
                        help='Comma-separated categories (default: all: '
                        '%(default)s).')
    parser.add_argument('--jobs', type=int, default=2,
                        help='Cases run at once (default 2).')
    parser.add_argument('--timeout', type=float, default=90.0,
                        help='Seconds before a run counts as a hang '
                        '(default 90).')
    parser.add_argument('--seed', type=int, default=2026,
                        help='Seed of the generators (default 2026).')
    parser.add_argument('--examples', type=int, default=5,
                        help='Failing runs shown per category (default 5).')
    parser.add_argument('--progress', type=int, default=100, metavar='N',
                        help='Say on stderr every N runs how far it got '
                        '(default 100; 0: never).')
    args = parser.parse_args(argv)
    names = [name.strip() for name in args.categories.split(',')
             if name.strip()]
    unknown = [name for name in names if name not in CATEGORIES]
    if unknown:
        parser.error('unknown categories: %s (known: %s)' % (
            ', '.join(unknown), ', '.join(CATEGORIES)))
    started = time.monotonic()
    base = tempfile.mkdtemp(prefix='fuzz-campaign.')
    try:
        shared = _shared_files(base)
        cases = []
        for name in names:
            rng = random.Random('%s-%s' % (args.seed, name))
            count = args.quick if args.quick is not None else SIZES[name]
            cases += CATEGORIES[name](rng, count, shared)
        summary = {name: _empty_counts() for name in names}
        examples = {name: [] for name in names}
        # Slow cases first, so that the pool does not end on one of them.
        cases.sort(key=lambda case: case['category'] != 'signals')
        done = 0
        with multiprocessing.Pool(args.jobs) as pool:
            for case, findings in pool.imap_unordered(
                    run_case, [(case, args.timeout, base) for case in cases]):
                counts = summary[case['category']]
                counts['runs'] += 1
                done += 1
                if args.progress and (done % args.progress == 0 or
                                      done == len(cases)):
                    sys.stderr.write('%d/%d runs, %.0f s\n' % (
                        done, len(cases), time.monotonic() - started))
                code = str(findings.get('code'))
                counts['exit_codes'][code] = counts['exit_codes'].get(
                    code, 0) + 1
                for key, counter in _COUNTERS.items():
                    if findings.get(key):
                        counts[counter] += 1
                failed = [key for key in FAILURES if findings.get(key)]
                if failed and len(examples[case['category']]) < \
                        args.examples:
                    examples[case['category']].append({
                        'label': case.get('label'), 'failed': failed,
                        'argv': case['argv'], 'code': findings.get('code'),
                        'half_written': findings.get('half_written'),
                        'stderr': findings.get('stderr')})
    finally:
        shutil.rmtree(base, ignore_errors=True)
    total = _empty_counts()
    for counts in summary.values():
        for key, value in counts.items():
            if key == 'exit_codes':
                for code, number in value.items():
                    total['exit_codes'][code] = total['exit_codes'].get(
                        code, 0) + number
            else:
                total[key] += value
    result = {'categories': summary, 'total': total,
              'failures': {name: found for name, found in examples.items()
                           if found},
              'elapsed_s': round(time.monotonic() - started, 1),
              'seed': args.seed, 'jobs': args.jobs,
              'timeout_s': args.timeout}
    json.dump(result, sys.stdout, indent=2, sort_keys=True)
    sys.stdout.write('\n')
    bad = sum(total[_COUNTERS[key]] for key in FAILURES)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
