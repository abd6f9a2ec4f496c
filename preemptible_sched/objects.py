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

"""Plain data the scheduler reasons about: flavors, instances, requests, hosts.

Nothing here does I/O or reads a clock. Units everywhere: vCPUs as floats
(fractional CPUs are allowed, as in Kubernetes), memory in MB, disk in GB,
time in seconds on the clock the caller uses.
"""

import contextlib
import dataclasses
import typing


class Resources(typing.NamedTuple):
    """An amount of the three resources the scheduler accounts for."""

    vcpus: float = 0.0
    memory_mb: float = 0.0
    disk_gb: float = 0.0

    def __add__(self, other):
        return Resources(self.vcpus + other.vcpus,
                         self.memory_mb + other.memory_mb,
                         self.disk_gb + other.disk_gb)

    def __sub__(self, other):
        return Resources(self.vcpus - other.vcpus,
                         self.memory_mb - other.memory_mb,
                         self.disk_gb - other.disk_gb)


@dataclasses.dataclass(frozen=True)
class Flavor:
    name: str
    vcpus: float
    memory_mb: float
    disk_gb: float = 0.0

    @property
    def resources(self):
        return Resources(self.vcpus, self.memory_mb, self.disk_gb)


#: OpenStack's default flavors at the time of the evaluation (the testbed
#: and ``preemptible-sched submit --flavor``).
FLAVORS = {
    'small': Flavor('small', 1, 2000, 20),
    'medium': Flavor('medium', 2, 4000, 40),
    'large': Flavor('large', 4, 8000, 80),
}


@dataclasses.dataclass(eq=False)
class Instance:
    """One instance, placed or to be placed.

    ``started_at`` is when it started running on the caller's clock; the
    run time at ``now`` is ``now - started_at``. ``priority`` is the
    importance the ``priority`` termination cost uses (higher is more
    valuable). ``group`` names the server group it belongs to, if any.

    The QoS account (see :mod:`preemptible_sched.service_classes.qos`):
    ``admitted_at`` is when its request was first submitted, ``running_s`` and
    ``overhead_s`` the running time and allocation overhead accumulated before
    the current run, and ``running_since`` when the current run began (None
    while it is not running yet, e.g. booting).

    ``boot`` names one spawn of the instance (the scheduler's decision id):
    the compute side reports it back with every event of that boot, so a
    late report of an earlier boot is told from one of the current boot.
    """

    id: str
    resources: Resources
    preemptible: bool = False
    started_at: float = 0.0
    flavor: typing.Optional[str] = None
    service_class: typing.Optional[str] = None
    priority: float = 0.0
    group: typing.Optional[str] = None
    admitted_at: typing.Optional[float] = None
    running_s: float = 0.0
    overhead_s: float = 0.0
    running_since: typing.Optional[float] = None
    boot: typing.Optional[int] = None
    #: expected CPU use in cores, for load prediction (None: its vCPUs)
    expected_vcpus: typing.Optional[float] = None
    #: when the scheduler placed it (None: ``started_at``); the load
    #: metrics of its host may not show it for a while after
    placed_at: typing.Optional[float] = None
    #: its owner's wish to be terminated later (> 0) or sooner (< 0), in
    #: [-1000, 1000] (the ``cost_hint`` termination cost reads it)
    cost_hint: float = 0.0

    def runtime(self, now):
        return max(0.0, now - self.started_at)

    def __repr__(self):
        kind = 'preemptible' if self.preemptible else 'normal'
        return '<Instance %s %s %s>' % (self.id, kind, tuple(self.resources))


@dataclasses.dataclass
class InstanceReport:
    """An instance as the compute side sees it (``list_instances``), or
    as it remembers it finishing (``finished_instances``); see
    :class:`preemptible_sched.compute.ComputeDriver`.
    """

    id: str
    # 'building' | 'running'; finished: compute.FINISHED_STATES
    state: str
    started_at: typing.Optional[float] = None
    cpu_utilization: float = 0.0    # share of the instance's vCPUs, 0..1
    #: the ``boot`` of the spawn it is about, when the driver knows it
    boot: typing.Optional[int] = None
    #: when it finished, and why (finished instances only)
    ended_at: typing.Optional[float] = None
    reason: typing.Optional[str] = None


@dataclasses.dataclass(frozen=True)
class Aggregate:
    """A host aggregate: a name and metadata (key=value strings).

    Metadata may override weigher multipliers (key
    ``<name>_weight_multiplier``) and carries ``availability_zone`` and
    attributes matched by filters.
    """

    name: str
    metadata: typing.Mapping[str, str] = dataclasses.field(
        default_factory=dict)


@dataclasses.dataclass
class Host:
    """A compute host as reported by its compute driver.

    Capacities are raw; allocation ratios and reserved amounts left as
    ``None`` take the ``[compute]`` defaults when the host state is built.
    ``cpu_mhz`` is the speed of its cores, when known: the fake driver
    scales a workload's run times (given for ``[fake_driver]
    reference_cpu_mhz``) by it.
    """

    name: str
    vcpus: float
    memory_mb: float
    disk_gb: float = 0.0
    attributes: typing.Mapping[str, str] = dataclasses.field(
        default_factory=dict)
    aggregates: typing.Sequence[Aggregate] = ()
    availability_zone: typing.Optional[str] = None
    enabled: bool = True
    up: bool = True
    cpu_allocation_ratio: typing.Optional[float] = None
    ram_allocation_ratio: typing.Optional[float] = None
    disk_allocation_ratio: typing.Optional[float] = None
    reserved_vcpus: typing.Optional[float] = None
    reserved_memory_mb: typing.Optional[float] = None
    reserved_disk_gb: typing.Optional[float] = None
    metrics: typing.Mapping[str, typing.Any] = dataclasses.field(
        default_factory=dict)
    cpu_mhz: typing.Optional[float] = None


#: The levels of an SLA service, best first.
SLA_LEVELS = ('premium', 'advanced', 'best_effort')

#: The four SLA services a request carries a level of.
SLA_SERVICES = ('satisfaction_time', 'reputation', 'resources', 'replicas')


class SLALevels(typing.NamedTuple):
    """The level (one of :data:`SLA_LEVELS`) of each SLA service of a
    request: how soon it is served, the reputation of the hosts it runs
    on, how many cores it gets and how many copies of it run.
    """

    satisfaction_time: str = 'best_effort'
    reputation: str = 'best_effort'
    resources: str = 'best_effort'
    replicas: str = 'best_effort'


@dataclasses.dataclass(frozen=True)
class RequestSpec:
    """A request for ``num_instances`` identical instances.

    ``constraints`` are ``key=value`` pairs a host must carry as an
    attribute or aggregate metadata. ``group``/``group_policy`` name a
    server group with policy ``affinity`` or ``anti-affinity``;
    ``group_hosts`` is filled by the scheduler with the hosts that already
    hold a member of the group.

    ``sla`` (:class:`SLALevels`), when set, makes it an SLA request (see
    :mod:`preemptible_sched.service_classes.sla`). ``sequential_s`` makes it
    moldable: its cores are sized when it is scheduled and it runs
    ``sequential_s / cores``; ``sized`` says that was done. ``user`` names who
    submitted it, for the accounts.
    """

    id: str
    resources: Resources
    preemptible: bool = False
    num_instances: int = 1
    flavor: typing.Optional[str] = None
    constraints: typing.Mapping[str, str] = dataclasses.field(
        default_factory=dict)
    availability_zone: typing.Optional[str] = None
    group: typing.Optional[str] = None
    group_policy: typing.Optional[str] = None
    group_hosts: typing.FrozenSet[str] = frozenset()
    service_class: typing.Optional[str] = None
    priority: float = 0.0
    instance_ids: typing.Sequence[str] = ()
    #: expected CPU use of each instance in cores (load prediction)
    expected_vcpus: typing.Optional[float] = None
    sla: typing.Optional[SLALevels] = None
    sequential_s: typing.Optional[float] = None
    sized: bool = False
    user: typing.Optional[str] = None

    @property
    def moldable(self):
        """Whether its cores are still to be sized (see ``sequential_s``)."""
        return self.sequential_s is not None and not self.sized

    def instance_id(self, index):
        """The id of the ``index``-th instance this request creates."""
        if index < len(self.instance_ids):
            return self.instance_ids[index]
        if self.num_instances == 1:
            return self.id
        return '%s-%d' % (self.id, index)

    def new_instance(self, index, started_at):
        return Instance(id=self.instance_id(index),
                        resources=self.resources,
                        preemptible=self.preemptible,
                        started_at=started_at,
                        flavor=self.flavor,
                        service_class=self.service_class,
                        priority=self.priority,
                        group=self.group,
                        expected_vcpus=self.expected_vcpus,
                        placed_at=started_at)


@dataclasses.dataclass
class PendingRequest:
    """A request waiting in the queue, with what policies may look at.

    ``submitted_at`` is when it was first submitted (a requeued instance
    keeps its request's); ``sequence`` orders entries admitted at the
    same time. ``running_s`` and ``overhead_s`` are the running time and
    allocation overhead an instance accumulated before it was displaced
    and queued again (its QoS account). ``depends_on`` names the requests
    (workflow tasks) that must have ended before this one may be placed
    (stage T1); ``admitted_at`` is the time of the pass that admitted it
    (its recorded submit time when passes run on a quantum).
    """

    spec: RequestSpec
    submitted_at: float
    sequence: int
    duration: typing.Optional[float] = None
    attempts: int = 0
    running_s: float = 0.0
    overhead_s: float = 0.0
    #: why it is back in the queue (a failed spawn, a rollback), if it is
    reason: typing.Optional[str] = None
    #: an instance displaced for another request: it waits for room
    #: whatever ``[scheduler] on_no_valid_host`` says
    preempted: bool = False
    depends_on: typing.Tuple[str, ...] = ()
    admitted_at: typing.Optional[float] = None
    #: the part of ``duration`` (reference seconds) done before it was
    #: displaced, which ``running_s`` (host seconds) is not on a host of
    #: another speed; None: ``running_s``
    work_s: typing.Optional[float] = None

    @property
    def id(self):
        return self.spec.id

    @property
    def remaining_s(self):
        """The run time (reference seconds) still to run; None without a
        duration.
        """
        if self.duration is None:
            return None
        done = self.running_s if self.work_s is None else self.work_s
        return max(0.0, self.duration - done)


@dataclasses.dataclass(frozen=True)
class TerminationPlan:
    """Instances to displace on one host, and what each costs.

    ``costs`` holds the cost of each victim, in the order of ``victims``;
    ``reason`` says in a few words why the strategy chose them.
    """

    host: str
    victims: typing.Tuple[Instance, ...] = ()
    costs: typing.Tuple[float, ...] = ()
    reason: typing.Optional[str] = None

    @property
    def cost(self):
        return sum(self.costs)

    @property
    def victim_ids(self):
        return [victim.id for victim in self.victims]


def _no_stopwatch(stage, size=0):
    return contextlib.nullcontext()


@dataclasses.dataclass(frozen=True)
class PassContext:
    """What one scheduling pass shares with every decision it makes.

    ``now`` is the time of the pass on the caller's clock (run times and
    costs are measured to it); ``stopwatch(stage, size)`` returns a
    context manager that times one stage of the pass (see
    :mod:`preemptible_sched.loop.timing`); ``load`` is the hosts'
    measured load the pass reads (a
    :class:`~preemptible_sched.hosts.load.LoadSnapshot`), None where no
    load watcher feeds the scheduler: the load-aware weighers then rank by
    best fit and the load filter passes every host.
    """

    now: float = 0.0
    stopwatch: typing.Callable = _no_stopwatch
    load: typing.Any = None
