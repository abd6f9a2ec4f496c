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

"""What the terminator asks of Nova (:class:`Victims`).

:class:`preemptible_sched.nova.terminator.Terminator` is Nova-free; this
is its port to Nova, through the compute API, the API and cell databases
and Placement:

* :meth:`Victims.act` deletes or shelves a victim;
* :meth:`Victims.outcome` tells whether it is gone, still going, or
  whether the deletion failed (the server back to no task, or in ERROR);
* :meth:`Victims.request` tells whether a decision's request is alive
  (one of its servers lives in a cell), dead (deleted, failed, or buried
  in cell0 after the scheduler never answered), or not known yet;
* :meth:`Victims.give_up` gives spared victims their room back and frees
  the dead request's claim, in one atomic Placement write.
"""

from keystoneauth1 import exceptions as ks_exceptions
from nova import context as nova_context
from nova import exception
from nova import objects as nova_objects
from nova import service_auth
from oslo_log import log as logging

from preemptible_sched.nova import host_states
from preemptible_sched.nova import placement
from preemptible_sched.nova import terminator

LOG = logging.getLogger(__name__)

#: Notification of a victim given up on after its deletions failed.
FAILED_EVENT = 'preemptible_sched.victim_failed'
#: Where a server that lives in no cell, and never will, lives.
_NOWHERE = object()
#: The group of ``nova.conf`` with Nova's service user credentials.
SERVICE_USER = 'service_user'


def service_context():
    """An admin context that carries the token of Nova's service user
    (``[service_user]`` of ``nova.conf``, as nova-compute has it), so
    that what the scheduler asks of Nova on its own (shelving a displaced
    server, which snapshots it to Glance; unshelving it) can reach the
    other services; without those credentials, a plain admin context.
    """
    context = nova_context.get_admin_context()
    try:
        auth = service_auth.get_service_auth_plugin(SERVICE_USER)
        if auth is None:
            return context
        session = service_auth.get_service_auth_session(SERVICE_USER,
                                                        auth=auth)
        context.auth_token = auth.get_token(session)
        context.user_id = auth.get_user_id(session) or context.user_id
        context.project_id = (auth.get_project_id(session) or
                              context.project_id)
    except ks_exceptions.ClientException as error:
        LOG.warning('No token from [%s]: %s', SERVICE_USER, error)
    return context


class Victims:
    """The terminator's port to Nova, for ``manager`` (the scheduler
    manager: its compute API, Placement reader and notifier).
    """

    def __init__(self, manager):
        self.manager = manager

    @staticmethod
    def _context():
        return service_context()

    def _server(self, context, uuid, attrs=()):
        """The server, or None when it is gone."""
        try:
            server = self.manager.compute_api.get(
                context, uuid, expected_attrs=list(attrs))
        except exception.InstanceNotFound:
            return None
        return None if server.deleted else server

    # -- acting ----------------------------------------------------------

    def act(self, victim):
        """Delete or shelve one journaled victim; raises
        :class:`~.terminator.Gone` when it is not there any more, and
        :class:`~.terminator.Changed` when it is not the server the
        decision named (it moved to another host, or was resized to
        another flavor, since: its room there is given already, and it may
        be a normal server now).
        """
        context = self._context()
        server = self._server(context, victim.id,
                              ('flavor', 'system_metadata'))
        if server is None or server.vm_state in ('deleted',
                                                 'shelved_offloaded'):
            raise terminator.Gone()
        _check_unchanged(server, victim)
        compute = self.manager.compute_api
        if victim.action == 'shelve':
            self._requeue(context, server)
            LOG.info('Shelving displaced server %s on %s.', victim.id,
                     victim.host)
        else:
            compute.delete(context, server)
            LOG.info('Deleting displaced server %s on %s.', victim.id,
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
        server.system_metadata.update({
            host_states.RUNNING_S: repr(running_s),
            host_states.OVERHEAD_S: repr(overhead_s),
            host_states.DISPLACED_AT: repr(now),
            host_states.REQUEUED: 'true'})
        server.save()
        self.manager.compute_api.shelve(context, server)

    def outcome(self, victim):
        """``done`` (gone, or shelved and offloaded), ``pending`` (a task
        under way, or shelved and not offloaded yet) or ``failed`` (no task
        under way and still there: the compute host failed it).
        """
        server = self._server(self._context(), victim.id)
        if server is None or server.vm_state in ('deleted', 'soft-delete'):
            # Gone, or deleted on its host and not yet destroyed in the
            # database (soft-deleted, with reclaim_instance_interval).
            return terminator.DONE
        if victim.action == 'shelve':
            if server.vm_state == 'shelved_offloaded':
                return terminator.DONE
            if server.vm_state == 'shelved':
                return terminator.PENDING
        if server.task_state is not None:
            return terminator.PENDING
        LOG.warning('Displaced server %s is %s with no task under way: '
                    'its %s did not happen.', victim.id, server.vm_state,
                    victim.action)
        return terminator.FAILED

    def failed(self, decision, victim):
        self.manager._notify(self._context(), FAILED_EVENT, {
            'decision': decision.id, 'instance_id': victim.id,
            'host': victim.host, 'action': victim.action,
            'attempts': victim.attempts})

    # -- the request ---------------------------------------------------

    def request(self, decision):
        """``(state, claimed)`` of the decision's request: ``alive`` when
        one of its servers lives in a cell, ``dead`` when none can any
        more, ``unknown`` while one waits for the conductor (no cell yet);
        ``claimed`` when one of them holds allocations. A periodic rule's
        decision has no request: alive.
        """
        if not decision.request:
            return terminator.ALIVE, True
        context = self._context()
        states = {self._state(context, uuid) for uuid in decision.request}
        for state in (terminator.ALIVE, terminator.UNKNOWN):
            if state in states:
                break
        else:
            state = terminator.DEAD
        reader = self.manager.reader
        try:
            claimed = any(reader.holds(context, uuid)
                          for uuid in decision.request)
        except placement.ReadFailed as error:
            LOG.warning('Decision %s waits: %s', decision.id, error)
            return terminator.UNKNOWN, False
        return state, claimed

    def _state(self, context, uuid):
        cell = self._cell(context, uuid)
        if cell is _NOWHERE:
            return terminator.DEAD
        if cell is None:
            return terminator.UNKNOWN
        with nova_context.target_cell(context, cell) as cell_context:
            try:
                server = nova_objects.Instance.get_by_uuid(cell_context,
                                                           uuid)
            except exception.InstanceNotFound:
                return terminator.DEAD
        if server.deleted or server.vm_state == 'error':
            return terminator.DEAD
        return terminator.ALIVE

    @staticmethod
    def _cell(context, uuid):
        """The cell a server lives in; None while it waits for one;
        :data:`_NOWHERE` when it lives in none and never will (its mapping
        gone, or buried in cell0).
        """
        try:
            mapping = nova_objects.InstanceMapping.get_by_instance_uuid(
                context, uuid)
        except exception.InstanceMappingNotFound:
            return _NOWHERE
        cell = mapping.cell_mapping
        if cell is not None and \
                cell.uuid == nova_objects.CellMapping.CELL0_UUID:
            return _NOWHERE
        return cell

    def give_up(self, decision, victims):
        """Give ``victims`` (still there, with their room emptied by the
        decision) their allocations back, and free the claims of the
        request's servers that live in no cell and never will, in one
        atomic write. (A server in a cell is Nova's to clean up.)
        """
        context = self._context()
        reader = self.manager.reader
        payload = {}
        try:
            for uuid in decision.request:
                if self._cell(context, uuid) is not _NOWHERE:
                    continue
                allocations, generation, project, user = reader.consumer(
                    context, uuid)
                if allocations:
                    payload[uuid] = placement.entry(
                        {}, project, user, generation)
            for victim in victims:
                held = victim.consumer or {}
                if not held.get('allocations') or \
                        self._server(context, victim.id) is None:
                    continue
                allocations, generation, _project, _user = reader.consumer(
                    context, victim.id)
                if not allocations:
                    payload[victim.id] = placement.entry(
                        held['allocations'], held.get('project_id'),
                        held.get('user_id'), generation)
            if payload:
                reader.write(context, payload)
        except (placement.ReadFailed, placement.SwapRefused) as error:
            LOG.warning('Decision %s given up, but its room could not be '
                        'given back: %s', decision.id, error)
            return
        if payload:
            LOG.info('Decision %s given up: allocations of %s given back '
                     'or freed.', decision.id, sorted(payload))


def _check_unchanged(server, victim):
    """Raise :class:`~.terminator.Changed` unless ``server`` is on the
    victim's host, with the flavor it had when the decision was journaled.
    """
    held = victim.consumer or {}
    if victim.host and server.host != victim.host:
        raise terminator.Changed('it is on %s now, not %s'
                                 % (server.host, victim.host))
    flavor = held.get('flavor_id')
    if flavor and server.flavor.flavorid != flavor:
        raise terminator.Changed('its flavor is %s now, not %s'
                                 % (server.flavor.flavorid, flavor))
