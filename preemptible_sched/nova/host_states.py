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

The core filters, weighers and termination selector reason about
:class:`preemptible_sched.host_state.HostState` (two views: every instance,
or only the normal ones) and :class:`preemptible_sched.objects.RequestSpec`.
This module builds them from what Nova has:

* :func:`from_placement` builds a host from its Placement inventory and
  allocations and the servers behind them; the manager uses it on the
  preemption path, where the preemptible servers must be told apart;
* :func:`state_of` gives the core host of any Nova ``HostState``: the one
  the manager attached, or one built from Nova's own usage figures (on
  Nova's stock path, where every candidate already fits);
* :func:`view_copy` makes the copy of a Nova ``HostState`` that shows one
  view to Nova's filters and weighers.

Placement units are the core's: VCPU, MEMORY_MB and DISK_GB. A host's
capacity is Placement's, ``(total - reserved) * allocation_ratio``.
"""

import copy
import datetime
import math

from nova.scheduler import utils as scheduler_utils
from oslo_utils import timeutils

from preemptible_sched import host_state as core_host_state
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

#: Attribute of a Nova HostState holding its core HostState.
STATE_ATTR = 'preemptible_sched_state'
#: Attribute of a Nova HostState: True when filters judge the normal view.
NORMAL_ATTR = 'preemptible_sched_normal'
#: Id of the one instance that stands for Nova's usage figures.
USAGE_ID = 'nova-usage'
#: Ids of the instances standing for a provider summary's usage: the
#: normal servers, and preemptible usage that is no candidate victim.
NORMAL_USAGE_ID = 'placement-normal'
HELD_USAGE_ID = 'placement-preemptible'

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


def core_request(spec_obj, classes):
    """The core request of a Nova ``RequestSpec``.

    ``classes`` maps service class names to priorities
    (``[preemptible_sched] service_classes``).
    """
    flavor = spec_obj.flavor
    service_class = extra_specs.service_class(flavor)
    uuid = (spec_obj.instance_uuid
            if spec_obj.obj_attr_is_set('instance_uuid') else None)
    zone = (spec_obj.availability_zone
            if spec_obj.obj_attr_is_set('availability_zone') else None)
    return objects.RequestSpec(
        id=uuid or 'request',
        resources=request_resources(spec_obj),
        preemptible=extra_specs.is_preemptible(flavor),
        num_instances=(spec_obj.num_instances
                       if spec_obj.obj_attr_is_set('num_instances') else 1),
        flavor=flavor.name,
        availability_zone=zone,
        service_class=service_class,
        priority=classes.get(service_class, 0.0))


def _aggregates(host_state):
    return tuple(objects.Aggregate(aggregate.name or str(aggregate.id),
                                   dict(aggregate.metadata or {}))
                 for aggregate in host_state.aggregates or ())


def _ratio(value):
    return 1.0 if value is None else float(value)


def from_nova_usage(host_state, planner):
    """A core host with the usage figures of a Nova ``HostState``.

    Nova's host state knows how much is used, not by whom: the usage is one
    normal instance, so both views are the full one and nothing on the host
    is a candidate for termination.
    """
    host = objects.Host(
        name=host_state.nodename,
        vcpus=float(host_state.vcpus_total or 0),
        memory_mb=float(host_state.total_usable_ram_mb or 0),
        disk_gb=float(host_state.total_usable_disk_gb or 0),
        aggregates=_aggregates(host_state),
        cpu_allocation_ratio=_ratio(host_state.cpu_allocation_ratio),
        ram_allocation_ratio=_ratio(host_state.ram_allocation_ratio),
        disk_allocation_ratio=_ratio(host_state.disk_allocation_ratio),
        reserved_vcpus=0.0, reserved_memory_mb=0.0, reserved_disk_gb=0.0)
    state = core_host_state.HostState(host, planner=planner)
    used = objects.Resources(
        float(host_state.vcpus_used or 0),
        float((host_state.total_usable_ram_mb or 0) -
              (host_state.free_ram_mb or 0)),
        float(host_state.disk_mb_used or 0) / 1024.0)
    state.consume(objects.Instance(USAGE_ID, used))
    # Nova's count, not the stand-in's.
    state.full.num_instances = state.normal.num_instances = int(
        host_state.num_instances or 0)
    return state


def _inventory_fields(inventories, resource_class):
    record = inventories.get(resource_class) or {}
    return (float(record.get('total', 0)), float(record.get('reserved', 0)),
            float(record.get('allocation_ratio', 1.0)))


def from_placement(host_state, inventories, allocations, servers, classes,
                   planner):
    """The core host of a compute node, as Placement accounts for it.

    ``inventories`` is ``{resource class: inventory record}`` and
    ``allocations`` ``{consumer uuid: {resource class: amount}}`` of the
    node's resource provider; ``servers`` maps consumer uuids to Nova
    ``Instance`` objects (with their flavor). A consumer is a candidate for
    termination only if it is a server of a preemptible flavor with no task
    under way; anything else (a normal server, a migration, a server being
    built or deleted) is normal usage that nothing may take away.
    """
    vcpus = _inventory_fields(inventories, VCPU)
    memory = _inventory_fields(inventories, MEMORY_MB)
    disk = _inventory_fields(inventories, DISK_GB)
    host = objects.Host(
        name=host_state.nodename,
        vcpus=vcpus[0], reserved_vcpus=vcpus[1], cpu_allocation_ratio=vcpus[2],
        memory_mb=memory[0], reserved_memory_mb=memory[1],
        ram_allocation_ratio=memory[2],
        disk_gb=disk[0], reserved_disk_gb=disk[1],
        disk_allocation_ratio=disk[2],
        aggregates=_aggregates(host_state))
    state = core_host_state.HostState(host, planner=planner)
    present = planner.now
    for consumer in sorted(allocations):
        server = servers.get(consumer)
        state.consume(_instance(consumer, allocations[consumer], server,
                                classes, present))
    return state


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


def server_instance(server, classes, present):
    """The core instance of a server, sized by its flavor."""
    amounts = scheduler_utils.resources_from_flavor_and_bfv(server.flavor,
                                                            False)
    return _instance(server.uuid, amounts, server, classes, present)


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


def from_summary(host_state, summary, servers, classes, planner):
    """The core host of a compute node from its provider summary (one-pass
    mode).

    ``summary`` is the node's entry of ``provider_summaries`` in the
    allocation candidates response: its standard classes give the capacity
    and the normal servers' usage, the preemptible classes the rest of the
    full view. ``servers`` is None, or the node's servers (``{uuid: Nova
    Instance}``, with their flavors) when victims may have to be chosen
    there: each preemptible one with no task under way becomes a candidate
    victim. Preemptible usage no such server explains (a server being
    built or moved, a server not read) is held: it counts in the full view
    and is never a victim.
    """
    capacity, normal, full = resource_classes.views(summary)
    host = objects.Host(
        name=host_state.nodename,
        vcpus=float(capacity[VCPU]), memory_mb=float(capacity[MEMORY_MB]),
        disk_gb=float(capacity[DISK_GB]),
        reserved_vcpus=0.0, reserved_memory_mb=0.0, reserved_disk_gb=0.0,
        cpu_allocation_ratio=1.0, ram_allocation_ratio=1.0,
        disk_allocation_ratio=1.0, aggregates=_aggregates(host_state))
    state = core_host_state.HostState(host, planner=planner)
    present = planner.now
    state.consume(objects.Instance(NORMAL_USAGE_ID, resources(normal),
                                   started_at=present))
    held = {rc: full[rc] - normal[rc] for rc in resource_classes.STANDARD}
    for uuid in sorted(servers or ()):
        server = servers[uuid]
        if not extra_specs.is_preemptible(server.flavor):
            continue
        amounts = scheduler_utils.resources_from_flavor_and_bfv(
            server.flavor, False)
        if not resource_classes.uses_custom(amounts):
            continue    # a preemptible flavor left on the standard classes
        instance = _instance(uuid, amounts, server, classes, present)
        if not instance.preemptible:
            continue
        used = resource_classes.standard_amounts(amounts)
        if any(used[rc] > held[rc] + 1e-9 for rc in held):
            continue    # Placement does not count it (yet) on this node
        for rc in held:
            held[rc] -= used[rc]
        state.consume(instance)
    if any(amount > 1e-9 for amount in held.values()):
        # Counted in the full view only, never a victim: consumed as
        # preemptible (out of the normal view) and marked as already
        # being terminated (out of the candidates).
        state.consume(objects.Instance(HELD_USAGE_ID, resources(held),
                                       preemptible=True, started_at=present))
        state.mark_terminating(HELD_USAGE_ID, None)
    return state


def state_of(host_state, planner):
    """The core host of a Nova ``HostState`` (attached, or built)."""
    state = getattr(host_state, STATE_ATTR, None)
    if state is None:
        state = from_nova_usage(host_state, planner)
    return state


def view_of(host_state, planner):
    """The core view Nova's filters see: normal when the manager says so."""
    state = state_of(host_state, planner)
    return state.view(getattr(host_state, NORMAL_ATTR, False))


def view_copy(host_state, state, normal, without=None):
    """A copy of a Nova ``HostState`` showing one view of ``state``.

    The original is left untouched; see :func:`show`.
    """
    shown = copy.copy(host_state)
    show(shown, state, normal, without)
    return shown


def show(shown, state, normal, without=None):
    """Make a Nova ``HostState`` (a copy) show one view of ``state``.

    Nova's filters and weighers read the usage fields (free RAM, vCPUs
    used, free disk, instance count, the instances); ``shown`` gets those
    of the full or the normal view (or of the full view without the
    instances ``without``, for the class-based strategies), and the core
    host for the wrapped core plugins.
    """
    if without is not None:
        view = state.view_without(without)
        hidden = {instance.id for instance in without}
    else:
        view = state.view(normal)
        hidden = state.preemptible_instances if normal else ()
    host = state.host
    shown.vcpus_total = host.vcpus
    shown.vcpus_used = view.vcpus_used
    shown.total_usable_ram_mb = host.memory_mb
    shown.free_ram_mb = (host.memory_mb - (host.reserved_memory_mb or 0) -
                         view.memory_mb_used)
    shown.total_usable_disk_gb = host.disk_gb
    shown.disk_mb_used = view.disk_gb_used * 1024
    shown.free_disk_mb = (host.disk_gb - (host.reserved_disk_gb or 0) -
                          view.disk_gb_used) * 1024
    shown.num_instances = view.num_instances
    instances = getattr(shown, 'instances', None) or {}
    shown.instances = {uuid: server for uuid, server in instances.items()
                       if uuid not in hidden}
    setattr(shown, STATE_ATTR, state)
    setattr(shown, NORMAL_ATTR, normal)
