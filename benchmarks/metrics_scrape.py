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


"""What a scrape of the scheduler's metrics costs, as passes pile up.

The stage histogram (``psched_stage_seconds``) is filled at scrape time
from the records of :class:`~preemptible_sched.loop.timing.StageStats`
(its public ``passes``), observing only the records added since the last
scrape; but reading them builds the list of every record so far. For
each ``--passes`` count this fills a ``StageStats`` with that many passes
of seven stages, scrapes once (every record is new), adds one pass and
scrapes again (one record is new), and reports the CPU time of each
scrape (``time.process_time`` around ``generate_latest``): the second is
what a service pays at every scrape, and it holds the GIL meanwhile.
JSON on stdout::

    python benchmarks/metrics_scrape.py --passes 1000,10000,100000
"""

import argparse
import sys
import time

import prometheus_client
from report import emit
from report import log
from report import machine

from preemptible_sched.loop import timing
from preemptible_sched.queue import pending
from preemptible_sched.queue.queue_policies import fifo
from preemptible_sched.service import metrics

STAGES = ('J2', 'T2', 'T1', 'R1', 'R4', 'R5', 'T4')


def fill(stats, first, count):
    """``count`` passes of every stage, 0.1 ms each."""
    for number in range(first, first + count):
        stats.begin_pass(number, float(number))
        for stage in STAGES:
            stats._append(stage, 1, 10, 1e-4, 1e-4)
        stats.end_pass()


def scrape_cpu(registry):
    begin = time.process_time()
    prometheus_client.generate_latest(registry)
    return time.process_time() - begin


def measure(passes):
    stats = timing.StageStats()
    found = metrics.SchedulerMetrics(
        'plain', pending.PendingQueue(fifo.FifoPolicy()), stats)
    fill(stats, 0, passes)
    first = scrape_cpu(found.registry)
    fill(stats, passes, 1)
    again = scrape_cpu(found.registry)
    return {'passes': passes + 1, 'records': len(stats.passes),
            'first_scrape_cpu_s': round(first, 4),
            'next_scrape_cpu_s': round(again, 4)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[1])
    parser.add_argument('--passes', default='1000,10000,100000',
                        help='Comma-separated pass counts.')
    parser.add_argument('--output', help='Also write the JSON here.')
    args = parser.parse_args(argv)
    try:
        counts = [int(text) for text in args.passes.split(',')]
    except ValueError:
        print('--passes: expected comma-separated integers, got %r'
              % args.passes, file=sys.stderr)
        return 2
    if not counts or min(counts) < 1:
        print('--passes: every count must be at least 1', file=sys.stderr)
        return 2
    results = []
    for count in counts:
        log('%d passes' % count)
        results.append(measure(count))
    emit({'benchmark': 'metrics_scrape', 'machine': machine(),
          'results': results}, args.output)
    return 0


if __name__ == '__main__':
    sys.exit(main())
