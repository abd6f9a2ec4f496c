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

"""The Grid Workloads Archive format (``gwf``).

Grid Workloads Archive, the comma-separated variant with the header
``WorkflowID, JobID, SubmitTime, RunTime, NProcs, ReqNProcs,
Dependencies`` (padded fields; blank and ``#`` lines ignored). Each
job is a request ``<WorkflowID>-<JobID>`` of workflow ``WorkflowID``;
``Dependencies`` lists, separated by spaces, the JobIDs of the same
workflow it waits for. vCPUs = NProcs, or ReqNProcs when NProcs <= 0;
memory 0; duration = RunTime (zero-length jobs are kept); jobs with
-1 times are skipped. Class: ``default_class``.
"""

from preemptible_sched import input_limits as limits
from preemptible_sched import objects
from preemptible_sched.simulation.traces import records

_GWF_REQUIRED = ('workflowid', 'jobid', 'submittime', 'runtime', 'nprocs')


def read(path, class_map, default_class, skipped):
    seen = {}
    for record in records.header_records(path, _GWF_REQUIRED, comment='#'):
        records.check_numbers(record, ('reqnprocs',))
        ids = '%s-%s' % (record.text('workflowid', required=True),
                         record.text('jobid', required=True))
        if ids in seen:
            raise record.error('jobid', 'duplicate job %r (first on line '
                               '%d)' % (ids, seen[ids]))
        seen[ids] = record.line
        submit = records.known(record, 'submittime')
        run_time = records.known(record, 'runtime')
        procs = records.known(record, 'nprocs', limits.MAX_RESOURCE)
        if not procs and record.text('reqnprocs'):
            procs = records.known(record, 'reqnprocs',
                                  limits.MAX_RESOURCE) or None
        workflow = record.text('workflowid')
        depends_on = []
        for job in record.text('dependencies').split():
            if not records.is_number(job) and not job.isidentifier():
                raise record.error('dependencies', 'expected JobIDs '
                                   'separated by spaces, got %r' % job)
            depends_on.append('%s-%s' % (workflow, job))
        if submit is None or run_time is None or not procs:
            skipped['unknown submit time, run time or processors'] += 1
            skipped.ids.add(ids)
            continue
        yield records.WorkloadItem(
            id=ids, submit_s=submit, duration_s=run_time,
            resources=objects.Resources(procs, 0.0),
            service_class=default_class, workflow=workflow,
            depends_on=tuple(depends_on))
