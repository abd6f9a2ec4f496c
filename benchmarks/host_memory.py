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

"""Memory the scheduler keeps per host: bytes per empty host.

Builds a ``FilterScheduler`` (default configuration, no configuration file
read), registers N identical blades (8 vCPU, 16384 MB, 500 GB), places and
undoes one normal request (so that the state measured is the one a pass
leaves), drops the ``Host`` objects it was given, and reports the memory
traced by ``tracemalloc`` from before the hosts were made, divided by N:
everything the scheduler keeps for a host (its row of the host table, its
name and index entry, and the growth room of the columns), nothing else::

    python benchmarks/host_memory.py --hosts 1000,10000,100000

The result is JSON on stdout (progress on stderr), with the target
``bytes_per_host <= 300`` per size.
"""

import argparse
import gc
import sys
import tracemalloc

from report import emit
from report import log
from report import machine

from preemptible_sched.conf import CONF
from preemptible_sched import objects
from preemptible_sched.scheduler import filter_scheduler as scheduler

TARGET = 300


def measure(hosts):
    """Bytes the scheduler keeps per empty host, for ``hosts`` hosts."""
    sched = scheduler.FilterScheduler(seed=0)
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    blades = [objects.Host('host-%06d' % index, 8, 16384, 500)
              for index in range(hosts)]
    for blade in blades:
        sched.host_manager.add_host(blade)
    del blades, blade
    decision = sched.select_destinations(
        objects.RequestSpec('probe', objects.Resources(2, 4000, 40)))
    for selection in decision.selections:
        sched._undo(selection)
    del decision
    gc.collect()
    kept = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    return {'hosts': hosts, 'bytes': kept,
            'bytes_per_host': round(kept / hosts, 1)}


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--hosts', default='1000,10000,100000',
                        help='comma-separated cloud sizes '
                             '(default: %(default)s)')
    parser.add_argument('--output', help='also write the JSON here')
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    try:
        sizes = [int(size) for size in args.hosts.split(',')]
        if not sizes or min(sizes) < 1:
            raise ValueError
    except ValueError:
        print('host_memory.py: --hosts: expected positive integers '
              'separated by commas, got %r' % args.hosts, file=sys.stderr)
        return 2
    CONF([], project='preemptible-sched', default_config_files=[])
    results = []
    for size in sizes:
        log('%d hosts' % size)
        results.append(measure(size))
    emit({'benchmark': 'host_memory', 'machine': machine(),
          'results': results,
          'targets': {'bytes_per_host <= %d at %d hosts' % (
              TARGET, row['hosts']): row['bytes_per_host'] <= TARGET
              for row in results}}, args.output)
    return 0


if __name__ == '__main__':
    sys.exit(main())
