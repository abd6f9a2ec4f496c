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

"""Latency of Nova's ``select_destinations``, stock and preemption-aware.

The latency figure of the preemptible-instances paper, inside a real Nova
34: Nova's functional harness (``tests/functional_nova/base.py``: API,
conductor, fake computes, in-process Placement, SQLite) with ``--hosts``
``MediumFakeDriver`` computes, and the scheduler service running

``stock``
    Nova's own ``nova.scheduler.manager.SchedulerManager``;
``one_pass``
    our manager with ``[preemptible_sched] mode = one_pass`` (the spot
    flavor on the ``CUSTOM_PREEMPTIBLE_*`` classes, every compute node
    offering them through a provider config file);
``retry``
    our manager with ``mode = retry`` (the default): Nova's pass, then on
    NoValidHost the second pass over Placement and the cell database,
    then one atomic Placement write claiming the victims' room.

The cases (the paper's numbering):

``empty_normal``
    (1 for ``stock``, 2a otherwise) a normal 2 vCPU / 2048 MB / 10 GB
    server on an empty cloud;
``empty_preemptible``
    (2b) a preemptible server of the same size on an empty cloud;
``full_normal``
    (2c) a normal server on a cloud whose every host carries four
    preemptible servers (its RAM full): exactly one must be deleted.

What is timed is the scheduler manager's ``select_destinations`` inside
the scheduler service (the method of the manager's class is wrapped before
the service starts): wall time (``time.perf_counter``) and CPU time
(``time.process_time``). Nova's services share one process and, under
eventlet, one thread: CPU time counts whatever ran while the scheduler
waited. Each request is booted through the API and waits for ACTIVE;
then, outside the timed section, the cloud is restored: the
new server deleted, each victim's room refilled with a new preemptible
server on its host, ACTIVE, and every host's servers and Placement usages
checked against the starting layout.

The modes take turns: the requests are split into ``--rounds`` rounds
(default 5), and in each round every mode, each in a fresh harness set
up for it, serves its share of every case, in an order rotated by one
from round to round, so that a slow spell of the shared machine falls on
all of them. (One harness cannot switch modes: the manager class and the
spot flavor's resources are fixed when it starts.) ``--hosts 4,16,64``
measures each host count in turn, with its own rounds. The figures are
of every timed request of a mode and case over all its rounds; ``--warmup``
untimed requests open each case of each set-up.

Settings: Nova's and ours defaults, except what the harness sets
(``base.NovaTestCase``: allocation ratios 1.0, nothing reserved,
``service_down_time`` 10**7, quotas raised, and Nova's test base's
``build_failure_weight_multiplier = 0``).

JSON on stdout, progress on stderr::

    python benchmarks/nova_select_latency.py --requests 130 > latency.json
    python benchmarks/nova_select_latency.py --hosts 4,16,64 --requests 20

Needs Nova 34 and its test fixtures (the ``nova`` tox env: ``tox -e nova
--notest``, then ``.tox/nova/bin/python``); without them, one line on
stderr and exit status 2.
"""

import argparse
import contextlib
import os
import statistics
import sys
import time
import warnings

from report import emit
from report import log
from report import machine

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

MODES = ('stock', 'one_pass', 'retry')
CASES = ('empty_normal', 'empty_preemptible', 'full_normal')
#: The cases each mode is measured in.
MODE_CASES = {'stock': ('empty_normal',), 'one_pass': CASES, 'retry': CASES}
#: The paper's name of each case.
PAPER_CASE = {('stock', 'empty_normal'): '1',
              'empty_normal': '2a', 'empty_preemptible': '2b',
              'full_normal': '2c'}
#: The dotted path of the method timed, per mode.
TIMED = {
    'stock': 'nova.scheduler.manager.SchedulerManager.select_destinations',
    'one_pass': 'preemptible_sched.nova.manager.'
                'PreemptibleSchedulerManager.select_destinations',
    'retry': 'preemptible_sched.nova.manager.'
             'PreemptibleSchedulerManager.select_destinations',
}
STOCK_MANAGER = 'nova.scheduler.manager.SchedulerManager'

REQUESTS = 130
HOSTS = (4,)
WARMUP = 1
#: Rounds the requests of each mode are split into, the modes taking
#: turns within each round.
ROUNDS = 5
QUICK_REQUESTS = 3
QUICK_HOSTS = (2,)
QUICK_ROUNDS = 1
#: Preemptible servers per host on the full cloud: their 4 x 2048 MB fill
#: the node's 8192 MB.
SPOT_PER_HOST = 4
#: Seconds between the boots of the full cloud's preemptible servers
#: (their run times, hence their termination costs, differ).
FILL_STEP = 60
#: The benchmark's own polling of the API while it waits (not timed).
POLL_SECONDS = 0.02
WAIT_SECONDS = 120


class NovaMissing(Exception):
    """Nova or its functional fixtures cannot be imported."""


class HarnessFailed(Exception):
    """A mode's run in the harness failed (its traceback)."""


def load_harness():
    """The functional harness's base module (Nova imported, eventlet
    patched as Nova's functional tests are).
    """
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            import nova.tests.functional  # noqa: F401  (monkey patching)
            from tests.functional_nova import base
    except ImportError as error:
        raise NovaMissing(
            f'Nova or its functional fixtures are not importable ({error}); '
            f'use the nova tox env: tox -e nova --notest') from None
    return base


def timed(original, samples):
    """``original`` (a manager's ``select_destinations``), appending
    ``(wall seconds, CPU seconds)`` of every call to ``samples``.
    """
    def select_destinations(self, *args, **kwargs):
        wall = time.perf_counter()
        cpu = time.process_time()
        try:
            return original(self, *args, **kwargs)
        finally:
            samples.append((time.perf_counter() - wall,
                            time.process_time() - cpu))

    select_destinations.__name__ = original.__name__
    select_destinations.__doc__ = original.__doc__
    return select_destinations


def _resolve(dotted):
    module, cls, attribute = dotted.rsplit('.', 2)
    return getattr(getattr(__import__(module, fromlist=[cls]), cls),
                   attribute)


def bench_class(base):
    """The measuring test case on ``base.NovaTestCase``: set ``MODE``,
    and ``HOSTS`` on a subclass, then call
    :meth:`measure` per case from a test method.
    """
    import fixtures
    from nova.tests.functional.api import client as api_client

    class LatencyCase(base.NovaTestCase):

        MODE = 'retry'

        def setUp(self):
            self.ONE_PASS = self.MODE == 'one_pass'
            if self.MODE == 'stock':
                self.SCHEDULER_MANAGER = STOCK_MANAGER
            #: (wall, cpu) of every select_destinations call.
            self.samples = []
            # At class level, before the scheduler service starts and its
            # RPC server binds the manager's methods.
            path = TIMED[self.MODE]
            self.useFixture(fixtures.MonkeyPatch(
                path, timed(_resolve(path), self.samples)))
            super().setUp()
            # The harness moves oslo's clock with set_time_override, which
            # warns each time: noise on stderr.
            warnings.filterwarnings(
                'ignore', message='(set|clear)_time_override is deprecated',
                category=DeprecationWarning)
            self.layout = {host: 0 for host in self.HOSTS}

        def settings(self):
            """The settings in force that shape the figures."""
            from nova import conf as nova_conf
            conf = nova_conf.CONF
            found = {
                'host_subset_size': conf.filter_scheduler.host_subset_size,
                'weight_classes': list(
                    conf.filter_scheduler.weight_classes),
                'enabled_filters': list(
                    conf.filter_scheduler.enabled_filters),
            }
            if self.MODE == 'stock':    # [preemptible_sched] is not read
                return found
            ours = conf.preemptible_sched
            found.update({
                'mode': ours.mode,
                'termination_grace_seconds': (
                    ours.termination_grace_seconds),
                'termination_costs': list(ours.termination_costs),
            })
            return found

        # -- waiting (not timed) -------------------------------------------

        def wait_for(self, predicate, what):
            deadline = time.monotonic() + WAIT_SECONDS
            while True:
                value = predicate()
                if value:
                    return value
                if time.monotonic() > deadline:
                    self.fail('Gave up waiting for %s' % what)
                time.sleep(POLL_SECONDS)

        def status(self, uuid):
            try:
                return self.api.get_server(uuid)['status']
            except api_client.OpenStackApiNotFoundException:
                return None

        def settled(self, uuid):
            """The server, once ACTIVE or ERROR."""
            self.wait_for(lambda: self.status(uuid) in ('ACTIVE', 'ERROR'),
                          'server %s to build' % uuid)
            return self.api.get_server(uuid)

        def gone(self, uuid):
            """Wait until the server and its allocations are gone."""
            self.wait_for(lambda: self.status(uuid) is None,
                          'server %s to be deleted' % uuid)
            self.wait_for(
                lambda: not self._get_allocations_by_server_uuid(uuid),
                'the allocations of %s to be released' % uuid)

        def post(self, flavor, host=None):
            body = self._build_server(flavor_id=flavor, networks='none',
                                      host=host)
            return self.api.post_server({'server': body})['id']

        # -- the cloud -----------------------------------------------------

        def fill_all(self):
            """``SPOT_PER_HOST`` preemptible servers on every host, booted
            ``FILL_STEP`` s apart; the clock left after the last one.
            """
            when = 0
            for host in self.HOSTS:
                for _ in range(SPOT_PER_HOST):
                    self.at(when)
                    uuid = self.post(self.spot, host)
                    self.assertEqual('ACTIVE', self.settled(uuid)['status'])
                    when += FILL_STEP
                self.layout[host] = SPOT_PER_HOST
            self.at(when)

        def by_host(self):
            """``{host: [server, ...]}`` of every server."""
            found = {host: [] for host in self.HOSTS}
            for server in self.api.get_servers(detail=True):
                found[server['OS-EXT-SRV-ATTR:host']].append(server)
            return found

        def restored(self):
            """Whether every host carries its starting number of servers,
            all ACTIVE, preemptible (on the full cloud), and Placement's
            usages equal their flavors.
            """
            servers = self.by_host()
            if {host: len(found) for host, found in servers.items()} != (
                    self.layout):
                return False
            for found in servers.values():
                for server in found:
                    if (server['status'] != 'ACTIVE' or
                            server['flavor']['original_name'] != 'spot'):
                        return False
            try:
                self.assert_usages_match_servers()
            except AssertionError:
                return False
            return True

        def decided_victims(self, since):
            """The servers our manager decided to delete, from the decision
            notifications after the first ``since``.
            """
            victims = []
            for message in self.notifier.notifications[since:]:
                if message.event_type == 'preemptible_sched.preempt':
                    for placement in message.payload['placements']:
                        victims.extend(placement['terminate'])
            return victims

        # -- one request -------------------------------------------------

        def request(self, case):
            """Boot one server for ``case``, wait for it, restore the
            cloud; the row of the request.
            """
            flavor = self.spot if case == 'empty_preemptible' else (
                self.normal)
            before = {server['id']: server['OS-EXT-SRV-ATTR:host']
                      for servers in self.by_host().values()
                      for server in servers}
            calls = len(self.samples)
            notices = len(self.notifier.notifications)
            server = self.settled(self.post(flavor))
            timed_calls = self.samples[calls:]
            victims = self.decided_victims(notices)
            for uuid in victims:
                self.gone(uuid)
            after = self.server_ids()
            deleted = set(before) - after
            # Restore: the new server goes, each victim's room is refilled.
            self.api.delete_server(server['id'])
            self.gone(server['id'])
            for uuid in sorted(deleted):
                self.settled(self.post(self.spot, before[uuid]))
            wall, cpu = timed_calls[0] if timed_calls else (None, None)
            return {
                'wall_s': wall,
                'cpu_s': cpu,
                'select_calls': len(timed_calls),
                'status': server['status'],
                'host': server.get('OS-EXT-SRV-ATTR:host'),
                'victims': len(victims),
                'deleted': len(deleted),
                'deleted_are_victims': deleted == set(victims),
                'victim_hosts': sorted(before[uuid] for uuid in deleted),
                'restored': self.restored(),
            }

        def measure(self, case, requests, warmup=WARMUP, label=''):
            """``warmup`` untimed requests, then the rows of ``requests``
            timed ones of ``case``; fills the cloud for ``full_normal``
            (and leaves it full).
            """
            if case == 'full_normal' and not any(self.layout.values()):
                self.fill_all()
            rows = []
            for number in range(warmup + requests):
                row = self.request(case)
                if number >= warmup:
                    rows.append(row)
                    done = len(rows)
                    if done % 10 == 0 or done == requests:
                        log(f'{label}{self.MODE} {case}: {done}/{requests}')
            return rows

    return LatencyCase


# -- figures ------------------------------------------------------------


def spread(values):
    """Mean, standard deviation (sample, n - 1), median, min and max of
    ``values`` seconds, in milliseconds; and n.
    """
    values = [value * 1000.0 for value in values]
    return {
        'mean_ms': statistics.fmean(values),
        'sd_ms': statistics.stdev(values) if len(values) > 1 else 0.0,
        'median_ms': statistics.median(values),
        'min_ms': min(values),
        'max_ms': max(values),
        'n': len(values),
    }


def summarise(mode, case, rows):
    """A case's result row from the rows of its requests."""
    walls = [row['wall_s'] for row in rows if row['wall_s'] is not None]
    cpus = [row['cpu_s'] for row in rows if row['cpu_s'] is not None]
    expected_victims = 1 if case == 'full_normal' else 0
    return {
        'paper_case': PAPER_CASE.get((mode, case), PAPER_CASE[case]),
        'wall': spread(walls) if walls else None,
        'cpu': spread(cpus) if cpus else None,
        'requests': len(rows),
        'active': sum(row['status'] == 'ACTIVE' for row in rows),
        'one_select_call_each': all(row['select_calls'] == 1
                                    for row in rows),
        'victims': sum(row['victims'] for row in rows),
        'expected_victims_each': expected_victims,
        'victims_as_expected': all(
            row['victims'] == expected_victims and
            row['deleted'] == expected_victims and
            row['deleted_are_victims'] for row in rows),
        'restored_each_time': all(row['restored'] for row in rows),
    }


def ratio(results, numerator, denominator):
    """``numerator`` over ``denominator`` (each ``(mode, case)``): of the
    wall and CPU means and medians.
    """
    top = results[numerator[0]][numerator[1]]
    bottom = results[denominator[0]][denominator[1]]
    found = {'of': '%s %s / %s %s' % (numerator + denominator)}
    for clock in ('wall', 'cpu'):
        for figure in ('mean_ms', 'median_ms'):
            found['%s_%s' % (clock, figure[:-3])] = (
                top[clock][figure] / bottom[clock][figure])
    return found


def ratios(results):
    return {
        'one_pass/stock': ratio(results, ('one_pass', 'empty_normal'),
                                ('stock', 'empty_normal')),
        'retry/one_pass': ratio(results, ('retry', 'full_normal'),
                                ('one_pass', 'full_normal')),
    }


def checks(results):
    """What must hold functionally in every case of every mode."""
    rows = [row for cases in results.values() for row in cases.values()]
    return {
        'every request ACTIVE': all(row['active'] == row['requests']
                                    for row in rows),
        'one select_destinations call per request': all(
            row['one_select_call_each'] for row in rows),
        'victims as expected (one per full_normal request, else none)':
            all(row['victims_as_expected'] for row in rows),
        'cloud restored after every request': all(
            row['restored_each_time'] for row in rows),
    }


# -- running ------------------------------------------------------------


def run_mode(base, mode, hosts, requests, warmup, label=''):
    """The rows of every case of ``mode``, from one harness set-up, and
    the settings in force.
    """
    found = {}
    in_force = {}
    names = tuple('host%d' % (index + 1) for index in range(hosts))

    class Bench(bench_class(base)):
        MODE = mode
        HOSTS = names

        def test_measure(self):
            in_force.update(self.settings())
            for case in MODE_CASES[mode]:
                found[case] = self.measure(case, requests, warmup, label)

    import testtools
    result = testtools.TestResult()
    log(f'{label}{mode}: starting Nova with {hosts} computes')
    Bench('test_measure').run(result)
    problems = result.errors + result.failures
    if problems:
        raise HarnessFailed('%s: %s' % (mode, problems[0][1]))
    return found, in_force


def positive(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError('must be at least 1')
    return value


def host_counts(text):
    """``4,16,64``: the host counts, each at least 1, in the order given
    (repeats dropped).
    """
    try:
        counts = [int(part) for part in text.split(',') if part]
    except ValueError:
        counts = []
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError(
            'expected positive integers separated by commas, got %r' % text)
    return list(dict.fromkeys(counts))


def split(requests, rounds):
    """``requests`` in ``rounds`` parts as even as can be, larger first
    (fewer rounds if there are fewer requests).
    """
    rounds = min(rounds, requests)
    share, extra = divmod(requests, rounds)
    return [share + (number < extra) for number in range(rounds)]


def rotation(modes, number):
    """The modes' order in round ``number``: shifted by one each round."""
    shift = number % len(modes)
    return list(modes[shift:]) + list(modes[:shift])


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        description='Wall and CPU time of Nova\'s select_destinations, '
                    'stock and with the preemption-aware manager in its '
                    'one_pass and retry modes (JSON on stdout).')
    parser.add_argument('--requests', type=positive, default=None,
                        help='timed requests per mode and case '
                             '(default %d; %d with --quick)'
                        % (REQUESTS, QUICK_REQUESTS))
    parser.add_argument('--hosts', type=host_counts, default=None,
                        help='comma-separated compute host counts, each '
                             'measured in turn (default %s; %s with '
                             '--quick)' % (','.join(map(str, HOSTS)),
                                           ','.join(map(str, QUICK_HOSTS))))
    parser.add_argument('--rounds', type=positive, default=None,
                        help='rounds the requests are split into: in each '
                             'round every mode runs its share, the modes '
                             'in an order rotated from round to round '
                             '(default %d; %d with --quick)'
                        % (ROUNDS, QUICK_ROUNDS))
    parser.add_argument('--warmup', type=int, default=WARMUP,
                        choices=range(0, 11), metavar='N',
                        help='untimed requests before each case, in '
                             'each round (default %d)' % WARMUP)
    parser.add_argument('--modes', default=','.join(MODES),
                        help='comma-separated modes (default: %s)'
                        % ','.join(MODES))
    parser.add_argument('--output', help='also write the JSON here')
    parser.add_argument('--quick', action='store_true',
                        help='smoke run: %s hosts, %d requests per case, '
                             '%d round'
                        % (','.join(map(str, QUICK_HOSTS)), QUICK_REQUESTS,
                           QUICK_ROUNDS))
    args = parser.parse_args(argv)
    modes = [mode for mode in args.modes.split(',') if mode]
    unknown = sorted(set(modes) - set(MODES))
    if unknown or not modes:
        parser.error('--modes: unknown %s (choose from %s)'
                     % (','.join(unknown) or 'none', ','.join(MODES)))
    args.modes = [mode for mode in MODES if mode in modes]
    return args


HARNESS = ('tests/functional_nova/base.py: MediumFakeDriver nodes, '
           'allocation ratios 1.0, nothing reserved, service_down_time '
           '10**7, quotas raised; Nova\'s test base: '
           'build_failure_weight_multiplier 0')


def main(argv=None):
    args = parse_args(argv)
    # Nothing but the JSON on stdout: Nova's imports and fixtures set up
    # log handlers on the stdout they find.
    with contextlib.redirect_stdout(sys.stderr):
        try:
            base = load_harness()
        except NovaMissing as error:
            print(f'nova_select_latency: {error}', file=sys.stderr)
            return 2
        try:
            report = measure_all(base, args)
        except HarnessFailed as error:
            print(f'nova_select_latency: {error}', file=sys.stderr)
            return 1
    emit(report, args.output)
    return 0 if all(report['checks'].values()) else 1


def measure_all(base, args):
    """The report of the run ``args`` asks for."""
    from nova import version
    # Nova's test base would stop a mode after OS_TEST_TIMEOUT seconds
    # (tox sets it for the test suites): a full run takes longer.
    os.environ['OS_TEST_TIMEOUT'] = '0'
    host_list = args.hosts or list(QUICK_HOSTS if args.quick else HOSTS)
    requests = args.requests or (
        QUICK_REQUESTS if args.quick else REQUESTS)
    rounds = split(requests, args.rounds or (
        QUICK_ROUNDS if args.quick else ROUNDS))
    started = time.perf_counter()
    results = {}
    in_force = {}
    schedule = []
    for hosts in host_list:
        rows = {mode: {case: [] for case in MODE_CASES[mode]}
                for mode in args.modes}
        for number, share in enumerate(rounds):
            label = f'{hosts} hosts, round {number + 1}/{len(rounds)}: '
            for mode in rotation(args.modes, number):
                schedule.append([hosts, number + 1, mode])
                found, in_force[mode] = run_mode(
                    base, mode, hosts, share, args.warmup, label)
                for case, found_rows in found.items():
                    rows[mode][case].extend(found_rows)
        results[str(hosts)] = {
            mode: {case: summarise(mode, case, found)
                   for case, found in rows[mode].items()}
            for mode in args.modes}
    base_node = base.NovaTestCase.NODE
    report = {
        'benchmark': 'nova_select_latency',
        'machine': machine(),
        'config': {
            'clock': 'wall: time.perf_counter; cpu: time.process_time '
                     '(the whole process), around the scheduler '
                     'manager\'s select_destinations',
            'timed': {mode: TIMED[mode] for mode in args.modes},
            'nova': version.version_string(),
            'hosts': host_list,
            'rounds': len(rounds),
            'requests_per_round': rounds,
            'order': 'in each round every mode once (a fresh harness '
                     'each), the modes rotated by one from round to round',
            'schedule': schedule,
            'node': dict(base_node),
            'flavors': {'normal': {'vcpus': 2, 'memory_mb': 2048,
                                   'disk_gb': 10},
                        'spot': 'the same, preemptible'},
            'preemptible_per_host_when_full': SPOT_PER_HOST,
            'requests': requests,
            'warmup': args.warmup,
            'harness': HARNESS,
            'settings': in_force,
        },
        'results': results,
        'ratios': ({hosts: ratios(found) for hosts, found in results.items()}
                   if set(args.modes) == set(MODES) else {}),
        'checks': checks({(hosts, mode): cases
                          for hosts, found in results.items()
                          for mode, cases in found.items()}),
        'wall_time_s': round(time.perf_counter() - started, 1),
    }
    return report


if __name__ == '__main__':
    sys.exit(main())
