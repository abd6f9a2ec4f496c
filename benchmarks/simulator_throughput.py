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

"""Simulator throughput: the Alibaba GPU pod list replayed under two policies.

Replays the Alibaba GPU 2023 pod list (``openb_pod_list_default.csv``, the
pods that ran: 7,255 of 8,152) through the real scheduler loop under the
virtual clock (:class:`preemptible_sched.simulation.runner.Simulation`),
on hosts sampled from the Alibaba node list until they hold ``0.9`` x the
pods' peak demand, once under the ``qos`` policy and once under
``priority``. Both runs see the same hosts and the same seed, one after
the other in this process, so the two figures compare the policies, not
two clouds. The default configuration is used (no configuration file is
read).

For each policy it reports the wall time of the run (``time.perf_counter``
around ``Simulation.run``, reading the trace and sampling the hosts
excluded), the events the virtual clock processed, events per second of
wall time, the simulated span, the requests replayed and the preemptions
made. The result is JSON on stdout (progress goes to stderr)::

    python benchmarks/simulator_throughput.py --output results.json

A full run takes minutes per policy; ``--limit 2000`` replays the first
2,000 pods for a quick check.
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
from preemptible_sched.simulation import report
from preemptible_sched.simulation import runner
from preemptible_sched.simulation import workload

POLICIES = ('qos', 'priority')
SIZE_FACTOR = 0.9

_DATA = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), '..',
    'shared', 'data', 'alibaba_gpu_v2023')
WORKLOAD = os.path.normpath(os.path.join(_DATA,
                                         'openb_pod_list_default.csv'))
MACHINES = os.path.normpath(os.path.join(_DATA,
                                         'openb_node_list_all_node.csv'))


def measure(policy, items, hosts, seed):
    """Replay ``items`` on ``hosts`` under ``policy``; one result row."""
    log(f'{policy}: {len(items)} requests on {len(hosts)} hosts')
    gc.collect()
    bar = report.Progress(len(items), label=policy)
    begin = time.perf_counter()
    try:
        result = runner.Simulation(items, hosts, seed=seed, policy=policy,
                                   on_event=bar.update).run()
    finally:
        bar.close()
    elapsed = time.perf_counter() - begin
    row = {
        'wall_time_s': round(elapsed, 3),
        'events': result.events,
        'events_per_s': round(result.events / elapsed, 1),
        'simulated_span_s': round(result.until, 3),
        'simulated_s_per_wall_s': round(result.until / elapsed, 1),
        'requests': len(result.records),
        'preemptions': result.preemptions,
        'terminations': result.terminations,
    }
    log(f"  {row['wall_time_s']:.1f} s, {row['events']} events "
        f"({row['events_per_s']:.0f}/s), {row['preemptions']} preemptions")
    return row


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
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
    parser.add_argument('--seed', type=int, default=0,
                        help='seed of the host sampling, the boot times '
                             'and the scheduler (default: 0)')
    parser.add_argument('--output', help='also write the JSON here')
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    CONF([], project='preemptible-sched', default_config_files=[])
    started = time.perf_counter()
    items = workload.read_workload(args.workload, limit=args.limit)
    hosts = infrastructure.size_from_workload(
        items, infrastructure.read_machines(args.machines),
        args.size_factor, args.seed)
    results = {policy: measure(policy, items, hosts, args.seed)
               for policy in POLICIES}
    info = machine()
    info['peak_rss_mb'] = round(
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1)
    result = {
        'benchmark': 'simulator_throughput',
        'machine': info,
        'config': {
            'workload': args.workload,
            'machines': args.machines,
            'limit': args.limit,
            'size_factor': args.size_factor,
            'seed': args.seed,
            'requests': len(items),
            'hosts': len(hosts),
        },
        'results': results,
        'wall_time_s': round(time.perf_counter() - started, 1),
    }
    emit(result, args.output)
    return 0


if __name__ == '__main__':
    sys.exit(main())
