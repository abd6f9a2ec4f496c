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

"""Simulator throughput: real traces replayed under two policies.

Two cases, each replayed through the real scheduler loop under the
virtual clock (:class:`preemptible_sched.simulation.runner.Simulation`),
once under the ``qos`` policy and once under ``priority``, on the same
hosts with the same seed, one after the other in this process (so the
figures compare the policies, not two clouds):

``alibaba``
    the Alibaba GPU 2023 pod list (``openb_pod_list_default.csv``, the
    pods that ran: 7,255 of 8,152) on hosts sampled from the Alibaba node
    list until they hold ``0.9`` x the pods' peak demand;
``swf``
    the first 5,000 jobs of an SWF log (the NASA iPSC/860 log of the
    Parallel Workloads Archive, ``NASA-iPSC-1993-3.1-cln.swf.gz``) on one
    host with as many vCPUs as the largest job asks for (the log's
    128-node machine).

The default configuration is used (no configuration file is read).

For each run it reports the CPU time of the run (``time.process_time``
around ``Simulation.run``: what to compare on a shared machine), its wall
time (``time.perf_counter``), reading the trace and sizing the hosts
excluded, the events the virtual clock processed, events per CPU second and
per wall second, the simulated span, the requests replayed and the
preemptions made; and whether the targets are met (reported, never
asserted): the whole pod list in at most 8 s of CPU per policy, the 5,000
SWF jobs in at most 5 s. The result is JSON on stdout (progress goes to
stderr)::

    python benchmarks/simulator_throughput.py --output results.json

A full run takes a minute or two per policy; ``--limit 2000`` replays the
first 2,000 pods for a quick check, ``--cases swf`` only the SWF jobs.
"""

import argparse
import gc
import os
import resource
import sys
import time

from report import emit
from report import log
from report import machine

from preemptible_sched.conf import CONF
from preemptible_sched.simulation import infrastructure
from preemptible_sched.simulation import run_progress
from preemptible_sched.simulation import runner
from preemptible_sched.simulation.traces import reading

POLICIES = ('qos', 'priority')
CASES = ('alibaba', 'swf')
SIZE_FACTOR = 0.9
SWF_JOBS = 5000

#: CPU seconds per policy the whole of each case should take at most.
TARGETS = {'alibaba': 8.0, 'swf': 5.0}

_DATA = os.path.normpath(os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), '..',
    'shared', 'data'))
WORKLOAD = os.path.join(_DATA, 'alibaba_gpu_v2023',
                        'openb_pod_list_default.csv')
MACHINES = os.path.join(_DATA, 'alibaba_gpu_v2023',
                        'openb_node_list_all_node.csv')
SWF = os.path.join(_DATA, 'swf', 'NASA-iPSC-1993-3.1-cln.swf.gz')


def measure(label, policy, items, hosts, seed):
    """Replay ``items`` on ``hosts`` under ``policy``; one result row."""
    log(f'{label} {policy}: {len(items)} requests on {len(hosts)} hosts')
    gc.collect()
    bar = run_progress.Progress(len(items), label=f'{label} {policy}')
    begin = time.perf_counter()
    begin_cpu = time.process_time()
    try:
        result = runner.Simulation(items, hosts, seed=seed, policy=policy,
                                   on_event=bar.update).run()
    finally:
        bar.close()
    cpu = time.process_time() - begin_cpu
    elapsed = time.perf_counter() - begin
    row = {
        'cpu_time_s': round(cpu, 3),
        'wall_time_s': round(elapsed, 3),
        'events': result.events,
        'events_per_cpu_s': round(result.events / cpu, 1),
        'events_per_s': round(result.events / elapsed, 1),
        'simulated_span_s': round(result.until, 3),
        'simulated_s_per_wall_s': round(result.until / elapsed, 1),
        'requests': len(result.records),
        'preemptions': result.preemptions,
        'terminations': result.terminations,
    }
    log(f"  {row['cpu_time_s']:.1f} s CPU ({row['wall_time_s']:.1f} s "
        f"wall), {row['events']} events ({row['events_per_cpu_s']:.0f} "
        f"per CPU s), {row['preemptions']} preemptions")
    return row


def alibaba(args):
    """The pods, the hosts sampled for them, and the case's config."""
    items = reading.read_workload(args.workload, limit=args.limit)
    hosts = infrastructure.size_from_workload(
        items, infrastructure.read_machines(args.machines),
        args.size_factor, args.seed)
    return items, hosts, {
        'workload': args.workload,
        'machines': args.machines,
        'limit': args.limit,
        'size_factor': args.size_factor,
        'seed': args.seed,
        'requests': len(items),
        'hosts': len(hosts),
        'full_case': args.limit is None,
    }


def swf(args):
    """The first jobs of the SWF log, the one host, the case's config."""
    items = reading.read_workload(args.swf, 'swf', limit=args.swf_jobs)
    flavor = args.swf_host_flavor or '%g:%g' % (
        max(item.resources.vcpus for item in items),
        max([item.resources.memory_mb for item in items] + [1024.0]))
    hosts = infrastructure.hosts_from_flavor(1, flavor)
    return items, hosts, {
        'workload': args.swf,
        'jobs': args.swf_jobs,
        'host_flavor': flavor,
        'seed': args.seed,
        'requests': len(items),
        'hosts': len(hosts),
        'full_case': args.swf_jobs == SWF_JOBS,
    }


def targets(cases):
    """Each case's target, when it was run whole: met or not."""
    met = {}
    for case, (config, results) in cases.items():
        if not config['full_case']:
            continue
        limit = TARGETS[case]
        met['%s: <= %g s of CPU per policy' % (case, limit)] = {
            'met': all(row['cpu_time_s'] <= limit
                       for row in results.values()),
            'cpu_time_s': {policy: row['cpu_time_s']
                           for policy, row in results.items()}}
    return met


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--cases', default=','.join(CASES),
                        help='comma-separated cases to run, of %s '
                             '(default: all)' % ', '.join(CASES))
    parser.add_argument('--workload', default=WORKLOAD,
                        help='Alibaba pod list (default: %(default)s)')
    parser.add_argument('--machines', default=MACHINES,
                        help='Alibaba node list to sample the hosts from '
                             '(default: %(default)s)')
    parser.add_argument('--limit', type=int,
                        help='replay only the first N pods')
    parser.add_argument('--size-factor', type=float, default=SIZE_FACTOR,
                        help='hosts hold this many times the peak demand '
                             '(default: %(default)s)')
    parser.add_argument('--swf', default=SWF,
                        help='SWF log (default: %(default)s)')
    parser.add_argument('--swf-jobs', type=int, default=SWF_JOBS,
                        help='replay the first N jobs of the SWF log '
                             '(default: %(default)s)')
    parser.add_argument('--swf-host-flavor', metavar='VCPUS:MEMORY_MB',
                        help='the one host of the SWF case (default: the '
                             'largest job\'s vCPUs, and its memory or '
                             '1024 MB)')
    parser.add_argument('--seed', type=int, default=0,
                        help='seed of the host sampling, the boot times '
                             'and the scheduler (default: 0)')
    parser.add_argument('--output', help='also write the JSON here')
    args = parser.parse_args(argv)
    args.cases = [case for case in args.cases.split(',') if case]
    unknown = sorted(set(args.cases) - set(CASES))
    if unknown or not args.cases:
        parser.error('--cases: unknown or none: %s' % ', '.join(unknown))
    return args


def main(argv=None):
    args = parse_args(argv)
    CONF([], project='preemptible-sched', default_config_files=[])
    started = time.perf_counter()
    readers = {'alibaba': alibaba, 'swf': swf}
    cases = {}
    for case in args.cases:
        items, hosts, config = readers[case](args)
        cases[case] = (config, {
            policy: measure(case, policy, items, hosts, args.seed)
            for policy in POLICIES})
    info = machine()
    info['peak_rss_mb'] = round(
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1)
    result = {'benchmark': 'simulator_throughput', 'machine': info}
    if 'alibaba' in cases:
        result['config'], result['results'] = cases['alibaba']
    if 'swf' in cases:
        config, results = cases['swf']
        result['swf'] = dict(config, results=results)
    result['targets'] = targets(cases)
    result['wall_time_s'] = round(time.perf_counter() - started, 1)
    emit(result, args.output)
    return 0


if __name__ == '__main__':
    sys.exit(main())
