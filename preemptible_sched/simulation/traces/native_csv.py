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

"""The project's own CSV workload format (``csv``).

The canonical CSV, header required: ``id,submit_s,duration_s,vcpus,
memory_mb,disk_gb,service_class,preemptible,constraints``. The last
four columns may be left out or empty: disk 0, ``default_class``,
not preemptible (true/false, yes/no, 1/0), no constraints
(``key=value;key=value``; ``key!=value``, ``key<number`` and
``key>number`` too, see :mod:`preemptible_sched.constraints`). An
empty ``duration_s`` runs until ``--until``. Optional SLA columns:
``sla_satisfaction,sla_reputation,sla_resources,sla_replicas``
(``premium``, ``advanced`` or ``best_effort``, the four together or none),
``sequential_s`` (a moldable request: its cores are sized by the
scheduler and it runs ``sequential_s / cores``; ``vcpus`` may then
be empty and ``duration_s`` must be), ``user`` and ``expected_vcpus``
(the cores the request declares it will use, at most ``vcpus``: the
load-aware weighers take it instead of predicting). Unknown columns
are an error: they are usually typos.

Only ``csv`` requests can be preemptible.
"""

from preemptible_sched import objects
from preemptible_sched.service_classes import sla
from preemptible_sched.simulation.traces import records

_CSV_REQUIRED = ('id', 'submit_s', 'duration_s', 'vcpus', 'memory_mb')
_CSV_OPTIONAL = ('disk_gb', 'service_class', 'preemptible', 'constraints',
                 'sla_satisfaction', 'sla_reputation', 'sla_resources',
                 'sla_replicas', 'sequential_s', 'user', 'expected_vcpus')
#: The SLA service of each SLA column of the canonical CSV.
_SLA_COLUMNS = {'satisfaction_time': 'sla_satisfaction',
                'reputation': 'sla_reputation',
                'resources': 'sla_resources', 'replicas': 'sla_replicas'}
_BOOLEANS = {'': False, 'false': False, 'no': False, '0': False,
             'true': True, 'yes': True, '1': True}


def read(path, class_map, default_class, skipped):
    seen = {}
    for record in records.header_records(path, _CSV_REQUIRED,
                                         _CSV_OPTIONAL, strict=True):
        flag = record.text('preemptible').lower()
        if flag not in _BOOLEANS:
            raise record.error('preemptible', 'expected true/false, yes/no '
                               'or 1/0, got %r' % record.text('preemptible'))
        sequential = record.number('sequential_s', default=None)
        duration = record.number('duration_s', default=None)
        if sequential is not None and duration is not None:
            raise record.error('duration_s', 'a moldable request (with '
                               'sequential_s) runs sequential_s / cores: '
                               'leave duration_s empty')
        levels = _sla_levels(record)
        vcpus = record.size('vcpus', default=records.REQUIRED
                            if sequential is None else 0.0)
        if sequential is not None and levels is None and not vcpus:
            raise record.error('vcpus', 'a moldable request without SLA '
                               'levels runs on the vCPUs it gives: '
                               'must be > 0')
        yield records.WorkloadItem(
            id=record.identifier('id', seen),
            submit_s=record.number('submit_s'),
            duration_s=duration,
            resources=objects.Resources(
                vcpus, record.size('memory_mb'),
                record.size('disk_gb', default=0.0)),
            service_class=record.text('service_class') or default_class,
            preemptible=_BOOLEANS[flag],
            constraints=record.constraints('constraints'),
            sla=levels, sequential_s=sequential,
            user=record.text('user') or None,
            expected_vcpus=_expected_vcpus(record, vcpus))


def _expected_vcpus(record, vcpus):
    """The cores a request of ``vcpus`` declares it will use, or None."""
    expected = record.number('expected_vcpus', default=None)
    if expected is None:
        return None
    if not expected > 0:
        raise record.error('expected_vcpus', 'must be > 0, got %s'
                           % record.text('expected_vcpus'))
    if vcpus and expected > vcpus:
        raise record.error('expected_vcpus', 'declares %g cores for a '
                           'request of %g vCPUs' % (expected, vcpus))
    return expected


def _sla_levels(record):
    return sla.levels(
        {service: record.text(column)
         for service, column in _SLA_COLUMNS.items()},
        record.path, lambda service: 'line %d: field %s' % (
            record.line, record.names.get(_SLA_COLUMNS[service],
                                          _SLA_COLUMNS[service])))
