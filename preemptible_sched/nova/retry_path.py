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

"""The retry path: the engine decides on every compute node Placement and
the cell databases show.

Nova's pass goes first, untouched; when it ends in NoValidHost for a
request that may displace (in the retry mode, or in the one-pass mode a
request Placement finds no room for, preemptible servers left on the
standard classes), every candidate host is read from Placement and the
cell databases, the engine decides on them and the decision is carried out
(:func:`decide`), made again from fresh reads when a node changed.
"""

import collections
import dataclasses

from nova import context as nova_context
from nova.i18n import _
from nova import objects as nova_objects
from nova.scheduler import utils as scheduler_utils
from oslo_log import log as logging

from preemptible_sched.nova import commit
from preemptible_sched.nova import config
from preemptible_sched.nova import host_states
from preemptible_sched.nova import placement

CONF = config.CONF

#: The manager's logger: the scheduler logs its decisions under
#: ``preemptible_sched.nova.manager`` (doc/source/nova.rst, "Logs").
LOG = logging.getLogger('preemptible_sched.nova.manager')


def decide(manager, context, spec_obj, instance_uuids, return_alternates):
    """Decide on every host the request may land on, read from
    Placement and the cell databases; claim and commit.
    """
    elevated = context.elevated()
    resources = scheduler_utils.resources_from_request_spec(
        elevated, spec_obj, manager.host_manager,
        enable_pinning_translate=True)
    wanted = {rc: amount for rc, amount
              in resources.merged_resources().items() if amount}
    unaccounted = set(wanted) - set(host_states.RESOURCE_CLASSES)
    if resources.get_num_of_suffixed_groups() or unaccounted:
        LOG.info('Not preempting for %s: it asks Placement for %s, '
                 'beyond the vCPUs, RAM and disk of a compute node.',
                 instance_uuids, sorted(unaccounted) or 'granular groups')
        raise commit.no_valid_host()
    request = dataclasses.replace(
        manager._request(spec_obj, instance_uuids),
        resources=host_states.resources(wanted))
    for _attempt in range(commit.ATTEMPTS):
        try:
            work = _read_candidates(manager, elevated, spec_obj, resources,
                                    wanted, instance_uuids, request)
        except placement.ReadFailed as error:
            LOG.warning('Not preempting for %s: %s', instance_uuids,
                        error)
            raise commit.no_valid_host()
        try:
            commit.carry_out(manager, context, spec_obj, instance_uuids,
                             work)
        except commit.Stale as error:
            LOG.info('Deciding again for %s: %s', instance_uuids, error)
            continue
        return _selections(manager, context, resources, work,
                           return_alternates)
    raise commit.no_valid_host(_('The hosts chosen changed while the '
                                 'decision was made.'))


def _read_candidates(manager, context, spec_obj, resources, wanted,
                     instance_uuids, request):
    """The engine's decision on every compute node the request may
    land on, as a :class:`.commit.Commit`.
    """
    providers = manager.reader.providers(context, resources)
    call = manager._call(spec_obj, instance_uuids, manager.strategy)
    now = host_states.now()
    leaving = commit.leaving_victims(manager.journal, now)
    servers = {}
    for host in manager.host_manager.get_host_states_by_uuids(
            context, sorted(providers), spec_obj):
        if host.uuid not in providers:
            continue
        inventories = manager.reader.inventories(context, host.uuid)
        if not _can_ever_fit(inventories, wanted):
            continue
        allocations = manager.reader.allocations(context, host.uuid)
        on_host = _servers(manager, context, host.cell_uuid,
                           sorted(allocations))
        servers.update(on_host)
        call.add(host_states.add_from_placement(
            call.hosts, host, inventories, allocations, on_host,
            manager._classes(), now, leaving), host)
    decision = manager._decide(call, request, now, instance_uuids)
    claims = {selection.instance.id: {
        call.nova_host(selection).uuid: {'resources': dict(wanted)}}
        for selection in decision.selections}
    return commit.Commit(call, decision, claims, servers)


def _servers(manager, context, cell_uuid, uuids):
    cell = manager.host_manager.cells.get(cell_uuid)
    if cell is None or not uuids:
        return {}
    with nova_context.target_cell(context, cell) as cell_context:
        servers = nova_objects.InstanceList.get_by_filters(
            cell_context, {'uuid': uuids},
            expected_attrs=['flavor', 'metadata', 'system_metadata'])
    return {server.uuid: server for server in servers}


def _selections(manager, context, resources, work, return_alternates):
    """Nova's selections: each instance's claimed host, then in the
    retry mode alternates (other hosts of its cell, as ranked, that
    Placement offers now). In the one-pass mode there are none: the
    conductor would claim an alternate in Placement, which does not
    check the full view.
    """
    call = work.call
    by_provider = collections.defaultdict(list)
    version = placement.SWAP_VERSION
    num_alts = CONF.scheduler.max_attempts - 1 if return_alternates else 0
    if CONF.preemptible_sched.mode == 'one_pass':
        num_alts = 0
    if num_alts:
        found = manager.placement_client.get_allocation_candidates(
            context, resources) or (None, None, None)
        alloc_reqs, _summaries, version = found
        for alloc_req in alloc_reqs or ():
            for provider in alloc_req['allocations']:
                by_provider[provider].append(alloc_req)
    chosen = {call.nova_host(selection).uuid
              for selection in work.decision.selections}
    selections = []
    for selection in work.decision.selections:
        host = call.nova_host(selection)
        claimed = {'allocations': work.claims[selection.instance.id],
                   'mappings': {'': [host.uuid]}}
        selected = [nova_objects.Selection.from_host_state(
            host, allocation_request=claimed,
            allocation_request_version=version)]
        for other in call.ranked:
            if len(selected) > num_alts:
                break
            if (other.uuid in chosen or
                    other.cell_uuid != host.cell_uuid or
                    not by_provider.get(other.uuid)):
                continue
            selected.append(nova_objects.Selection.from_host_state(
                other, by_provider[other.uuid][0], version))
        selections.append(selected)
    return selections


def _can_ever_fit(inventories, wanted):
    """Whether the node has an inventory of every wanted class, large enough
    per unit (``max_unit``) for the request.
    """
    for resource_class, amount in wanted.items():
        record = inventories.get(resource_class)
        if record is None or amount > record.get('max_unit', amount):
            return False
    return True
