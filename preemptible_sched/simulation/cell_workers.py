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

"""The workers of an experiment: the process pool its cells run in.

Workers are started with ``spawn``: a forked worker would inherit the
command's parsed command line (the subcommand) and could not parse the
configuration again. Each worker parses the same configuration files
(``--config-file``, ``--config-dir``) in its initializer, which also
receives every workload of the experiment once (:data:`_WORKLOADS`): a
:class:`CellTask` names its workload, it does not carry it, so a worker
unpickles a workload once, not once per cell. The policy overrides are
applied per run by :class:`runner.Simulation`. Workers only compute
(:func:`run_cell`); the command's process writes every file (see
:mod:`.cells`). :class:`LocalCells` is the executor of
``--executor local`` (:mod:`.dask_cells` that of ``dask``). A worker
whose command is gone exits (:func:`exit_with_parent`); one no longer
needed is stopped (:func:`stop_workers`).
"""

import concurrent.futures
import dataclasses
import multiprocessing
import os
import threading
import time
import types
import typing

from oslo_config import cfg

from preemptible_sched.conf import CONF
from preemptible_sched import exception
from preemptible_sched.simulation import experiment
from preemptible_sched.simulation import replay


class CellFailed(Exception):
    """A run failed on purpose (bad input found late) in a worker.

    Carries the message only: :class:`InvalidInput` itself does not
    survive pickling back to this process.
    """


@dataclasses.dataclass
class CellTask:
    """What a worker needs to run one cell."""

    cell: experiment.Cell
    workload_path: str
    #: The key of its workload in what the workers were given.
    workload: str
    hosts: list
    until: typing.Optional[float]
    #: A configuration file this cell runs under (its policy is then the
    #: configuration's own), or None.
    config_file: typing.Optional[str] = None
    #: The digest of everything its result depends on (its manifest's).
    digest: str = ''


#: Seconds between a worker's checks that the command it works for runs.
PARENT_CHECK_SECONDS = 1.0


def exit_with_parent(parent, interval=PARENT_CHECK_SECONDS):
    """Exit the process once ``parent`` is no longer its parent.

    A pool worker whose command was killed (SIGKILL leaves it no time to
    stop its workers) would otherwise wait for work forever: it holds the
    write end of its own task queue, so it never reads an end of file.
    """
    while os.getppid() == parent:
        time.sleep(interval)
    os._exit(1)


#: The worker's base configuration: (config files, config dirs).
_BASE_CONFIG = ((), ())
#: The workloads of the experiment, by key, given once to each worker.
_WORKLOADS = {}


def configured_paths():
    """``(config files, config dirs)`` this process parsed (none before
    the command line is parsed).
    """
    try:
        return (tuple(CONF.config_file or ()), tuple(CONF.config_dir or ()))
    except cfg.NoSuchOptError:
        return (), ()


def base_config():
    """This process's configuration files and directories, as absolute
    paths, for workers that may not share its working directory.
    """
    files, dirs = configured_paths()
    return (tuple(os.path.abspath(path) for path in files),
            tuple(os.path.abspath(path) for path in dirs))


def set_base_config(config_files, config_dirs):
    """The configuration files and directories :func:`reconfigure`
    parses before a cell's own.
    """
    global _BASE_CONFIG
    _BASE_CONFIG = (tuple(config_files), tuple(config_dirs))


def init_worker(config_files, config_dirs, parent=None, workloads=None):
    """Parse the configuration the parent parsed (workers start afresh),
    keep the ``workloads`` (key -> items); exit when the ``parent``
    process is gone.
    """
    global _WORKLOADS
    if parent is not None:
        threading.Thread(target=exit_with_parent, args=(parent,),
                         name='parent-watch', daemon=True).start()
    set_base_config(config_files, config_dirs)
    _WORKLOADS = dict(workloads or {})
    reconfigure(None)


def reconfigure(config_file):
    """Parse the worker's base configuration again, then ``config_file``
    (a configuration of a definition) over it; None for the base alone.
    Parsing anew drops every option the previous cell set.
    """
    config_files, config_dirs = _BASE_CONFIG
    argv = []
    for path in tuple(config_files) + ((config_file,) if config_file
                                       else ()):
        argv += ['--config-file', path]
    for path in config_dirs:
        argv += ['--config-dir', path]
    CONF(argv, project='preemptible-sched', default_config_files=[],
         default_config_dirs=[])


def worker_pool(workers, workloads=None):
    """The pool the cells run in: ``workers`` fresh processes with this
    process's configuration and ``workloads`` (key -> items), which exit
    if this process is killed.
    """
    return concurrent.futures.ProcessPoolExecutor(
        max_workers=workers, mp_context=multiprocessing.get_context('spawn'),
        initializer=init_worker,
        initargs=configured_paths() + (os.getpid(), workloads))


def run_cell(task, items=None):
    """Run one cell on ``items`` (default: its workload as the worker
    was given it); returns ``(summary, records, stage rows)``.
    """
    if items is None:
        items = _WORKLOADS[task.workload]
    args = types.SimpleNamespace(workload=task.workload_path,
                                 until=task.until)
    try:
        if task.config_file:
            reconfigure(task.config_file)
        result, summary = replay.simulate(
            args, items, task.hosts,
            None if task.config_file else task.cell.policy, task.cell.seed,
            progress=False)
    except exception.PreemptibleSchedException as error:
        raise CellFailed(str(error)) from None
    if task.config_file:
        summary['configuration'] = task.cell.policy
        summary['config_file'] = task.config_file
    summary['size_factor'] = task.cell.size_factor
    return summary, result.records, result.stage_rows


def stop_workers(pool):
    """Terminate the worker processes of ``pool`` (they only compute)."""
    processes = getattr(pool, '_processes', None) or {}
    for process in list(processes.values()):
        try:
            process.terminate()
        except (OSError, ValueError, AttributeError):
            pass


class LocalCells:
    """The cells run in a pool of ``jobs`` local worker processes, each
    given ``workloads`` (key -> items) once.
    """

    def __init__(self, jobs, workloads):
        self.pool = worker_pool(jobs, workloads)

    def submit(self, task):
        """A future of :func:`run_cell` of ``task``."""
        return self.pool.submit(run_cell, task)

    def as_completed(self, futures):
        return concurrent.futures.as_completed(futures)

    def close(self, abort=False):
        """Shut the pool down; with ``abort`` the runs under way are of no
        use any more: do not wait for them.
        """
        if abort:
            stop_workers(self.pool)
        self.pool.shutdown(wait=True, cancel_futures=True)
