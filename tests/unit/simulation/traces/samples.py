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

"""Sample traces and helpers shared by the trace reader tests."""

import gzip
import hashlib
import os

import fixtures

from preemptible_sched import exception
from preemptible_sched.simulation.traces import catalogue
from preemptible_sched.simulation.traces import reading


# The real traces live beside the checkout, in ../shared/data.
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__))))))
DATA = os.path.join(os.path.dirname(REPO), 'shared', 'data')

CSV_HEADER = ('id,submit_s,duration_s,vcpus,memory_mb,disk_gb,'
              'service_class,preemptible,constraints\n')
ALIBABA_HEADER = ('name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,'
                  'qos,pod_phase,creation_time,deletion_time,'
                  'scheduled_time\n')
GWF_HEADER = ('WorkflowID, JobID     , SubmitTime, RunTime   , NProcs    , '
              'ReqNProcs , Dependencies\n')
GOOGLE_HEADER = ('Time stamp,Missing info,jobID,Task index  within the '
                 'job,machine ID,Event type,username,Scheduling class,'
                 'Priority,resource request for CPU cores,resource request '
                 'for RAM,resource request for local disk space,'
                 'different-machine constraint\n')


def swf_line(job, submit, run, procs, used_kb=-1, req_procs=-1,
             req_kb=-1, queue=-1):
    fields = [job, submit, -1, run, procs, -1, used_kb, req_procs, -1,
              req_kb, 1, 1, 1, -1, queue, -1, -1, -1]
    return ' '.join('%5s' % f for f in fields) + '\n'


def google_event(time_us, job, task, event, priority=9, cpu='0.5',
                 ram='0.25'):
    return '%d,,%s,%d,42,%d,user,2,%d,%s,%s,0.001,0\n' % (
        time_us, job, task, event, priority, cpu, ram)


def summary(items):
    return [(i.id, i.submit_s, i.duration_s, tuple(i.resources),
             i.service_class) for i in items]


class TraceFileMixin:

    def write(self, name, text):
        path = os.path.join(self.useFixture(fixtures.TempDir()).path, name)
        opener = gzip.open if name.endswith('.gz') else open
        with opener(path, 'wt', encoding='utf-8') as stream:
            stream.write(text)
        return path

    def read(self, name, text, fmt='auto', **kw):
        return reading.read_workload(self.write(name, text), fmt, **kw)


class InvalidTraceMixin(TraceFileMixin):
    """``assertInvalid``: a trace written from text is refused on one line
    naming the file and the field.
    """

    def assertRefused(self, path, field, message_part, *args, **kw):
        error = self.assertRaises(exception.InvalidInput,
                                  reading.read_workload, path, *args, **kw)
        self.assertEqual(path, error.source)
        self.assertEqual(field, error.field)
        self.assertIn(message_part, error.message)
        self.assertNotIn('\n', str(error))
        return error

    def assertInvalid(self, name, text, field, message_part, **kw):
        return self.assertRefused(self.write(name, text), field,
                                  message_part, **kw)


class HostileTraceMixin(InvalidTraceMixin):
    """``assertInvalid``: a trace file (``write_bytes``) is refused on one
    line naming the file and the field.
    """

    def assertInvalid(self, path, field, message_part, fmt='auto'):
        return self.assertRefused(path, field, message_part, fmt)

    def write_bytes(self, name, data):
        path = os.path.join(self.useFixture(fixtures.TempDir()).path, name)
        with open(path, 'wb') as stream:
            stream.write(data)
        return path


# A workflow of three tasks (1 then 2 and 3) and one of a zero-length and
# a two-core task, as the Askalon trace writes them.
WORKFLOWS_GWF = GWF_HEADER + (
    '0, 1, 16, 11, 1, 1,\n'
    '0, 2, 40, 11, 1, 1, 1\n'
    '0, 3, 40, 0, 1, 1, 1\n'
    '5, 7, 3, 20, 2, 2,\n'
    '5, 8, 27, 0, 1, 1, 7\n')


JOBS = (b'id,submit_s,duration_s,vcpus,memory_mb\n'
        b'a,0,10,1,512\n'
        b'b,5,20,2,1024\n')
JOBS_SHA256 = hashlib.sha256(JOBS).hexdigest()

TEST_TRACE = catalogue.Trace(
    name='test-trace', title='Test', format='csv', description='Jobs.',
    page='https://example.invalid/', licence='test',
    licence_note='Test data.', citation='None.',
    files=(catalogue.TraceFile('jobs.csv', 'https://example.invalid/jobs.csv',
                               'workload', 'csv', JOBS_SHA256, len(JOBS)),),
    reader='--workload-format csv')
UNCHECKED_TRACE = catalogue.Trace(
    name='test-unchecked', title='Test', format='csv', description='Jobs.',
    page='https://example.invalid/', licence='test',
    licence_note='Test data.', citation='None.',
    files=(catalogue.TraceFile('one.csv', 'https://example.invalid/one.csv',
                               'workload', 'csv'),
           catalogue.TraceFile('two.csv', 'https://example.invalid/two.csv',
                               'workload', 'csv')),
    reader='--workload-format csv')
