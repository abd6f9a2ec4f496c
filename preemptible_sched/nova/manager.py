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
and ``priority`` strategies, lower-class) servers. Every such decision is
made by the core's phase engine (:mod:`.engine`), with Nova's configured
filters and weighers, in one of two modes (``[preemptible_sched] mode``):

``one_pass``
    preemptible flavors consume the ``CUSTOM_PREEMPTIBLE_*`` classes, so
    Placement's allocation candidates are the hosts where a normal request
    fits the normal view; :meth:`_schedule` (called by Nova's own
    ``select_destinations`` with those candidates and their provider
    summaries, which carry both views) decides with the engine instead of
    Nova's loop. Placement does not check the full view (every server), so
    a decision holds the lock of each node it places on while it checks
    them again and commits (requests that displace nothing take no other
    lock);
``retry``
    Nova's pass first, untouched; when it ends in NoValidHost for a request
    that may displace, every candidate host is read from Placement and the
    cell databases and the engine decides on them (:meth:`_retry_path`).
    In the one-pass mode, a request Placement finds no room for
    (preemptible servers left on the standard classes) takes this path
    too.

A decision that may displace servers is made one at a time, under the
cloud-wide decision lock (:mod:`.coordination`), its servers and the open
victims read under it, so that two never pick the same victims. A request
that fits a node as it is takes that node without the cloud-wide lock
(with ``terminate_only_when_needed``, as by default, such a node goes
before any where servers would be displaced); only when none of them
passes Nova's filters is the decision made again under the lock.

Either way a decision that displaces is journaled (:mod:`.journal`) before
anything is touched; then, in one atomic Placement write, its instances are
claimed and its victims' allocations emptied; then its victims are deleted
or shelved by the terminator (:mod:`.terminator`): at once, or by the
periodic task ``_run_due`` once their grace period ends. Nothing in
``select_destinations`` sleeps. At start the manager finishes, or rolls
back, what a scheduler that died left. The periodic tasks' bodies
(requeued servers, ``max_lifetime``, ``watermark``) are in :mod:`.periodic`.

A preemptible request never displaces anything (under the preemptible
strategies), and neither does anything but a new boot (rebuilds, moves and
unshelves are of servers that already live in a cell), nor a request for a
named or forced host.
"""

import collections
import contextlib
import copy
import dataclasses
import datetime
import os
import random
import threading

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
from preemptible_sched.nova import config
from preemptible_sched.nova import coordination
from preemptible_sched.nova import engine
from preemptible_sched.nova import extra_specs
from preemptible_sched.nova import host_states
from preemptible_sched.nova import journal
from preemptible_sched.nova import journal_records
from preemptible_sched.nova import periodic
from preemptible_sched.nova import placement
from preemptible_sched.nova import resource_classes
from preemptible_sched.nova import strategies
from preemptible_sched.nova import terminator
from preemptible_sched.nova import victims

CONF = config.CONF

LOG = logging.getLogger(__name__)

#: Notification of a decision, sent before anything is deleted.
DECISION_EVENT = 'preemptible_sched.preempt'
#: Notification each victim's owner gets before the deletion.
NOTICE_EVENT = 'instance.termination_notice'
#: Server metadata key set to the deletion time when there is a grace.
TERMINATE_AT_KEY = 'preemptible_sched:terminate_at'
#: Decisions made again from fresh reads when the nodes changed between
#: the reads and the commit, before the request fails.
ATTEMPTS = 3
#: Seconds during which the victims a decision deleted are never chosen
#: again (Nova's cell database keeps their rows a moment after the API
#: shows them deleted; a deletion takes seconds, an hour is ample).
RECENTLY_DELETED = 3600.0


class _Stale(Exception):
    """A node changed between the reads a decision was made on and its
    commit: decide again from fresh reads.
    """


@dataclasses.dataclass
class _Commit:
    """What a decision of the engine needs to be carried out."""

    call: engine.Call
    decision: object                # the engine's Decision
    #: instance uuid -> its allocations in Placement's format
    claims: dict
    #: server uuid -> Nova Instance, for every candidate victim read
    servers: dict

    @property
    def victims(self):
        return [victim for selection in self.decision.selections
                for victim in selection.plan.victims]


class _Local(threading.local):
    #: whether this thread holds the cloud-wide decision lock
    serialised = False


def _no_valid_host(reason=''):
    return exception.NoValidHost(reason=reason)


def _failure(error):
    """The NoValidHost of ``error`` (as raised, or wrapped by
    ``messaging.expected_exceptions``), or None.
    """
    failure = getattr(error, 'exc_info', (None, error, None))[1]
    return failure if isinstance(failure, exception.NoValidHost) else None


def _forget_connections(client):
    """Drop the HTTP connections ``client`` (Nova's Placement report
    client) holds, without closing them for anyone else.

    Nova's manager reaches Placement (version discovery) in the process
    that then forks the ``[scheduler] workers``: every worker inherits the
    same keep-alive socket, and two workers reading one socket take each
    other's answers (a Placement reply cut short, ``IncompleteRead``, and
    the boot in ERROR). Each worker starts from its own pool instead.
    """
    adapter = getattr(client, '_client', None)
    http = getattr(getattr(adapter, 'session', None), 'session', None)
    if http is None:
        LOG.warning('Cannot reach the HTTP pool of the Placement client '
                    '(%s): [scheduler] workers may share its connections.',
                    type(client).__name__)
        return
    for transport in http.adapters.values():
        # The pool forgets its sockets; this process's copy of each is
        # closed, the other workers' copies stay open.
        transport.poolmanager.clear()


class PreemptibleSchedulerManager(nova_manager.SchedulerManager):
    """Nova's scheduler manager that displaces preemptible (or lower-class)
    servers to make room.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.reader = placement.PlacementReader(self.placement_client)
        self.compute_api = compute_api.API()
        settings = CONF.preemptible_sched
        # Without lock_path, the file locks of the workers of this host
        # go beside Nova's state (a lock of the process alone would let
        # two workers decide at once).
        self.lock = coordination.DecisionLock(
            settings.coordination_url, settings.lock_timeout,
            CONF.oslo_concurrency.lock_path or os.path.join(
                CONF.state_path, 'preemptible_sched_locks'))
        self.journal = journal.Journal(settings.journal_connection)
        self.victims = victims.Victims(self)
        self.terminator = terminator.Terminator(
            self.journal, self.victims, attempts=settings.victim_attempts)
        self.strategy = strategies.load(CONF)
        self.fit_only = strategies.fit_only(CONF)
        self.costs = strategies.costs(CONF)
        self.rng = random.Random(settings.random_seed)
        self._local = _Local()

    def init_host(self, service_ref):
        """Finish, or roll back, what a scheduler that died left (while
        its request lives, see :mod:`.terminator`).
        """
        super().init_host(service_ref)
        _forget_connections(self.placement_client)
        self.journal.engine.dispose(close=False)
        resumed, rolled_back = self.terminator.recover(host_states.now())
        if resumed or rolled_back:
            LOG.info('Recovered the journal: decisions %s resumed, %s '
                     'rolled back.', resumed, rolled_back)

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
        try:
            return self._nova_pass(context, nova_args)
        except (exception.NoValidHost,
                messaging.ExpectedException) as error:
            failure = _failure(error)
            if failure is None:
                raise
        if not self._may_displace(context, spec_obj, instance_uuids):
            raise failure
        if CONF.preemptible_sched.mode == 'one_pass':
            # Room held by preemptible flavors left on the standard
            # classes: Placement finds none, the retry path may.
            LOG.debug('No room on the normal view for %s; trying the '
                      'retry path.', instance_uuids)
        with self._serialised():
            selections = self._retry_path(
                context, spec_obj, instance_uuids,
                return_alternates and return_objects)
        if not return_objects:
            return jsonutils.to_primitive(
                [selection[0].to_dict() for selection in selections])
        return selections

    def _nova_pass(self, context, nova_args):
        """Nova's ``select_destinations`` (in the one-pass mode, with the
        engine's decision in :meth:`_schedule`), made again from fresh
        reads when a node changed before the commit.
        """
        for _attempt in range(ATTEMPTS):
            try:
                return super().select_destinations(context, **nova_args)
            except _Stale as error:
                LOG.info('Deciding again for %s: %s',
                         nova_args['instance_uuids'], error)
        raise _no_valid_host(_('The hosts chosen changed while the decision '
                               'was made.'))

    @contextlib.contextmanager
    def _serialised(self):
        """Hold the cloud-wide decision lock (once per thread): decisions
        that displace servers are made one at a time, from reads made
        under it, so that two of them never pick the same victims.
        """
        if self._local.serialised:
            yield
            return
        with self._decision_lock():
            self._local.serialised = True
            try:
                yield
            finally:
                self._local.serialised = False

    @contextlib.contextmanager
    def _decision_lock(self, hosts=None):
        """The locks of ``hosts`` (provider uuids), or the cloud-wide one,
        across every scheduler host with ``coordination_url``.
        """
        try:
            with self.lock(hosts):
                yield
        except coordination.LockTimeout as error:
            LOG.warning('No decision: %s', error)
            raise _no_valid_host(_('The scheduler is busy.'))

    # -- which requests may displace -------------------------------------

    def _may_displace(self, context, spec_obj, instance_uuids):
        """Whether victims may be chosen for this request: a new boot of
        a server that may displace under the strategy, asking for no host
        by name.
        """
        if not CONF.preemptible_sched.preempt or not instance_uuids:
            return False
        if self.strategy.spot and extra_specs.is_preemptible(spec_obj.flavor):
            LOG.debug('Preemptible request %s: nothing is displaced for it.',
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
                          'boot, nothing is displaced for it.', uuid)
                return False
        return True

    # -- the one-pass mode -------------------------------------------------

    def _schedule(self, context, spec_obj, instance_uuids,
                  alloc_reqs_by_rp_uuid, provider_summaries,
                  allocation_request_version=None, return_alternates=False):
        """Nova's loop over the instances, or, in the one-pass mode, the
        engine's decision on the allocation candidates.
        """
        if (CONF.preemptible_sched.mode != 'one_pass' or
                not instance_uuids or alloc_reqs_by_rp_uuid is None):
            return super()._schedule(
                context, spec_obj, instance_uuids, alloc_reqs_by_rp_uuid,
                provider_summaries, allocation_request_version,
                return_alternates)
        elevated = context.elevated()
        request = self._request(spec_obj, instance_uuids)
        hosts = list(self._get_all_host_states(elevated, spec_obj,
                                               provider_summaries))
        for host in hosts:
            host.allocation_candidates = copy.deepcopy(
                alloc_reqs_by_rp_uuid[host.uuid])
        summaries = {host.uuid: provider_summaries.get(host.uuid, {})
                     for host in hosts}
        short = [host for host in hosts if not _fits_full(
            summaries[host.uuid], request.resources, len(instance_uuids))]
        displacing = bool(short) and self._may_displace(context, spec_obj,
                                                        instance_uuids)
        # Where a node may take the request as it is (and such a node goes
        # first), try that without the cloud-wide lock: no victim can be
        # chosen without the servers read.
        first_as_is = (len(short) < len(hosts) and CONF.preemptible_sched.
                       terminate_only_when_needed)
        try:
            if not displacing or first_as_is:
                decision, work = self._decide_one_pass(
                    elevated, spec_obj, instance_uuids, request, hosts,
                    summaries, ())
                self._commit(context, spec_obj, instance_uuids, work)
                displacing = False
        except exception.NoValidHost:
            if not displacing:
                raise
        if displacing:
            with self._serialised():
                decision, work = self._decide_one_pass(
                    elevated, spec_obj, instance_uuids, request, hosts,
                    summaries, short)
                self._commit(context, spec_obj, instance_uuids, work)
        chosen = [work.call.nova_host(selection)
                  for selection in decision.selections]
        return [[nova_objects.Selection.from_host_state(
            host, allocation_request=host.allocation_candidates[0],
            allocation_request_version=allocation_request_version)]
            for host in chosen]

    def _decide_one_pass(self, context, spec_obj, instance_uuids, request,
                         hosts, summaries, short):
        """The engine's decision on the allocation candidates ``hosts``;
        victims may be chosen on the ``short`` ones (their servers are
        read), under the configured strategy; with none, nothing is
        displaced.
        """
        strategy, leaving, servers = self.fit_only, {}, {}
        if short:
            strategy = self.strategy
            leaving = self.journal.open_victims(
                host_states.now() - RECENTLY_DELETED)
            servers = self._servers_on(context, short)
        call = self._call(spec_obj, instance_uuids, strategy)
        now = host_states.now()
        by_host = collections.defaultdict(dict)
        for server in servers.values():
            by_host[(server.host, server.node)][server.uuid] = server
        for host in hosts:
            on_host = (by_host.get((host.host, host.nodename), {})
                       if host in short else None)
            call.add(host_states.add_from_summary(
                call.hosts, host, summaries[host.uuid], on_host,
                self._classes(), now, leaving), host)
        decision = self._decide(call, request, now, instance_uuids)
        claims = {selection.instance.id: call.nova_host(selection)
                  .allocation_candidates[0]['allocations']
                  for selection in decision.selections}
        return decision, _Commit(call, decision, claims, servers)

    def _servers_on(self, context, hosts):
        """``{uuid: Nova Instance}`` of the servers on ``hosts`` (one
        query per cell).
        """
        by_cell = collections.defaultdict(set)
        for host in hosts:
            by_cell[host.cell_uuid].add(host.host)
        found = {}
        for cell_uuid, names in by_cell.items():
            cell = self.host_manager.cells.get(cell_uuid)
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

    # -- the retry path ------------------------------------------------------

    def _retry_path(self, context, spec_obj, instance_uuids,
                    return_alternates):
        """Decide on every host the request may land on, read from
        Placement and the cell databases; claim and commit.
        """
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
        request = dataclasses.replace(
            self._request(spec_obj, instance_uuids),
            resources=host_states.resources(wanted))
        for _attempt in range(ATTEMPTS):
            try:
                work = self._read_candidates(elevated, spec_obj, resources,
                                             wanted, instance_uuids,
                                             request)
            except placement.ReadFailed as error:
                LOG.warning('Not preempting for %s: %s', instance_uuids,
                            error)
                raise _no_valid_host()
            try:
                self._commit(context, spec_obj, instance_uuids, work)
            except _Stale as error:
                LOG.info('Deciding again for %s: %s', instance_uuids, error)
                continue
            return self._selections(context, resources, work,
                                    return_alternates)
        raise _no_valid_host(_('The hosts chosen changed while the '
                               'decision was made.'))

    def _read_candidates(self, context, spec_obj, resources, wanted,
                         instance_uuids, request):
        """The engine's decision on every compute node the request may
        land on, as a :class:`_Commit`.
        """
        providers = self.reader.providers(context, resources)
        call = self._call(spec_obj, instance_uuids, self.strategy)
        now = host_states.now()
        leaving = self.journal.open_victims(now - RECENTLY_DELETED)
        servers = {}
        for host in self.host_manager.get_host_states_by_uuids(
                context, sorted(providers), spec_obj):
            if host.uuid not in providers:
                continue
            inventories = self.reader.inventories(context, host.uuid)
            if not _can_ever_fit(inventories, wanted):
                continue
            allocations = self.reader.allocations(context, host.uuid)
            on_host = self._servers(context, host.cell_uuid,
                                    sorted(allocations))
            servers.update(on_host)
            call.add(host_states.add_from_placement(
                call.hosts, host, inventories, allocations, on_host,
                self._classes(), now, leaving), host)
        decision = self._decide(call, request, now, instance_uuids)
        claims = {selection.instance.id: {
            call.nova_host(selection).uuid: {'resources': dict(wanted)}}
            for selection in decision.selections}
        return _Commit(call, decision, claims, servers)

    def _servers(self, context, cell_uuid, uuids):
        cell = self.host_manager.cells.get(cell_uuid)
        if cell is None or not uuids:
            return {}
        with nova_context.target_cell(context, cell) as cell_context:
            servers = nova_objects.InstanceList.get_by_filters(
                cell_context, {'uuid': uuids},
                expected_attrs=['flavor', 'metadata', 'system_metadata'])
        return {server.uuid: server for server in servers}

    # -- the decision ------------------------------------------------------

    def _classes(self):
        return nova_opts.service_class_priorities(CONF)

    def _request(self, spec_obj, instance_uuids):
        return host_states.core_request(spec_obj, self._classes(),
                                        instance_uuids)

    def _call(self, spec_obj, instance_uuids, strategy):
        return engine.Call(self.host_manager, spec_obj, instance_uuids,
                           strategy, self.costs, self.rng,
                           CONF.filter_scheduler.host_subset_size)

    def _decide(self, call, request, now, instance_uuids):
        """The engine's decision; NoValidHost when it places nothing."""
        try:
            decision = call.decide(request, now, engine.pending(request,
                                                                now))
        finally:
            call.finish()
        if not decision.placed:
            LOG.info('%s', decision.reason)
            raise _no_valid_host(
                _('No host has room, even without the servers the request '
                  'may displace.'))
        for selection in decision.selections:
            LOG.debug('Instance %s goes to %s; victims %s; weights %s',
                      selection.instance.id, call.nova_host(selection),
                      selection.plan.victim_ids, selection.weights)
        return decision

    def _commit(self, context, spec_obj, instance_uuids, work):
        """Carry out a decision: journal it if it displaces, then claim its
        room (and empty its victims' allocations) in one atomic write, then
        act on its victims.

        In the one-pass mode the nodes it places on are locked and checked
        again first (Placement does not check the full view): raises
        :class:`_Stale` when one has no room for it any more.
        """
        call = work.call
        nodes = sorted({call.nova_host(selection).uuid
                        for selection in work.decision.selections})
        locked = CONF.preemptible_sched.mode == 'one_pass'
        with (self._decision_lock(nodes) if locked
              else contextlib.nullcontext()):
            if locked:
                self._check_room(context, work)
            decision, consumers = None, {}
            if work.victims:
                consumers = self._consumers(context, work)
                decision = self._record(context, instance_uuids, work,
                                        consumers)
            self._claim(context, spec_obj, work, decision, consumers)
            if decision is not None:
                self._start(context, instance_uuids, decision, work)
        for selection in work.decision.selections:
            super()._consume_selected_host(call.nova_host(selection),
                                           spec_obj, selection.instance.id)

    def _check_room(self, context, work):
        """Raise :class:`_Stale` unless every node the decision places on
        still has room for it on its full view, as Placement counts it now
        (both classes): what it uses, less the decision's victims there,
        plus the decision's instances there.
        """
        call = work.call
        change = collections.defaultdict(lambda: [0.0, 0.0, 0.0])
        for selection in work.decision.selections:
            delta = change[call.nova_host(selection).uuid]
            for i, amount in enumerate(selection.instance.resources):
                delta[i] += amount
            for victim in selection.plan.victims:
                for i, amount in enumerate(victim.resources):
                    delta[i] -= amount
        for node, delta in sorted(change.items()):
            try:
                used = host_states.resources(self.reader.usages(context,
                                                                node))
            except placement.ReadFailed as error:
                raise _Stale(str(error))
            capacity = call.hosts.host_states[node].capacity
            for name, now_used, added, total in zip(
                    capacity._fields, used, delta, capacity):
                if now_used + added > total + 1e-9:
                    raise _Stale('node %s has %g %s in use now: no room '
                                 'for %+g of %g' % (node, now_used, name,
                                                    added, total))

    def _consumers(self, context, work):
        """``{victim: (allocations, generation, project, user)}`` as
        Placement has them now: journaled (to give them back if the
        decision is given up) and emptied by :meth:`_claim`. A victim that
        holds nothing any more (another decision took its room) makes the
        decision stale: its room was counted from an older read.
        """
        try:
            consumers = {victim.id: self.reader.consumer(context.elevated(),
                                                         victim.id)
                         for victim in work.victims}
        except placement.ReadFailed as error:
            raise _Stale(str(error))
        for victim, (allocations, *_rest) in sorted(consumers.items()):
            if not allocations:
                raise _Stale('victim %s holds nothing in Placement any '
                             'more' % victim)
        return consumers

    def _claim(self, context, spec_obj, work, decision, consumers):
        """Claim every instance, and empty the victims' allocations, in one
        atomic Placement write; roll the decision back if Placement
        refuses (the room or a victim changed: decide again).
        """
        claims = {uuid: (allocations, spec_obj.project_id, spec_obj.user_id)
                  for uuid, allocations in work.claims.items()}
        try:
            self.reader.swap(context.elevated(), claims, consumers)
        except (placement.ReadFailed, placement.SwapRefused) as error:
            if decision is not None:
                self.journal.move(decision.id, 'rolled_back')
            raise _Stale('the room chosen for %s could not be claimed: %s'
                         % (sorted(claims), error))

    def _record(self, context, instance_uuids, work, consumers):
        """Journal the decision (``decided``), with what each victim holds
        in Placement (``consumers``), before anything is touched, then
        announce it. Raises :class:`_Stale` when another open decision
        names one of its victims.
        """
        now = host_states.now()
        grace = CONF.preemptible_sched.termination_grace_seconds
        action = ('shelve' if strategies.on_victim(CONF, self.strategy) ==
                  'requeue' else 'delete')
        call = work.call
        decision = journal_records.Decision(
            uuidutils.generate_uuid(), CONF.host, 'preempt',
            list(instance_uuids), now, now + grace,
            [journal_records.Victim(victim.id,
                                    call.nova_host(selection).host,
                                    action, consumer=_held(
                                        consumers[victim.id],
                                        work.servers.get(victim.id)))
             for selection in work.decision.selections
             for victim in selection.plan.victims])
        try:
            self.journal.record(decision)
        except journal.VictimTaken as error:
            raise _Stale(str(error))
        self._announce(context, instance_uuids, work)
        return decision

    def _start(self, context, instance_uuids, decision, work):
        """The room is claimed: the decision acts, at once or when its
        grace period ends.
        """
        try:
            self.journal.move(decision.id, 'acting')
        except journal.JournalError as error:
            # Rolled back by another scheduler's recovery meanwhile: give
            # the room up.
            LOG.warning('Giving up %s: %s', instance_uuids, error)
            self._cleanup_allocations(context, instance_uuids)
            raise _no_valid_host(_('The decision was rolled back.'))
        self._notice_and_act(context.elevated(), decision, work)

    def _announce(self, context, instance_uuids, work):
        """Log and notify the decision before anything is touched."""
        placements = []
        for selection in work.decision.selections:
            plan = selection.plan
            host = work.call.nova_host(selection)
            LOG.info('Instance %(uuid)s of request %(request)s goes to '
                     '%(host)s (%(node)s); servers displaced for it: '
                     '%(victims)s (termination cost %(cost).6g)',
                     {'uuid': selection.instance.id,
                      'request': instance_uuids,
                      'host': host.host, 'node': host.nodename,
                      'victims': plan.victim_ids or 'none',
                      'cost': plan.cost})
            placements.append({'instance_uuid': selection.instance.id,
                               'host': host.host,
                               'nodename': host.nodename,
                               'terminate': plan.victim_ids,
                               'termination_cost': plan.cost})
        self._notify(context, DECISION_EVENT,
                     {'instance_uuids': list(instance_uuids),
                      'placements': placements})

    def _selections(self, context, resources, work, return_alternates):
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
            found = self.placement_client.get_allocation_candidates(
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

    # -- acting on it ----------------------------------------------------

    def _notice_and_act(self, context, decision, work):
        """Termination notices, then the victims: at once without a grace
        period, else by the periodic task once it has ended. Never waits.
        """
        grace = decision.terminate_at - decision.created_at
        terminate_at = (timeutils.utcnow() +
                        datetime.timedelta(seconds=grace))
        for victim in decision.victims:
            server = work.servers.get(victim.id)
            self._notify(context, NOTICE_EVENT, {
                'instance_id': victim.id,
                'project_id': getattr(server, 'project_id', None),
                'host': victim.host,
                'grace_seconds': grace,
                'terminate_at': terminate_at.isoformat()})
            if grace > 0:
                self._set_notice(context, victim.id, terminate_at)
        self.terminator.act(decision, host_states.now())

    def _set_notice(self, context, uuid, terminate_at):
        try:
            server = self.compute_api.get(context, uuid)
            self.compute_api.update_instance_metadata(
                context, server, {TERMINATE_AT_KEY: terminate_at.isoformat()})
        except Exception as error:   # the notice must not stop the deletion
            LOG.warning('Could not set the termination notice on server '
                        '%s: %s', uuid, error)

    # -- periodic tasks (bodies in .periodic) --------------------------

    def periodic_tasks(self, context, raise_on_error=False):
        """Nova's, but never without the time until the next run: Nova's
        answers None during a graceful shutdown, which its looping call
        (with no ``periodic_interval_max``) logs as an ERROR with a
        traceback, and the termination task runs every second.
        """
        idle = super().periodic_tasks(context, raise_on_error=raise_on_error)
        if idle is None:
            return CONF.preemptible_sched.termination_poll_interval
        return idle

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


def _fits_full(summary, resources, count):
    """Whether ``count`` instances of ``resources`` fit the full view of a
    provider summary.
    """
    capacity, _normal, full = resource_classes.views(summary)
    needed = dict(zip(resource_classes.STANDARD, resources))
    return all(full[rc] + count * needed[rc] <= capacity[rc] + 1e-9
               for rc in resource_classes.STANDARD)


def _held(consumer, server):
    """What a victim holds, as journaled: its Placement consumer, and the
    flavor it has (it is acted on only while it still has it).
    """
    allocations, _generation, project, user = consumer
    held = {'allocations': allocations, 'project_id': project,
            'user_id': user}
    if server is not None:
        held['flavor_id'] = server.flavor.flavorid
    return held
