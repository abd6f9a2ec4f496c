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

"""The Alibaba GPU 2023 pod list (``alibaba``).

Alibaba GPU 2023 pod list (``openb_pod_list_*.csv``). vCPUs are
``cpu_milli / 1000``; ``memory_mib`` is taken as MB, the unit the
scheduler accounts in; disk 0; the GPU columns are ignored. A pod is
submitted at ``creation_time`` and runs ``deletion_time -
scheduled_time`` (how long it ran in the real cluster; its wait is
for the simulator to decide). Pods with no ``scheduled_time`` never
ran and are skipped (in the default list: all 897 ``Pending`` pods of
8,152); a pod with no ``deletion_time`` runs until ``--until``; a
deletion before the scheduling is an error. ``qos`` gives the class
through ``ALIBABA_CLASSES`` updated with ``class_map``.
"""

from preemptible_sched import objects
from preemptible_sched.simulation.traces import records

#: Alibaba pod QoS -> service class; ``class_map`` adds or overrides.
ALIBABA_CLASSES = {'Guaranteed': 'gold', 'LS': 'silver',
                   'Burstable': 'silver', 'BE': 'bronze'}


_ALIBABA_REQUIRED = ('name', 'cpu_milli', 'memory_mib', 'qos',
                     'creation_time', 'deletion_time', 'scheduled_time')


def read(path, class_map, default_class, skipped):
    classes = dict(ALIBABA_CLASSES, **class_map)
    seen = {}
    for record in records.header_records(path, _ALIBABA_REQUIRED):
        records.check_numbers(record, ('num_gpu', 'gpu_milli'))
        name = record.identifier('name', seen)
        resources = objects.Resources(
            record.size('cpu_milli', scale=1000) / 1000,
            record.size('memory_mib'))
        qos = record.text('qos', required=True)
        if qos not in classes:
            raise record.error('qos', 'no service class for QoS %r (known: '
                               '%s); map it with class_map'
                               % (qos, ', '.join(sorted(classes))))
        creation = record.number('creation_time')
        scheduled = record.number('scheduled_time', default=None)
        deletion = record.number('deletion_time', default=None)
        if scheduled is None:
            skipped['never scheduled'] += 1
            continue
        if deletion is not None and deletion < scheduled:
            raise record.error('deletion_time', 'before scheduled_time '
                               '(%s)' % record.text('scheduled_time'))
        yield records.WorkloadItem(
            id=name, submit_s=creation,
            duration_s=None if deletion is None else deletion - scheduled,
            resources=resources, service_class=classes[qos])
