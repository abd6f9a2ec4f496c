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

"""CPU time of one decision against Nova's own scheduling pass.

The anchor: what one ``FilterScheduler.select_destinations`` decision of
this project costs, as a fraction of what Nova's filter scheduler spends on
the same request over the same hosts. Needs Nova 34 in the same Python
(``pip install 'nova>=34,<35'``); without it the script says so on stderr
and exits 2.

The project side is
``preemptible_sched.scheduler.filter_scheduler.FilterScheduler()`` in the
default configuration (no configuration file is read), on clouds of identical
blades (8 vCPU, 16384 MB, 500 GB), timed on a normal ``medium`` request (2
vCPU, 4000 MB, 40 GB) in three cases:

``empty_normal``
    an empty cloud;
``varied_normal``
    every host carries 0 to 3 normal instances of varied flavors (drawn
    from ``--seed``), always leaving room for a ``medium`` one, so the
    resource weighers tell the hosts apart;
``saturated_normal``
    every host carries four preemptible ``medium`` instances with varied
    run times: the decision must terminate one of them (the single-victim
    shortcut's best case);
``saturated_mixed``
    every host is filled with a seeded mix of preemptible ``small`` (1
    vCPU), ``medium`` (2) and ``large`` (4) instances: one victim of the
    right size, but which one and on which host differ everywhere;
``saturated_two``
    four preemptible ``medium`` instances per host and a ``large`` request
    (4 vCPU, 8000 MB, 80 GB): two victims;
``saturated_three``
    the same hosts and an ``xlarge`` request (6 vCPU, 12000 MB, 120 GB):
    three victims.

The saturated cases are measured first (the hard ones). With ``--weighers
ram,cpu`` Nova runs those two weighers only (``[filter_scheduler]
weight_classes``), as many as the project's default, for a like-for-like
weigher count; by default it runs all of its own.

The Nova side is one pass of Nova's scheduler over N
``nova.scheduler.host_manager.HostState`` objects:
``SchedulerManager._get_sorted_hosts``, i.e. ``HostManager``'s filter
handler with Nova's default ``[filter_scheduler] enabled_filters`` (5 in
Nova 34) and its weight handler with every weigher of
``nova.scheduler.weights.all_weighers`` (the default ``weight_classes``,
13 in Nova 34), in Nova's default configuration. The host states are built
by Nova's own ``HostManager._get_host_states`` from ``ComputeNode`` and
``Service`` objects made in memory (no database, no service, no Placement:
``HostManager``'s database reads at start-up are skipped), each host's
instances given as Nova's instance tracking would. Before every pass each
host's heartbeat is refreshed (``HostState.update`` with a service record
just seen up), outside the timed section, and the pass must keep every
host: the script stops with an error otherwise.

Nova's host states carry the usage of the normal instances: none in
``empty_normal``, the same instances as the project's cloud in
``varied_normal``. Nova does not know preemptible instances, and Placement
would have left a host full of them out before Nova's filters ran, so in
``saturated_normal`` Nova is given the normal view of the saturated cloud
(the same cloud without its preemptible instances): every host passes, as
every host can take the request on the project side by terminating. The
same holds for the other saturated cases, each with its own request.

Every repetition times one project decision and one Nova pass, in an order
that alternates from one repetition to the next, so machine noise hits both
alike. Times are CPU times of the process (``time.process_time``) around
the call only. After each decision the new instance is removed and its
victims are put back, so every repetition sees the same cloud; the
project's clock moves on by one billing period per repetition (same
termination costs, no plan memo left over), as in
``scheduling_latency.py``. The clouds are frozen out of the garbage
collector's sight (``gc.freeze``) before timing.

In the saturated cases a third side is timed in the same rotation: the
numpy floor (``numpy_floor.py``), the cheapest vectorised computation of
the same answer with plain numpy (the best host by the default weighers
and its cheapest termination set), on arrays laid out before timing.
Each repetition checks that the project's decision terminates exactly as
cheaply as the floor's answer (``floor_same_cost_every_time``), and the
row gives ``project/floor``, the ratio of the medians.

The result is JSON on stdout (progress goes to stderr)::

    python benchmarks/nova_anchor.py --hosts 1000,10000,100000
"""

import argparse
import gc
import itertools
import random
import resource
import statistics
import sys
import time
import types
import warnings

import numpy_floor
from report import emit
from report import log
from report import machine
from report import progress
from scheduling_latency import BILLING_PERIOD
from scheduling_latency import BLADE
from scheduling_latency import BUDGET_SECONDS
from scheduling_latency import calibrated_repetitions
from scheduling_latency import MAX_REPETITIONS
from scheduling_latency import MEDIUM
from scheduling_latency import MIN_REPETITIONS
from scheduling_latency import MIN_REPETITIONS_HUGE
from scheduling_latency import percentile
from scheduling_latency import PREEMPTIBLE_PER_HOST
from scheduling_latency import QUICK_REPETITIONS
from scheduling_latency import START
from scheduling_latency import undo

from preemptible_sched.conf import CONF
from preemptible_sched import objects
from preemptible_sched.scheduler import filter_scheduler as scheduler

SATURATED_CASES = ('saturated_mixed', 'saturated_two', 'saturated_three',
                   'saturated_normal')
CASES = SATURATED_CASES + ('empty_normal', 'varied_normal')
# Nova's view of each case: which normal instances its hosts carry.
NOVA_VIEW = dict({'empty_normal': 'empty', 'varied_normal': 'varied'},
                 **{case: 'empty' for case in SATURATED_CASES})
LARGE = objects.Resources(4, 8000, 80)
XLARGE = objects.Resources(6, 12000, 120)
# The request of each case.
REQUEST = dict({case: MEDIUM for case in CASES},
               saturated_two=LARGE, saturated_three=XLARGE)
# The preemptible instances of saturated_mixed.
MIXED_FLAVORS = (('small', objects.Resources(1, 2000, 20)),
                 ('medium', MEDIUM), ('large', LARGE))
NOVA_WEIGHERS = {'ram': 'nova.scheduler.weights.ram.RAMWeigher',
                 'cpu': 'nova.scheduler.weights.cpu.CPUWeigher'}
SIZES = (1000, 10000)
QUICK_SIZES = (100, 1000)

# The normal instances of varied_normal: tiny, small, medium, large.
VARIED_FLAVORS = (
    ('tiny', objects.Resources(1, 1024, 10)),
    ('small', objects.Resources(1, 2000, 20)),
    ('medium', MEDIUM),
    ('large', objects.Resources(4, 8000, 80)),
)
VARIED_MAX_PER_HOST = 3

# Nova's side of a blade.
HYPERVISOR_TYPE = 'QEMU'
HYPERVISOR_VERSION = 8002002
CPU_INFO = ('{"arch": "x86_64", "model": "Skylake-Server-IBRS", '
            '"vendor": "Intel", "topology": {"cells": 1, "sockets": 1, '
            '"cores": 4, "threads": 2}, "features": ["avx2", "sse4.2", '
            '"vmx"]}')

NORMAL_AT_10K = 1 / 500
SATURATED_AT_10K = 1 / 50
NORMAL_AT_100K_MS = 10.0
SATURATED_AT_100K_MS = 50.0
SCALING_SLACK = 1.1
TARGET_NORMAL = 'normal request at 10000 hosts <= 1/500 of Nova'
TARGET_SATURATED = 'saturated cloud at 10000 hosts <= 1/50 of Nova'
TARGET_NORMAL_MS = 'normal decision at 100000 hosts <= 10 ms CPU'
TARGET_SATURATED_MS = 'saturated decision at 100000 hosts <= 50 ms CPU'
TARGET_SCALING = ('cost per host flat: 10x hosts -> <= 11x CPU time '
                  '(project, every case)')
NORMAL_CASES = ('empty_normal', 'varied_normal')
#: The sides timed, alternately: the project's decision, Nova's pass and
#: (saturated cases only) the numpy floor of the same answer.
SIDES = ('project', 'nova', 'floor')
FLOOR_TARGET = 3.0
TARGET_FLOOR = ('hard saturated cases at 10000 hosts within 3x the numpy '
                'floor (project/floor)')
HARD_CASES = ('saturated_mixed', 'saturated_two', 'saturated_three')


class NovaMissing(Exception):
    """Nova cannot be imported here."""


def host_name(index):
    return f'node-{index:06d}'


def varied_instances(rng):
    """0 to VARIED_MAX_PER_HOST ``(flavor, resources)`` pairs drawn from
    ``rng`` that leave room for a ``medium`` instance on a blade.
    """
    chosen = []
    free = list(BLADE)
    for _ in range(rng.randrange(VARIED_MAX_PER_HOST + 1)):
        fitting = [(flavor, size) for flavor, size in VARIED_FLAVORS
                   if all(f - s >= m for f, s, m in zip(free, size, MEDIUM))]
        if not fitting:
            break
        flavor, size = rng.choice(fitting)
        free = [f - s for f, s in zip(free, size)]
        chosen.append((flavor, size))
    return chosen


def build_cloud(hosts, case, seed):
    """The cloud of ``case``: per host, its name, its normal instances and
    its preemptible ones (lists of :class:`objects.Instance`), drawn from
    ``seed``. Both sides are built from it.
    """
    rng = random.Random(seed)
    cloud = []
    for index in range(hosts):
        name = host_name(index)
        normal = []
        preemptible = []
        if case == 'varied_normal':
            for slot, (flavor, size) in enumerate(varied_instances(rng)):
                normal.append(objects.Instance(
                    id=f'{name}-vm-{slot}', resources=size,
                    started_at=START - rng.randrange(1, 48 * 3600),
                    flavor=flavor))
        elif case == 'saturated_mixed':
            free = BLADE.vcpus
            while free:
                flavor, size = rng.choice([
                    (flavor, size) for flavor, size in MIXED_FLAVORS
                    if size.vcpus <= free])
                free -= size.vcpus
                preemptible.append(spot(rng, name, len(preemptible), flavor,
                                        size))
        elif case in SATURATED_CASES:
            for slot in range(PREEMPTIBLE_PER_HOST):
                preemptible.append(spot(rng, name, slot, 'medium', MEDIUM))
        cloud.append((name, normal, preemptible))
    return cloud


def spot(rng, name, slot, flavor, size):
    """A preemptible instance with a run time drawn from ``rng``: as in
    scheduling_latency.py, whole minutes plus a few seconds over up to two
    days, so billing_period costs differ from instance to instance.
    """
    runtime = rng.randrange(1, 48 * 60) * 60 + rng.randrange(60)
    return objects.Instance(id=f'{name}-spot-{slot}', resources=size,
                            preemptible=True, started_at=START - runtime,
                            flavor=flavor)


def build_project(cloud):
    """The project's scheduler, default configuration, over ``cloud``."""
    sched = scheduler.FilterScheduler()
    manager = sched.host_manager
    for name, normal, preemptible in cloud:
        manager.add_host(objects.Host(name, *BLADE))
        for instance in normal + preemptible:
            manager.add_instance(name, instance)
    return sched


def project_spec(repetition, request=MEDIUM):
    return objects.RequestSpec(id=f'anchor-{repetition}', resources=request,
                               flavor='request')


def time_project(sched, repetition, request=MEDIUM, chosen=None):
    """CPU seconds of one decision, whether it placed the request and how
    many instances it terminated; the decision is undone. ``chosen``, a
    list, gets ``(host, termination cost)`` of the decision appended.
    """
    spec = project_spec(repetition, request)
    now = START + repetition * BILLING_PERIOD
    begin = time.process_time()
    decision = sched.select_destinations(spec, now=now)
    elapsed = time.process_time() - begin
    victims = sum(len(s.plan.victims) for s in decision.selections)
    placed = decision.placed
    if chosen is not None:
        chosen.extend((s.host, s.plan.cost) for s in decision.selections)
    undo(sched, decision)
    return elapsed, placed, victims


def time_floor(floor, repetition):
    """CPU seconds of the numpy floor's answer at the repetition's time,
    and the answer (host, cost).
    """
    now = START + repetition * BILLING_PERIOD
    begin = time.process_time()
    answer = floor.answer(now)
    return time.process_time() - begin, answer


def load_nova(weighers=None):
    """Nova's modules, its configuration parsed (defaults only; with
    ``weighers``, those of :data:`NOVA_WEIGHERS` as its weight classes).

    Raises :class:`NovaMissing` when Nova cannot be imported.
    """
    try:
        with warnings.catch_warnings():
            # Nova's imports warn (eventlet's deprecation): not our output.
            warnings.simplefilter('ignore')
            import nova.conf
            from nova import context
            from nova import objects as nova_objects
            from nova.scheduler import host_manager
            from nova.scheduler import manager
            from nova.scheduler import weights
            from nova import version
            from oslo_utils import timeutils
            from oslo_utils import uuidutils
    except ImportError as error:
        raise NovaMissing(
            f'Nova is not importable ({error}); install it with '
            f"pip install 'nova>=34,<35'") from None
    nova_objects.register_all()
    nova.conf.CONF([], project='nova', default_config_files=[])
    if weighers:
        nova.conf.CONF.set_override(
            'weight_classes', [NOVA_WEIGHERS[name] for name in weighers],
            group='filter_scheduler')
    return types.SimpleNamespace(
        conf=nova.conf.CONF, context=context, objects=nova_objects,
        host_manager=host_manager, manager=manager, weights=weights,
        version=version.version_string(), timeutils=timeutils,
        uuidutils=uuidutils)


def nova_host_manager(nova):
    """Nova's ``HostManager`` without its database reads at start-up:
    filters and weighers are loaded from the configuration by Nova's own
    ``__init__``.
    """

    class HostManager(nova.host_manager.HostManager):
        """No cells, aggregates or instances read from a database."""

        def refresh_cells_caches(self):
            self.enabled_cells = []
            self.cells = {}
            self.host_to_cell_uuid = {}

        def _init_aggregates(self):
            pass

        def _init_instance_info(self, computes_by_cell=None):
            pass

    return HostManager()


def nova_compute_node(nova, index, name, normal, now):
    """The ``ComputeNode`` a blade carrying ``normal`` reports."""
    vcpus, memory_mb, disk_gb = (sum(i.resources[d] for i in normal)
                                 for d in range(3))
    free_gb = BLADE.disk_gb - disk_gb
    stats = {'num_instances': str(len(normal)),
             'num_vm_active': str(len(normal)),
             'num_task_None': str(len(normal)),
             'num_os_type_linux': str(len(normal)),
             'io_workload': '0', 'failed_builds': '0'}
    if normal:
        stats['num_proj_anchor'] = str(len(normal))
    return nova.objects.ComputeNode(
        id=index + 1, uuid=nova.uuidutils.generate_uuid(),
        service_id=index + 1, host=name, hypervisor_hostname=name,
        vcpus=BLADE.vcpus, memory_mb=BLADE.memory_mb, local_gb=BLADE.disk_gb,
        vcpus_used=vcpus, memory_mb_used=memory_mb, local_gb_used=disk_gb,
        free_ram_mb=BLADE.memory_mb - memory_mb, free_disk_gb=free_gb,
        disk_available_least=free_gb, current_workload=0,
        running_vms=len(normal), hypervisor_type=HYPERVISOR_TYPE,
        hypervisor_version=HYPERVISOR_VERSION, cpu_info=CPU_INFO,
        metrics='[]', stats=stats,
        host_ip=f'10.{index // 62500}.{index // 250 % 250}.{index % 250 + 1}',
        numa_topology=None,
        supported_hv_specs=[nova.objects.HVSpec.from_list(
            ['x86_64', 'kvm', 'hvm'])],
        pci_device_pools=nova.objects.PciDevicePoolList(objects=[]),
        cpu_allocation_ratio=1.0, ram_allocation_ratio=1.0,
        disk_allocation_ratio=1.0, mapped=1, created_at=now, updated_at=now)


def nova_service(nova, index, name, now):
    """The ``nova-compute`` service record of a host, as a dict (what
    ``HostState.update`` is given).
    """
    return dict(nova.objects.Service(
        id=index + 1, uuid=nova.uuidutils.generate_uuid(), host=name,
        binary='nova-compute', topic='compute', report_count=1,
        disabled=False, disabled_reason=None, forced_down=False,
        last_seen_up=now, created_at=now, updated_at=now, deleted_at=None,
        deleted=False))


def nova_instances(nova, name, count):
    """What Nova's instance tracking holds for a host running ``count``
    instances: ``{uuid: Instance}``.
    """
    uuids = [nova.uuidutils.generate_uuid() for _ in range(count)]
    return {uuid: nova.objects.Instance(uuid=uuid, host=name, node=name)
            for uuid in uuids}


class NovaSide:
    """Nova's host manager and host states for one view of a cloud."""

    def __init__(self, nova, cloud, view):
        self.nova = nova
        self.manager = nova_host_manager(nova)
        context = nova.context.get_admin_context()
        now = nova.timeutils.utcnow(with_timezone=True)
        cell = nova.uuidutils.generate_uuid()
        computes = []
        services = {}
        for index, (name, normal, _preemptible) in enumerate(cloud):
            if view == 'empty':
                normal = []
            computes.append(nova_compute_node(nova, index, name, normal, now))
            services[name] = nova_service(nova, index, name, now)
            self.manager._instance_info[name] = {
                'instances': nova_instances(nova, name, len(normal)),
                'updated': True}
        self.services = services
        self.states = list(self.manager._get_host_states(
            context, {cell: computes}, services))
        self.states.sort(key=lambda state: state.host)
        self.spec = None
        self.caller = types.SimpleNamespace(host_manager=self.manager)

    def refresh_heartbeats(self):
        """Every service seen up now, as a new request would read it."""
        now = self.nova.timeutils.utcnow(with_timezone=True)
        for state in self.states:
            service = self.services[state.host]
            service['updated_at'] = service['last_seen_up'] = now
            state.update(service=service)

    def timed_pass(self):
        """CPU seconds of one pass and the number of hosts it kept."""
        self.refresh_heartbeats()
        sort = self.nova.manager.SchedulerManager._get_sorted_hosts
        begin = time.process_time()
        kept = sort(self.caller, self.spec, self.states, 0)
        elapsed = time.process_time() - begin
        if len(kept) != len(self.states):
            raise RuntimeError(
                f'Nova kept {len(kept)} of {len(self.states)} hosts: the '
                f'anchor needs every host to pass')
        return elapsed, len(kept)


def nova_spec(nova, request=MEDIUM):
    """A ``RequestSpec`` for one server of ``request``'s size with no
    group, image properties or hints (every default filter passes every
    host).
    """
    o = nova.objects
    flavor = o.Flavor(
        id=3, flavorid='3', name='request', vcpus=request.vcpus,
        memory_mb=request.memory_mb, root_gb=request.disk_gb, ephemeral_gb=0,
        swap=0, extra_specs={}, rxtx_factor=1.0, vcpu_weight=0,
        disabled=False, is_public=True, description=None)
    return o.RequestSpec(
        flavor=flavor, num_instances=1, is_bfv=False,
        image=o.ImageMeta(properties=o.ImageMetaProps()),
        instance_group=None, ignore_hosts=None, force_hosts=None,
        force_nodes=None, requested_destination=None, scheduler_hints={},
        instance_uuid=nova.uuidutils.generate_uuid(), project_id='anchor',
        user_id='anchor', availability_zone=None, numa_topology=None,
        pci_requests=o.InstancePCIRequests(requests=[]))


def nova_summary(nova):
    """Nova's version, filters and weighers as its configuration loads
    them.
    """
    manager = nova_host_manager(nova)
    filters = [f.__class__.__name__ for f in manager.enabled_filters]
    weighers = [w.__class__.__name__ for w in manager.weighers]
    return {
        'version': nova.version,
        'filters': filters,
        'weighers': weighers,
        'filter_count': len(filters),
        'weigher_count': len(weighers),
        'all_weighers': len(nova.weights.all_weighers()),
        'pass': 'SchedulerManager._get_sorted_hosts '
                '(HostManager.get_filtered_hosts + get_weighed_hosts)',
        'saturated_view': 'normal (the preemptible instances left out)',
    }


def minor_faults():
    """Page faults of this process so far that needed no disk (a page
    mapped, or mapped again, and zeroed).
    """
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def stats_ms(values):
    return {'median_ms': round(statistics.median(values) * 1e3, 4),
            'p90_ms': round(percentile(values, 0.9) * 1e3, 4),
            'min_ms': round(min(values) * 1e3, 4)}


def measure(nova, hosts, case, nova_side, repetitions, seed, budget):
    """Project decisions and Nova passes, alternately; one result row.

    ``nova_side`` is a :class:`NovaSide` of this case's Nova view, or None
    to build it. Returns the row and the Nova side (to reuse for a case of
    the same view).
    """
    log(f'building {hosts} hosts for {case}')
    cloud = build_cloud(hosts, case, seed)
    sched = build_project(cloud)
    if nova_side is None:
        nova_side = NovaSide(nova, cloud, NOVA_VIEW[case])
    nova_side.spec = nova_spec(nova, REQUEST[case])
    floor = (numpy_floor.Floor(cloud, BLADE, REQUEST[case], BILLING_PERIOD)
             if case in SATURATED_CASES else None)
    del cloud
    gc.collect()
    gc.freeze()
    sides = SIDES if floor is not None else SIDES[:2]
    samples = {side: [] for side in sides}
    faults = {side: [] for side in sides}
    agree = []
    try:
        # Repetition 0 warms up, sizes the run and is not recorded.
        repetition = 0
        while repetition <= (repetitions or 0):
            began = time.perf_counter()
            shift = repetition % len(sides)
            for side in sides[shift:] + sides[:shift]:
                faulted = minor_faults()
                if side == 'project':
                    chosen = []
                    elapsed, placed, victims = time_project(
                        sched, repetition, REQUEST[case], chosen)
                elif side == 'floor':
                    elapsed, answer = time_floor(floor, repetition)
                else:
                    elapsed, kept = nova_side.timed_pass()
                if repetition:
                    samples[side].append(elapsed)
                    faults[side].append(minor_faults() - faulted)
            if floor is not None:
                agree.append(same_cost(chosen, answer))
            if not repetitions:
                repetitions = calibrated_repetitions(
                    time.perf_counter() - began, hosts, budget)
            repetition += 1
    finally:
        del sched
        gc.unfreeze()
        gc.collect()
    row = {side: stats_ms(values) for side, values in samples.items()}
    for side, values in faults.items():
        row[side]['median_page_faults'] = statistics.median(values)
    row.update({
        'repetitions': len(samples['project']),
        'project_placed': placed, 'project_victims': victims,
        'nova_hosts_passed': kept, 'nova_all_hosts_passed': kept == hosts})
    if floor is not None:
        row['floor_same_cost_every_time'] = all(agree)
        row['project/floor'] = _ratio(row['project']['median_ms'],
                                      row['floor']['median_ms'])
    floor_text = (f"  floor median {row['floor']['median_ms']:8.3f} ms"
                  if floor is not None else '')
    log(f"  {case:17} project median {row['project']['median_ms']:9.3f} ms"
        f"  nova median {row['nova']['median_ms']:10.3f} ms{floor_text}"
        f"  ({row['repetitions']} repetitions)")
    return row, nova_side


def same_cost(chosen, answer):
    """Whether the project's decision (``[(host, cost)]``) terminates as
    cheaply as the floor's ``(host, cost)`` answer (to a part in 10**9:
    the sums may be added in another order).
    """
    if not chosen or answer[1] is None:
        return not chosen and answer[1] is None
    cost = chosen[0][1]
    return abs(cost - answer[1]) <= 1e-9 * max(1.0, abs(cost))


def _ratio(numerator, denominator):
    return float('%.4g' % (numerator / denominator)) if denominator else None


def summarise(results):
    """The ``ratios``, ``scaling``, ``targets`` and ``target_details``
    sections from ``results`` (``{hosts: {case: row}}``).
    """
    def median(hosts, case, side='project'):
        return results[hosts][case][side]['median_ms']

    sizes = sorted(results)
    ratios = {str(hosts): {case: _ratio(median(hosts, case),
                                        median(hosts, case, 'nova'))
                           for case in results[hosts]}
              for hosts in sizes}
    measured = [case for case in CASES if case in results[sizes[0]]]
    scaling = {}
    for case in measured:
        scaling[case] = {
            f'{large}/{small}': {
                side: _ratio(median(large, case, side),
                             median(small, case, side))
                for side in ('project', 'nova')}
            for small, large in itertools.pairwise(sizes)}
    targets = {}
    details = {}

    def check(name, values, bound):
        if values:
            targets[name] = all(v <= bound for v in values.values())
            details[name] = values
        else:
            targets[name] = None

    check(TARGET_NORMAL, {c: r for c, r in ratios.get('10000', {}).items()
                          if c in NORMAL_CASES}, NORMAL_AT_10K)
    check(TARGET_SATURATED, {c: r for c, r in ratios.get('10000', {}).items()
                             if c in SATURATED_CASES}, SATURATED_AT_10K)
    check(TARGET_FLOOR, {
        case: row['project/floor']
        for case, row in results.get(10000, {}).items()
        if case in HARD_CASES}, FLOOR_TARGET)
    at_100k = results.get(100000, {})
    check(TARGET_NORMAL_MS, {c: median(100000, c) for c in at_100k
                             if c in NORMAL_CASES}, NORMAL_AT_100K_MS)
    check(TARGET_SATURATED_MS, {c: median(100000, c) for c in at_100k
                                if c in SATURATED_CASES},
          SATURATED_AT_100K_MS)
    # Time ratio over host ratio: <= 1.1 means 10x hosts cost <= 11x time.
    check(TARGET_SCALING, {
        f'{case} {large}/{small}': _ratio(
            median(large, case) / median(small, case), large / small)
        for case in measured for small, large in itertools.pairwise(sizes)},
        SCALING_SLACK)
    return ratios, scaling, targets, details


def sizes_option(text):
    return [int(n) for n in text.split(',')]


def cases_option(text):
    cases = text.split(',')
    unknown = sorted(set(cases) - set(CASES))
    if unknown:
        raise argparse.ArgumentTypeError(
            'unknown case %s (known: %s)' % (', '.join(unknown),
                                             ', '.join(CASES)))
    return tuple(case for case in CASES if case in cases)


def weighers_option(text):
    names = text.split(',')
    unknown = sorted(set(names) - set(NOVA_WEIGHERS))
    if unknown:
        raise argparse.ArgumentTypeError(
            'unknown Nova weigher %s (known: %s)' % (
                ', '.join(unknown), ', '.join(NOVA_WEIGHERS)))
    return names


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        '--hosts', type=sizes_option,
        help='comma-separated cloud sizes (default: 1000,10000; 100000 '
             'is allowed)')
    parser.add_argument(
        '--repetitions', type=int,
        help='timed decisions per side, size and case (default: as many '
             f'as fit in --budget, between {MIN_REPETITIONS} '
             f'({MIN_REPETITIONS_HUGE} above 10000 hosts) and '
             f'{MAX_REPETITIONS})')
    parser.add_argument(
        '--budget', type=float, default=BUDGET_SECONDS,
        help='seconds per size and case (both sides) when --repetitions '
             'is not given (default: %(default)s)')
    parser.add_argument(
        '--cases', type=cases_option, default=CASES,
        help='comma-separated cases (default: all, saturated first: %s)'
             % ','.join(CASES))
    parser.add_argument(
        '--weighers', type=weighers_option,
        help="Nova's weighers: 'ram,cpu' for as many as the project's "
             'default (default: all of Nova\'s)')
    parser.add_argument('--seed', type=int, default=0,
                        help='seed of the clouds (default: 0)')
    parser.add_argument('--output', help='also write the JSON here')
    parser.add_argument(
        '--quick', action='store_true',
        help='smoke run: %s hosts, %d repetitions' % (
            ','.join(map(str, QUICK_SIZES)), QUICK_REPETITIONS))
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    try:
        nova = load_nova(args.weighers)
    except NovaMissing as error:
        print(f'nova_anchor: {error}', file=sys.stderr)
        return 2
    CONF([], project='preemptible-sched', default_config_files=[])
    sizes = sorted(args.hosts or (QUICK_SIZES if args.quick else SIZES))
    repetitions = args.repetitions or (
        QUICK_REPETITIONS if args.quick else None)
    started = time.perf_counter()
    results = {}
    for hosts in sizes:
        results[hosts] = {}
        nova_side = None
        # The cases of one Nova view (the saturated ones and empty_normal:
        # empty hosts) are measured one after the other and share its
        # host states.
        order = sorted(args.cases, key=lambda case: NOVA_VIEW[case])
        for number, case in enumerate(progress(order, f'{hosts} hosts',
                                               'cases')):
            results[hosts][case], nova_side = measure(
                nova, hosts, case, nova_side, repetitions, args.seed,
                args.budget)
            following = order[number + 1:number + 2]
            if not following or NOVA_VIEW[following[0]] != NOVA_VIEW[case]:
                nova_side = None
        results[hosts] = {case: results[hosts][case] for case in args.cases}
    ratios, scaling, targets, details = summarise(results)
    info = machine()
    info['peak_rss_mb'] = round(
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1)
    sched = scheduler.FilterScheduler()
    report = {
        'benchmark': 'nova_anchor',
        'machine': info,
        'config': {
            'clock': 'time.process_time (CPU seconds of the process)',
            'strategy': sched.strategy.name,
            'enabled_filters': list(CONF.filter_scheduler.enabled_filters),
            'weighers': [w.name for w in sched.weight_handler.weighers],
            'termination_costs': list(CONF.preemptible.termination_costs),
            'host': BLADE._asdict(),
            'request': {case: REQUEST[case]._asdict()
                        for case in args.cases},
            'mixed_flavors': {name: size._asdict()
                              for name, size in MIXED_FLAVORS},
            'nova_weighers': args.weighers or 'all',
            'varied_flavors': {name: size._asdict()
                               for name, size in VARIED_FLAVORS},
            'varied_max_per_host': VARIED_MAX_PER_HOST,
            'preemptible_per_host_when_saturated': PREEMPTIBLE_PER_HOST,
            'seed': args.seed,
        },
        'nova': nova_summary(nova),
        'results': {str(hosts): cases for hosts, cases in results.items()},
        'ratios': ratios,
        'scaling': scaling,
        'targets': targets,
        'target_details': details,
        'wall_time_s': round(time.perf_counter() - started, 1),
    }
    emit(report, args.output)
    return 0


if __name__ == '__main__':
    sys.exit(main())
