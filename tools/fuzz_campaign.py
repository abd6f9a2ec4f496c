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
``nonfinite_accepted``
    runs that succeeded (exit 0; 0 or 1 for ``decide``, which exits 1 for
    "no valid host") on an input holding NaN or an infinity;
``multi_line_errors``
    runs that exited 2 with more than one line on stderr (argparse's usage
    message excepted: those are counted as ``usage_errors``);
``half_written``
    runs that left an output they should not have: any hidden ``.*.tmp``
    entry, or an output directory after a failed run;
``unexpected_exit``
    runs that exited with a code the command does not document;

plus ``exit_codes`` (code -> runs) and up to ``--examples`` failing runs
per category (argv and the end of stderr), to reproduce them.

Categories (``CATEGORIES``; ``--categories`` picks some): ``scenarios``
(``decide`` on hostile scenario files), ``workloads`` (``simulate`` on
hostile traces of every format), ``infrastructure`` (hostile host lists
and machine lists), ``options`` (hostile option values of ``decide``,
``simulate``, ``experiment`` and ``traces download``) and ``signals``
(``simulate`` and ``experiment`` stopped by SIGTERM or SIGKILL while they
run, then run again). Each category is a function ``generate(rng, count,
shared)`` returning :class:`dict` cases (see :func:`run_case`); more
categories (configuration files, RPC messages) plug in by adding a
function to ``CATEGORIES``.

Usage::

    python tools/fuzz_campaign.py                # full size, ~30-45 min
    python tools/fuzz_campaign.py --quick 20     # 20 cases per category
    python tools/fuzz_campaign.py --categories scenarios,options

The full size (``SIZES``): 2,100 scenario files, 300 workloads, 150
infrastructure files, 400 option sets, 24 signal runs. Exit 0 when no run
failed in any of the ways above, 1 otherwise.
"""

import argparse
import copy
import gzip
import json
import math
import multiprocessing
import os
import random
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
         'options': 400, 'signals': 24}

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


#: Category name -> generator ``(rng, count, shared) -> [case]``.
CATEGORIES = {
    'scenarios': gen_scenarios,
    'workloads': gen_workloads,
    'infrastructure': gen_infrastructure,
    'options': gen_options,
    'signals': gen_signals,
}


# -- Running -----------------------------------------------------------------

def _prepare(directory, case):
    for name, data in (case.get('files') or {}).items():
        path = os.path.join(directory, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'wb') as stream:
            stream.write(data)
    for name in case.get('fifo') or ():
        os.mkfifo(os.path.join(directory, name))
    for name in case.get('dirs') or ():
        os.mkdir(os.path.join(directory, name))


def _hidden_temporaries(directory):
    found = []
    for root, dirs, files in os.walk(directory):
        for name in dirs + files:
            if name.startswith('.') and name.endswith(('.tmp', '.part')):
                found.append(os.path.relpath(os.path.join(root, name),
                                             directory))
    return found


def _execute(argv, directory, timeout, stop=None):
    """Run the command; ``(returncode or None on timeout, stderr)``."""
    process = subprocess.Popen(
        COMMAND + argv, cwd=directory, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        start_new_session=True, env=dict(os.environ, PYTHONPATH=REPO))
    try:
        if stop:
            sig, delay = stop
            try:
                process.wait(timeout=delay)
            except subprocess.TimeoutExpired:
                os.kill(process.pid, sig)
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        return None, err.decode('utf-8', 'replace')
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
    return process.returncode, err.decode('utf-8', 'replace')


def _is_usage(lines):
    return bool(lines) and lines[0].startswith('usage:')


def run_case(args):
    """Run one case in a fresh directory; ``(case, findings)``.

    A case is a dict: ``category``, ``command``, ``label``, ``argv``
    (relative paths resolve in the case's directory), ``files`` (name ->
    bytes to write first), ``fifo``/``dirs`` (names to create as FIFOs or
    directories), ``nonfinite`` (the input holds NaN or an infinity),
    ``accept`` (exit codes meaning "input accepted"), ``outputs`` (paths
    that must not exist after a failure), ``signal`` (``(signal,
    delay)``: sent after ``delay`` seconds), ``rerun`` (run again
    after the signal, the same outputs expected) and ``timeout`` (more
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
        code, err = _execute(case['argv'], directory, timeout,
                             case.get('signal'))
        if case.get('rerun'):
            code, err = _execute(case['argv'], directory, timeout)
        findings['elapsed'] = time.monotonic() - started
        findings['code'] = code
        lines = [line for line in err.splitlines() if line.strip()]
        if 'Traceback' in err:
            findings['traceback'] = True
        if code is None:
            findings['hang'] = True
        elif code < 0 and not case.get('signal'):
            findings['killed'] = True
        elif code < 0 and case.get('rerun'):
            findings['killed'] = True
        if code is not None and code in case.get('accept', (0,)) and \
                case.get('nonfinite'):
            findings['nonfinite_accepted'] = True
        if code == 2:
            if _is_usage(lines):
                findings['usage_error'] = True
            elif len(lines) > 1:
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
        if any(key in findings for key in FAILURES):
            findings['stderr'] = err[-600:]
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    return case, findings


def _complete(path, command):
    """An output left after a stop is fine only if it is whole."""
    if command == 'experiment':
        return os.path.exists(os.path.join(path, 'comparison.csv'))
    return os.path.exists(os.path.join(path, 'summary.json'))


FAILURES = ('traceback', 'hang', 'killed', 'nonfinite_accepted',
            'multi_line_error', 'half_written', 'unexpected_exit')
_COUNTERS = {'traceback': 'tracebacks', 'hang': 'hangs',
             'killed': 'killed', 'nonfinite_accepted': 'nonfinite_accepted',
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
