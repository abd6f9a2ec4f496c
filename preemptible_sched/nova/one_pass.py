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

"""The one-pass mode: the engine decides on Placement's allocation
candidates.

Preemptible flavors consume the ``CUSTOM_PREEMPTIBLE_*`` classes, so the
allocation candidates are the hosts where a normal request fits the normal
view, and their provider summaries carry both views. The manager's
``_schedule`` (called by Nova's own ``select_destinations``) hands them to
:func:`schedule`: a node where the request fits the full view as it is is
tried first, without the cloud-wide lock; victims are chosen on the others
(their servers read) only under it.
"""

import collections
import copy

from nova import context as nova_context
from nova import exception
from nova import objects as nova_objects

from preemptible_sched.nova import commit
from preemptible_sched.nova import config
from preemptible_sched.nova import eligibility
from preemptible_sched.nova import host_states
from preemptible_sched.nova import resource_classes

CONF = config.CONF


def schedule(manager, context, spec_obj, instance_uuids,
             alloc_reqs_by_rp_uuid, provider_summaries,
             allocation_request_version=None):
    """The engine's decision on the allocation candidates of the instances
    (Nova's ``_schedule`` in the one-pass mode), carried out: one Nova
    selection (no alternates) per instance.
    """
    elevated = context.elevated()
    request = manager._request(spec_obj, instance_uuids)
    hosts = list(manager._get_all_host_states(elevated, spec_obj,
                                              provider_summaries))
    for host in hosts:
        host.allocation_candidates = copy.deepcopy(
            alloc_reqs_by_rp_uuid[host.uuid])
    summaries = {host.uuid: provider_summaries.get(host.uuid, {})
                 for host in hosts}
    short = [host for host in hosts if not _fits_full(
        summaries[host.uuid], request.resources, len(instance_uuids))]
    displacing = bool(short) and eligibility.may_displace(
        manager, context, spec_obj, instance_uuids)
    # Where a node may take the request as it is (and such a node goes
    # first), try that without the cloud-wide lock: no victim can be
    # chosen without the servers read.
    first_as_is = (len(short) < len(hosts) and CONF.preemptible_sched.
                   terminate_only_when_needed)
    try:
        if not displacing or first_as_is:
            decision, work = decide(
                manager, elevated, spec_obj, instance_uuids, request, hosts,
                summaries, ())
            commit.carry_out(manager, context, spec_obj, instance_uuids,
                             work)
            displacing = False
    except exception.NoValidHost:
        if not displacing:
            raise
    if displacing:
        with manager._serialised():
            decision, work = decide(
                manager, elevated, spec_obj, instance_uuids, request, hosts,
                summaries, short)
            commit.carry_out(manager, context, spec_obj, instance_uuids,
                             work)
    chosen = [work.call.nova_host(selection)
              for selection in decision.selections]
    return [[nova_objects.Selection.from_host_state(
        host, allocation_request=host.allocation_candidates[0],
        allocation_request_version=allocation_request_version)]
        for host in chosen]


def decide(manager, context, spec_obj, instance_uuids, request, hosts,
           summaries, short):
    """The engine's decision on the allocation candidates ``hosts``;
    victims may be chosen on the ``short`` ones (their servers are
    read), under the configured strategy; with none, nothing is
    displaced.
    """
    strategy, leaving, servers = manager.fit_only, {}, {}
    now = host_states.now()
    if short:
        strategy = manager.strategy
        leaving = commit.leaving_victims(manager.journal, now)
        servers = _servers_on(manager, context, short)
    call = manager._call(spec_obj, instance_uuids, strategy)
    by_host = collections.defaultdict(dict)
    for server in servers.values():
        by_host[(server.host, server.node)][server.uuid] = server
    for host in hosts:
        on_host = (by_host.get((host.host, host.nodename), {})
                   if host in short else None)
        call.add(host_states.add_from_summary(
            call.hosts, host, summaries[host.uuid], on_host,
            manager._classes(), now, leaving), host)
    decision = manager._decide(call, request, now, instance_uuids)
    claims = {selection.instance.id: call.nova_host(selection)
              .allocation_candidates[0]['allocations']
              for selection in decision.selections}
    return decision, commit.Commit(call, decision, claims, servers)


def _servers_on(manager, context, hosts):
    """``{uuid: Nova Instance}`` of the servers on ``hosts`` (one
    query per cell).
    """
    by_cell = collections.defaultdict(set)
    for host in hosts:
        by_cell[host.cell_uuid].add(host.host)
    found = {}
    for cell_uuid, names in by_cell.items():
        cell = manager.host_manager.cells.get(cell_uuid)
        if cell is None:
            continue
        with nova_context.target_cell(context, cell) as cell_context:
            for server in nova_objects.InstanceList.get_by_filters(
                    cell_context,
                    {'host': sorted(names), 'deleted': False},
                    expected_attrs=['flavor', 'metadata',
                                    'system_metadata']):
                found[server.uuid] = server
    return found


def _fits_full(summary, resources, count):
    """Whether ``count`` instances of ``resources`` fit the full view of a
    provider summary.
    """
    capacity, _normal, full = resource_classes.views(summary)
    needed = dict(zip(resource_classes.STANDARD, resources))
    return all(full[rc] + count * needed[rc] <= capacity[rc] + 1e-9
               for rc in resource_classes.STANDARD)
