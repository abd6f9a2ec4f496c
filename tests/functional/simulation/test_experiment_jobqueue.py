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

"""The sweep on workers that dask-jobqueue submits as Slurm batch jobs.

``doc/source/simulation.rst`` shows a ``SLURMCluster`` that submits the
workers through ``sbatch``. There is no Slurm here, so the test puts a
small stand-in for ``sbatch``, ``squeue`` and ``scancel`` first on PATH:
``sbatch`` keeps the job script it is given and runs it as a local
process, as a Slurm node would. Everything else is dask-jobqueue's own:
the job script it writes (with the documented queue, account and wall
time), the workers that script starts, and the sweep that runs on them
and must give the files of the local pool.
"""

import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import unittest

import fixtures

from tests.functional.simulation import test_experiment_resume as resume

HAS_JOBQUEUE = (importlib.util.find_spec('dask_jobqueue') is not None and
                resume.HAS_DASK)

#: sbatch FILE: take the next free job id (mkdir is atomic: dask-jobqueue
#: submits jobs at once), keep the script, run it in its own session.
SBATCH = '''#!/bin/sh
set -e
jobs="$(dirname "$0")/jobs"
mkdir -p "$jobs"
id=1001
until mkdir "$jobs/$id" 2>/dev/null; do id=$((id + 1)); done
cp "$1" "$jobs/$id/job.sh"
SLURM_JOB_ID=$id setsid sh "$jobs/$id/job.sh" > "$jobs/$id/log" 2>&1 &
echo $! > "$jobs/$id/pid"
echo "Submitted batch job $id"
'''

#: scancel ID...: end each job's session.
SCANCEL = '''#!/bin/sh
jobs="$(dirname "$0")/jobs"
for id in "$@"; do
  kill -TERM -- -"$(cat "$jobs/$id/pid")" 2>/dev/null || true
done
'''

#: squeue: the jobs that still run, as Slurm lists them.
SQUEUE = '''#!/bin/sh
jobs="$(dirname "$0")/jobs"
for pidfile in "$jobs"/*/pid; do
  [ -e "$pidfile" ] || continue
  if kill -0 "$(cat "$pidfile")" 2>/dev/null; then
    basename "$(dirname "$pidfile")"
  fi
done
exit 0
'''


@unittest.skipUnless(HAS_JOBQUEUE, 'dask-jobqueue is not installed')
class TestSlurmCluster(resume.ResumeCase):

    def setUp(self):
        super().setUp()
        self.bin = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.bin, True)
        for name, text in (('sbatch', SBATCH), ('scancel', SCANCEL),
                           ('squeue', SQUEUE)):
            path = os.path.join(self.bin, name)
            with open(path, 'w') as stream:
                stream.write(text)
            os.chmod(path, 0o755)
        self.useFixture(fixtures.EnvironmentVariable(
            'PATH', self.bin + os.pathsep + os.environ['PATH']))

    def end_every_job(self):
        """Whatever the cluster left running (its close cancels them)."""
        jobs = os.path.join(self.bin, 'jobs')
        for name in os.listdir(jobs) if os.path.isdir(jobs) else ():
            try:
                with open(os.path.join(jobs, name, 'pid')) as stream:
                    os.killpg(int(stream.read()), signal.SIGKILL)
            except (OSError, ValueError):
                pass

    def test_sweep_on_slurm_jobs_gives_the_local_pool_s_files(self):
        import dask_jobqueue
        import distributed
        self.addCleanup(self.end_every_job)
        # The documented cluster, one single-threaded process per job.
        cluster = dask_jobqueue.SLURMCluster(
            queue='batch', account='myproject', cores=1, processes=1,
            memory='1GB', walltime='04:00:00', python=sys.executable,
            scheduler_options={'host': '127.0.0.1',
                               'dashboard_address': None})
        self.addCleanup(cluster.close)
        cluster.scale(jobs=2)
        client = distributed.Client(cluster)
        self.addCleanup(client.close)
        # Two workers start in seconds; a job script that fails never
        # joins.
        client.wait_for_workers(2, timeout=180)
        # The workers came from the job scripts sbatch was given.
        jobs = os.path.join(self.bin, 'jobs')
        self.assertEqual(['1001', '1002'], sorted(os.listdir(jobs)))
        for job in ('1001', '1002'):
            with open(os.path.join(jobs, job, 'job.sh')) as stream:
                script = stream.read()
            for line in ('#SBATCH -p batch', '#SBATCH -A myproject',
                         '#SBATCH -t 04:00:00',
                         'distributed.cli.dask_worker',
                         cluster.scheduler_address):
                self.assertIn(line, script)

        output = os.path.join(self.tmp, 'slurm')
        done = subprocess.run(
            resume.command(self.workload, output, '--executor', 'dask',
                           '--scheduler-address', cluster.scheduler_address),
            capture_output=True, text=True, timeout=resume.WAIT)
        self.assertEqual(0, done.returncode, done.stderr)
        self.assertSameOutputs(output)
