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

Both views change incrementally: consuming or releasing one instance costs
O(1) and never recounts the host.
"""

import collections

from preemptible_sched.conf import CONF
from preemptible_sched import objects

# Tolerance of resource comparisons: fractional vCPUs summed over many
# consume/release steps must not turn "exactly full" into "overcommitted".
EPSILON = 1e-6


class HostView:
    """Usage of one host as seen by one view (full or normal).

    Filters receive the view the request must be judged on; weighers always
    receive the full view. ``host`` is the :class:`HostState` the view
    belongs to, for static facts such as attributes and aggregates.
    """

    __slots__ = ('host', 'is_full', 'vcpus_used', 'memory_mb_used',
                 'disk_gb_used', 'num_instances')

    def __init__(self, host, is_full):
        self.host = host
        self.is_full = is_full
        self.vcpus_used = 0.0
        self.memory_mb_used = 0.0
        self.disk_gb_used = 0.0
        self.num_instances = 0

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
        return objects.Resources(self.free_vcpus, self.free_memory_mb,
                                 self.free_disk_gb)

    @property
    def used(self):
        return objects.Resources(self.vcpus_used, self.memory_mb_used,
                                 self.disk_gb_used)

    def fits(self, resources):
        """Whether ``resources`` fit in every dimension of this view."""
        capacity = self.host.capacity
        return (self.vcpus_used + resources.vcpus <=
                capacity.vcpus + EPSILON and
                self.memory_mb_used + resources.memory_mb <=
                capacity.memory_mb + EPSILON and
                self.disk_gb_used + resources.disk_gb <=
                capacity.disk_gb + EPSILON)

    def _add(self, resources, sign):
        self.vcpus_used += sign * resources.vcpus
        self.memory_mb_used += sign * resources.memory_mb
        self.disk_gb_used += sign * resources.disk_gb
        self.num_instances += sign

    def __repr__(self):
        return '<HostView %s %s used=%s>' % (
            self.name, 'full' if self.is_full else 'normal', tuple(self.used))


def _unit_cost(instance, host_state, now):
    return 1.0


def _default(value, option):
    return getattr(CONF.compute, option) if value is None else value


class HostState:
    """Mutable state of one host: capacity, instances and the two views.

    ``planner`` answers :meth:`termination_plan`; the scheduler driver
    provides it (it knows the termination costs and the selector).
    """

    def __init__(self, host, planner=None):
        self.name = host.name
        self.host = host
        self.attributes = dict(host.attributes)
        self.aggregates = tuple(host.aggregates)
        self.aggregate_metadata = collections.defaultdict(set)
        for aggregate in self.aggregates:
            for key, value in aggregate.metadata.items():
                self.aggregate_metadata[key].add(value)
        zones = self.aggregate_metadata.get('availability_zone')
        self.availability_zone = (host.availability_zone or
                                  (min(zones) if zones else None) or
                                  CONF.compute.default_availability_zone)
        self.enabled = host.enabled
        self.up = host.up
        self.metrics = dict(host.metrics)
        self.capacity = objects.Resources(
            (host.vcpus - _default(host.reserved_vcpus,
                                   'reserved_host_cpus')) *
            _default(host.cpu_allocation_ratio, 'cpu_allocation_ratio'),
            (host.memory_mb - _default(host.reserved_memory_mb,
                                       'reserved_host_memory_mb')) *
            _default(host.ram_allocation_ratio, 'ram_allocation_ratio'),
            (host.disk_gb - _default(host.reserved_disk_gb,
                                     'reserved_host_disk_gb')) *
            _default(host.disk_allocation_ratio, 'disk_allocation_ratio'))
        self.instances = {}
        #: preemptible instances that may still be chosen as victims
        self.preemptible_instances = {}
        #: victims whose termination is under way: still counted in both
        #: views (their room is reserved for the request that displaced
        #: them), never chosen again; id -> that request's id
        self.terminating = {}
        self.groups = collections.Counter()
        self.full = HostView(self, is_full=True)
        self.normal = HostView(self, is_full=False)
        self.planner = planner
        # Bumped on every change; keys the memo of termination plans.
        self.generation = 0
        self._plan_memo = None
        self._count_memo = None

    def view(self, normal):
        return self.normal if normal else self.full

    def view_without(self, removed):
        """A full view of this host as if ``removed`` were gone.

        A detached copy: the class-based preemption policies filter, fit
        and weigh hosts on it without changing the host.
        """
        view = HostView(self, is_full=True)
        view.vcpus_used = self.full.vcpus_used
        view.memory_mb_used = self.full.memory_mb_used
        view.disk_gb_used = self.full.disk_gb_used
        view.num_instances = self.full.num_instances
        for instance in removed:
            view._add(instance.resources, -1)
        return view

    def consume(self, instance):
        """Account ``instance`` as running here: O(1)."""
        if instance.id in self.instances:
            raise ValueError('instance %s is already on host %s'
                             % (instance.id, self.name))
        self.instances[instance.id] = instance
        self.full._add(instance.resources, 1)
        if instance.preemptible:
            self.preemptible_instances[instance.id] = instance
        else:
            self.normal._add(instance.resources, 1)
        if instance.group:
            self.groups[instance.group] += 1
        self.generation += 1

    def mark_terminating(self, instance_id, request_id):
        """``instance_id`` is a victim of ``request_id`` whose termination
        is under way: it keeps its room (nobody else may take it) and is
        no candidate victim any more.
        """
        self.terminating[instance_id] = request_id
        self.preemptible_instances.pop(instance_id, None)
        self.generation += 1

    def unmark_terminating(self, instance_id):
        """The termination was given up: the instance is an ordinary one
        again.
        """
        if self.terminating.pop(instance_id, None) is None:
            return
        instance = self.instances[instance_id]
        if instance.preemptible:
            self.preemptible_instances[instance_id] = instance
        self.generation += 1

    def displaceable_instances(self):
        """Instances that are not being terminated already."""
        if not self.terminating:
            return self.instances.values()
        return [instance for instance_id, instance in self.instances.items()
                if instance_id not in self.terminating]

    def release(self, instance_id):
        """Forget the instance with ``instance_id``: O(1). Returns it."""
        instance = self.instances.pop(instance_id)
        self.full._add(instance.resources, -1)
        self.terminating.pop(instance_id, None)
        if instance.preemptible:
            self.preemptible_instances.pop(instance_id, None)
        else:
            self.normal._add(instance.resources, -1)
        if instance.group:
            self.groups[instance.group] -= 1
            if not self.groups[instance.group]:
                del self.groups[instance.group]
        self.generation += 1
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
