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

from preemptible_sched import host_batch
from preemptible_sched import host_manager
from preemptible_sched import load
from preemptible_sched import objects
from tests import base


def loaded_manager(hosts, now=0.0, source_problem=None, multiplier=1.5,
                   health=None):
    """A host manager whose table carries a load snapshot.

    ``hosts``: ``(name, cores, memory_mb, metrics, instances)`` with
    ``metrics`` as a scenario writes them (``window_end`` relative to
    ``now``; None: the host is missing from the metrics).
    """
    manager = host_manager.HostManager(base.FakePlanner())
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
    manager.table.load = load.build(
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
    vector = weigher.weigh_all(batch, spec, None).tolist()
    single = [weigher._weigh_object(view, spec) for view in batch.views()]
    views = weigher.weigh_all(host_batch.HostBatch.of_views(batch.views()),
                              spec, None).tolist()
    for one, two, three in zip(vector, single, views):
        test.assertAlmostEqual(one, two)
        test.assertAlmostEqual(one, three)
    return vector
