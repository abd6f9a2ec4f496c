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

"""The Standard Workload Format of the Parallel Workloads Archive (``swf``).

Standard Workload Format (Parallel Workloads Archive), plain or
gzipped: ``;`` comments, 18 whitespace-separated fields, -1 for
unknown. id = job number; submit = submit time; duration = run time;
vCPUs = allocated processors, or requested ones when unknown; memory
= requested memory (KB per processor) x processors / 1024, else used
memory likewise, else 0. Jobs with an unknown submit time, run time or
processor count are skipped. Class: ``class_map`` by queue number (as
written), else ``default_class``.
"""

from preemptible_sched import exception
from preemptible_sched import input_limits as limits
from preemptible_sched import objects
from preemptible_sched.simulation.traces import records

_SWF_FIELDS = ('job_number', 'submit_time', 'wait_time', 'run_time',
               'allocated_processors', 'average_cpu_time', 'used_memory',
               'requested_processors', 'requested_time', 'requested_memory',
               'status', 'user_id', 'group_id', 'executable', 'queue',
               'partition', 'preceding_job', 'think_time')


def read(path, class_map, default_class, skipped):
    seen = {}
    for line, text in enumerate(records.lines(path), start=1):
        fields = text.split()
        if not fields or fields[0].startswith(';'):
            continue
        if len(fields) != len(_SWF_FIELDS):
            raise exception.InvalidInput(
                path, 'line %d' % line, 'expected %d whitespace-separated '
                'fields, found %d' % (len(_SWF_FIELDS), len(fields)))
        record = records.Record(path, line, dict(zip(_SWF_FIELDS, fields)))
        # Every SWF field is a number (-1: unknown), even those not used.
        records.check_numbers(record, _SWF_FIELDS)
        job = record.identifier('job_number', seen)
        submit = records.known(record, 'submit_time')
        run_time = records.known(record, 'run_time')
        procs = records.known(record, 'allocated_processors',
                              limits.MAX_RESOURCE)
        if procs is None:
            procs = records.known(record, 'requested_processors',
                                  limits.MAX_RESOURCE)
        memory_kb = records.known(record, 'requested_memory',
                                  limits.MAX_RESOURCE * 1024) or records.known(
            record, 'used_memory', limits.MAX_RESOURCE * 1024) or 0.0
        if submit is None or run_time is None or procs is None:
            skipped['unknown submit time, run time or processors'] += 1
            continue
        memory_mb = memory_kb * procs / 1024
        if memory_mb > limits.MAX_RESOURCE:
            raise record.error('requested_memory', 'memory x processors is '
                               '%g MB, more than %g' % (
                                   memory_mb, limits.MAX_RESOURCE))
        yield records.WorkloadItem(
            id=job, submit_s=submit, duration_s=run_time,
            resources=objects.Resources(procs, memory_mb),
            service_class=class_map.get(record.text('queue'),
                                        default_class))
