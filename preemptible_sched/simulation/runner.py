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

"""One simulation: a workload replayed through the real scheduler loop.

The production code runs unchanged: the :class:`SchedulerLoop` with the
configured filter scheduler, queue and preemption policies, the fake compute
driver (boot times drawn from its hot and cold sets) and a store, all under
a :class:`VirtualClock`. The store is the simulator's
:class:`~preemptible_sched.db.memory.MemoryStore`: the loop reads and
writes its state in memory, with the checks and refusals of the service's
store, and no database behind it (a ``store_factory`` of a memory store on
a database URL writes the journal too, in batches: the same rows as the
service's synchronous store would hold). Each workload
item is submitted at its ``submit_s``; the run ends at ``until`` (or, with
no ``until``, once every request has ended or failed).

A *policy* (``--policy``) is a preemption strategy name
(``[scheduler] preemption_strategy``): the strategy brings its own queue
policy, weighers and victim action unless the configuration sets them
(see :mod:`preemptible_sched.scheduler.preemption_strategies`). The deprecated
preset names ``billing`` (now ``dual_state``) and ``none`` (now ``plain``)
still work. Every run waits for room (``on_no_valid_host = wait``): a trace
request is never dropped. Without a policy the configuration is used as it is.

Workflow tasks (items with ``depends_on``) are submitted with their
dependencies: the loop places a task once those have ended (stage T1).
When the workload has workflows, the result carries the workflow metrics
of :mod:`.workflows` and one row per job.

A run that could not end is refused up front (:func:`check_run`): ``until``
must be finite, within ``0..limits.MAX_TIME``, and is required when a
request has no duration (it would run, and the clock with it, for ever).
"""

import dataclasses
import gc
import typing

from preemptible_sched import clock as clock_mod
from preemptible_sched.compute import fake
from preemptible_sched.conf import checks
from preemptible_sched.conf import CONF
from preemptible_sched.db import memory
from preemptible_sched import exception
from preemptible_sched import input_limits as limits
from preemptible_sched.loadwatcher import provider
from preemptible_sched.loop import scheduler_loop
from preemptible_sched import objects
from preemptible_sched.service_classes import qos
from preemptible_sched.service_classes import sla_prices as prices
from preemptible_sched.simulation import metrics
from preemptible_sched.simulation import sla_accounts
from preemptible_sched.simulation import workflows

#: The strategies ``--policy`` takes, and the old preset names.
POLICIES = ('dual_state', 'retry', 'plain', 'qos', 'priority')
ALIASES = {'billing': 'dual_state', 'none': 'plain'}

FINISHED = ('ended', 'terminated', 'error', 'deleted')


def strategy_of(name):
    """The strategy a ``--policy`` name stands for (ValueError if none)."""
    name = ALIASES.get(name, name)
    if name not in POLICIES:
        raise ValueError('unknown policy %r (valid: %s)'
                         % (name, ', '.join(POLICIES)))
    return name


def check_run(items, until, source='--until'):
    """``until`` as a float (or None) if a run of ``items`` can end.

    ``until`` must be a finite number within ``0..limits.MAX_TIME``; it is
    required when any item has no duration. Raises InvalidInput naming
    ``source`` otherwise.
    """
    if until is not None:
        until = limits.finite_number(until, source, None, minimum=0,
                                     maximum=limits.MAX_TIME)
        return until
    open_ended = [item.id for item in items if item.duration_s is None and
                  item.sequential_s is None]
    if open_ended:
        raise exception.InvalidInput(
            source, None, 'required: %d request(s) have no duration and '
            'would run for ever (first: %s)' % (
                len(open_ended), limits.one_line(repr(open_ended[0]), 80)))
    return None


def apply_policy(name, conf=CONF):
    """Override the options of policy ``name``; returns what it set."""
    overrides = {('scheduler', 'preemption_strategy'): strategy_of(name),
                 ('scheduler', 'on_no_valid_host'): 'wait'}
    for (group, option), value in overrides.items():
        conf.set_override(option, value, group=group)
    return overrides


def clear_policy(overrides, conf=CONF):
    for group, option in overrides:
        conf.clear_override(option, group=group)


@dataclasses.dataclass
class Result:
    """What a run produced, for the reports."""

    policy: str
    until: float
    records: list
    slos: dict
    preemptions: int
    terminations: int
    latencies_s: list
    stage_time_ms: dict
    stage_rows: list
    utilisation: list
    events: int
    hosts: int
    normal_acceptance: typing.Optional[float]
    never_placed: int
    preemptible_cpu_hours_lost: float
    #: one sla_accounts.Priced per SLA request
    invoices: list = dataclasses.field(default_factory=list)
    #: :func:`workflows.workflow_metrics` of a workload with workflows
    workflow_metrics: typing.Optional[dict] = None
    jobs: typing.Sequence[dict] = ()


def memory_store():
    """The store of a run: in memory, without a database (nothing reads a
    run's journal; give :class:`Simulation` a ``store_factory`` of a
    :class:`~preemptible_sched.db.memory.MemoryStore` on a database URL to
    have it written, in batches).
    """
    return memory.MemoryStore()


#: The garbage collector's threshold for its youngest generation during a
#: run. A run makes hundreds of thousands of objects that live until it
#: ends (rows, queue entries, clock events); at Python's default (700 new
#: objects) the collector went through the young ones so often that it
#: took some 8 % of a replay's CPU (the Askalon trace). Restored after.
YOUNG_OBJECTS = 100000


class Simulation:
    """Replay ``items`` (WorkloadItems) on ``hosts`` (objects.Host).

    ``on_event`` (optional) is called with the number of workload items
    submitted so far, for a progress bar; ``on_sample`` (optional) with
    the simulation and the time at every utilisation sample.
    ``store_factory`` (optional) makes the empty store of the run
    (:func:`memory_store` by default).
    """

    def __init__(self, items, hosts, until=None, seed=0, policy=None,
                 sample_interval=None, on_event=None,
                 store_factory=None, on_sample=None):
        self.items = list(items)
        self.hosts = list(hosts)
        self.until = check_run(self.items, until)
        self.seed = seed
        self.policy = policy
        self.sample_interval = sample_interval
        self.on_event = on_event
        self.store_factory = store_factory or memory_store
        #: called with (simulation, now) at every utilisation sample, for
        #: experiments that measure more (the hosts' real load)
        self.on_sample = on_sample
        self.events = 0
        self.submitted = 0
        self.utilisation = []
        self._sampled = None

    def run(self):
        overrides = apply_policy(self.policy) if self.policy else {}
        # The run's seed seeds every plugin that draws (the random queue
        # policy reads it when the loop loads it).
        CONF.set_override('random_seed', self.seed, group='scheduler')
        overrides[('scheduler', 'random_seed')] = self.seed
        collector = gc.get_threshold()
        gc.set_threshold(YOUNG_OBJECTS, *collector[1:])
        try:
            checks.require_valid(CONF)
            return self._run()
        finally:
            gc.set_threshold(*collector)
            clear_policy(overrides)

    def _run(self):
        classes = qos.Classes()
        self.clock = clock_mod.VirtualClock()
        self.driver = fake.FakeDriver(self.clock, hosts=self.hosts,
                                      seed=self.seed)
        self.store = self.store_factory()
        self.store.upgrade()
        self.loop = scheduler_loop.SchedulerLoop(self.clock, self.driver,
                                                 self.store)
        self.loop.scheduler.rng.seed(self.seed)
        self._admitted = {}
        self.loop.decision_observers.append(self._placed)
        self.watcher = None
        if provider.reads_load(self.loop.scheduler):
            # The load-aware plugins read a watcher collecting from the
            # fake driver on the virtual clock: its scrape interval and
            # window refresh are the lag of the metrics, as in service.
            self.loop.load_provider, self.watcher = provider.in_process(
                self.driver)
            self.watcher.start(self.clock)
        self.loop.start()
        for item in self.items:
            self.clock.call_at(item.submit_s, self._submit, item,
                               priority=clock_mod.URGENT)
        last_submit = self.items[-1].submit_s if self.items else 0.0
        interval = self.sample_interval or max(
            CONF.scheduler.watchdog_interval,
            ((self.until or last_submit) or 1.0) / 500.0)
        self._sample(interval)
        self._drive()
        end = self.clock.now() if self.until is None else self.until
        self.loop.stop()
        if self.watcher is not None:
            self.watcher.stop()
        self.store.flush()
        rows = self.store.list_instances()
        normal = [row for row in rows if not row.preemptible]
        records, invoices = sla_accounts.records(
            self._records(end), {item.id: item for item in self.items},
            prices.load(CONF.sla.price))
        flow, jobs = self._workflow_metrics(rows)
        return Result(
            workflow_metrics=flow, jobs=jobs,
            policy=self.policy or self.loop.scheduler.strategy.name,
            until=end, records=records, invoices=invoices,
            slos={cls.name: cls.slo for cls in classes},
            preemptions=sum(row.preemptions for row in rows),
            terminations=len([row for row in rows
                              if row.state == 'terminated']),
            latencies_s=list(self.loop.stats.decisions),
            stage_time_ms=self.loop.stats.summary_ms(),
            stage_rows=self.loop.stats.rows(),
            utilisation=self.utilisation, events=self.events,
            hosts=len(self.hosts),
            never_placed=len([row for row in rows if row.state == 'pending' and
                              not row.running_s]),
            # Placed at least once (a normal request that waits forever is
            # the one the spot semantics must avoid).
            normal_acceptance=(
                sum(1 for row in normal if row.running_s > 0 or
                    row.started_at is not None) / len(normal)
                if normal else None),
            # Work of terminated preemptible instances, thrown away.
            preemptible_cpu_hours_lost=sum(
                row.vcpus * row.running_s for row in rows
                if row.preemptible and row.state == 'terminated') / 3600.0)

    def _drive(self):
        clock = self.clock
        while clock.step(self.until):
            self.events += 1
            if self.until is None and self.submitted == len(self.items) \
                    and self._all_done():
                break
        if self.until is not None:
            clock.run(self.until)

    def _all_done(self):
        """Nothing runs and no pass is due (``until`` not given).

        Requests still pending then never will be placed: they do not
        fit even the empty cloud. They are reported as never run
        (``never_placed`` in the summary) instead of running the clock
        forever.
        """
        return (not self.loop.host_manager.instance_hosts and
                self.loop._pass_handle is None)

    def _submit(self, item):
        spec = objects.RequestSpec(
            id=item.id, resources=item.resources,
            preemptible=item.preemptible, constraints=item.constraints,
            service_class=item.service_class,
            priority=0.0, sla=item.sla, sequential_s=item.sequential_s,
            user=item.user, expected_vcpus=item.expected_vcpus)
        self.loop.submit(spec, duration=item.duration_s,
                         depends_on=item.depends_on)
        self.submitted += 1
        if self.on_event is not None:
            self.on_event(self.submitted)

    def _placed(self, entry, decision, now):
        # The pass that first admitted the request: its recorded submit.
        self._admitted.setdefault(entry.id, entry.admitted_at)

    def _workflow_metrics(self, rows):
        """(summary, job rows) when the workload has workflows, else
        (None, []).
        """
        tasks = [item for item in self.items if item.workflow is not None]
        if not tasks:
            return None, []
        start, end = {}, {}
        for row in rows:
            if row.started_at is not None:
                start[row.request_id] = min(
                    start.get(row.request_id, row.started_at), row.started_at)
            if row.state == 'ended':
                end[row.request_id] = max(end.get(row.request_id,
                                                  row.ended_at), row.ended_at)
        times = [workflows.TaskTimes(
            id=item.id, workflow=item.workflow,
            submit_s=self._admitted.get(item.id, item.submit_s),
            start_s=start.get(item.id), end_s=end.get(item.id))
            for item in tasks]
        return workflows.workflow_metrics(times, tasks)

    def _sample(self, interval):
        """Record the cloud's use now; recounted only when a host changed
        since the last sample (a long quiet stretch costs nothing).
        """
        manager = self.loop.host_manager
        if self._sampled is None or self._sampled[0] != manager.generation:
            used_vcpus = used_memory = vcpus = memory = 0.0
            for state in manager.host_states.values():
                used_vcpus += state.full.vcpus_used
                used_memory += state.full.memory_mb_used
                vcpus += state.capacity.vcpus
                memory += state.capacity.memory_mb
            self._sampled = (manager.generation,
                             (used_vcpus, vcpus, used_memory, memory))
        self.utilisation.append((self.clock.now(),) + self._sampled[1])
        if self.on_sample is not None:
            self.on_sample(self, self.clock.now())
        if self.until is None or self.clock.now() + interval <= self.until:
            self.loop.call_later(interval, self._sample, interval,
                                 priority=clock_mod.LATE)

    def _records(self, end):
        """``(request id, InstanceRecord)`` of every instance."""
        users = {item.id: item.user for item in self.items if item.user}
        reasons = {request.id: request.reason
                   for request in self.store.list_requests()}
        records = []
        for row in self.store.list_instances():
            running = row.running_s
            alive = row.state not in FINISHED
            if row.state in ('running', 'terminating') and \
                    row.started_at is not None:
                running += max(0.0, end - row.started_at)
            stop = end if alive or row.ended_at is None else row.ended_at
            span = stop - row.created_at
            overhead = row.overhead_s
            records.append((row.request_id, metrics.InstanceRecord(
                id=row.id, service_class=row.service_class,
                preemptible=row.preemptible, submit_s=row.created_at,
                end_s=None if alive else row.ended_at,
                running_s=running,
                pending_s=max(0.0, span - running - overhead),
                overhead_s=overhead,
                availability=running / span if span > 0 else None,
                preemptions=row.preemptions,
                terminated=row.state == 'terminated', host=row.host,
                user=users.get(row.request_id), cores=row.vcpus,
                copies=row.host, start_s=row.started_at,
                reason=metrics.instance_reason(
                    row.state, row.reason, reasons.get(row.request_id)))))
        return records
