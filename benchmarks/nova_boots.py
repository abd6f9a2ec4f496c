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

"""Boots per second through the compute API of a real multi-process Nova.

Runs against a cloud of the ``nova-real`` harness that is already up
(``python -m tests.nova_real.cloud up --dir DIR --computes 8``) and swaps
its schedulers as it goes (:meth:`tests.nova_real.cloud.Cloud.
use_schedulers`, timed by :mod:`tests.nova_real.timed`):

``stock``
    Nova's own ``nova-scheduler``, with the filters and weighers of the
    harness's ``nova.conf`` less the package's;
``retry``, ``one_pass``
    ``preemptible-nova-scheduler`` in that ``[preemptible_sched] mode``;

each with one scheduler process and with two (``--schedulers``). The
cases:

``room_free``
    ``--boots`` normal servers (2 vCPU, 2048 MB, 10 GB) asked for at once,
    one request each, on an empty cloud where every one fits;
``saturated``
    the same burst on a cloud whose every host carries four preemptible
    servers (full): every normal server must displace one. Ours only
    (stock Nova cannot displace anything); the preemptible flavor is
    ``spot`` in the retry mode and ``spot1p`` (on the preemptible
    classes) in the one-pass mode.

A burst's time runs from its first POST /servers to the last of its
servers seen ACTIVE or ERROR (the server list is polled every 0.2 s); its
rate is the servers gone ACTIVE over that time. Every round measures every
configuration (mode and number of schedulers) and case, in an order
rotated from round to round, so that the modes are measured side by side.
Each scheduler start is followed by one untimed boot per scheduler. After
a saturated burst, the decisions it journaled are read as an operator
would (``preemptible-sched-manage journal list --format json``): victims
per decision, victims named by two decisions (``victims_named_twice``,
must be 0), and from Nova's server list which preemptible servers are gone
and how many delete actions each has; and whether any host is over
capacity in Placement (standard and preemptible usage against the
standard capacity) or in Nova's view, once the victims are gone.

JSON on stdout (and ``--output``), progress on stderr; exit 1 when a
victim was named twice or a host was left over capacity, 2 on bad
arguments or a cloud too small. Run from the top of a checkout with the
``nova-real`` env's Python::

    .tox/nova-real/bin/python benchmarks/nova_boots.py --cloud /tmp/bench \
        --rounds 3 --output boots.json
"""

import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from tests.nova_real import bench  # noqa: E402

MODES = ('stock', 'retry', 'one_pass')
CASES = ('room_free', 'saturated')
SCHEDULERS = (1, 2)
BOOTS = 16
MIN_COMPUTES = 8
#: Ours room free may be this much slower than stock (the target).
TOLERANCE = 0.10
#: How long the views may take to settle after a burst before a host
#: counts as over capacity.
SETTLE = 60.0


def cases_of(kind):
    return ('room_free',) if kind == 'stock' else CASES


def run_case(driver, kind, count, case, boots, label):
    """One burst of ``case`` under the schedulers running; its row."""
    driver.delete_all()
    spots = driver.fill(bench.SPOT[kind]) if case == 'saturated' else {}
    known = ({d['id'] for d in driver.journal()} if case == 'saturated'
             else set())
    offsets = driver.log_offsets()
    meter = bench.CpuMeter(driver.cloud)
    burst = driver.burst('normal', boots, label)
    cpu = meter.read()
    calls = driver.scheduler_calls(offsets)
    servers = burst['servers']
    active = [key for key, s in servers.items() if s['status'] == 'ACTIVE']
    row = {
        'mode': kind, 'schedulers': count, 'case': case, 'boots': boots,
        'active': len(active), 'errors': boots - len(active),
        'post_errors': burst['post_errors'],
        'faults': sorted({s['fault'] for s in servers.values()
                          if s.get('fault')}),
        'elapsed_s': round(burst['elapsed_s'], 3),
        'posted_s': round(burst['posted_s'], 3),
        'boots_per_s': round(len(active) / burst['elapsed_s'], 3),
        'scheduled_per_s': round(boots / burst['scheduled_s'], 3),
        'hosts_used': len({s['host'] for s in servers.values()
                           if s['host']}),
        'select_destinations': {
            'calls': len(calls),
            'by_scheduler': {name: len([c for c in calls
                                        if c['scheduler'] == name])
                             for name in sorted({c['scheduler']
                                                 for c in calls})},
            'failed': len([c for c in calls if c['outcome'] != 'ok']),
            'wall_ms': bench.summary([c['wall_ms'] for c in calls], 1),
            'cpu_ms': bench.summary([c['cpu_ms'] for c in calls], 1)},
        'cpu': cpu,
    }
    if case == 'saturated':
        row['victims'] = driver.victims(known, spots, list(servers))
    settle = time.monotonic()
    try:
        driver.wait(lambda: not driver.over_capacity(), 'no host over '
                    'capacity', SETTLE)
        row['over_capacity'] = []
    except bench.BenchError:
        row['over_capacity'] = driver.over_capacity()
    row['settle_s'] = round(time.monotonic() - settle, 1)
    driver.delete_all()
    return row


def aggregate(rows, modes, schedulers):
    """Per mode, schedulers and case: the medians over the rounds, and
    the ratio to stock's (same number of schedulers, room free).
    """
    results = {}
    for kind in modes:
        for count in schedulers:
            for case in cases_of(kind):
                mine = [r for r in rows if (r['mode'], r['schedulers'],
                                            r['case']) == (kind, count,
                                                           case)]
                if not mine:
                    continue
                walls = [c for r in mine for c in (
                    r['select_destinations']['wall_ms']['median'],)
                    if c is not None]
                entry = {
                    'mode': kind, 'schedulers': count, 'case': case,
                    'rounds': len(mine),
                    'boots_per_s': bench.summary(
                        [r['boots_per_s'] for r in mine]),
                    'scheduled_per_s': bench.summary(
                        [r['scheduled_per_s'] for r in mine]),
                    'errors': sum(r['errors'] for r in mine),
                    'select_wall_ms_median_of_rounds': bench.summary(
                        walls, 1)['median'],
                    'over_capacity': sum(len(r['over_capacity'])
                                         for r in mine),
                }
                if case == 'saturated':
                    entry['victims'] = _victims(mine)
                results['%s/%d/%s' % (kind, count, case)] = entry
    for entry in results.values():
        stock = results.get('stock/%d/room_free' % entry['schedulers'])
        base = stock and stock['boots_per_s']['median']
        mine = entry['boots_per_s']['median']
        room = entry['case'] == 'room_free'
        entry['ratio_to_stock'] = (round(mine / base, 3)
                                   if base and mine is not None and room
                                   else None)
        # Within each round (the load of a shared machine drifts between
        # rounds more than between the bursts of one).
        by_round = _per_round(rows, entry['mode'], entry['schedulers'])
        entry['ratio_to_stock_per_round'] = by_round if room else None
        entry['ratio_to_stock_median_of_rounds'] = (
            bench.summary(by_round)['median'] if room and by_round
            else None)
    return results


def _per_round(rows, kind, count):
    """Room free boots/s of ``kind`` over stock's with as many
    schedulers, round by round.
    """
    rates = {}
    for row in rows:
        if row['case'] == 'room_free' and row['schedulers'] == count:
            rates[(row['mode'], row['round'])] = row['boots_per_s']
    return [round(rates[(kind, index)] / rates[('stock', index)], 3)
            for index in sorted({i for _mode, i in rates})
            if rates.get(('stock', index)) and (kind, index) in rates]


def _victims(rows):
    """The victims' figures of ``rows``, summed (counts by key merged,
    lists joined).
    """
    totals = {}
    for row in rows:
        for key, value in row['victims'].items():
            if isinstance(value, dict):
                merged = totals.setdefault(key, {})
                for name, number in value.items():
                    merged[name] = merged.get(name, 0) + number
            elif isinstance(value, list):
                totals.setdefault(key, []).extend(value)
            else:
                totals[key] = totals.get(key, 0) + value
    return totals


def targets(results):
    room = {key: entry['ratio_to_stock'] >= 1 - TOLERANCE
            for key, entry in results.items()
            if entry['mode'] != 'stock' and entry['case'] == 'room_free' and
            entry['ratio_to_stock'] is not None}
    saturated = [entry for entry in results.values()
                 if entry['case'] == 'saturated']
    return {
        'room_free_within_10pct_of_stock': room,
        'saturated_no_victim_named_twice': all(
            e['victims'].get('victims_named_twice', 0) == 0
            for e in saturated) if saturated else None,
        'saturated_no_victim_named_twice_by_decisions_that_acted': all(
            e['victims'].get(
                'victims_named_twice_by_decisions_that_acted', 0) == 0
            for e in saturated) if saturated else None,
        'no_host_over_capacity': all(e['over_capacity'] == 0
                                     for e in results.values()),
        'every_boot_active': all(e['errors'] == 0
                                 for e in results.values()),
    }


def run(cloud, modes=MODES, schedulers=SCHEDULERS, rounds=3, boots=BOOTS,
        min_computes=MIN_COMPUTES):
    """Measure on ``cloud`` (a :class:`tests.nova_real.cloud.Cloud`);
    the result as a dict.
    """
    hosts = bench.check_size(cloud, min_computes)
    if not 1 <= boots <= hosts * bench.PER_HOST:
        raise bench.BenchError('--boots %d: 1 to %d (the servers %d hosts '
                               'hold)' % (boots, hosts * bench.PER_HOST,
                                          hosts))
    driver = bench.Driver(cloud)
    configs = [(kind, count) for kind in modes for count in schedulers]
    info = bench.machine()
    meter = bench.CpuMeter(cloud)
    rows = []
    aborted = None
    try:
        for index, kind, count, case in bench.plan(driver, rounds, configs,
                                                   cases_of):
            label = 'r%d-%s-%d-%s' % (index, kind, count, case)
            row = run_case(driver, kind, count, case, boots, label)
            row['round'] = index
            rows.append(row)
            bench.log('%s: %.2f boots/s, %d errors%s' % (
                label, row['boots_per_s'], row['errors'],
                ', victims named twice: %d' % row['victims'][
                    'victims_named_twice'] if 'victims' in row else ''))
    except bench.BenchError as error:
        aborted = str(error)
        bench.log('aborted: %s' % error)
    info['cpu'] = meter.read()
    results = aggregate(rows, modes, schedulers)
    return {
        'machine': info,
        'config': bench.cloud_config(
            cloud, boots_per_burst=boots, rounds=rounds, modes=list(modes),
            schedulers=list(schedulers), poll_s=bench.POLL),
        'rounds': rows,
        'results': results,
        'targets': targets(results),
        'aborted': aborted,
        'fill_faults': driver.fill_faults,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog='nova_boots.py', description='Boots per second through the '
        'compute API of a running nova-real cloud: stock nova-scheduler '
        'and ours in the retry and one_pass modes, with one and two '
        'schedulers, room free and saturated.')
    bench.add_arguments(parser, MIN_COMPUTES)
    parser.add_argument('--boots', type=int, default=BOOTS,
                        help='servers per burst (default %(default)s)')
    parser.add_argument('--modes', default=','.join(MODES),
                        type=bench.choices(MODES),
                        help='default %(default)s')
    parser.add_argument('--schedulers', default='1,2',
                        type=bench.choices(SCHEDULERS, int),
                        help='scheduler processes, default %(default)s')
    args = parser.parse_args(argv)
    result = bench.measure(parser, args, run, modes=args.modes,
                           schedulers=args.schedulers, boots=args.boots)
    checks = result['targets']
    return 0 if (checks['saturated_no_victim_named_twice'] is not False and
                 checks['no_host_over_capacity'] and
                 not result['aborted']) else 1


if __name__ == '__main__':
    sys.exit(main())
