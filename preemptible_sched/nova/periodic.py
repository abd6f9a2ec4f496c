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

"""The manager's periodic tasks (their bodies; the manager declares them).

* :func:`requeue_displaced` (every ``requeue_interval`` s): offloads
  shelved victims and unshelves requeued ones, most urgent first, while
  Placement has room for them;
* :func:`housekeeping` (every ``housekeeping_interval`` s): terminates
  preemptible servers past ``max_lifetime``, then the cheapest ones while
  less than ``watermark`` of the cloud is free (rules in
  :mod:`.housekeeping`).
"""

from nova import context as nova_context
from nova import objects as nova_objects
from nova.scheduler import utils as scheduler_utils
from oslo_log import log as logging
from oslo_utils import timeutils
from oslo_utils import uuidutils

from preemptible_sched.conf import nova as nova_opts
from preemptible_sched.nova import commit
from preemptible_sched.nova import config
from preemptible_sched.nova import extra_specs
from preemptible_sched.nova import host_states
from preemptible_sched.nova import housekeeping as rules
from preemptible_sched.nova import journal
from preemptible_sched.nova import journal_records
from preemptible_sched.nova import placement
from preemptible_sched.nova import resource_classes
from preemptible_sched.nova import victims
from preemptible_sched import objects
from preemptible_sched.service_classes import qos

CONF = config.CONF
LOG = logging.getLogger(__name__)

#: Notification of what the housekeeping terminates, and why.
HOUSEKEEPING_EVENT = 'preemptible_sched.housekeeping'
#: Notification each victim's owner gets before the deletion.
NOTICE_EVENT = 'instance.termination_notice'


def requeue_displaced(manager, context):
    """Offload shelved victims, and unshelve requeued ones, most urgent
    first, while Placement has room for them (as Nova's service user:
    unshelving fetches the snapshot from Glance).
    """
    context = victims.service_context()
    marked = []
    for cell in manager.host_manager.cells.values():
        with nova_context.target_cell(context, cell) as cell_context:
            marked.extend(nova_objects.InstanceList.get_by_filters(
                cell_context,
                {'system_metadata': {host_states.REQUEUED: 'true'},
                 'deleted': False},
                expected_attrs=['flavor', 'metadata', 'system_metadata']))
    waiting = []
    for server in marked:
        if server.task_state is not None:
            continue        # shelving, offloading or unshelving
        if server.vm_state == 'shelved':
            manager.compute_api.shelve_offload(context, server)
        elif server.vm_state == 'shelved_offloaded':
            waiting.append(server)
        else:               # back (or stopped by its owner): done
            del server.system_metadata[host_states.REQUEUED]
            server.save()
    for server in _requeue_order(manager.strategy, waiting):
        if not _has_room(manager, context, server):
            continue
        LOG.info('Unshelving requeued server %s: there is room.',
                 server.uuid)
        manager.compute_api.unshelve(context, server)


def _requeue_order(strategy, servers):
    """``servers`` in the order the strategy's queue would take them:
    QoS slack, else priority then admission, else admission.
    """
    now = host_states.now()
    classes = nova_opts.service_class_priorities(CONF)
    entries = []
    for server in servers:
        admitted, _, running_s, overhead_s = host_states.account(
            server, now)
        service_class = extra_specs.service_class(server.flavor)
        spec = objects.RequestSpec(
            id=server.uuid, resources=objects.Resources(0, 0, 0),
            service_class=service_class,
            priority=classes.get(service_class, 0.0))
        entries.append((objects.PendingRequest(
            spec, submitted_at=admitted, sequence=0, running_s=running_s,
            overhead_s=overhead_s), server))

    def by_slack(item):
        account = qos.request_account(item[0], strategy.classes, now)
        return account.slack_key(), item[0].id

    def by_priority(item):
        return -item[0].spec.priority, item[0].submitted_at, item[0].id

    qos_order = strategy.name == 'qos'
    return [server for _, server in sorted(
        entries, key=by_slack if qos_order else by_priority)]


def _has_room(manager, context, server):
    """Whether Placement offers any host for ``server``'s flavor."""
    spec = nova_objects.RequestSpec.get_by_instance_uuid(
        context, server.uuid)
    resources = scheduler_utils.resources_from_request_spec(
        context, spec, manager.host_manager, enable_pinning_translate=True)
    found = manager.placement_client.get_allocation_candidates(
        context, resources)
    return bool(found and found[0])


def housekeeping(manager, context):
    """Terminate preemptible servers past ``max_lifetime``, then
    enough of the cheapest to keep ``watermark`` of the cloud free.
    """
    settings = CONF.preemptible_sched
    if not settings.max_lifetime and not settings.watermark:
        return
    with manager._decision_lock():
        now = host_states.now()
        servers = _preemptible_servers(manager, context)
        classes = nova_opts.service_class_priorities(CONF)
        instances = [host_states.server_instance(server, classes, now)
                     for server in servers.values()]
        instances = [instance for instance in instances
                     if instance.preemptible]
        victims = [(instance, 'max_lifetime') for instance in
                   rules.expired(instances, now, settings.max_lifetime)]
        if settings.watermark:
            victims += _over_watermark(manager, context, instances,
                                       victims, now)
        if not victims:
            return
        manager._notify(context, HOUSEKEEPING_EVENT, {
            'terminate': [{'instance_id': instance.id, 'reason': reason}
                          for instance, reason in victims]})
        for reason in ('max_lifetime', 'watermark'):
            chosen = [instance for instance, why in victims if why == reason]
            if chosen:
                _terminate(manager, context, servers, chosen, reason, now)


def _terminate(manager, context, servers, victims, reason, now):
    """Journal one decision for ``victims``, notify each, delete them."""
    decision = journal_records.Decision(
        uuidutils.generate_uuid(), CONF.host, reason, [], now, now,
        [journal_records.Victim(instance.id, servers[instance.id].host,
                                'delete')
         for instance in victims])
    try:
        manager.journal.record(decision)
    except journal.VictimTaken as error:
        LOG.info('Not terminating for %s now: %s', reason, error)
        return
    manager.journal.move(decision.id, 'acting')
    for instance in victims:
        server = servers[instance.id]
        LOG.info('Terminating preemptible server %s (%s).', instance.id,
                 reason)
        manager._notify(context, NOTICE_EVENT, {
            'instance_id': instance.id,
            'project_id': server.project_id, 'host': server.host,
            'grace_seconds': 0.0, 'reason': reason,
            'terminate_at': timeutils.utcnow().isoformat()})
    manager.terminator.act(decision, now)


def _over_watermark(manager, context, instances, expiring, now):
    """The cheapest servers to terminate to restore the watermark.

    The victims of earlier decisions still leaving (or deleted within
    ``commit.RECENTLY_DELETED``) count as gone, their allocations too: Nova
    may show such a server deleted while Placement still holds its room,
    and a run in between must not terminate another server for it.
    """
    capacity = dict.fromkeys(resource_classes.STANDARD, 0.0)
    used = dict.fromkeys(resource_classes.STANDARD, 0.0)
    leaving = set(commit.leaving_victims(manager.journal, now))
    try:
        for provider in manager.reader.compute_nodes(context):
            inventories = manager.reader.inventories(context, provider)
            for standard in resource_classes.STANDARD:
                record = inventories.get(standard)
                if record:
                    capacity[standard] += (
                        (record['total'] - record.get('reserved', 0)) *
                        record.get('allocation_ratio', 1.0))
            for consumer, amounts in manager.reader.allocations(
                    context, provider).items():
                if consumer in leaving:
                    continue
                found = resource_classes.standard_amounts(amounts)
                for standard in resource_classes.STANDARD:
                    used[standard] += found[standard]
    except placement.ReadFailed as error:
        LOG.warning('Watermark not checked: %s', error)
        return []
    gone = leaving | {instance.id for instance, _reason in expiring}
    for instance, _reason in expiring:
        if instance.id in leaving:
            continue        # its allocation is left out already
        used[resource_classes.VCPU] -= instance.resources.vcpus
        used[resource_classes.MEMORY_MB] -= instance.resources.memory_mb
    short = rules.shortfall(capacity, used, CONF.preemptible_sched.watermark)
    if not short:
        return []
    costs = manager.costs
    found, left = rules.headroom_victims(
        short, [instance for instance in instances
                if instance.id not in gone and
                instance.running_since is not None],
        lambda instance: costs.cost(instance, None, now))
    if left:
        LOG.warning('Terminating every preemptible server cannot keep '
                    '%s of the cloud free: %s still short.',
                    CONF.preemptible_sched.watermark, left)
    return [(instance, 'watermark') for instance in found]


def _preemptible_servers(manager, context):
    """``{uuid: server}``: active servers of preemptible flavors."""
    flavors = [flavor.id for flavor
               in nova_objects.FlavorList.get_all(context)
               if extra_specs.is_preemptible(flavor)]
    found = {}
    if not flavors:
        return found
    for cell in manager.host_manager.cells.values():
        with nova_context.target_cell(context, cell) as cell_context:
            for server in nova_objects.InstanceList.get_by_filters(
                    cell_context,
                    {'instance_type_id': flavors, 'deleted': False,
                     'vm_state': 'active'},
                    expected_attrs=['flavor', 'metadata',
                                    'system_metadata']):
                found[server.uuid] = server
    return found
