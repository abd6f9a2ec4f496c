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

"""The preemption-aware scheduler manager: Nova's, plus room made on demand.

:class:`PreemptibleSchedulerManager` is Nova's ``SchedulerManager`` with
room made for a request by displacing preemptible (or, under the ``qos``
and ``priority`` strategies, lower-class) servers, in one of two modes
(``[preemptible_sched] mode``):

``one_pass``
    preemptible flavors consume the ``CUSTOM_PREEMPTIBLE_*`` classes, so
    Placement answers on the normal view and the victims are chosen within
    Nova's own pass (:mod:`.one_pass`);
``retry``
    Nova's pass first; when it ends in NoValidHost for a request that may
    displace, every candidate host is read from Placement and the cell
    databases, filtered on the view without its displaceable servers,
    weighed on the full view, the victims chosen on the best host, and the
    request claimed with the victims' room in one atomic Placement write.

Either way a decision is made under the decision lock
(:mod:`.coordination`), journaled before anything is touched
(:mod:`.journal`), and its victims deleted or shelved by the terminator
(:mod:`.terminator`): at once, or by the periodic task ``_run_due`` once
their grace period ends. Nothing in ``select_destinations`` sleeps. At
start the manager finishes, or rolls back, what a scheduler that died
left. The periodic tasks' bodies (requeued servers, ``max_lifetime``,
``watermark``) are in :mod:`.periodic`.

A preemptible request never displaces anything, and neither does anything
but a new boot (rebuilds, moves and unshelves are of servers that already
live in a cell), nor a request for a named or forced host.
"""

import collections
import contextlib
import dataclasses
import datetime
import typing

from nova.compute import api as compute_api
from nova import context as nova_context
from nova import exception
from nova.i18n import _
from nova import objects as nova_objects
from nova import rpc
from nova.scheduler import manager as nova_manager
from nova.scheduler import utils as scheduler_utils
from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_serialization import jsonutils
from oslo_service import periodic_task
from oslo_utils import timeutils
from oslo_utils import uuidutils

from preemptible_sched.conf import nova as nova_opts
from preemptible_sched import host_state as core_host_state
from preemptible_sched.nova import config
from preemptible_sched.nova import coordination
from preemptible_sched.nova import extra_specs
from preemptible_sched.nova import host_states
from preemptible_sched.nova import journal
from preemptible_sched.nova import one_pass
from preemptible_sched.nova import periodic
from preemptible_sched.nova import placement
from preemptible_sched.nova import planner
from preemptible_sched.nova import strategies
from preemptible_sched.nova import terminator
from preemptible_sched import objects

CONF = config.CONF

LOG = logging.getLogger(__name__)

#: Notification of a decision, sent before anything is deleted.
DECISION_EVENT = 'preemptible_sched.preempt'
#: Notification each victim's owner gets before the deletion.
NOTICE_EVENT = 'instance.termination_notice'
#: Server metadata key set to the deletion time when there is a grace.
TERMINATE_AT_KEY = 'preemptible_sched:terminate_at'


@dataclasses.dataclass
class Candidate:
    """One compute node on the preemption path."""

    nova: typing.Any                # Nova HostState (as Nova keeps it)
    state: core_host_state.HostState
    servers: dict                   # consumer uuid -> Nova Instance


def _no_valid_host(reason=''):
    return exception.NoValidHost(reason=reason)


class PreemptibleSchedulerManager(one_pass.OnePassMixin,
                                  nova_manager.SchedulerManager):
    """Nova's scheduler manager that deletes preemptible servers to make
    room for normal ones.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.reader = placement.PlacementReader(self.placement_client)
        self.compute_api = compute_api.API()
        settings = CONF.preemptible_sched
        self.lock = coordination.DecisionLock(
            settings.coordination_url, settings.lock_timeout,
            CONF.oslo_concurrency.lock_path)
        self.journal = journal.Journal(settings.journal_connection)
        self.terminator = terminator.Terminator(self.journal,
                                                self._act_on_victim)

    def init_host(self, service_ref):
        """Finish, or roll back, what a scheduler that died left."""
        super().init_host(service_ref)
        context = nova_context.get_admin_context()
        with self._decision_lock():
            finished, rolled_back = self.terminator.recover(
                host_states.now(),
                lambda decision: self._claimed(context, decision))
        if finished or rolled_back:
            LOG.info('Recovered the journal: decisions %s finished, %s '
                     'rolled back.', finished, rolled_back)

    def _claimed(self, context, decision):
        """Whether the room of ``decision`` was claimed: one of its
        request's instances holds allocations.
        """
        return any(self.reader.holds(context, uuid)
                   for uuid in decision.request)

    def _notify(self, context, event_type, payload):
        """An unversioned notification from ``preemptible_sched.<host>``.

        Nova accepts no new unversioned notifications of its own (its
        notifier warns about any it does not know), so they are sent
        through its unversioned notifier directly: they go out when
        ``[notifications] notification_format`` is ``unversioned`` or
        ``both``.
        """
        notifier = rpc.LEGACY_NOTIFIER.prepare(
            publisher_id='preemptible_sched.%s' % CONF.host)
        notifier.info(context, event_type, payload)

    @messaging.expected_exceptions(exception.NoValidHost)
    def select_destinations(
        self, context, request_spec=None, filter_properties=None,
        spec_obj=nova_manager.SchedulerManager._sentinel,
        instance_uuids=None, return_objects=False, return_alternates=False,
    ):
        if spec_obj is self._sentinel:
            spec_obj = nova_objects.RequestSpec.from_primitives(
                context, request_spec, filter_properties)
        nova_args = dict(spec_obj=spec_obj, instance_uuids=instance_uuids,
                         return_objects=return_objects,
                         return_alternates=return_alternates)
        if self._one_pass(spec_obj, instance_uuids):
            try:
                with self._decision_lock():
                    return self._select_one_pass(context, spec_obj,
                                                 instance_uuids, nova_args)
            except exception.NoValidHost as failure:
                if not self._may_preempt(context, spec_obj, instance_uuids):
                    raise failure
                # Room held by preemptible flavors left on the standard
                # classes: the retry path may still find it.
                LOG.debug('No room on the normal view for %s; trying the '
                          'retry path.', instance_uuids)
        else:
            try:
                return super().select_destinations(context, **nova_args)
            except (exception.NoValidHost,
                    messaging.ExpectedException) as error:
                failure = getattr(error, 'exc_info', (None, error, None))[1]
                if not isinstance(failure, exception.NoValidHost):
                    raise
                if not self._may_preempt(context, spec_obj, instance_uuids):
                    raise failure
        with self._decision_lock():
            selections = self._preempt_and_select(
                context, spec_obj, instance_uuids,
                return_alternates and return_objects)
        if not return_objects:
            return jsonutils.to_primitive(
                [selection[0].to_dict() for selection in selections])
        return selections

    @contextlib.contextmanager
    def _decision_lock(self):
        """One decision at a time, across every scheduler host with
        ``coordination_url``.
        """
        try:
            with self.lock():
                yield
        except coordination.LockTimeout as error:
            LOG.warning('No decision: %s', error)
            raise _no_valid_host(_('The scheduler is busy.'))

    # -- the one-pass mode ---------------------------------------------------

    def _one_pass(self, spec_obj, instance_uuids):
        """Whether this request takes the one-pass path: in that mode,
        every request Placement answers (not a rebuild).
        """
        return (CONF.preemptible_sched.mode == 'one_pass' and
                not scheduler_utils.request_is_rebuild(spec_obj))

    def _select_one_pass(self, context, spec_obj, instance_uuids, nova_args):
        classes = nova_opts.service_class_priorities(CONF)
        request = host_states.core_request(spec_obj, classes)

        def may_displace():
            return (not request.preemptible and
                    self._may_preempt(context, spec_obj, instance_uuids))

        call = one_pass.Call(context.elevated(), request, may_displace,
                             classes, planner.planner())
        with one_pass.begin(call):
            selections = super().select_destinations(context, **nova_args)
        if any(choice.plan.victims for choice in call.choices):
            # Nova has claimed the room: journal, then act.
            decision = self._record(context, instance_uuids, call.choices,
                                    claimed=True)
            self._start(context, instance_uuids, decision, call.choices)
        return selections

    # -- which requests may preempt ------------------------------------

    def _may_preempt(self, context, spec_obj, instance_uuids):
        if not CONF.preemptible_sched.preempt or not instance_uuids:
            return False
        if (CONF.preemptible_sched.preemption_strategy == 'preemptible' and
                extra_specs.is_preemptible(spec_obj.flavor)):
            LOG.debug('Preemptible request %s: nothing is deleted for it.',
                      instance_uuids)
            return False
        if scheduler_utils.request_is_rebuild(spec_obj):
            return False
        if _names_a_host(spec_obj):
            return False
        return self._new_servers(context, instance_uuids)

    def _new_servers(self, context, instance_uuids):
        """Whether every instance is a new boot: its mapping names no cell
        yet (the conductor creates the server in a cell only after the
        scheduler has chosen). A move, an unshelve or a rebuild is of a
        server that already lives in a cell.
        """
        for uuid in instance_uuids:
            try:
                mapping = nova_objects.InstanceMapping.get_by_instance_uuid(
                    context, uuid)
            except exception.InstanceMappingNotFound:
                return False
            if mapping.cell_mapping is not None:
                LOG.debug('Instance %s already lives in a cell: not a new '
                          'boot, nothing is deleted for it.', uuid)
                return False
        return True

    # -- the decision ----------------------------------------------------

    def _preempt_and_select(self, context, spec_obj, instance_uuids,
                            return_alternates):
        elevated = context.elevated()
        resources = scheduler_utils.resources_from_request_spec(
            elevated, spec_obj, self.host_manager,
            enable_pinning_translate=True)
        wanted = {rc: amount for rc, amount
                  in resources.merged_resources().items() if amount}
        unaccounted = set(wanted) - set(host_states.RESOURCE_CLASSES)
        if resources.get_num_of_suffixed_groups() or unaccounted:
            LOG.info('Not preempting for %s: it asks Placement for %s, '
                     'beyond the vCPUs, RAM and disk of a compute node.',
                     instance_uuids, sorted(unaccounted) or 'granular groups')
            raise _no_valid_host()
        classes = nova_opts.service_class_priorities(CONF)
        request = dataclasses.replace(
            host_states.core_request(spec_obj, classes),
            resources=host_states.resources(wanted))
        try:
            candidates = self._candidates(elevated, spec_obj, resources,
                                          wanted, classes)
        except placement.ReadFailed as error:
            LOG.warning('Not preempting for %s: %s', instance_uuids, error)
            raise _no_valid_host()
        choices = []
        for index, uuid in enumerate(instance_uuids):
            spec_obj.instance_uuid = uuid
            spec_obj.obj_reset_changes(['instance_uuid'])
            found = self._choose(spec_obj, index, uuid, request, candidates)
            if found is None:
                LOG.info('No host can take instance %d of %d of request %s '
                         'even without its preemptible servers.', index + 1,
                         len(instance_uuids), instance_uuids)
                raise _no_valid_host(
                    _('No host has room, even without its preemptible '
                      'servers.'))
            candidate, choice = found
            state = candidate.state
            for victim in choice.plan.victims:
                state.release(victim.id)
            state.consume(objects.Instance(uuid, request.resources,
                                           started_at=state.planner.now))
            choices.append(choice)
        decision = self._record(context, instance_uuids, choices,
                                claimed=False)
        try:
            self._swap(elevated, spec_obj, wanted, choices)
        except exception.NoValidHost:
            self.journal.move(decision.id, 'rolled_back')
            raise
        self._start(context, instance_uuids, decision, choices)
        return self._selections(context, resources, wanted, choices,
                                return_alternates)

    def _candidates(self, context, spec_obj, resources, wanted, classes):
        """Every compute node the request may land on, as core hosts."""
        providers = self.reader.providers(context, resources)
        plan_maker = planner.planner()
        found = []
        for host in self.host_manager.get_host_states_by_uuids(
                context, sorted(providers), spec_obj):
            if host.uuid not in providers:
                continue
            inventories = self.reader.inventories(context, host.uuid)
            if not _can_ever_fit(inventories, wanted):
                continue
            allocations = self.reader.allocations(context, host.uuid)
            servers = self._servers(context, host.cell_uuid,
                                    sorted(allocations))
            state = host_states.from_placement(
                host, inventories, allocations, servers, classes, plan_maker)
            found.append(Candidate(host, state, servers))
        found.sort(key=lambda candidate: candidate.state.name)
        return found

    def _servers(self, context, cell_uuid, uuids):
        cell = self.host_manager.cells.get(cell_uuid)
        if cell is None or not uuids:
            return {}
        with nova_context.target_cell(context, cell) as cell_context:
            servers = nova_objects.InstanceList.get_by_filters(
                cell_context, {'uuid': uuids},
                expected_attrs=['flavor', 'metadata', 'system_metadata'])
        return {server.uuid: server for server in servers}

    def _choose(self, spec_obj, index, uuid, request, candidates):
        """The candidate and choice of one instance, or None."""
        strategy = strategies.load(CONF)
        if strategy is not None:
            return self._choose_by_class(spec_obj, index, uuid, request,
                                         candidates, strategy)
        by_node = {(c.nova.host, c.nova.nodename): c for c in candidates}
        fitting = [c for c in candidates
                   if c.state.normal.fits(request.resources)]
        shown = [host_states.view_copy(c.nova, c.state, normal=True)
                 for c in fitting]
        passed = self.host_manager.get_filtered_hosts(shown, spec_obj, index)
        full = []
        for host in passed:
            candidate = by_node[(host.host, host.nodename)]
            full.append(host_states.view_copy(candidate.nova, candidate.state,
                                              normal=False))
        if not full:
            return None
        weighed = self.host_manager.get_weighed_hosts(full, spec_obj)
        LOG.debug('Preemption path for %s: normal view fits %s; filters '
                  'pass %s; weighed %s', uuid,
                  [c.state.name for c in fitting],
                  [host.nodename for host in passed], weighed)
        ranked = self._order(weighed)
        for shown_host in ranked:
            candidate = by_node[(shown_host.host, shown_host.nodename)]
            state = candidate.state
            plan = state.termination_plan(request.resources,
                                          state.planner.now)
            if plan is not None:
                self._consume_selected_host(shown_host, spec_obj,
                                            instance_uuid=uuid)
                others = [by_node[(h.host, h.nodename)].nova for h in ranked
                          if h is not shown_host]
                return candidate, one_pass.Choice(
                    uuid, candidate.nova, plan,
                    {victim.id: candidate.servers[victim.id]
                     for victim in plan.victims}, others)
        return None

    def _choose_by_class(self, spec_obj, index, uuid, request, candidates,
                         strategy):
        """The candidate and choice of one instance under a class-based
        strategy, or None: each host is filtered without the servers the
        request may displace there; the smallest :meth:`score` of the
        victims wins, ties to the weighers on the full view.
        """
        now = host_states.now()
        entry = objects.PendingRequest(request, submitted_at=now, sequence=0)
        if not strategy.may_preempt(entry, now):
            return None
        options = {}
        shown = []
        for candidate in candidates:
            state = candidate.state
            displaceable = strategy.displaceable(state, entry, now)
            if not state.view_without(displaceable).fits(request.resources):
                continue
            options[(candidate.nova.host, candidate.nova.nodename)] = (
                candidate, displaceable)
            shown.append(host_states.view_copy(candidate.nova, state, False,
                                               without=displaceable))
        passed = self.host_manager.get_filtered_hosts(shown, spec_obj, index)
        if not passed:
            return None
        plans = {}
        full = []
        for host in passed:
            candidate, displaceable = options[(host.host, host.nodename)]
            plan = strategy.plan(candidate.state, entry, displaceable, now)
            if plan is None:
                continue
            plans[host.nodename] = plan
            full.append(host_states.view_copy(candidate.nova, candidate.state,
                                              normal=False))
        if not full:
            return None
        weighed = self.host_manager.get_weighed_hosts(full, spec_obj)
        ranked = sorted(
            enumerate(weighed), key=lambda item: (
                strategy.score(plans[item[1].obj.nodename], entry, now),
                item[0]))
        ranked = [item.obj for _, item in ranked]
        first = ranked[0]
        candidate, _ = options[(first.host, first.nodename)]
        plan = plans[first.nodename]
        LOG.debug('%s strategy for %s: ranked %s; victims on %s: %s',
                  strategy.name, uuid, [h.nodename for h in ranked],
                  first.nodename, plan.victim_ids)
        self._consume_selected_host(first, spec_obj, instance_uuid=uuid)
        others = [options[(h.host, h.nodename)][0].nova for h in ranked[1:]]
        return candidate, one_pass.Choice(
            uuid, candidate.nova, plan,
            {victim.id: candidate.servers[victim.id]
             for victim in plan.victims}, others)

    def _record(self, context, instance_uuids, choices, claimed):
        """Journal the decision (``decided``) before anything is touched,
        then announce it.

        Raises NoValidHost, giving the room up if it was ``claimed``
        already, when another open decision names one of its victims.
        """
        now = host_states.now()
        grace = CONF.preemptible_sched.termination_grace_seconds
        action = ('shelve' if strategies.on_victim(CONF) == 'requeue'
                  else 'delete')
        decision = journal.Decision(
            uuidutils.generate_uuid(), CONF.host, 'preempt',
            list(instance_uuids), now, now + grace,
            [journal.Victim(victim.id, choice.host.host, action)
             for choice in choices for victim in choice.plan.victims])
        try:
            self.journal.record(decision)
        except journal.VictimTaken as error:
            self._give_up(context, instance_uuids, error, claimed)
            raise _no_valid_host(_('The servers chosen to make room are '
                                   'taken by another decision.'))
        self._announce(context, instance_uuids, choices)
        return decision

    def _start(self, context, instance_uuids, decision, choices):
        """The room is claimed: the decision acts, at once or when its
        grace period ends.
        """
        try:
            self.journal.move(decision.id, 'acting')
        except journal.JournalError as error:
            # Rolled back by another scheduler's recovery (possible only
            # without a shared lock): give the room up.
            self._give_up(context, instance_uuids, error, claimed=True)
            raise _no_valid_host(_('The decision was rolled back.'))
        self._notice_and_act(context.elevated(), decision, choices)

    def _give_up(self, context, instance_uuids, error, claimed):
        LOG.warning('Giving up %s: %s', instance_uuids, error)
        if claimed:
            self._cleanup_allocations(context, instance_uuids)

    def _announce(self, context, instance_uuids, choices):
        """Log and notify the decision before anything is touched."""
        placements = []
        for choice in choices:
            plan = choice.plan
            LOG.info('Instance %(uuid)s of request %(request)s goes to '
                     '%(host)s (%(node)s); preemptible servers deleted for '
                     'it: %(victims)s (termination cost %(cost).6g)',
                     {'uuid': choice.instance_uuid,
                      'request': instance_uuids,
                      'host': choice.host.host,
                      'node': choice.host.nodename,
                      'victims': plan.victim_ids or 'none',
                      'cost': plan.cost})
            placements.append({'instance_uuid': choice.instance_uuid,
                               'host': choice.host.host,
                               'nodename': choice.host.nodename,
                               'terminate': plan.victim_ids,
                               'termination_cost': plan.cost})
        self._notify(context, DECISION_EVENT,
                     {'instance_uuids': list(instance_uuids),
                      'placements': placements})

    # -- acting on it ----------------------------------------------------

    def _notice_and_act(self, context, decision, choices):
        """Termination notices, then the victims: at once without a grace
        period, else by the periodic task once it has ended. Never waits.
        """
        grace = decision.terminate_at - decision.created_at
        terminate_at = (timeutils.utcnow() +
                        datetime.timedelta(seconds=grace))
        for choice in choices:
            for victim in choice.plan.victims:
                server = choice.servers[victim.id]
                self._notify(context, NOTICE_EVENT, {
                    'instance_id': victim.id,
                    'project_id': server.project_id,
                    'host': choice.host.host,
                    'grace_seconds': grace,
                    'terminate_at': terminate_at.isoformat()})
                if grace > 0:
                    self._set_notice(context, victim.id, terminate_at)
        self.terminator.act(decision, host_states.now())

    def _act_on_victim(self, victim):
        """The terminator's action: delete or shelve one journaled victim.
        Raises terminator.Gone when the server is not there any more.
        """
        context = nova_context.get_admin_context()
        try:
            server = self.compute_api.get(
                context, victim.id,
                expected_attrs=['flavor', 'system_metadata'])
        except exception.InstanceNotFound:
            raise terminator.Gone()
        if server.deleted or server.vm_state in ('deleted',
                                                 'shelved_offloaded'):
            raise terminator.Gone()
        if victim.action == 'shelve':
            self._requeue(context, server)
            LOG.info('Shelved displaced server %s on %s.', victim.id,
                     victim.host)
        else:
            self.compute_api.delete(context, server)
            LOG.info('Deleted displaced server %s on %s.', victim.id,
                     victim.host)

    def _requeue(self, context, server):
        """Shelve ``server`` (Nova offloads it at once when
        ``shelved_offload_time`` is 0), its QoS account and the requeue mark
        in its system metadata.
        """
        now = host_states.now()
        _, running_since, running_s, overhead_s = host_states.account(
            server, now)
        if running_since is not None:
            running_s += max(0.0, now - running_since)
        found = self.compute_api.get(context, server.uuid,
                                     expected_attrs=['system_metadata'])
        found.system_metadata.update({
            host_states.RUNNING_S: repr(running_s),
            host_states.OVERHEAD_S: repr(overhead_s),
            host_states.DISPLACED_AT: repr(now),
            host_states.REQUEUED: 'true'})
        found.save()
        self.compute_api.shelve(context, found)

    # -- periodic tasks (bodies in .periodic) --------------------------

    @periodic_task.periodic_task(
        spacing=CONF.preemptible_sched.termination_poll_interval,
        run_immediately=True)
    def _run_due(self, context):
        """Act on the victims whose grace period has ended."""
        self.terminator.run_due(host_states.now())

    @periodic_task.periodic_task(
        spacing=CONF.preemptible_sched.requeue_interval,
        run_immediately=False)
    def _requeue_displaced(self, context):
        periodic.requeue_displaced(self, context)

    @periodic_task.periodic_task(
        spacing=CONF.preemptible_sched.housekeeping_interval,
        run_immediately=False)
    def _housekeeping(self, context):
        periodic.housekeeping(self, context)

    def _set_notice(self, context, uuid, terminate_at):
        try:
            server = self.compute_api.get(context, uuid)
            self.compute_api.update_instance_metadata(
                context, server, {TERMINATE_AT_KEY: terminate_at.isoformat()})
        except Exception as error:   # the notice must not stop the deletion
            LOG.warning('Could not set the termination notice on server '
                        '%s: %s', uuid, error)

    def _swap(self, context, spec_obj, wanted, choices):
        """Claim every instance on its host with the victims' room, in one
        atomic Placement write: nothing else can take that room, and
        nothing waits for the victims to be gone.
        """
        claims = {choice.instance_uuid: (choice.host.uuid, wanted,
                                         spec_obj.project_id,
                                         spec_obj.user_id)
                  for choice in choices}
        victims = [victim.id for choice in choices
                   for victim in choice.plan.victims]
        try:
            self.reader.swap(context, claims, victims)
        except (placement.ReadFailed, placement.SwapRefused) as error:
            LOG.warning('The room chosen for %s could not be claimed: %s',
                        sorted(claims), error)
            raise _no_valid_host(
                _('The room chosen was taken by another request.'))

    def _selections(self, context, resources, wanted, choices,
                    return_alternates):
        """Nova's selections: each instance's claimed host, then alternates
        (other hosts of its cell, as ranked, that Placement offers now).
        """
        by_provider = collections.defaultdict(list)
        version = placement.SWAP_VERSION
        num_alts = CONF.scheduler.max_attempts - 1 if return_alternates else 0
        if num_alts:
            found = self.placement_client.get_allocation_candidates(
                context, resources) or (None, None, None)
            alloc_reqs, _summaries, version = found
            for alloc_req in alloc_reqs or ():
                for provider in alloc_req['allocations']:
                    by_provider[provider].append(alloc_req)
        chosen = {choice.host.uuid for choice in choices}
        selections = []
        for choice in choices:
            host = choice.host
            claimed = {'allocations': {host.uuid: {
                'resources': dict(wanted)}}, 'mappings': {'': [host.uuid]}}
            selected = [nova_objects.Selection.from_host_state(
                host, allocation_request=claimed,
                allocation_request_version=version)]
            for other in choice.ranked:
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


def _names_a_host(spec_obj):
    """Whether the request asks for hosts or nodes by name (a requested
    destination, or forced hosts or nodes).
    """
    for field in ('force_hosts', 'force_nodes'):
        if spec_obj.obj_attr_is_set(field) and getattr(spec_obj, field):
            return True
    if not spec_obj.obj_attr_is_set('requested_destination'):
        return False
    destination = spec_obj.requested_destination
    if destination is None:
        return False
    return any(destination.obj_attr_is_set(field) and
               getattr(destination, field)
               for field in ('host', 'node'))


def _can_ever_fit(inventories, wanted):
    """Whether the node has an inventory of every wanted class, large enough
    per unit (``max_unit``) for the request.
    """
    for resource_class, amount in wanted.items():
        record = inventories.get(resource_class)
        if record is None or amount > record.get('max_unit', amount):
            return False
    return True
