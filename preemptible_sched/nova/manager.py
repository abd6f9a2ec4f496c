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
    Nova's loop (:mod:`.one_pass`). Placement does not check the full
    view (every server), so a decision holds the lock of each node it
    places on while it checks them again and commits (requests that
    displace nothing take no other lock);
``retry``
    Nova's pass first, untouched; when it ends in NoValidHost for a request
    that may displace, every candidate host is read from Placement and the
    cell databases and the engine decides on them (:mod:`.retry_path`).
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

Either way the decision is carried out by :mod:`.commit`: if it displaces,
it is journaled (:mod:`.journal`) and announced (:mod:`.notices`) before
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
named or forced host (:mod:`.eligibility`).
"""

import contextlib
import os
import random
import threading

from nova.compute import api as compute_api
from nova import exception
from nova.i18n import _
from nova import objects as nova_objects
from nova import rpc
from nova.scheduler import manager as nova_manager
from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_serialization import jsonutils
from oslo_service import periodic_task

from preemptible_sched.conf import nova as nova_opts
from preemptible_sched.nova import commit
from preemptible_sched.nova import config
from preemptible_sched.nova import coordination
from preemptible_sched.nova import eligibility
from preemptible_sched.nova import engine
from preemptible_sched.nova import host_states
from preemptible_sched.nova import journal
from preemptible_sched.nova import one_pass
from preemptible_sched.nova import periodic
from preemptible_sched.nova import placement
from preemptible_sched.nova import retry_path
from preemptible_sched.nova import strategies
from preemptible_sched.nova import terminator
from preemptible_sched.nova import victims

CONF = config.CONF

LOG = logging.getLogger(__name__)


class _Local(threading.local):
    #: whether this thread holds the cloud-wide decision lock
    serialised = False


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
        if not eligibility.may_displace(self, context, spec_obj,
                                        instance_uuids):
            raise failure
        if CONF.preemptible_sched.mode == 'one_pass':
            # Room held by preemptible flavors left on the standard
            # classes: Placement finds none, the retry path may.
            LOG.debug('No room on the normal view for %s; trying the '
                      'retry path.', instance_uuids)
        with self._serialised():
            selections = retry_path.decide(
                self, context, spec_obj, instance_uuids,
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
        for _attempt in range(commit.ATTEMPTS):
            try:
                return super().select_destinations(context, **nova_args)
            except commit.Stale as error:
                LOG.info('Deciding again for %s: %s',
                         nova_args['instance_uuids'], error)
        raise commit.no_valid_host(_('The hosts chosen changed while the '
                                     'decision was made.'))

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
            raise commit.no_valid_host(_('The scheduler is busy.'))

    # -- the one-pass mode -------------------------------------------------

    def _schedule(self, context, spec_obj, instance_uuids,
                  alloc_reqs_by_rp_uuid, provider_summaries,
                  allocation_request_version=None, return_alternates=False):
        """Nova's loop over the instances, or, in the one-pass mode, the
        engine's decision on the allocation candidates
        (:func:`.one_pass.schedule`).
        """
        if (CONF.preemptible_sched.mode != 'one_pass' or
                not instance_uuids or alloc_reqs_by_rp_uuid is None):
            return super()._schedule(
                context, spec_obj, instance_uuids, alloc_reqs_by_rp_uuid,
                provider_summaries, allocation_request_version,
                return_alternates)
        return one_pass.schedule(
            self, context, spec_obj, instance_uuids, alloc_reqs_by_rp_uuid,
            provider_summaries, allocation_request_version)

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
            raise commit.no_valid_host(
                _('No host has room, even without the servers the request '
                  'may displace.'))
        for selection in decision.selections:
            LOG.debug('Instance %s goes to %s; victims %s; weights %s',
                      selection.instance.id, call.nova_host(selection),
                      selection.plan.victim_ids, selection.weights)
        return decision

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
