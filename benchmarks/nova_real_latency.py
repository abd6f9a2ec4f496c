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

"""Scheduling latency in a real multi-process Nova, one request at a time.

Runs against a cloud of the ``nova-real`` harness that is already up
(``python -m tests.nova_real.cloud up --dir DIR --computes 8``) and swaps
its scheduler as it goes (one process, timed by
:mod:`tests.nova_real.timed`): ``stock`` (Nova's ``nova-scheduler``),
``one_pass`` and ``retry`` (``preemptible-nova-scheduler`` in that mode).
The cases:

``room_free``
    a normal server (2 vCPU, 2048 MB, 10 GB) on an empty cloud;
``one_preemption``
    a normal server on a cloud whose every host carries four preemptible
    servers (full): exactly one of them must go. Ours only; the
    preemptible flavor is ``spot`` in the retry mode and ``spot1p`` in the
    one-pass mode.

Each request is one POST /servers; the server is then polled (GET
/servers/ID every ``--poll`` s) until it has a host and until it is
ACTIVE. Three times per request: from the POST to the host seen set
(``to_host_ms``), to ACTIVE seen (``to_active_ms``), and the scheduler's
own ``select_destinations`` (wall and thread CPU, from the line the timed
scheduler logs for the server's uuid). Then, untimed, the cloud is put
back: the server deleted (and gone from Placement); for a preemption, its
decision checked in the journal (``preemptible-sched-manage journal list
--format json``: one decision, one victim, a preemptible server on the
host the new server took, gone from Nova) and the victim's room refilled
with a new preemptible server on that host. Every round measures every
mode and case, in an order rotated from round to round (side by side).

JSON on stdout (and ``--output``), progress on stderr; exit 1 when a check
fails (a request not ACTIVE, not one victim per preemption, a host over
capacity), 2 on bad arguments or a cloud too small::

    .tox/nova-real/bin/python benchmarks/nova_real_latency.py \
        --cloud /tmp/bench --rounds 3 --requests 8 --output latency.json
"""

import argparse
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from tests.nova_real import bench  # noqa: E402

MODES = ('stock', 'one_pass', 'retry')
CASES = ('room_free', 'one_preemption')
REQUESTS = 8
MIN_COMPUTES = 8
POLL = 0.1
#: The ratios reported: (numerator, denominator, case).
RATIOS = (('one_pass', 'stock', 'room_free'),
          ('retry', 'stock', 'room_free'),
          ('retry', 'one_pass', 'one_preemption'))
METRICS = ('to_host_ms', 'to_active_ms', 'select_wall_ms', 'select_cpu_ms')


def cases_of(kind):
    return ('room_free',) if kind == 'stock' else CASES


def timed_boot(driver, name, poll):
    """One normal server: its id and the times from the POST to its host
    and to ACTIVE (or ERROR) as polled.
    """
    start = time.monotonic()
    server_id = driver.boot('normal', name)
    to_host = None
    deadline = start + bench.WAIT
    while True:
        server = driver.compute.server(server_id)
        now = time.monotonic() - start
        host = server.get('OS-EXT-SRV-ATTR:host')
        if host and to_host is None:
            to_host = now
        if server['status'] in ('ACTIVE', 'ERROR'):
            return server_id, server, to_host or now, now
        if time.monotonic() > deadline:
            raise bench.BenchError('server %s not ACTIVE after %g s'
                                   % (server_id, bench.WAIT))
        time.sleep(poll)


def measure(driver, kind, case, requests, label, poll):
    """``requests`` requests of ``case``; their samples and checks."""
    driver.delete_all()
    spots = driver.fill(bench.SPOT[kind]) if case == 'one_preemption' \
        else {}
    samples = []
    for index in range(requests):
        known = ({d['id'] for d in driver.journal()} if spots else set())
        offsets = driver.log_offsets()
        server_id, server, to_host, to_active = timed_boot(
            driver, '%s-%d' % (label, index), poll)
        calls = [c for c in driver.scheduler_calls(offsets)
                 if server_id in c['instances']]
        sample = {
            'to_host_ms': round(to_host * 1e3, 1),
            'to_active_ms': round(to_active * 1e3, 1),
            'select_wall_ms': round(sum(c['wall_ms'] for c in calls), 1)
            if calls else None,
            'select_cpu_ms': round(sum(c['cpu_ms'] for c in calls), 1)
            if calls else None,
            'select_calls': len(calls),
            'status': server['status'],
            'host': server.get('OS-EXT-SRV-ATTR:host'),
        }
        if spots:
            sample.update(_preemption(driver, server_id, sample['host'],
                                      spots, known))
        driver.compute.delete_server(server_id)
        driver.wait(lambda: server_id not in driver.servers(),
                    'server %s deleted' % server_id)
        driver.wait(lambda: not driver.placement.allocations(server_id),
                    'the allocations of %s gone' % server_id)
        if spots and sample['host']:
            # The victim's room back to a preemptible server.
            driver.wait_views_agree()
            spots.update(driver.fill(bench.SPOT[kind], per_host=1,
                                     hosts=[sample['host']]))
        samples.append(sample)
    over = driver.over_capacity()
    driver.delete_all()
    return samples, over


def _preemption(driver, server_id, host, spots, known):
    """The decision made for ``server_id``, checked once its victim is
    gone; the victim is dropped from ``spots``.
    """
    victims = driver.victims(known, spots, [server_id])
    named = [v for d in driver.decisions_since(known)
             for v in d['victims']]
    ok = (victims['decisions'] == 1 and len(named) == 1 and
          named[0]['host'] == host and named[0]['id'] in spots and
          victims['victims_left_running'] == 0 and
          victims['gone_per_nova'] == 1 and
          victims['deleted_more_than_once'] == 0)
    for victim in named:
        spots.pop(victim['id'], None)
    return {'decisions': victims['decisions'], 'victims': len(named),
            'victims_named_twice': victims['victims_named_twice'],
            'one_victim_on_its_host': ok}


def aggregate(samples):
    results = {}
    for (kind, case), rows in sorted(samples.items()):
        entry = {'mode': kind, 'case': case, 'requests': len(rows)}
        for metric in METRICS:
            values = [row[metric] for row in rows
                      if row[metric] is not None]
            entry[metric] = bench.summary(values, 1)
            entry[metric]['mean'] = (round(statistics.mean(values), 1)
                                     if values else None)
            entry[metric]['sd'] = (round(statistics.stdev(values), 1)
                                   if len(values) > 1 else None)
        entry['active'] = len([r for r in rows if r['status'] == 'ACTIVE'])
        entry['select_calls_per_request'] = sorted(
            {row['select_calls'] for row in rows})
        if case == 'one_preemption':
            entry['one_victim_on_its_host'] = len(
                [r for r in rows if r['one_victim_on_its_host']])
            entry['victims_named_twice'] = sum(
                r['victims_named_twice'] for r in rows)
        results['%s/%s' % (kind, case)] = entry
    ratios = {}
    for top, bottom, case in RATIOS:
        upper = results.get('%s/%s' % (top, case))
        lower = results.get('%s/%s' % (bottom, case))
        if not (upper and lower):
            continue
        ratios['%s/%s (%s)' % (top, bottom, case)] = {
            metric: (round(upper[metric]['median'] /
                           lower[metric]['median'], 3)
                     if upper[metric]['median'] and
                     lower[metric]['median'] else None)
            for metric in METRICS}
    return results, ratios


def run(cloud, modes=MODES, rounds=3, requests=REQUESTS,
        min_computes=MIN_COMPUTES, poll=POLL):
    """Measure on ``cloud``; the result as a dict."""
    bench.check_size(cloud, min_computes)
    driver = bench.Driver(cloud)
    info = bench.machine()
    meter = bench.CpuMeter(cloud)
    samples, over = {}, []
    aborted = None
    try:
        for index, kind, _count, case in bench.plan(
                driver, rounds, [(kind, 1) for kind in modes], cases_of):
            label = 'r%d-%s-%s' % (index, kind, case)
            rows, over_now = measure(driver, kind, case, requests, label,
                                     poll)
            over += over_now
            samples.setdefault((kind, case), []).extend(rows)
            bench.log('%s: medians to ACTIVE %s, select_destinations %s '
                      '(ms)' % (label, bench.summary(
                          [r['to_active_ms'] for r in rows], 1)['median'],
                          bench.summary([r['select_wall_ms'] for r in rows],
                                        1)['median']))
    except bench.BenchError as error:
        aborted = str(error)
        bench.log('aborted: %s' % error)
    info['cpu'] = meter.read()
    results, ratios = aggregate(samples)
    checks = {
        'every_request_active': all(
            e['active'] == e['requests'] for e in results.values()),
        'one_victim_per_preemption': all(
            e['one_victim_on_its_host'] == e['requests']
            for e in results.values() if e['case'] == 'one_preemption'),
        'victims_named_twice': sum(e.get('victims_named_twice', 0)
                                   for e in results.values()),
        'select_destinations_logged': all(
            e['select_wall_ms']['n'] == e['requests']
            for e in results.values()),
        'hosts_over_capacity': over,
    }
    return {
        'machine': info,
        'config': bench.cloud_config(
            cloud, requests_per_round=requests, rounds=rounds,
            modes=list(modes), poll_s=poll, schedulers=1),
        'samples': {'%s/%s' % key: rows for key, rows in samples.items()},
        'results': results,
        'ratios': ratios,
        'checks': checks,
        'aborted': aborted,
        'fill_faults': driver.fill_faults,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog='nova_real_latency.py', description='Scheduling latency in a '
        'running nova-real cloud: stock nova-scheduler and ours in the '
        'one_pass and retry modes, room free and one preemption.')
    bench.add_arguments(parser, MIN_COMPUTES)
    parser.add_argument('--requests', type=int, default=REQUESTS,
                        help='requests per mode and case in a round '
                        '(default %(default)s)')
    parser.add_argument('--modes', type=bench.choices(MODES),
                        default=','.join(MODES), help='default %(default)s')
    parser.add_argument('--poll', type=float, default=POLL,
                        help='seconds between two reads of the server '
                        '(default %(default)s)')
    args = parser.parse_args(argv)
    if args.requests < 1 or args.poll <= 0:
        parser.error('--requests must be 1 or more, --poll above 0')
    result = bench.measure(parser, args, run, modes=args.modes,
                           requests=args.requests, poll=args.poll)
    checks = result['checks']
    return 0 if (checks['every_request_active'] and
                 checks['one_victim_per_preemption'] and
                 not checks['victims_named_twice'] and
                 not checks['hosts_over_capacity'] and
                 not result['aborted']) else 1


if __name__ == '__main__':
    sys.exit(main())
