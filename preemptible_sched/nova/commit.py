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

"""A decision of the engine, carried out (:func:`carry_out`).

A decision that displaces is journaled (:mod:`.journal`) before anything
is touched; then, in one atomic Placement write, its instances are claimed
and its victims' allocations emptied; then its victims are acted on
(:mod:`.notices`, :mod:`.terminator`). In the one-pass mode the nodes it
places on are locked and checked again first. When a node changed between
the reads the decision was made on and its commit, :class:`Stale` asks for
a decision made again from fresh reads, at most :data:`ATTEMPTS` times.
"""

import collections
import contextlib
import dataclasses

from nova import exception
from nova.i18n import _
from oslo_log import log as logging
from oslo_utils import uuidutils

from preemptible_sched.nova import config
from preemptible_sched.nova import engine
from preemptible_sched.nova import host_states
from preemptible_sched.nova import journal
from preemptible_sched.nova import journal_records
from preemptible_sched.nova import notices
from preemptible_sched.nova import placement
from preemptible_sched.nova import strategies

CONF = config.CONF

#: The manager's logger: the scheduler logs its decisions under
#: ``preemptible_sched.nova.manager`` (doc/source/nova.rst, "Logs").
LOG = logging.getLogger('preemptible_sched.nova.manager')

#: Decisions made again from fresh reads when the nodes changed between
#: the reads and the commit, before the request fails.
ATTEMPTS = 3
#: Seconds during which the victims a decision deleted are never chosen
#: again (Nova's cell database keeps their rows a moment after the API
#: shows them deleted; a deletion takes seconds, an hour is ample).
RECENTLY_DELETED = 3600.0


def leaving_victims(journal, now):
    """``{server uuid: host}`` of the victims no decision may choose
    again at ``now``: those an open decision may still act on, and those
    deleted within :data:`RECENTLY_DELETED` (see
    :meth:`~preemptible_sched.nova.journal.Journal.open_victims`).
    """
    return journal.open_victims(now - RECENTLY_DELETED)


class Stale(Exception):
    """A node changed between the reads a decision was made on and its
    commit: decide again from fresh reads.
    """


@dataclasses.dataclass
class Commit:
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


def no_valid_host(reason=''):
    return exception.NoValidHost(reason=reason)


def carry_out(manager, context, spec_obj, instance_uuids, work):
    """Carry out a decision: journal it if it displaces, then claim its
    room (and empty its victims' allocations) in one atomic write, then
    act on its victims.

    In the one-pass mode the nodes it places on are locked and checked
    again first (Placement does not check the full view): raises
    :class:`Stale` when one has no room for it any more.
    """
    call = work.call
    nodes = sorted({call.nova_host(selection).uuid
                    for selection in work.decision.selections})
    locked = CONF.preemptible_sched.mode == 'one_pass'
    with (manager._decision_lock(nodes) if locked
          else contextlib.nullcontext()):
        if locked:
            _check_room(manager, context, work)
        decision, consumers = None, {}
        if work.victims:
            consumers = _consumers(manager, context, work)
            decision = _record(manager, context, instance_uuids, work,
                               consumers)
        _claim(manager, context, spec_obj, work, decision, consumers)
        if decision is not None:
            _start(manager, context, instance_uuids, decision, work)
    for selection in work.decision.selections:
        manager._consume_selected_host(call.nova_host(selection),
                                       spec_obj, selection.instance.id)


def _check_room(manager, context, work):
    """Raise :class:`Stale` unless every node the decision places on
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
            used = host_states.resources(manager.reader.usages(context,
                                                               node))
        except placement.ReadFailed as error:
            raise Stale(str(error))
        capacity = call.hosts.host_states[node].capacity
        for name, now_used, added, total in zip(
                capacity._fields, used, delta, capacity):
            if now_used + added > total + 1e-9:
                raise Stale('node %s has %g %s in use now: no room '
                            'for %+g of %g' % (node, now_used, name,
                                               added, total))


def _consumers(manager, context, work):
    """``{victim: (allocations, generation, project, user)}`` as
    Placement has them now: journaled (to give them back if the
    decision is given up) and emptied by :func:`_claim`. A victim that
    holds nothing any more (another decision took its room) makes the
    decision stale: its room was counted from an older read.
    """
    try:
        consumers = {victim.id: manager.reader.consumer(context.elevated(),
                                                        victim.id)
                     for victim in work.victims}
    except placement.ReadFailed as error:
        raise Stale(str(error))
    for victim, (allocations, *_rest) in sorted(consumers.items()):
        if not allocations:
            raise Stale('victim %s holds nothing in Placement any '
                        'more' % victim)
    return consumers


def _claim(manager, context, spec_obj, work, decision, consumers):
    """Claim every instance, and empty the victims' allocations, in one
    atomic Placement write; roll the decision back if Placement
    refuses (the room or a victim changed: decide again).
    """
    claims = {uuid: (allocations, spec_obj.project_id, spec_obj.user_id)
              for uuid, allocations in work.claims.items()}
    try:
        manager.reader.swap(context.elevated(), claims, consumers)
    except (placement.ReadFailed, placement.SwapRefused) as error:
        if decision is not None:
            manager.journal.move(decision.id, 'rolled_back')
        raise Stale('the room chosen for %s could not be claimed: %s'
                    % (sorted(claims), error))


def _record(manager, context, instance_uuids, work, consumers):
    """Journal the decision (``decided``), with what each victim holds
    in Placement (``consumers``), before anything is touched, then
    announce it. Raises :class:`Stale` when another open decision
    names one of its victims.
    """
    now = host_states.now()
    grace = CONF.preemptible_sched.termination_grace_seconds
    action = ('shelve' if strategies.on_victim(CONF, manager.strategy) ==
              'requeue' else 'delete')
    call = work.call
    decision = journal_records.Decision(
        uuidutils.generate_uuid(), CONF.host, 'preempt',
        list(instance_uuids), now, now + grace,
        [journal_records.Victim(victim.id, call.nova_host(selection).host,
                                action, consumer=_held(
                                    consumers[victim.id],
                                    work.servers.get(victim.id)))
         for selection in work.decision.selections
         for victim in selection.plan.victims])
    try:
        manager.journal.record(decision)
    except journal.VictimTaken as error:
        raise Stale(str(error))
    notices.announce(manager, context, instance_uuids, work)
    return decision


def _start(manager, context, instance_uuids, decision, work):
    """The room is claimed: the decision acts, at once or when its
    grace period ends.
    """
    try:
        manager.journal.move(decision.id, 'acting')
    except journal.JournalError as error:
        # Rolled back by another scheduler's recovery meanwhile: give
        # the room up.
        LOG.warning('Giving up %s: %s', instance_uuids, error)
        manager._cleanup_allocations(context, instance_uuids)
        raise no_valid_host(_('The decision was rolled back.'))
    notices.notice_and_act(manager, context.elevated(), decision, work)


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
