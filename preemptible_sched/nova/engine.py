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

"""The core's phase engine on Nova's host states, filters and weighers.

Nova's scheduler manager makes every decision that may displace servers
with the engine the standalone scheduler and the simulator use
(:class:`preemptible_sched.scheduler.filter_scheduler.FilterScheduler`): the
same phases (FIT, DISPLACE), the same ranking, seeded draw among the best
``host_subset_size`` and termination selection, one instance after the
other on views that see the earlier ones, all or nothing. Only the plugins
differ: a :class:`Call` hands the engine handlers that run **Nova's**
configured filters and weighers (``[filter_scheduler] enabled_filters``
and ``weight_classes``) on copies of Nova's host states showing the view
the engine asks about (:func:`.host_views.show`).

A :class:`Call` lives for one ``select_destinations`` call: the manager
fills its host manager (core hosts named by their resource provider's
uuid) from Placement and the cell databases, then asks :meth:`Call.decide`.
"""

import numpy

from preemptible_sched.hosts import state as core_host_state
from preemptible_sched.nova import host_views
from preemptible_sched import objects
from preemptible_sched.scheduler import filter_scheduler as core_scheduler
from preemptible_sched.scheduler.weighers import ranking


class Call:
    """One decision on Nova's hosts.

    ``nova_hosts`` is Nova's host manager (its filters and weighers),
    ``spec_obj`` the request spec and ``instance_uuids`` its instances;
    ``strategy``, ``costs`` (a termination cost handler) and ``rng`` are
    the manager's, ``host_subset_size`` Nova's option.
    """

    def __init__(self, nova_hosts, spec_obj, instance_uuids, strategy,
                 costs, rng, host_subset_size):
        self.nova_hosts = nova_hosts
        self.spec_obj = spec_obj
        self.instance_uuids = list(instance_uuids)
        self.engine = core_scheduler.FilterScheduler(
            strategy=strategy, filter_handler=_Filters(self),
            weight_handler=_Weighers(self), cost_handler=costs,
            host_subset_size=host_subset_size, rng=rng)
        #: the core host manager the manager fills
        self.hosts = self.engine.host_manager
        #: core host name -> the Nova HostState it stands for
        self.nova = {}
        group = (spec_obj.instance_group
                 if spec_obj.obj_attr_is_set('instance_group') else None)
        self._group = group
        self._group_hosts = list(group.hosts or ()) if group else []
        #: the Nova hosts of the last ranking, best first (alternates)
        self.ranked = []
        #: the time of the decision
        self.now = None

    def add(self, name, nova_host):
        """``nova_host`` is the core host ``name`` of :attr:`hosts`."""
        self.nova[name] = nova_host

    def decide(self, request, now, pending=None):
        """The engine's :class:`~preemptible_sched.scheduler.filter_scheduler.
        Decision` for ``request`` (the core request of ``spec_obj``).
        """
        self.now = now
        return self.engine.select_destinations(request, now=now,
                                               pending=pending)

    def finish(self):
        """Give ``spec_obj``'s server group its hosts back (Nova's own
        bookkeeping adds the chosen ones, see :meth:`prepare`).
        """
        if self._group is not None:
            self._group.hosts = list(self._group_hosts)
            self._group.obj_reset_changes(['hosts'])

    def nova_host(self, selection):
        """The Nova HostState of a selection."""
        return self.nova[selection.host]

    # -- what Nova's plugins see ------------------------------------------

    def _placed(self):
        """This request's instances the engine has placed so far."""
        where = self.hosts.instance_hosts
        return [uuid for uuid in self.instance_uuids if uuid in where]

    def prepare(self):
        """Make ``spec_obj`` describe the next instance, as Nova's own pass
        does between instances: its uuid, and its server group's hosts with
        those of the instances placed before it. Returns its index.
        """
        placed = self._placed()
        index = len(placed)
        spec_obj = self.spec_obj
        if self.instance_uuids:
            spec_obj.instance_uuid = self.instance_uuids[
                min(index, len(self.instance_uuids) - 1)]
            spec_obj.obj_reset_changes(['instance_uuid'])
        if self._group is not None:
            where = self.hosts.instance_hosts
            self._group.hosts = self._group_hosts + [
                self.nova[where[uuid]].host for uuid in placed]
            self._group.obj_reset_changes(['hosts'])
        return index

    def show(self, view):
        """The copy of a Nova HostState showing the core ``view``."""
        state = view.host
        if isinstance(view, core_host_state.DetachedView):
            hidden = {instance.id for instance in view.removed}
        elif not view.is_full:
            hidden = {uuid for uuid, instance in state.instances.items()
                      if instance.preemptible}
        else:
            hidden = ()
        where = self.hosts.instance_hosts
        added = [uuid for uuid in self.instance_uuids
                 if where.get(uuid) == state.name]
        return host_views.show(self.nova[state.name], view, hidden, added,
                               self.now)


class _Filters:
    """The engine's filter handler: Nova's configured filters."""

    filters = ()

    def __init__(self, call):
        self.call = call

    def filter_batch(self, batch, spec, verdicts=None, context=None):
        call = self.call
        index = call.prepare()
        shown = [call.show(view) for view in batch.views()]
        passed = call.nova_hosts.get_filtered_hosts(shown, call.spec_obj,
                                                    index)
        kept = {id(host) for host in passed}
        mask = numpy.array([id(host) in kept for host in shown], dtype=bool)
        if verdicts is not None and not mask.all():
            verdicts.record('nova', batch, numpy.flatnonzero(~mask))
        return batch.take(mask)


class _Weighers:
    """The engine's weight handler: Nova's configured weighers, whose
    totals (normalised and multiplied as Nova does) rank the hosts.
    """

    weighers = ()

    def __init__(self, call):
        self.call = call

    def rank(self, batch, spec, context=None):
        call = self.call
        call.prepare()
        shown = [call.show(view) for view in batch.views()]
        weighed = (call.nova_hosts.get_weighed_hosts(shown, call.spec_obj)
                   if shown else [])
        weight = {id(item.obj): item.weight for item in weighed}
        call.ranked = [call.nova[host_views.view_of(item.obj).name]
                       for item in weighed]
        return ranking.Ranking.of_totals(
            batch, [weight[id(host)] for host in shown])


def pending(request, now, admitted_at=None):
    """The queue entry of a Nova request: admitted ``admitted_at`` (or now),
    with no account yet.
    """
    return objects.PendingRequest(
        request, submitted_at=now if admitted_at is None else admitted_at,
        sequence=0)
