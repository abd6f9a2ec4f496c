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

"""The core view a Nova ``HostState`` shows to Nova's filters and weighers.

The manager decides on core hosts (:mod:`.host_states`), each with two
views; Nova's filters and weighers read Nova ``HostState`` objects:

* :func:`show` makes the copy of a Nova ``HostState`` that shows one core
  view to Nova's filters and weighers;
* :func:`view_of` gives the core view of any Nova ``HostState``: the one
  :func:`show` attached, or one built from Nova's own usage figures (a
  core plugin listed in ``nova.conf`` and run on Nova's stock pass).
"""

import copy

from nova import objects as nova_objects

from preemptible_sched.hosts import state as core_host_state
from preemptible_sched.nova import host_states
from preemptible_sched import objects

#: Attributes of a Nova HostState copy: the core view it shows, and the
#: time of the decision it is shown for.
VIEW_ATTR = 'preemptible_sched_view'
NOW_ATTR = 'preemptible_sched_now'


def _ratio(value):
    return 1.0 if value is None else float(value)


def from_nova_usage(host_state):
    """A core host (alone) with the usage figures of a Nova ``HostState``.

    Nova's host state knows how much is used, not by whom: the usage is one
    normal instance, so both views are the full one and nothing on the host
    is a candidate for termination.
    """
    host = host_states.core_host(
        host_state, name=host_state.nodename,
        vcpus=float(host_state.vcpus_total or 0),
        memory_mb=float(host_state.total_usable_ram_mb or 0),
        disk_gb=float(host_state.total_usable_disk_gb or 0),
        cpu_allocation_ratio=_ratio(host_state.cpu_allocation_ratio),
        ram_allocation_ratio=_ratio(host_state.ram_allocation_ratio),
        disk_allocation_ratio=_ratio(host_state.disk_allocation_ratio),
        reserved_vcpus=0.0, reserved_memory_mb=0.0, reserved_disk_gb=0.0)
    state = core_host_state.HostState(host, planner=_NoVictims())
    used = objects.Resources(
        float(host_state.vcpus_used or 0),
        float((host_state.total_usable_ram_mb or 0) -
              (host_state.free_ram_mb or 0)),
        float(host_state.disk_mb_used or 0) / 1024.0)
    state.consume(objects.Instance('nova-usage', used))
    # Nova's count, not the stand-in's.
    state.full.num_instances = state.normal.num_instances = int(
        host_state.num_instances or 0)
    return state


class _NoVictims:
    """The planner of a host known by its usage figures only: nothing on
    it may be displaced.
    """

    @staticmethod
    def plan(state, resources, now, cost=None):
        return None


def view_of(host_state):
    """The core view a Nova ``HostState`` shows: the one :func:`show`
    attached, else the full view of its usage figures.
    """
    view = getattr(host_state, VIEW_ATTR, None)
    if view is None:
        view = from_nova_usage(host_state).full
    return view


def show(host_state, view, hidden=(), added=(), present=None):
    """A copy of a Nova ``HostState`` showing the core ``view`` of it.

    Nova's filters and weighers read the usage fields (free RAM, vCPUs
    used, free disk, instance count, the instances); the copy gets those of
    ``view``, its instances without ``hidden`` (uuids the view leaves out)
    and with ``added`` (uuids of the request placed there in this call),
    and the view itself and the time of the decision (``present``) for the
    core weighers and filters. The original is left untouched.
    """
    shown = copy.copy(host_state)
    capacity = view.host.capacity
    used = view.used
    ratio = _ratio(host_state.cpu_allocation_ratio) or 1.0
    # Nova's CPU weigher multiplies vcpus_total by the ratio itself.
    shown.vcpus_total = capacity.vcpus / ratio
    shown.vcpus_used = used.vcpus
    shown.total_usable_ram_mb = capacity.memory_mb
    shown.free_ram_mb = capacity.memory_mb - used.memory_mb
    shown.total_usable_disk_gb = capacity.disk_gb
    shown.disk_mb_used = used.disk_gb * 1024
    shown.free_disk_mb = (capacity.disk_gb - used.disk_gb) * 1024
    shown.num_instances = view.num_instances
    instances = {uuid: server for uuid, server
                 in (host_state.instances or {}).items()
                 if uuid not in hidden}
    for uuid in added:
        # Nova's affinity filters look at the keys only (Nova's own pass
        # puts the same stub there).
        instances.setdefault(uuid, nova_objects.Instance(uuid=uuid))
    shown.instances = instances
    setattr(shown, VIEW_ATTR, view)
    setattr(shown, NOW_ATTR, present)
    return shown
