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


"""Hosts with load metrics, for the tests of the load-aware plugins."""

import os

import pyarrow
from pyarrow import parquet

from preemptible_sched.hosts import batch as host_batch
from preemptible_sched.hosts import load
from preemptible_sched.hosts import manager as host_manager
from preemptible_sched import objects
from tests import base


class LoadedManager(host_manager.HostManager):
    """A host manager and the load snapshot of a pass over its hosts:
    ``context`` is that pass's context, and its batches carry the
    snapshot as the filter handler hands it to the filters.
    """

    snapshot = None

    @property
    def context(self):
        return objects.PassContext(now=self.snapshot.now,
                                   load=self.snapshot)

    def batch(self, normal=False):
        batch = super().batch(normal)
        batch.load = self.snapshot
        return batch


def loaded_manager(hosts, now=0.0, source_problem=None, multiplier=1.5,
                   health=None):
    """A :class:`LoadedManager` of ``hosts`` and their load at ``now``.

    ``hosts``: ``(name, cores, memory_mb, metrics, instances)`` with
    ``metrics`` as a scenario writes them (``window_end`` relative to
    ``now``; None: the host is missing from the metrics).
    """
    manager = LoadedManager(base.FakePlanner())
    windows = {}
    occupied = set()
    for name, cores, memory_mb, metrics, instances in hosts:
        manager.add_host(objects.Host(name=name, vcpus=cores,
                                      memory_mb=memory_mb, disk_gb=1000))
        for instance in instances:
            manager.add_instance(name, instance)
            occupied.add(name)
        if metrics is not None:
            metrics = dict(metrics)
            if 'window_end' in metrics and isinstance(
                    metrics['window_end'], (int, float)):
                metrics['window_end'] = now + metrics['window_end']
            windows[name] = metrics
    manager.snapshot = load.build(
        now, [(name, cores, memory_mb)
              for name, cores, memory_mb, _, _ in hosts],
        windows, occupied, source_problem=source_problem,
        multiplier=multiplier, health=health)
    return manager


def cpu(avg, std=0.0, memory=None, window_end=-30.0):
    """Metrics with a CPU average (and std), optionally memory."""
    metrics = {'cpu': {'avg': avg, 'std': std}, 'window_end': window_end}
    if memory is not None:
        metrics['memory'] = {'avg': memory[0], 'std': memory[1]}
    return metrics


def old_instance(instance_id, vcpus=1.0, memory_mb=1000.0, at=-3600.0,
                 expected=None):
    """An instance placed long before any window (visible in metrics)."""
    return base.make_instance(instance_id, (vcpus, memory_mb, 0),
                              started_at=at, placed_at=at,
                              expected_vcpus=expected)


def weigh_both(test, weigher, manager, spec):
    """The raw weights of every host of ``manager`` by ``weigher``; fails
    ``test`` unless the vector form (on the table and on views) and the
    per-host form agree.
    """
    batch = manager.batch()
    context = manager.context
    vector = weigher.weigh_all(batch, spec, context).tolist()
    single = [weigher.weigh_objects([view], spec, context)[0]
              for view in batch.views()]
    views = weigher.weigh_all(host_batch.HostBatch.of_views(batch.views()),
                              spec, context).tolist()
    for one, two, three in zip(vector, single, views):
        test.assertAlmostEqual(one, two)
        test.assertAlmostEqual(one, three)
    return vector


REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: The shared Bitbrains sample beside the checkout (see ../shared/data).
SHARED_BITBRAINS = os.path.join(os.path.dirname(REPO), 'shared', 'data',
                                'bitbrains_small')


def make_bitbrains(path, vms):
    """Write a Bitbrains trace in the OpenDC layout under ``path``:
    ``vms`` maps a VM id to (capacity MHz, [usage MHz per 5 minutes]).
    """
    tasks = {'id': [], 'cpu_capacity': []}
    fragments = {'id': [], 'duration': [], 'cpu_usage': []}
    for vm, (capacity, usages) in vms.items():
        tasks['id'].append(vm)
        tasks['cpu_capacity'].append(float(capacity))
        for usage in usages:
            fragments['id'].append(vm)
            fragments['duration'].append(300000)
            fragments['cpu_usage'].append(float(usage))
    parquet.write_table(pyarrow.table(tasks),
                        os.path.join(path, 'tasks.parquet'))
    parquet.write_table(pyarrow.table(fragments),
                        os.path.join(path, 'fragments.parquet'))
    return path


#: An epoch time for watcher tests (the payload's times are Unix seconds).
T0 = 1700000000.0


def ramp(now):
    """Utilisation of two hosts at ``now`` (seconds since :data:`T0`):
    host-a's CPU is the minutes elapsed, memory 10; host-b 50 / 20.
    """
    return {'host-a': ((now - T0) / 60.0, 10.0), 'host-b': (50.0, 20.0)}
