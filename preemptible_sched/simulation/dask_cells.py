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

"""The cells of an experiment on a Dask distributed cluster
(``preemptible-sched experiment --executor dask``).

:class:`DaskCells` connects to the scheduler at ``--scheduler-address``
(or, without one, starts a local cluster of ``--jobs`` worker processes
on 127.0.0.1), sends each workload to every worker once
(``Client.scatter(broadcast=True)``: a cell's task names the scattered
workload, which the worker keeps, so a workload crosses the network once
per worker, not once per cell) and submits one task per cell. The
command's process writes every file, as on the local pool.

A worker runs :func:`run_cell`: it parses the command's configuration
files (absolute paths: the workers must see the same files, on a shared
file system or at the same paths) and the cell's own, then runs the
cell. The configuration is global to a worker process, so a process runs
one cell at a time whatever its thread count (:data:`_ONE_AT_A_TIME`):
give the workers one thread each and as many processes as cores
(``dask worker --nthreads 1 --nworkers N``). When a worker dies in the
middle of a cell (killed, out of memory, its node lost), the scheduler
runs the cell again on another worker (up to Dask's
``distributed.scheduler.allowed-failures`` times); the result is the
same, the cell's inputs and seed being the same.

``distributed`` is imported here only, when the executor is used: the
core and the local pool do not need it (the ``dask`` extra).
"""

import importlib
import threading

from preemptible_sched import exception
from preemptible_sched.simulation import cell_workers

#: One cell at a time in a worker process (the configuration is global).
_ONE_AT_A_TIME = threading.Lock()


def _distributed():
    try:
        return importlib.import_module('distributed')
    except ImportError as error:
        raise exception.MissingExtra('dask', 'distributed', error) from None


def run_cell(task, items, config):
    """Run ``task`` on ``items`` in a Dask worker, under ``config`` (the
    command's configuration files and directories).
    """
    with _ONE_AT_A_TIME:
        cell_workers.set_base_config(*config)
        cell_workers.reconfigure(None)
        return cell_workers.run_cell(task, items)


class DaskCells:
    """The cells run as tasks of a Dask cluster.

    ``workloads`` maps a key to the items of a workload; ``address`` is
    the scheduler's (None: a local cluster of ``jobs`` processes).
    """

    def __init__(self, jobs, workloads, address=None):
        distributed = self._distributed = _distributed()
        self.cluster = None
        if address is None:
            self.cluster = distributed.LocalCluster(
                n_workers=jobs, threads_per_worker=1, processes=True,
                host='127.0.0.1', dashboard_address=None)
            address = self.cluster.scheduler_address
        try:
            self.client = distributed.Client(address)
            self.config = cell_workers.base_config()
            self.shipped = self.client.scatter(
                {'workload-%s' % key: items
                 for key, items in workloads.items()},
                broadcast=True, hash=False)
        except BaseException:
            self._close_cluster()
            raise
        self.futures = []

    def submit(self, task):
        """A future of :func:`run_cell` of ``task``; its key names the
        cell's inputs (:attr:`.cell_workers.CellTask.digest`).
        """
        future = self.client.submit(
            run_cell, task, self.shipped['workload-%s' % task.workload],
            self.config, key='cell-%s' % task.digest, pure=False)
        self.futures.append(future)
        return future

    def as_completed(self, futures):
        return self._distributed.as_completed(futures)

    def close(self, abort=False):
        """Release the tasks (cancelled with ``abort``) and disconnect."""
        try:
            if abort and self.futures:
                self.client.cancel(self.futures)
            self.client.close()
        finally:
            self._close_cluster()

    def _close_cluster(self):
        if self.cluster is not None:
            self.cluster.close()
            self.cluster = None
