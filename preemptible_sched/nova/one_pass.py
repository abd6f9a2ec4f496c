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

"""One pass of Nova's scheduler with both views (``mode = one_pass``).

Preemptible flavors consume the preemptible classes of
:mod:`.resource_classes`, so Placement's allocation candidates for a
normal request are the hosts where it fits the normal view, and their
provider summaries carry both classes of every candidate. Within Nova's own
``select_destinations`` pass, :class:`OnePassMixin` replaces three steps of
Nova's ``SchedulerManager`` while a :class:`Call` is under way:

* ``_get_all_host_states`` keeps the provider summaries;
* ``_get_sorted_hosts`` gives each host its core state (from its summary;
  with its servers from the cell database when the request does not fit its
  full view and victims may be chosen there), filters a normal request on
  the normal view and anything else on the full view, weighs on the full
  view, and leaves out the hosts where the request can fit neither way;
* ``_consume_selected_host``, called by Nova right after it claimed the
  request on a host, picks the cheapest victims there (none when the
  request fits the full view) and takes the room in the core state, so the
  next instance of a multi-instance request sees it.

Nova claims the request in Placement as usual: the room of the victims is
the new server's from that moment, while they still hold their preemptible
classes until they are gone. Everything else (request filters, the claim,
alternates, notifications) is Nova's.
"""

import collections
import dataclasses
import random
import threading
import typing

from nova import context as nova_context
from nova import objects as nova_objects
from oslo_log import log as logging

from preemptible_sched.nova import config
from preemptible_sched.nova import host_states
from preemptible_sched import objects

CONF = config.CONF
LOG = logging.getLogger(__name__)


@dataclasses.dataclass
class Choice:
    """Where one instance goes, whom it displaces, and the other hosts in
    the order they were ranked (for alternates).
    """

    instance_uuid: str
    host: typing.Any                # the Nova HostState (a view copy)
    plan: objects.TerminationPlan
    servers: dict                   # victim uuid -> Nova Instance
    ranked: list = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Call:
    """One ``select_destinations`` call on the one-pass path."""

    context: typing.Any
    request: objects.RequestSpec    # the core request
    #: ``() -> bool``: whether victims may be chosen for this request (a
    #: normal new boot); asked only when some host is short of room
    may_displace: typing.Callable
    classes: dict
    planner: typing.Any
    summaries: dict = None
    #: host uuid -> the full view copy of the host in this call
    shown: dict = dataclasses.field(default_factory=dict)
    servers: dict = dataclasses.field(default_factory=dict)
    #: uuids of the hosts whose servers were read
    servers_read: set = dataclasses.field(default_factory=set)
    choices: list = dataclasses.field(default_factory=list)

    @property
    def normal(self):
        return not self.request.preemptible

    def displaces(self):
        """Whether victims may be chosen (asked once)."""
        if not isinstance(self.may_displace, bool):
            self.may_displace = bool(self.may_displace())
        return self.may_displace


_local = threading.local()


def current():
    """The call under way in this thread, or None."""
    return getattr(_local, 'call', None)


class begin:
    """``with one_pass.begin(call):`` runs Nova's pass as ``call``."""

    def __init__(self, call):
        self.call = call

    def __enter__(self):
        _local.call = self.call
        return self.call

    def __exit__(self, *exc_info):
        _local.call = None


class OnePassMixin:
    """The one-pass steps of :class:`.manager.PreemptibleSchedulerManager`.

    Each step is Nova's own unless a :class:`Call` is under way.
    """

    def _get_all_host_states(self, context, spec_obj, provider_summaries):
        call = current()
        if call is not None:
            call.summaries = provider_summaries or {}
        return super()._get_all_host_states(context, spec_obj,
                                            provider_summaries)

    def _get_sorted_hosts(self, spec_obj, host_states_, index):
        call = current()
        if call is None:
            return super()._get_sorted_hosts(spec_obj, host_states_, index)
        hosts = [self._shown(call, host) for host in host_states_]
        return self._rank(call, spec_obj, hosts, index)

    def _consume_selected_host(self, selected_host, spec_obj,
                               instance_uuid=None):
        super()._consume_selected_host(selected_host, spec_obj,
                                       instance_uuid=instance_uuid)
        call = current()
        if call is not None:
            self._take(call, selected_host, instance_uuid)

    # -- the views ----------------------------------------------------------

    def _shown(self, call, host):
        """The full view copy of ``host`` in this call (made once)."""
        uuid = host.uuid
        if uuid not in call.shown:
            summary = call.summaries.get(uuid, {})
            state = host_states.from_summary(host, summary, None,
                                             call.classes, call.planner)
            call.shown[uuid] = host_states.view_copy(host, state,
                                                     normal=False)
        return call.shown[uuid]

    def _with_servers(self, call, hosts):
        """Rebuild the states of ``hosts`` with their servers (one query
        per cell), so their preemptible servers become candidates.
        """
        by_cell = collections.defaultdict(list)
        for host in hosts:
            by_cell[host.cell_uuid].append(host)
        for cell_uuid, members in by_cell.items():
            found = self._servers_on(call.context, cell_uuid,
                                     sorted({h.host for h in members}))
            for host in members:
                servers = {uuid: server for uuid, server in found.items()
                           if server.node == host.nodename and
                           server.host == host.host}
                call.servers.update(servers)
                state = host_states.from_summary(
                    host, call.summaries.get(host.uuid, {}), servers,
                    call.classes, call.planner)
                host_states.show(host, state, normal=False)

    def _servers_on(self, context, cell_uuid, host_names):
        cell = self.host_manager.cells.get(cell_uuid)
        if cell is None:
            return {}
        with nova_context.target_cell(context, cell) as cell_context:
            servers = nova_objects.InstanceList.get_by_filters(
                cell_context, {'host': host_names, 'deleted': False},
                expected_attrs=['flavor', 'metadata', 'system_metadata'])
        return {server.uuid: server for server in servers}

    # -- the ranking --------------------------------------------------------

    def _rank(self, call, spec_obj, hosts, index):
        resources = call.request.resources
        short = [h for h in hosts if not _state(h).full.fits(resources)]
        if not call.normal or not short or not call.displaces():
            # Nothing to displace: the full view, as Nova would.
            fitting = [h for h in hosts if _state(h).full.fits(resources)]
            passed = self.host_manager.get_filtered_hosts(fitting, spec_obj,
                                                          index)
            return self._order(self.host_manager.get_weighed_hosts(
                passed, spec_obj) if passed else [])
        short = [h for h in short if h.uuid not in call.servers_read]
        if short:
            self._with_servers(call, short)
            call.servers_read.update(h.uuid for h in short)
        fitting = [h for h in hosts if _state(h).normal.fits(resources)]
        shown = [host_states.view_copy(h, _state(h), normal=True)
                 for h in fitting]
        by_uuid = {h.uuid: h for h in fitting}
        passed = self.host_manager.get_filtered_hosts(shown, spec_obj, index)
        full = [by_uuid[h.uuid] for h in passed]
        now = call.planner.now
        full = [h for h in full
                if _state(h).termination_plan(resources, now) is not None]
        if not full:
            return []
        return self._order(self.host_manager.get_weighed_hosts(full,
                                                               spec_obj))

    @staticmethod
    def _order(weighed):
        """Nova's order: the best first, drawn among the best
        ``host_subset_size``.
        """
        ranked = [item.obj for item in weighed]
        if not ranked:
            return []
        first = random.choice(ranked[:CONF.filter_scheduler.host_subset_size])
        ranked.remove(first)
        return [first] + ranked

    def _take(self, call, host, instance_uuid):
        """Nova claimed ``instance_uuid`` on ``host``: its victims there."""
        state = _state(host)
        resources = call.request.resources
        plan = state.termination_plan(resources, call.planner.now)
        if plan is None:    # not ranked so: Nova claimed what we left out
            plan = objects.TerminationPlan(state.name)
            LOG.warning('Instance %s was claimed on %s, where it fits '
                        'neither view.', instance_uuid, host.nodename)
        for victim in plan.victims:
            state.release(victim.id)
        state.consume(objects.Instance(instance_uuid, resources,
                                       started_at=call.planner.now))
        host_states.show(host, state, normal=False)
        call.choices.append(Choice(
            instance_uuid, host, plan,
            {victim.id: call.servers[victim.id] for victim in plan.victims}))


def _state(host):
    return getattr(host, host_states.STATE_ATTR)
