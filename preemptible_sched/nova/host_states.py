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

"""Nova's host states and request specs, seen as the core's objects.

The core phase engine (:class:`preemptible_sched.scheduler.filter_scheduler.
FilterScheduler`) decides on a host manager of core hosts, each with two
views (every instance, or only the normal ones). This module fills one from
what Nova has, a compute node (a Nova ``HostState``) at a time, named by its
resource provider's uuid:

* :func:`add_from_summary` (one-pass mode) from the node's provider summary
  in the allocation candidates response, and the servers on it when
  victims may be chosen there;
* :func:`add_from_placement` (retry path) from the node's Placement
  inventory and allocations and the servers behind them.

How a Nova ``HostState`` shows one of those views to Nova's filters and
weighers is in :mod:`.host_views`.

Placement units are the core's: VCPU, MEMORY_MB and DISK_GB. A host's
capacity is Placement's, ``(total - reserved) * allocation_ratio``.
"""

import datetime
import math

from nova.scheduler import utils as scheduler_utils
from oslo_utils import timeutils

from preemptible_sched.nova import extra_specs
from preemptible_sched.nova import resource_classes
from preemptible_sched import objects

VCPU = resource_classes.VCPU
MEMORY_MB = resource_classes.MEMORY_MB
DISK_GB = resource_classes.DISK_GB
#: The classes of a compute node the manager accounts for: the standard
#: ones and the preemptible classes standing for them.
RESOURCE_CLASSES = (resource_classes.STANDARD +
                    tuple(resource_classes.CUSTOM.values()))

#: Id prefixes of the instances standing for usage no server explains:
#: the normal servers of a provider summary, and preemptible usage that is
#: no candidate victim (a server being built or moved, one not read).
NORMAL_USAGE = 'placement-normal:'
HELD_USAGE = 'placement-preemptible:'

#: System metadata of a server displaced by a class-based strategy (not
#: writable by its owner): when it was displaced, and its running time and
#: allocation overhead until then (seconds), its QoS account.
DISPLACED_AT = 'preemptible_sched_displaced_at'
RUNNING_S = 'preemptible_sched_running_s'
OVERHEAD_S = 'preemptible_sched_overhead_s'
#: System metadata of a displaced server waiting to be unshelved.
REQUEUED = 'preemptible_sched_requeued'
#: Server metadata its owner sets to be terminated later (up to 1000) or
#: sooner (down to -1000): the ``cost_hint`` termination cost.
COST_HINT = 'preemptible_sched:termination_cost_hint'

_EPOCH = datetime.datetime(1970, 1, 1)


def epoch(moment):
    """Seconds since the epoch of a datetime (naive UTC or aware)."""
    return (timeutils.normalize_time(moment) - _EPOCH).total_seconds()


def now():
    """The present on the clock Nova uses (oslo's, which tests override)."""
    return epoch(timeutils.utcnow())


def resources(amounts):
    """Core resources of a ``{resource class: amount}`` dict (a preemptible
    class counted as its standard one).
    """
    found = resource_classes.standard_amounts(amounts)
    return objects.Resources(float(found[VCPU]), float(found[MEMORY_MB]),
                             float(found[DISK_GB]))


def request_resources(spec_obj):
    """What one instance of ``spec_obj`` asks of its compute node."""
    is_bfv = bool(spec_obj.obj_attr_is_set('is_bfv') and spec_obj.is_bfv)
    return resources(scheduler_utils.resources_from_flavor_and_bfv(
        spec_obj.flavor, is_bfv))


def core_request(spec_obj, classes, instance_uuids=()):
    """The core request of a Nova ``RequestSpec`` for ``instance_uuids``.

    ``classes`` maps service class names to priorities
    (``[preemptible_sched] service_classes``).
    """
    flavor = spec_obj.flavor
    service_class = extra_specs.service_class(flavor)
    uuid = (spec_obj.instance_uuid
            if spec_obj.obj_attr_is_set('instance_uuid') else None)
    zone = (spec_obj.availability_zone
            if spec_obj.obj_attr_is_set('availability_zone') else None)
    count = len(instance_uuids) or (
        spec_obj.num_instances if spec_obj.obj_attr_is_set('num_instances')
        else 1)
    return objects.RequestSpec(
        id=uuid or 'request',
        resources=request_resources(spec_obj),
        preemptible=extra_specs.is_preemptible(flavor),
        num_instances=count,
        flavor=flavor.name,
        availability_zone=zone,
        service_class=service_class,
        priority=classes.get(service_class, 0.0),
        instance_ids=tuple(instance_uuids))


def _aggregates(host_state):
    return tuple(objects.Aggregate(aggregate.name or str(aggregate.id),
                                   dict(aggregate.metadata or {}))
                 for aggregate in host_state.aggregates or ())


def core_host(host_state, name=None, **fields):
    """A core Host for ``host_state`` (named by its uuid): ``fields`` give
    the capacity, reservations and ratios.
    """
    return objects.Host(name=name or host_state.uuid,
                        aggregates=_aggregates(host_state), **fields)


def _inventory_fields(inventories, resource_class):
    record = inventories.get(resource_class) or {}
    return (float(record.get('total', 0)), float(record.get('reserved', 0)),
            float(record.get('allocation_ratio', 1.0)))


def add_from_placement(hosts, host_state, inventories, allocations, servers,
                       classes, present, leaving=()):
    """Add a compute node, as Placement accounts for it, to ``hosts`` (a
    core host manager).

    ``inventories`` is ``{resource class: inventory record}`` and
    ``allocations`` ``{consumer uuid: {resource class: amount}}`` of the
    node's resource provider; ``servers`` maps consumer uuids to Nova
    ``Instance`` objects (with their flavor). A consumer is a candidate for
    termination only if it is a server of a preemptible flavor with no task
    under way; anything else (a normal server, a migration, a server being
    built or deleted) is normal usage that nothing may take away. The
    consumers in ``leaving`` (victims of open decisions) are left out:
    their room is the request's that displaced them.
    """
    vcpus = _inventory_fields(inventories, VCPU)
    memory = _inventory_fields(inventories, MEMORY_MB)
    disk = _inventory_fields(inventories, DISK_GB)
    host = core_host(
        host_state,
        vcpus=vcpus[0], reserved_vcpus=vcpus[1], cpu_allocation_ratio=vcpus[2],
        memory_mb=memory[0], reserved_memory_mb=memory[1],
        ram_allocation_ratio=memory[2],
        disk_gb=disk[0], reserved_disk_gb=disk[1],
        disk_allocation_ratio=disk[2])
    hosts.add_host(host)
    for consumer in sorted(allocations):
        if consumer in leaving:
            continue
        hosts.add_instance(host.name, _instance(
            consumer, allocations[consumer], servers.get(consumer), classes,
            present))
    return host.name


def _instance(consumer, amounts, server, classes, present):
    if server is None:
        return objects.Instance(consumer, resources(amounts),
                                started_at=present)
    flavor = server.flavor
    service_class = extra_specs.service_class(flavor)
    launched = server.launched_at or server.created_at
    admitted, running_since, running_s, overhead_s = account(server, present)
    return objects.Instance(
        consumer, resources(amounts),
        preemptible=(extra_specs.is_preemptible(flavor) and
                     server.task_state is None and not server.deleted),
        started_at=epoch(launched) if launched else present,
        flavor=flavor.name,
        service_class=service_class,
        priority=classes.get(service_class, 0.0),
        admitted_at=admitted, running_since=running_since,
        running_s=running_s, overhead_s=overhead_s,
        cost_hint=cost_hint(server))


def cost_hint(server):
    """The owner's termination cost hint, 0 when unset or not a finite
    number (the ``cost_hint`` cost clips it to [-1000, 1000]).
    """
    value = (_field(server, 'metadata') or {}).get(COST_HINT)
    try:
        hint = float(value) if value is not None else 0.0
    except ValueError:
        return 0.0
    return hint if math.isfinite(hint) else 0.0


def server_amounts(server):
    """``{resource class: amount}`` a server's flavor asks Placement for."""
    return scheduler_utils.resources_from_flavor_and_bfv(server.flavor,
                                                         False)


def server_instance(server, classes, present):
    """The core instance of a server, sized by its flavor."""
    return _instance(server.uuid, server_amounts(server), server, classes,
                     present)


def _seconds(system_metadata, key):
    try:
        value = float(system_metadata.get(key) or 0.0)
    except ValueError:
        return 0.0
    return value if 0.0 <= value < float('inf') else 0.0


def _field(server, name):
    """A field of a Nova Instance, None when it was not loaded."""
    return getattr(server, name) if server.obj_attr_is_set(name) else None


def account(server, present):
    """``(admitted_at, running_since, running_s, overhead_s)`` of a server.

    Admitted when it was created. It runs since it was last launched when
    it is active with no task under way (otherwise nothing may displace
    it: ``running_since`` is None). Its running time and overhead before a
    displacement are in its system metadata; the time from admission, or
    from its last displacement, to its last launch is overhead.
    """
    created = _field(server, 'created_at')
    admitted = epoch(created) if created else present
    system = _field(server, 'system_metadata') or {}
    running_s = _seconds(system, RUNNING_S)
    overhead_s = _seconds(system, OVERHEAD_S)
    displaced = _seconds(system, DISPLACED_AT) or None
    running_since = None
    launched = _field(server, 'launched_at')
    if (_field(server, 'vm_state') == 'active' and
            _field(server, 'task_state') is None and
            not _field(server, 'deleted') and launched):
        running_since = epoch(launched)
        waited_from = displaced if displaced is not None else admitted
        overhead_s += max(0.0, running_since - waited_from)
    return admitted, running_since, running_s, overhead_s


def add_from_summary(hosts, host_state, summary, servers, classes, present,
                     leaving=()):
    """Add a compute node, from its provider summary, to ``hosts`` (a core
    host manager; one-pass mode).

    ``summary`` is the node's entry of ``provider_summaries`` in the
    allocation candidates response: its standard classes give the capacity
    and the normal servers' usage, the preemptible classes the rest of the
    full view. ``servers`` is None, or the node's servers (``{uuid: Nova
    Instance}``, with their flavors) when victims may have to be chosen
    there: each preemptible one with no task under way becomes a candidate
    victim. The victims of open decisions (``leaving``) are never
    candidates; their decision empties their allocations when it claims
    the room, so Placement no longer counts them. Preemptible usage no
    candidate explains (a server being built, moved or displaced, a server
    not read) is held: it counts in the full view and is never a victim.
    """
    capacity, normal, full = resource_classes.views(summary)
    host = core_host(
        host_state,
        vcpus=float(capacity[VCPU]), memory_mb=float(capacity[MEMORY_MB]),
        disk_gb=float(capacity[DISK_GB]),
        reserved_vcpus=0.0, reserved_memory_mb=0.0, reserved_disk_gb=0.0,
        cpu_allocation_ratio=1.0, ram_allocation_ratio=1.0,
        disk_allocation_ratio=1.0)
    name = host.name
    hosts.add_host(host)
    hosts.add_instance(name, objects.Instance(
        NORMAL_USAGE + name, resources(normal), started_at=present))
    held = {rc: full[rc] - normal[rc] for rc in resource_classes.STANDARD}
    for uuid in sorted(servers or ()):
        if uuid in leaving:
            # Its allocations are emptied when its decision claims the
            # room: whatever Placement still counts of it is held.
            continue
        server = servers[uuid]
        amounts = server_amounts(server)
        if (not extra_specs.is_preemptible(server.flavor) or
                not resource_classes.uses_custom(amounts)):
            continue    # standard classes: counted in the normal usage
        instance = _instance(uuid, amounts, server, classes, present)
        used = resource_classes.standard_amounts(amounts)
        if not instance.preemptible or any(used[rc] > held[rc] + 1e-9
                                           for rc in held):
            continue    # busy, or not counted (yet) on this node: held
        for rc in held:
            held[rc] -= used[rc]
        hosts.add_instance(name, instance)
    if any(amount > 1e-9 for amount in held.values()):
        # Counted in the full view only, never a victim: consumed as
        # preemptible (out of the normal view) and held (out of the
        # candidates).
        hosts.hold_victim(name, objects.Instance(
            HELD_USAGE + name, resources(held), preemptible=True,
            started_at=present), None)
    return name
