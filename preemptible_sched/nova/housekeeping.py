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

"""Which preemptible servers the periodic tasks terminate (Nova-free).

Two rules operators of preemptible clouds ask for, both run by the
manager's periodic task and both on core instances (servers of preemptible
flavors with no task under way):

* :func:`expired`: ``[preemptible_sched] max_lifetime``, as CERN's
  Aardvark and GCP's spot VMs bound how long a preemptible server lives;
* :func:`headroom_victims`: ``[preemptible_sched] watermark``, a share of
  the cloud's capacity kept free by terminating preemptible servers before
  the cloud is full, so that normal servers start without waiting for a
  termination.
"""

from preemptible_sched.nova import resource_classes

#: The classes the watermark keeps free (disk rarely runs out first, and a
#: server freeing it alone is no help to the next boot).
WATERMARK_CLASSES = (resource_classes.VCPU, resource_classes.MEMORY_MB)


def expired(instances, now, max_lifetime):
    """The instances that have run ``max_lifetime`` seconds or more since
    their last start, oldest first (ties by id). None when the limit is 0.
    """
    if not max_lifetime:
        return []
    found = [instance for instance in instances
             if instance.running_since is not None and
             now - instance.running_since >= max_lifetime]
    return sorted(found, key=lambda i: (i.running_since, i.id))


def shortfall(capacity, used, watermark):
    """``{class: amount}`` to free so that ``watermark`` (a share of the
    capacity) of each of :data:`WATERMARK_CLASSES` is free; empty when it
    is already.

    ``capacity`` and ``used`` are ``{standard class: amount}`` over the
    whole cloud, ``used`` counting every server (the full view).
    """
    short = {}
    for resource_class in WATERMARK_CLASSES:
        total = capacity.get(resource_class, 0)
        free = total - used.get(resource_class, 0)
        missing = watermark * total - free
        if missing > 1e-9:
            short[resource_class] = missing
    return short


def headroom_victims(short, instances, cost):
    """Preemptible instances to terminate so that ``short`` is freed.

    Greedy: cheapest first (``cost(instance)``, ties by id), skipping the
    instances that free none of what is still short, until nothing is.
    Returns ``(victims, still_short)``; ``still_short`` is non-empty when
    terminating every candidate is not enough.
    """
    short = dict(short)
    victims = []
    field = {resource_classes.VCPU: 'vcpus',
             resource_classes.MEMORY_MB: 'memory_mb',
             resource_classes.DISK_GB: 'disk_gb'}
    for instance in sorted(instances, key=lambda i: (cost(i), i.id)):
        if not short:
            break
        helps = [rc for rc in short
                 if getattr(instance.resources, field[rc]) > 0]
        if not helps:
            continue
        victims.append(instance)
        for resource_class in helps:
            short[resource_class] -= getattr(instance.resources,
                                             field[resource_class])
            if short[resource_class] <= 1e-9:
                del short[resource_class]
    return victims, short
