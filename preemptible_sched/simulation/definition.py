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


"""Experiment definitions: the axes of ``experiment --definition FILE``.

A definition is a YAML (``.yaml``, ``.yml``) or JSON file validated by
the JSON schema shipped beside this module (``experiment_schema.json``).
Every problem of a file is reported at once, one line each naming the
file and the JSON path of the field (``$.workloads[0].limit``), as
:class:`~preemptible_sched.exception.ConfigProblems`: the command prints
them and exits 2 before anything runs or is written.

Relative paths (workloads, infrastructure and machine files,
configuration files) are resolved against the definition file's
directory, so a definition and the files beside it can be moved
together.

The design (:func:`cells`) is the cartesian product of the workloads, the
infrastructures (each with its size factors when it samples hosts), the
configurations or strategies and the seeds. Each (workload,
infrastructure) pair is one *scenario*; with a single infrastructure it
is named after the workload, otherwise ``<workload>@<infrastructure>``.
"""

import dataclasses
import json
import os
import stat
import typing

import jsonschema

from preemptible_sched import exception
from preemptible_sched import input_limits as limits
from preemptible_sched.input_limits import documents
from preemptible_sched.simulation import experiment
from preemptible_sched.simulation.traces import catalogue
from preemptible_sched.simulation.traces import download

SCHEMA_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           'experiment_schema.json')

#: Most runs (cells) of one definition.
MAX_CELLS = 10000


def schema():
    """The JSON schema of a definition (the shipped file)."""
    with open(SCHEMA_FILE) as stream:
        return json.load(stream)


@dataclasses.dataclass(frozen=True)
class Workload:
    name: str
    path: str
    format: str = 'auto'
    limit: typing.Optional[int] = None
    class_map: typing.Optional[dict] = None
    default_class: typing.Optional[str] = None


@dataclasses.dataclass(frozen=True)
class Infrastructure:
    """One way to get hosts: a canonical CSV (``infrastructure``),
    ``hosts`` identical hosts of ``flavor``, or ``machines`` sampled at
    each of ``size_factors``.
    """

    name: str
    infrastructure: typing.Optional[str] = None
    hosts: typing.Optional[int] = None
    flavor: typing.Optional[str] = None
    machines: typing.Optional[str] = None
    size_factors: tuple = ()

    @property
    def levels(self):
        """The size factors of its cells; ``(None,)`` for fixed hosts."""
        return tuple(self.size_factors) or (None,)


@dataclasses.dataclass
class Definition:
    """A validated definition; every path absolute."""

    path: str
    workloads: list
    infrastructures: list
    #: name -> configuration file, or None with ``strategies``.
    configurations: typing.Optional[dict]
    #: strategy names, or None with ``configurations``.
    strategies: typing.Optional[list]
    seeds: list
    replications: str = 'seeds'
    baseline: typing.Optional[str] = None
    until: typing.Optional[float] = None
    jobs: typing.Optional[int] = None

    @property
    def policies(self):
        """The names of the compared configurations or strategies."""
        return list(self.configurations or self.strategies)

    def scenarios(self):
        """``{scenario: (Workload, Infrastructure)}`` in order."""
        single = len(self.infrastructures) == 1
        return {(workload.name if single else '%s@%s' % (
            workload.name, infra.name)): (workload, infra)
            for workload in self.workloads
            for infra in self.infrastructures}

    def cells(self):
        """Every :class:`experiment.Cell` of the design, in order."""
        return [experiment.Cell(scenario, policy, factor, seed)
                for scenario, (_workload, infra) in self.scenarios().items()
                for factor in infra.levels
                for seed in self.seeds
                for policy in self.policies]

    def key(self, cell):
        """The row and replication of ``cell`` (see
        :func:`experiment.aggregate`): with ``replications: workloads``
        the workloads of an infrastructure are folded into one row.
        """
        if self.replications == 'seeds':
            return experiment.by_seed(cell)
        workload, infra = self.scenarios()[cell.workload]
        return ((infra.name if len(self.infrastructures) > 1 else
                 ALL_WORKLOADS, cell.size_factor, cell.policy),
                (workload.name, cell.seed))


#: The workload column of a row folded over the workloads.
ALL_WORKLOADS = 'all-workloads'


def _json_path(parts):
    text = '$'
    for part in parts:
        text += '[%d]' % part if isinstance(part, int) else '.%s' % part
    return text


_ONE_OF = {
    (): 'give exactly one of "configurations" and "strategies"',
    ('infrastructures',): 'give one of "infrastructure", "hosts" with '
                          '"flavor", or "machines" with "size_factors"',
    ('workloads',): 'give one of "path", or "trace" (with "file" if the '
                    'trace has several)',
}


def _messages(error):
    """``[(JSON path, one short line)]`` of a schema error: never the
    whole value, which may be long.
    """
    parts = list(error.absolute_path)
    if error.validator == 'additionalProperties':
        return [(_json_path(parts + [limits.one_line(name, 60)]),
                 'unknown field') for name in sorted(
                     set(error.instance) -
                     set(error.schema.get('properties', {})))]
    return [_message(error, parts)]


def _message(error, parts):
    if error.validator == 'required':
        missing = error.message.split("'")[1]
        return _json_path(parts + [missing]), 'missing required field'
    if error.validator == 'oneOf':
        where = tuple(part for part in parts if not isinstance(part, int))
        return _json_path(parts), _ONE_OF.get(where, 'matches no form')
    if error.validator == 'type':
        return _json_path(parts), 'expected %s, got %s' % (
            error.validator_value, type(error.instance).__name__)
    if error.validator == 'enum':
        return _json_path(parts), 'expected one of %s, got %s' % (
            ', '.join(map(str, error.validator_value)),
            limits.one_line(repr(error.instance), 60))
    if error.validator == 'pattern':
        return _json_path(parts), '%s is not a valid name or value' % (
            limits.one_line(repr(error.instance), 60))
    return _json_path(parts), limits.one_line(error.message, 200)


def schema_problems(source, data):
    """Every schema error of ``data``, one line each: ``source: path:
    message``, sorted by path.
    """
    if not isinstance(data, dict):
        # The rest of the schema would only repeat it.
        return ['%s: $: expected object, got %s' % (
            source, type(data).__name__)]
    validator = jsonschema.Draft202012Validator(schema())
    problems = set()
    for error in validator.iter_errors(data):
        for path, message in _messages(error):
            problems.add('%s: %s: %s' % (source, path, message))
    return sorted(problems)


def _resolve(base, path):
    return os.path.normpath(os.path.join(base, os.path.expanduser(path)))


def _infra_name(item):
    if 'name' in item:
        return item['name']
    if 'infrastructure' in item:
        return experiment.workload_stem(item['infrastructure'])
    if 'machines' in item:
        return experiment.workload_stem(item['machines'])
    return '%dx%s' % (item['hosts'], item['flavor'].replace(':', '-'))


def _check_file(problems, source, field, path, directory=False):
    """A problem unless ``path`` is a regular file (or, with
    ``directory``, a directory: a WTA trace), named by ``field``: a FIFO
    would block the reader, a device never end.
    """
    try:
        mode = os.stat(path).st_mode
    except OSError as error:
        problems.append('%s: %s: %s: %s' % (
            source, field, (error.strerror or str(error)).lower()
            if not isinstance(error, FileNotFoundError) else
            'no such file or directory', limits.one_line(path, 200)))
        return
    if not (stat.S_ISREG(mode) or (directory and stat.S_ISDIR(mode))):
        problems.append('%s: %s: not a regular file%s: %s' % (
            source, field, ' or directory' if directory else '',
            limits.one_line(path, 200)))


def _trace_path(problems, source, index, item):
    """``(path, default name)`` of the workload ``{"trace": NAME}``: the
    trace's file in the download cache (``traces download`` or ``traces
    import``, ``$PREEMPTIBLE_SCHED_TRACES_DIR`` if set), a problem naming
    the command that puts it there if it is not.
    """
    field = '$.workloads[%d]' % index
    try:
        trace = catalogue.get(item['trace'])
    except exception.InvalidInput as error:
        problems.append('%s: %s.trace: %s' % (source, field, error.message))
        return None, item['trace']
    workload_files = [f.name for f in trace.files if f.role == 'workload']
    name = item.get('file')
    if name is None:
        if len(workload_files) != 1:
            problems.append('%s: %s: trace %s has %d workload files: name '
                            'one with "file" (%s)' % (
                                source, field, trace.name,
                                len(workload_files),
                                ', '.join(workload_files) or 'none'))
            return None, trace.name
        name = workload_files[0]
    elif name not in [f.name for f in trace.files]:
        problems.append('%s: %s.file: trace %s has no file %r (files: %s)'
                        % (source, field, trace.name, name,
                           ', '.join(f.name for f in trace.files)))
        return None, trace.name
    cache = download.default_cache_dir()
    path = os.path.join(cache, trace.name, name)
    if not os.path.isfile(path):
        problems.append(
            '%s: %s.trace: %s is not in the trace cache %s: run '
            '"preemptible-sched traces download %s" (offline: "traces '
            'import %s FILE", or "--mirror file://DIR"; $%s names another '
            'cache)' % (source, field, name, cache, trace.name, trace.name,
                        download.CACHE_ENV))
    return path, trace.name


def build(source, data):
    """The :class:`Definition` of validated ``data``; raises
    ConfigProblems with every inconsistency the schema cannot see.
    """
    base = os.path.dirname(os.path.abspath(source))
    problems = []
    workloads = []
    for index, item in enumerate(data['workloads']):
        if 'trace' in item:
            path, name = _trace_path(problems, source, index, item)
        else:
            path = _resolve(base, item['path'])
            _check_file(problems, source, '$.workloads[%d].path' % index,
                        path, directory=True)
            name = experiment.workload_stem(path)
        workloads.append(Workload(
            name=item.get('name') or name,
            path=path, format=item.get('format', 'auto'),
            limit=item.get('limit'), class_map=item.get('class_map'),
            default_class=item.get('default_class')))
    infrastructures = []
    for index, item in enumerate(data['infrastructures']):
        resolved = {}
        for key in ('infrastructure', 'machines'):
            if key in item:
                resolved[key] = _resolve(base, item[key])
                _check_file(problems, source, '$.infrastructures[%d].%s'
                            % (index, key), resolved[key])
        infrastructures.append(Infrastructure(
            name=_infra_name(item), hosts=item.get('hosts'),
            flavor=item.get('flavor'),
            size_factors=tuple(float(value) for value in
                               item.get('size_factors', ())),
            **resolved))
    for axis, names in (('workloads', [w.name for w in workloads]),
                        ('infrastructures',
                         [i.name for i in infrastructures])):
        for index, name in enumerate(names):
            if name in names[:index]:
                problems.append(
                    '%s: $.%s[%d].name: %r is used twice; give each a '
                    'distinct "name"' % (source, axis, index, name))
    configurations = None
    if 'configurations' in data:
        configurations = {}
        for name, path in data['configurations'].items():
            configurations[name] = _resolve(base, path)
            _check_file(problems, source, '$.configurations.%s' % name,
                        configurations[name])
    replication = data.get('replications', 'seeds')
    if replication == 'workloads' and len(workloads) < 2:
        problems.append('%s: $.replications: replicating over the '
                        'workloads needs at least two' % source)
    definition = Definition(
        path=source, workloads=workloads, infrastructures=infrastructures,
        configurations=configurations, strategies=data.get('strategies'),
        seeds=list(data['seeds']), replications=replication,
        baseline=data.get('baseline'), until=data.get('until'),
        jobs=data.get('jobs'))
    policies = definition.policies
    if definition.baseline is None:
        definition.baseline = policies[0]
    elif definition.baseline not in policies:
        problems.append('%s: $.baseline: %r is none of the %s (%s)' % (
            source, definition.baseline,
            'configurations' if configurations else 'strategies',
            ', '.join(policies)))
    count = len(definition.cells())
    if count > MAX_CELLS:
        problems.append('%s: (top level): %d runs, more than %d' % (
            source, count, MAX_CELLS))
    if problems:
        raise exception.ConfigProblems(problems)
    return definition


def load(path):
    """Read, validate and resolve the definition at ``path``."""
    data = documents.load_document(path)
    problems = schema_problems(path, data)
    if problems:
        raise exception.ConfigProblems(problems)
    return build(path, data)
