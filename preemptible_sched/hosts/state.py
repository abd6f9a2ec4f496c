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

"""Host states with two views: all instances, and only the normal ones.

The *full view* counts every instance on the host; the *normal view* counts
only the non-preemptible ones, i.e. what the host would carry if every
preemptible instance were terminated. A normal request that fits the normal
view can always be placed there by terminating preemptible instances.

The figures live in the rows of a
:class:`~preemptible_sched.hosts.table.HostTable` (both views change in
O(1) per instance and never recount the host); a :class:`HostState` is the
object view of one row, with the host's instances, for the code and the
plugins that look at one host at a time.
"""

from preemptible_sched.hosts import table as host_table
from preemptible_sched import objects

EPSILON = host_table.EPSILON


class BaseHostView:
    """Usage of one host as seen by one view (full or normal).

    Filters receive the view the request must be judged on; weighers always
    receive the full view. ``host`` is the :class:`HostState` the view
    belongs to, for static facts such as attributes and aggregates.
    Subclasses provide ``vcpus_used``, ``memory_mb_used``, ``disk_gb_used``
    and ``num_instances``.
    """

    __slots__ = ('host', 'is_full')

    def __init__(self, host, is_full):
        self.host = host
        self.is_full = is_full

    @property
    def name(self):
        return self.host.name

    @property
    def free_vcpus(self):
        return self.host.capacity.vcpus - self.vcpus_used

    @property
    def free_memory_mb(self):
        return self.host.capacity.memory_mb - self.memory_mb_used

    @property
    def free_disk_gb(self):
        return self.host.capacity.disk_gb - self.disk_gb_used

    @property
    def free(self):
        capacity = self.host.capacity
        used = self.used
        return objects.Resources(capacity.vcpus - used.vcpus,
                                 capacity.memory_mb - used.memory_mb,
                                 capacity.disk_gb - used.disk_gb)

    @property
    def used(self):
        return objects.Resources(self.vcpus_used, self.memory_mb_used,
                                 self.disk_gb_used)

    def fits(self, resources):
        """Whether ``resources`` fit in every dimension of this view."""
        capacity = self.host.capacity
        used = self.used
        return (used.vcpus + resources.vcpus <=
                capacity.vcpus + EPSILON and
                used.memory_mb + resources.memory_mb <=
                capacity.memory_mb + EPSILON and
                used.disk_gb + resources.disk_gb <=
                capacity.disk_gb + EPSILON)

    def __repr__(self):
        return '<HostView %s %s used=%s>' % (
            self.name, 'full' if self.is_full else 'normal', tuple(self.used))


class HostView(BaseHostView):
    """A live view: reads the host's row of the table."""

    __slots__ = ()

    def _row(self):
        host = self.host
        table = host.table
        used, count = table.usage(self.is_full)
        return used[:, host.slot], count[host.slot]

    @property
    def used(self):
        used, _ = self._row()
        return objects.Resources(*used.tolist())

    vcpus_used = property(lambda self: self.used.vcpus)
    memory_mb_used = property(lambda self: self.used.memory_mb)
    disk_gb_used = property(lambda self: self.used.disk_gb)

    @property
    def num_instances(self):
        return int(self._row()[1])

    @num_instances.setter
    def num_instances(self, count):
        # For adapters that know the count but not every instance.
        host = self.host
        host.table.usage(self.is_full)[1][host.slot] = count


class DetachedView(BaseHostView):
    """A view with figures of its own: the host as it would be after a
    change that has not been made (see :meth:`HostState.view_without`).
    """

    __slots__ = ('vcpus_used', 'memory_mb_used', 'disk_gb_used',
                 'num_instances', 'removed')

    def __init__(self, host, used, num_instances):
        super().__init__(host, True)
        self.vcpus_used, self.memory_mb_used, self.disk_gb_used = used
        self.num_instances = num_instances
        #: the instances this view leaves out
        self.removed = ()

    def _remove(self, resources):
        self.vcpus_used -= resources.vcpus
        self.memory_mb_used -= resources.memory_mb
        self.disk_gb_used -= resources.disk_gb
        self.num_instances -= 1


class HostState:
    """One host: its row of the table, its instances and the two views.

    Built by the host manager for a registered host, or alone (``host``
    and ``planner``: a table of one host is made for it, as the Nova
    adapter and tests do). ``planner`` answers :meth:`termination_plan`;
    the scheduler driver provides it.
    """

    __slots__ = ('table', 'slot', 'name', 'instances',
                 'preemptible_instances', 'terminating', 'groups', 'full',
                 'normal', '_plan_memo', '_count_memo')

    def __init__(self, host=None, planner=None, table=None, slot=None):
        if table is None:
            table = host_table.HostTable(planner, keep_hosts=True)
            slot = table.register(host)
        self.table = table
        self.slot = slot
        self.name = table.names[slot]
        self.instances = {}
        #: preemptible instances that may still be chosen as victims
        self.preemptible_instances = {}
        #: victims whose termination is under way: still counted in both
        #: views (their room is reserved for the request that displaced
        #: them), never chosen again; id -> that request's id
        self.terminating = {}
        self.groups = {}
        self.full = HostView(self, True)
        self.normal = HostView(self, False)
        self._plan_memo = None
        self._count_memo = None
        table.states[slot] = self

    @classmethod
    def of(cls, table, slot):
        """The state of ``slot`` in ``table``, built on first use."""
        state = table.states.get(slot)
        return cls(table=table, slot=slot) if state is None else state

    # Static facts, shared with the hosts of the same profile.
    profile = property(lambda self: self.table.profiles[
        self.table.profile[self.slot]])
    attributes = property(lambda self: self.profile.attributes)
    aggregates = property(lambda self: self.profile.aggregates)
    aggregate_metadata = property(
        lambda self: self.profile.aggregate_metadata)
    availability_zone = property(lambda self: self.profile.availability_zone)
    metrics = property(lambda self: self.table.metrics.get(self.slot, {}))
    planner = property(lambda self: self.table.planner)

    @property
    def host(self):
        """The :class:`~preemptible_sched.objects.Host` this state was
        built from (states built alone only).
        """
        if self.table.hosts is None:
            raise AttributeError('host')
        return self.table.hosts[self.slot]

    @property
    def capacity(self):
        return objects.Resources(
            *self.table.capacity[:, self.slot].tolist())

    @property
    def enabled(self):
        return bool(self.table.enabled[self.slot])

    @property
    def up(self):
        return bool(self.table.up[self.slot])

    @up.setter
    def up(self, up):
        self.table.up[self.slot] = up
        self.table.touch(self.slot)

    @property
    def generation(self):
        """Bumped on every change of the host; keys the plan memos."""
        return int(self.table.generation[self.slot])

    def view(self, normal):
        return self.normal if normal else self.full

    def view_without(self, removed):
        """A full view of this host as if ``removed`` were gone.

        A detached copy: the class-based preemption policies filter, fit
        and weigh hosts on it without changing the host.
        """
        view = DetachedView(self, self.full.used, self.full.num_instances)
        for instance in removed:
            view._remove(instance.resources)
        view.removed = removed
        return view

    def consume(self, instance):
        """Account ``instance`` as running here: O(1)."""
        if instance.id in self.instances:
            raise ValueError('instance %s is already on host %s'
                             % (instance.id, self.name))
        self.instances[instance.id] = instance
        self.table.add(self.slot, instance)
        if instance.preemptible:
            self.preemptible_instances[instance.id] = instance
        if instance.group:
            self.groups[instance.group] = \
                self.groups.get(instance.group, 0) + 1

    def mark_terminating(self, instance_id, request_id):
        """``instance_id`` is a victim of ``request_id`` whose termination
        is under way: it keeps its room (nobody else may take it) and is
        no candidate victim any more.
        """
        self.terminating[instance_id] = request_id
        self.preemptible_instances.pop(instance_id, None)
        self.table.withdraw(self.slot, instance_id)

    def unmark_terminating(self, instance_id):
        """The termination was given up: the instance is an ordinary one
        again.
        """
        if self.terminating.pop(instance_id, None) is None:
            return
        instance = self.instances[instance_id]
        if instance.preemptible:
            self.preemptible_instances[instance_id] = instance
            self.table.offer(self.slot, instance)
        else:
            self.table.touch(self.slot)

    def mark_started(self, instance_id, at):
        instance = self.instances[instance_id]
        instance.started_at = at
        instance.running_since = at
        self.table.victims.set_started(instance_id, at)
        self.table.touch(self.slot)

    def displaceable_instances(self):
        """Instances that are not being terminated already."""
        if not self.terminating:
            return self.instances.values()
        return [instance for instance_id, instance in self.instances.items()
                if instance_id not in self.terminating]

    def release(self, instance_id):
        """Forget the instance with ``instance_id``: O(1). Returns it."""
        instance = self.instances.pop(instance_id)
        self.terminating.pop(instance_id, None)
        self.preemptible_instances.pop(instance_id, None)
        self.table.remove(self.slot, instance)
        if instance.group:
            left = self.groups[instance.group] - 1
            if left:
                self.groups[instance.group] = left
            else:
                del self.groups[instance.group]
        return instance

    def termination_plan(self, resources, now):
        """Cheapest preemptible instances to terminate so ``resources`` fit.

        Returns an empty plan when they already fit the full view and None
        when they cannot fit even with every preemptible instance gone.
        Run times are measured to ``now``. The answer is memoised until the
        host or the time changes, so weighers and the driver may both ask
        for it within one pass.
        """
        key = (resources, self.generation, now)
        if self._plan_memo is not None and self._plan_memo[0] == key:
            return self._plan_memo[1]
        if self.full.fits(resources):
            plan = objects.TerminationPlan(self.name)
        else:
            plan = self.planner.plan(self, resources, now)
        self._plan_memo = (key, plan)
        return plan

    def termination_count(self, resources, now):
        """Fewest preemptible instances to terminate so ``resources`` fit.

        0 when they fit the full view already, None when they cannot fit
        even with every preemptible instance gone. Memoised like
        :meth:`termination_plan`.
        """
        key = (resources, self.generation, now)
        if self._count_memo is not None and self._count_memo[0] == key:
            return self._count_memo[1]
        if self.full.fits(resources):
            count = 0
        else:
            plan = self.planner.plan(self, resources, now, cost=_unit_cost)
            count = None if plan is None else len(plan.victims)
        self._count_memo = (key, count)
        return count

    def __repr__(self):
        return '<HostState %s full=%s normal=%s>' % (
            self.name, tuple(self.full.used), tuple(self.normal.used))


def _unit_cost(instance, host_state, now):
    return 1.0
