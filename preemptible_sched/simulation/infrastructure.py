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

"""The hosts a simulation places its requests on.

Three ways to get them:

- :func:`read_infrastructure`: the canonical CSV
  ``name,vcpus,memory_mb,disk_gb,attributes`` (``disk_gb`` may be left
  out; ``attributes`` is ``key=value;key=value``, matched by request
  constraints), with an optional ``cpu_mhz`` column (the speed of the
  host's cores, > 0; empty: unknown) that scales run times (see
  ``[fake_driver] reference_cpu_mhz``);
- :func:`hosts_from_flavor`: N identical hosts (``--hosts N
  --host-flavor VCPUS:MEMORY_MB[:DISK_GB]``);
- :func:`read_machines` then :func:`size_from_workload`: a real machine
  list, sampled until it holds ``factor`` times the workload's peak demand
  (:func:`peak_demand`).

Units as in :mod:`preemptible_sched.objects` (vCPUs, MB, GB), except that
Google ``machine_events`` capacities are normalised to the largest machine
(1.0), the units of the ``google2011`` task requests. Alibaba memory in MiB
is taken as MB, as for the Alibaba pods. Every problem raises
:class:`InvalidInput` naming the file and ``line N: field F``.

Bounds (:mod:`preemptible_sched.input_limits`): files of at most
``limits.MAX_INPUT_BYTES``, regular files only; sizes finite within
``0..limits.MAX_RESOURCE``; at most ``limits.MAX_HOSTS`` hosts, read or
sampled; a size factor finite within ``0..limits.MAX_SIZE_FACTOR``.
"""

import dataclasses
import math
import random

from preemptible_sched import exception
from preemptible_sched import input_limits as limits
from preemptible_sched import objects
from preemptible_sched.simulation.traces import records

MACHINE_FORMATS = ('csv', 'alibaba', 'google2011')

_RESOURCES = objects.Resources._fields

#: Fastest core speed accepted in ``cpu_mhz`` (1 THz: anything above is a
#: typo, or a unit mistake).
MAX_MHZ = 1e6


def read_infrastructure(path):
    """The hosts of a canonical infrastructure CSV, in file order."""
    seen = {}
    hosts = []
    for record in records.header_records(
            path, ('name', 'vcpus', 'memory_mb'),
            ('disk_gb', 'attributes', 'cpu_mhz'),
            strict=True, max_bytes=limits.MAX_INPUT_BYTES):
        _check_count(path, record, hosts)
        cpu_mhz = record.number('cpu_mhz', default=None, maximum=MAX_MHZ)
        if cpu_mhz is not None and cpu_mhz <= 0:
            raise record.error('cpu_mhz', 'must be > 0, got %s'
                               % record.text('cpu_mhz'))
        hosts.append(objects.Host(
            cpu_mhz=cpu_mhz,
            name=record.identifier('name', seen),
            vcpus=record.size('vcpus'),
            memory_mb=record.size('memory_mb'),
            disk_gb=record.size('disk_gb', default=0.0),
            attributes=record.pairs('attributes')))
    return _not_empty(path, hosts)


def _check_count(path, record, hosts):
    if len(hosts) >= limits.MAX_HOSTS:
        raise exception.InvalidInput(
            path, 'line %d' % record.line, 'more than %d hosts'
            % limits.MAX_HOSTS)


def hosts_from_flavor(count, flavor):
    """``count`` identical hosts ``host-0001``... of ``flavor``, a string
    ``VCPUS:MEMORY_MB[:DISK_GB]`` (vCPUs and memory > 0, disk >= 0).
    """
    limits.integer(count, '--hosts', None, minimum=1,
                   maximum=limits.MAX_HOSTS)
    parts = str(flavor).split(':')
    sizes = [float(p) if records.is_number(p) else math.nan
             for p in parts] + [0.0]
    if (len(parts) not in (2, 3) or not all(map(math.isfinite, sizes)) or
            min(sizes[:2]) <= 0 or sizes[2] < 0 or
            max(sizes) > limits.MAX_RESOURCE):
        raise exception.InvalidInput(
            '--host-flavor', None, 'expected VCPUS:MEMORY_MB[:DISK_GB], '
            'vCPUs and memory > 0, disk >= 0, each at most %g; got %s'
            % (limits.MAX_RESOURCE, limits.one_line(repr(flavor), 80)))
    return [objects.Host('host-%04d' % (index + 1), *sizes[:3])
            for index in range(count)]


def read_machines(path, fmt='auto', attributes=None):
    """The machines of a machine list: ``fmt`` is one of
    ``MACHINE_FORMATS`` or ``auto`` (told by the header). ``attributes``
    is a Google ``machine_attributes`` file that gives the machines of a
    ``google2011`` list their attributes (:func:`machine_attributes`).

    - ``alibaba``: node list ``sn,cpu_milli,memory_mib,gpu,model``; vCPUs
      ``cpu_milli / 1000``, attributes ``gpu`` and ``model`` when given.
    - ``google2011``: ``machine_events`` (``Time stamp,Machine ID,Event
      type,Platform ID,capacity:CPU,capacity:memory``, header optional):
      the machines present at the end of the file, each with its latest
      capacity (ADD and UPDATE set it, REMOVE drops the machine; rows with
      an empty capacity are ignored); attribute ``platform``.
    - ``csv``: the canonical infrastructure CSV.
    """
    if fmt == 'auto':
        fmt = _detect_machines(path)
    readers = {'csv': read_infrastructure, 'alibaba': _read_alibaba_nodes,
               'google2011': _read_machine_events}
    if fmt not in readers:
        raise exception.InvalidInput(
            'machine format', None, 'unknown format %r (valid: auto, %s)'
            % (fmt, ', '.join(MACHINE_FORMATS)))
    machines = readers[fmt](path)
    if attributes is None:
        return machines
    if fmt != 'google2011':
        raise exception.InvalidInput(
            attributes, None, 'machine_attributes go with a Google '
            'machine_events list, not a %s one' % fmt)
    found = machine_attributes(attributes, {m.name for m in machines})
    return [dataclasses.replace(
        machine, attributes=dict(machine.attributes,
                                 **found.get(machine.name, {})))
            for machine in machines]


# Columns (as column keys) that tell each machine list format; the reader
# then reports any other column missing.
_MACHINE_HEADERS = (('csv', {'name', 'vcpus'}),
                    ('alibaba', {'sn', 'cpu_milli'}),
                    ('google2011', {'machine id', 'capacity:cpu'}))
_EVENT_FIELDS = ('timestamp', 'machine ID', 'event type', 'platform ID',
                 'CPU capacity', 'memory capacity')
_ADD, _REMOVE, _UPDATE = 0, 1, 2


def _detect_machines(path):
    fields = records.first_row(path) or ['']
    columns = {records.column_key(field) for field in fields}
    for fmt, header in _MACHINE_HEADERS:
        if header <= columns:
            return fmt
    if len(fields) == len(_EVENT_FIELDS) and all(
            fields[i].isdigit() for i in (0, 1, 2)):
        return 'google2011'
    raise exception.InvalidInput(
        path, None, 'cannot tell the machine list format (canonical CSV, '
        'Alibaba node list or Google machine_events)')


def _read_alibaba_nodes(path):
    seen = {}
    hosts = []
    for record in records.header_records(
            path, ('sn', 'cpu_milli', 'memory_mib'), ('gpu', 'model'),
            max_bytes=limits.MAX_INPUT_BYTES):
        _check_count(path, record, hosts)
        name = record.identifier('sn', seen)
        if record.text('gpu'):
            record.size('gpu')   # validated, kept as written
        hosts.append(objects.Host(
            name=name, vcpus=record.size('cpu_milli', scale=1000) / 1000,
            memory_mb=record.size('memory_mib'),
            attributes={key: record.text(key) for key in ('gpu', 'model')
                        if record.text(key)}))
    return _not_empty(path, hosts)


def _read_machine_events(path):
    machines = {}
    for record in records.positional_records(
            path, _EVENT_FIELDS, 'machine_events',
            max_bytes=limits.MAX_INPUT_BYTES):
        name = record.text('machine ID', required=True)
        record.number('timestamp', maximum=limits.MAX_TIME * 1e6)
        event = record.number('event type')
        if event not in (_ADD, _REMOVE, _UPDATE):
            raise record.error('event type', 'expected 0, 1 or 2, got %s'
                               % record.text('event type'))
        if event == _REMOVE:
            machines.pop(name, None)
        elif record.text('CPU capacity') and record.text('memory capacity'):
            if name not in machines and len(machines) >= limits.MAX_HOSTS:
                _check_count(path, record, machines)
            platform = record.text('platform ID')
            machines[name] = objects.Host(
                name=name, vcpus=record.size('CPU capacity'),
                memory_mb=record.size('memory capacity'),
                attributes={'platform': platform} if platform else {})
    return _not_empty(path, list(machines.values()))


_ATTRIBUTE_FIELDS = ('timestamp', 'machine ID', 'attribute name',
                     'attribute value', 'attribute deleted')


def machine_attributes(path, machines):
    """``{machine ID: {name: value}}`` of a Google ``machine_attributes``
    file (``Time stamp,Machine ID,Attribute name,Attribute value,Attribute
    deleted``, header optional, plain or gzipped), for the ``machines``
    named (others are skipped as the file streams by, so memory stays
    bounded by the machine list).

    Each attribute takes its latest value (by time stamp; the later row
    on a tie), as at the end of the file, like the machine list; an
    attribute whose latest row has the deleted flag 1 is dropped (an empty
    flag counts as 0). An empty value is kept as ``''``. The names and
    values are the trace's (hashed) strings, matched as they are by
    request constraints.
    """
    latest = {}    # (machine, name) -> (time, value or None if deleted)
    for record in records.positional_records(
            path, _ATTRIBUTE_FIELDS, 'machine_attributes',
            max_bytes=limits.MAX_TRACE_BYTES):
        when = record.number('timestamp', maximum=limits.MAX_TIME * 1e6)
        deleted = record.text('attribute deleted')
        if deleted not in ('', '0', '1'):
            raise record.error('attribute deleted', 'expected 0, 1 or '
                               'nothing (not deleted), got '
                               '%s' % limits.one_line(repr(deleted), 40))
        machine = record.text('machine ID', required=True)
        if machine not in machines:
            continue
        key = (machine, record.text('attribute name', required=True))
        if key in latest and latest[key][0] > when:
            continue
        latest[key] = (when, None if deleted == '1'
                       else record.text('attribute value'))
    found = {}
    for (machine, name), (_, value) in latest.items():
        if value is not None:
            found.setdefault(machine, {})[name] = value
    return found


def _not_empty(path, hosts):
    if not hosts:
        raise exception.InvalidInput(path, None, 'no hosts in the file')
    return hosts


def peak_demand(items, until=None):
    """Per resource, the peak of the summed requests running at once.

    Each item occupies one infinite host during ``[submit_s, submit_s +
    duration_s)``: an item ending when another starts does not overlap it,
    and a zero-length item occupies nothing. A duration of None lasts
    until ``until``, or for ever when ``until`` is None; with ``until``,
    nothing after it counts. The peaks of different resources may happen
    at different times. Sweep over the sorted starts and ends.
    """
    events = []   # (time, 0 for an end / 1 for a start, item index)
    for index, item in enumerate(items):
        start = item.submit_s
        end = (until if item.duration_s is None
               else start + item.duration_s)
        if until is not None:
            end = min(end, until)
        if end is not None and end <= start:
            continue
        events.append((start, 1, index))
        if end is not None:
            events.append((end, 0, index))
    events.sort()
    running = [0.0] * len(_RESOURCES)
    peak = [0.0] * len(_RESOURCES)
    for _, is_start, index in events:
        sign = 1 if is_start else -1
        for position, amount in enumerate(items[index].resources):
            running[position] += sign * amount
            peak[position] = max(peak[position], running[position])
    return objects.Resources(*peak)


def size_from_workload(items, machines, factor, seed, until=None):
    """Machines sampled from ``machines`` to hold ``factor`` x the peak.

    The driving resource is the one whose :func:`peak_demand` is largest
    relative to the mean capacity of ``machines`` (the one that needs the
    most machines). Machines are drawn uniformly with replacement, with
    ``random.Random(seed)``, until their capacity of that resource reaches
    ``factor`` x its peak (one machine when the peak is 0). The i-th
    sampled host is named ``m<i>-<machine name>`` (``m0001-...``), so
    names stay unique when a machine is drawn twice. The sample may still
    hold no machine big enough for the single largest request: sizing
    looks at the total, not at each request.
    """
    limits.finite_number(factor, '--size-factor', None, minimum=0,
                         exclusive_minimum=True,
                         maximum=limits.MAX_SIZE_FACTOR)
    if not machines:
        raise exception.InvalidInput('machine list', None,
                                     'no machines to sample from')
    peak = peak_demand(items, until)
    mean = [sum(getattr(m, r) for m in machines) / len(machines)
            for r in _RESOURCES]
    for resource, need, have in zip(_RESOURCES, peak, mean):
        if need > 0 and have <= 0:
            raise exception.InvalidInput(
                'machine list', None, 'the machines have no %s but the '
                'workload needs up to %g' % (resource, need))
    ratios = [need / have if need > 0 else 0.0
              for need, have in zip(peak, mean)]
    driver = ratios.index(max(ratios))
    target = factor * peak[driver]
    largest = max(getattr(m, _RESOURCES[driver]) for m in machines)
    if largest > 0 and target / largest > limits.MAX_HOSTS:
        raise exception.InvalidInput(
            '--size-factor', None, '%g x the peak demand needs more than '
            '%d hosts of this machine list' % (factor, limits.MAX_HOSTS))
    rng = random.Random(seed)
    hosts = []
    total = 0.0
    while not hosts or total < target:
        if len(hosts) >= limits.MAX_HOSTS:
            raise exception.InvalidInput(
                '--size-factor', None, '%g x the peak demand needs more '
                'than %d hosts of this machine list' % (factor,
                                                        limits.MAX_HOSTS))
        machine = rng.choice(machines)
        hosts.append(dataclasses.replace(
            machine, name='m%04d-%s' % (len(hosts) + 1, machine.name),
            attributes=dict(machine.attributes)))
        total += getattr(machine, _RESOURCES[driver])
    return hosts
