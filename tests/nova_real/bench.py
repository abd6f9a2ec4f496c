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

"""What the benchmarks of the real cloud share
(``benchmarks/nova_boots.py``, ``benchmarks/nova_real_latency.py``).

A :class:`Driver` works a running cloud of :mod:`.cloud` through its
compute and Placement APIs, as the tests do: it swaps the schedulers
(timed, :mod:`.timed`), boots, fills the hosts with preemptible servers,
deletes everything, reads the journal with ``preemptible-sched-manage
journal list --format json`` and checks that no host is over capacity.
:func:`machine` and :class:`CpuMeter` say what the machine was and how
busy it was, other jobs included.
"""

import argparse
import collections
import concurrent.futures
import importlib.metadata
import json
import os
import platform
import statistics
import subprocess
import sys
import time

from tests.nova_real import api
from tests.nova_real import cloud as cloud_mod
from tests.nova_real import timed

#: Longest wait for the cloud to settle.
WAIT = 300.0
#: How often a wait polls the API.
POLL = 0.2
#: Four 2 vCPU / 2048 MB servers fill a node (8 vCPUs at a ratio of 4,
#: 8192 MB).
PER_HOST = 4
#: The preemptible flavor each mode of ours displaces: on the standard
#: classes for the retry mode, on the CUSTOM_PREEMPTIBLE_* ones for the
#: one-pass mode.
SPOT = {'retry': 'spot', 'one_pass': 'spot1p'}
CLASSES = ('VCPU', 'MEMORY_MB', 'DISK_GB')
PREEMPTIBLE = 'CUSTOM_PREEMPTIBLE_'
#: The shared servers the cloud uses (their CPU is reported apart).
SERVERS = ('mariadbd', 'mysqld', 'beam.smp', 'redis-server')


class BenchError(Exception):
    """The cloud did not do what the benchmark needs (one line)."""


def median(values):
    return statistics.median(values) if values else None


def summary(values, digits=3):
    """median, min, max and n of ``values`` (None when empty)."""
    values = [value for value in values if value is not None]
    if not values:
        return {'median': None, 'min': None, 'max': None, 'n': 0}
    return {'median': round(statistics.median(values), digits),
            'min': round(min(values), digits),
            'max': round(max(values), digits), 'n': len(values)}


def rotated(items, by):
    """``items`` rotated left by ``by`` (the order of a round)."""
    items = list(items)
    if not items:
        return items
    by %= len(items)
    return items[by:] + items[:by]


def _version(name):
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def _cpu_model():
    try:
        with open('/proc/cpuinfo') as stream:
            for line in stream:
                if line.startswith('model name'):
                    return line.split(':', 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _memory_gib():
    try:
        with open('/proc/meminfo') as stream:
            for line in stream:
                if line.startswith('MemTotal:'):
                    return round(int(line.split()[1]) / 2 ** 20, 1)
    except OSError:
        pass
    return None


def _revision():
    """``git describe`` of the checkout: its commit, ``-dirty`` when the
    working tree has changes.
    """
    try:
        return subprocess.run(
            ['git', '-C', cloud_mod.TOP, 'describe', '--always', '--dirty',
             '--abbrev=7'], capture_output=True, text=True,
            check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def machine():
    """The machine, the software and the code measured."""
    return {
        'python': platform.python_version(),
        'platform': platform.platform(),
        'processor': _cpu_model(),
        'cpu_count': os.cpu_count(),
        'memory_gib': _memory_gib(),
        'date': time.strftime('%Y-%m-%d %H:%M:%S %z'),
        'nova': _version('nova'),
        'placement': _version('openstack-placement'),
        'source': _revision(),
        'load_average_at_start': [round(x, 2) for x in os.getloadavg()],
    }


def emit(result, output=None):
    """``result`` as JSON on stdout, and into ``output``."""
    text = json.dumps(result, indent=2, sort_keys=True)
    print(text)
    if output:
        with open(output, 'w') as out:
            out.write(text + '\n')


def log(message):
    sys.stderr.write('%s %s\n' % (time.strftime('%H:%M:%S'), message))
    sys.stderr.flush()


# -- how busy the machine was ----------------------------------------------

def _jiffies(pid):
    """utime + stime of ``pid`` and its reaped children, and its session,
    or None.
    """
    try:
        with open('/proc/%d/stat' % pid) as stream:
            fields = stream.read().rsplit(')', 1)[1].split()
    except (OSError, IndexError):
        return None
    # fields[0] is field 3 (state): session is field 6, utime..cstime
    # fields 14-17.
    return int(fields[3]), sum(int(x) for x in fields[11:15])


def _name(pid):
    try:
        with open('/proc/%d/comm' % pid) as stream:
            return stream.read().strip()
    except OSError:
        return None


class CpuMeter:
    """CPU seconds used over a span: by the whole machine (``/proc/stat``),
    by the cloud's processes (the sessions they lead: gunicorn's workers
    too), by the shared database, message and lock servers, by this
    client, and by the rest (other jobs on the machine).
    """

    def __init__(self, cloud):
        self.cloud = cloud
        self.hz = os.sysconf('SC_CLK_TCK')
        self.start = self._sample()

    def _sample(self):
        with open('/proc/stat') as stream:
            fields = stream.readline().split()[1:]
        total = sum(int(x) for x in fields)
        idle = int(fields[3]) + int(fields[4])
        sessions = {pid for pid, _started in
                    self.cloud.state['processes'].values()}
        cloud, servers = {}, {}
        for entry in os.listdir('/proc'):
            if not entry.isdigit():
                continue
            found = _jiffies(int(entry))
            if found is None:
                continue
            session, used = found
            if session in sessions:
                cloud[int(entry)] = used
            elif _name(int(entry)) in SERVERS:
                servers[int(entry)] = used
        me = os.times()
        return {'wall': time.monotonic(), 'busy': total - idle,
                'cloud': cloud, 'servers': servers,
                'client': me.user + me.system,
                'children': me.children_user + me.children_system,
                'load': os.getloadavg()}

    def read(self):
        """The figures since the meter was made."""
        end = self._sample()
        start = self.start

        def grown(key):
            return sum(used - start[key].get(pid, 0)
                       for pid, used in end[key].items()) / self.hz
        wall = end['wall'] - start['wall']
        busy = (end['busy'] - start['busy']) / self.hz
        cloud, servers = grown('cloud'), grown('servers')
        client = end['client'] - start['client']
        # The commands it ran and the schedulers it stopped (reaped).
        children = end['children'] - start['children']
        return {
            'wall_s': round(wall, 1),
            'machine_busy_cpu_s': round(busy, 1),
            'machine_busy_fraction': round(
                busy / (wall * (os.cpu_count() or 1)), 3) if wall else None,
            'cloud_cpu_s': round(cloud, 1),
            'servers_cpu_s': round(servers, 1),
            'client_cpu_s': round(client, 1),
            'client_children_cpu_s': round(children, 1),
            'other_cpu_s': round(max(
                0.0, busy - cloud - servers - client - children), 1),
            'load_average_at_end': [round(x, 2) for x in end['load']],
        }


# -- driving the cloud -------------------------------------------------------

class Driver:
    """The benchmarks' hands on a running cloud."""

    def __init__(self, cloud):
        self.cloud = cloud
        self.compute = cloud.compute
        self.placement = cloud.placement
        self.flavors = cloud.state['flavors']
        self.image = cloud.state['image']
        self.capacity = {}
        #: Faults of the servers that went to ERROR while filling hosts
        #: (asked for again): what the benchmarks did not measure.
        self.fill_faults = []

    # -- waiting -----------------------------------------------------------

    def wait(self, predicate, what, timeout=WAIT, interval=POLL):
        try:
            return cloud_mod.wait_for(predicate, what, timeout, interval,
                                      alive=self.cloud.dead)
        except RuntimeError as error:
            raise BenchError(str(error)) from None

    # -- schedulers -------------------------------------------------------

    def use(self, kind, count=1):
        """Run ``count`` timed schedulers of ``kind``, unless they run
        already; then one untimed boot per scheduler, so that none serves
        a measured request first (its first call loads the cells).
        """
        wanted = {'kind': kind, 'count': count, 'timed': True}
        if (self.cloud.state.get('schedulers') != wanted or
                len(self.cloud.schedulers()) != count):
            log('schedulers: %s x %d' % (kind, count))
            self.cloud.use_schedulers(kind, count, timed=True)
        self.delete_all()
        for index in range(count):
            server = self.boot('normal', 'warmup-%d' % index)
            self.wait_settled([server])
        self.delete_all()

    def log_offsets(self):
        """``{scheduler name: size of its log}``: where new lines start."""
        offsets = {}
        for name in cloud_mod.SCHEDULER_NAMES:
            path = self.cloud.path('logs', '%s.log' % name)
            offsets[name] = os.path.getsize(path) if os.path.exists(
                path) else 0
        return offsets

    def scheduler_calls(self, offsets):
        """The timed ``select_destinations`` calls logged since
        ``offsets``, each with the scheduler that served it.
        """
        calls = []
        for name, offset in offsets.items():
            path = self.cloud.path('logs', '%s.log' % name)
            if not os.path.exists(path):
                continue
            with open(path, 'rb') as stream:
                stream.seek(offset)
                text = stream.read().decode('utf-8', 'replace')
            for call in timed.parse(text):
                call['scheduler'] = name
                calls.append(call)
        return calls

    # -- servers -----------------------------------------------------------

    def boot(self, flavor, name, count=1, host=None):
        """Ask for ``count`` servers of ``flavor``; the server's id (one)
        or the reservation id.
        """
        extra = {'host': host} if host else {}
        return self.compute.boot(name, self.flavors[flavor], self.image,
                                 count, **extra)

    def servers(self, **query):
        return {server['id']: server
                for server in self.compute.servers(**query)}

    def wait_settled(self, ids, timeout=WAIT):
        """Until every server of ``ids`` is ACTIVE or ERROR;
        ``{id: server}``.
        """
        ids = set(ids)

        def settled():
            found = {key: server for key, server in self.servers().items()
                     if key in ids}
            if len(found) == len(ids) and all(
                    s['status'] in ('ACTIVE', 'ERROR')
                    for s in found.values()):
                return found
            return None
        return self.wait(settled, '%d servers ACTIVE or ERROR' % len(ids),
                         timeout)

    def delete_all(self):
        """Delete every server; until none is left, Placement holds no
        allocation and Nova's view (os-hypervisors) has caught up.
        """
        for key in self.servers():
            self.compute.delete_server(key)
        self.wait(lambda: not self.compute.servers(), 'every server deleted')
        self.wait(lambda: not any(any(u.values())
                                  for u in self.usages().values()),
                  'Placement empty')
        self.wait_views_agree()

    def wait_views_agree(self, timeout=WAIT):
        """Until Nova's view of every host (os-hypervisors, the compute
        nodes' usage that the scheduler's host states read) counts what
        Placement does, so that every measurement starts from settled
        hosts.
        """
        def agree():
            placement = {host: {rc: usages.get(rc, 0) +
                                usages.get(PREEMPTIBLE + rc, 0)
                                for rc in CLASSES}
                         for host, usages in self.usages().items()}
            nova = {h['hypervisor_hostname']: {
                'VCPU': h['vcpus_used'], 'MEMORY_MB': h['memory_mb_used'],
                'DISK_GB': h['local_gb_used']}
                for h in self.compute.hypervisors()}
            return nova == placement
        self.wait(agree, "Nova's view of the hosts to agree with "
                  "Placement's", timeout, interval=0.5)

    def fill(self, flavor, per_host=PER_HOST, hosts=None, attempts=3):
        """``per_host`` servers of ``flavor`` on each host (one request
        per host, the first alone, the others two at a time), all ACTIVE;
        ``{id: server}``. A server that goes to ERROR is deleted and asked
        for again, up to ``attempts`` times.
        """
        hosts = list(self.cloud.hosts if hosts is None else hosts)

        def one(host, count):
            reply = self.boot(flavor, 'fill-%s' % host, count, host=host)
            if count == 1:
                return self.wait_settled([reply])
            found = self.wait(lambda: self.servers(reservation_id=reply),
                              'the servers on %s' % host)
            return self.wait_settled(found)

        servers = {}
        wanted = dict.fromkeys(hosts, per_host)
        for _attempt in range(attempts):
            todo = [(host, count) for host, count in wanted.items()
                    if count]
            if not todo:
                return servers
            done = [one(*todo[0])]
            with concurrent.futures.ThreadPoolExecutor(2) as pool:
                done += list(pool.map(lambda item: one(*item), todo[1:]))
            failed = set()
            for found in done:
                for key, server in found.items():
                    if server['status'] == 'ACTIVE':
                        servers[key] = server
                        wanted[server['OS-EXT-SRV-ATTR:host']] -= 1
                    else:
                        failed.add(key)
                        self.fill_faults.append('%s: %s' % (
                            server['OS-EXT-SRV-ATTR:host'] or 'no host',
                            (server.get('fault') or {}).get('message')))
                        self.compute.delete_server(key)
            if failed:
                self.wait(lambda: not failed & set(self.servers()),
                          'the servers in ERROR deleted')
                self.wait_views_agree()
        if any(wanted.values()):
            raise BenchError('filling the hosts: servers still in ERROR '
                             'after %d attempts (%s)' % (
                                 attempts, ', '.join(
                                     '%s: %d missing' % item for item in
                                     sorted(wanted.items()) if item[1])))
        return servers

    def burst(self, flavor, count, prefix, poll=POLL):
        """``count`` single-server boots of ``flavor``, all sent at once;
        until each is ACTIVE or ERROR. ``{'servers': {id: {'status',
        'host', 'scheduled_s', 'settled_s'}}, 'elapsed_s', 'scheduled_s',
        'posted_s', 'post_errors'}``: times from the first POST, the
        server's as first seen by a poll of the server list every ``poll``
        s; the POSTs the API refused (no server).
        """
        def post(index):
            try:
                return self.boot(flavor, '%s-%d' % (prefix, index)), None
            except api.ApiError as error:
                return None, '%s: %s' % (error.status, error.body[:300])
        start = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(count) as pool:
            posts = list(pool.map(post, range(count)))
        posted = time.monotonic() - start
        ids = [key for key, _error in posts if key]
        seen = {key: {'status': None, 'host': None, 'scheduled_s': None,
                      'settled_s': None} for key in ids}
        deadline = start + WAIT
        while True:
            listing = self.servers()
            now = time.monotonic() - start
            for key, record in seen.items():
                server = listing.get(key)
                if server is None:
                    continue
                host = server.get('OS-EXT-SRV-ATTR:host')
                if host and record['scheduled_s'] is None:
                    record['scheduled_s'], record['host'] = now, host
                if (server['status'] in ('ACTIVE', 'ERROR') and
                        record['settled_s'] is None):
                    record['settled_s'] = now
                    record['status'] = server['status']
                    record['host'] = host
                    if server['status'] == 'ERROR':
                        record['fault'] = (server.get('fault') or {}).get(
                            'message', 'unknown')
            if all(r['settled_s'] is not None for r in seen.values()):
                break
            if time.monotonic() > deadline:
                raise BenchError('a burst of %d did not settle in %g s'
                                 % (count, WAIT))
            dead = self.cloud.dead()
            if dead:
                raise BenchError('%s died during a burst' % dead)
            time.sleep(poll)
        return {'servers': seen, 'posted_s': posted,
                'post_errors': [error for _key, error in posts if error],
                'elapsed_s': max([r['settled_s'] for r in seen.values()] +
                                 [posted]),
                'scheduled_s': max([(r['scheduled_s'] or r['settled_s'])
                                    for r in seen.values()] + [posted])}

    # -- Placement and Nova views ----------------------------------------

    def providers(self):
        return self.cloud.state['providers']

    def usages(self):
        return {host: self.placement.usages(uuid)
                for host, uuid in self.providers().items()}

    def capacities(self, host):
        """``{class: (total - reserved) * allocation_ratio}`` of the
        standard classes (read once).
        """
        if host not in self.capacity:
            inventories = self.placement.inventories(self.providers()[host])
            self.capacity[host] = {
                rc: (inv['total'] - inv['reserved']) * inv[
                    'allocation_ratio']
                for rc, inv in inventories.items() if rc in CLASSES}
        return self.capacity[host]

    def over_capacity(self):
        """Hosts over capacity: in Placement (standard and preemptible
        usage together against the standard capacity) and in Nova's view
        (os-hypervisors); a list of lines, empty when none is.
        """
        over = []
        for host, usages in self.usages().items():
            capacity = self.capacities(host)
            for rc in CLASSES:
                used = usages.get(rc, 0) + usages.get(PREEMPTIBLE + rc, 0)
                if used > capacity[rc]:
                    over.append('%s: Placement %s %s of %s' % (
                        host, used, rc, capacity[rc]))
        for hypervisor in self.compute.hypervisors():
            host = hypervisor['hypervisor_hostname']
            capacity = self.capacities(host)
            for rc, field in (('VCPU', 'vcpus_used'),
                              ('MEMORY_MB', 'memory_mb_used'),
                              ('DISK_GB', 'local_gb_used')):
                if hypervisor[field] > capacity[rc]:
                    over.append('%s: Nova %s %s of %s' % (
                        host, hypervisor[field], rc, capacity[rc]))
        return over

    # -- the journal --------------------------------------------------------

    def journal(self):
        """Every decision, as ``preemptible-sched-manage journal list
        --format json`` prints it (an operator's view).
        """
        printed = self.cloud.run(
            cloud_mod.command('preemptible-sched-manage'), '--config-file',
            self.cloud.path('etc', 'nova.conf'), 'journal', 'list',
            '--limit', '0', '--format', 'json', log=False)
        return json.loads(printed)

    def decisions_since(self, known):
        """The preemption decisions of the journal not in ``known`` (ids)."""
        return [d for d in self.journal()
                if d['id'] not in known and d['reason'] == 'preempt']

    def victims(self, known, spots, requests, timeout=WAIT):
        """What the decisions journaled since ``known`` (their ids) did to
        the preemptible servers ``spots`` for the new servers
        ``requests``, once every victim named by a decision that was not
        rolled back is gone (the journal read again then): victims per
        decision, victims named by more than one decision (of any state,
        and of those not rolled back: these acted), the preemptible
        servers gone according to Nova, and their delete actions.
        """
        def acted(decisions):
            return {v['id'] for d in decisions for v in d['victims']
                    if d['state'] != 'rolled_back'}
        named = acted(self.decisions_since(known))
        try:
            self.wait(lambda: not named & set(self.servers()),
                      'the victims gone', timeout)
        except BenchError:
            pass            # judged below
        decisions = self.decisions_since(known)
        left = set(self.servers())
        gone = set(spots) - left
        deletes = {victim: len([a for a in self.compute.actions(victim)
                                if a['action'] == 'delete'])
                   for victim in sorted(gone)}
        every = collections.Counter(v['id'] for d in decisions
                                    for v in d['victims'])
        acting = collections.Counter(v['id'] for d in decisions
                                     for v in d['victims']
                                     if d['state'] != 'rolled_back')
        twice = sorted(v for v, n in every.items() if n > 1)
        return {
            'decisions': len(decisions),
            'decisions_by_state': dict(collections.Counter(
                d['state'] for d in decisions)),
            'decisions_by_scheduler': dict(collections.Counter(
                d['scheduler'] for d in decisions)),
            'decisions_for_other_requests': len([
                d for d in decisions if not set(d['request']) & set(
                    requests)]),
            'victims_per_decision': {str(k): v for k, v in sorted(
                collections.Counter(len(d['victims'])
                                    for d in decisions).items())},
            'victims_named': len(every),
            'victims_named_twice': len(twice),
            'victims_named_twice_by_decisions_that_acted': len(
                [v for v, n in acting.items() if n > 1]),
            'victims_named_twice_ids': twice,
            'victims_not_preemptible': len(set(every) - set(spots)),
            'victims_left_running': len(set(acting) & left),
            'gone_per_nova': len(gone),
            'gone_not_named': len(gone - set(acting)),
            'deleted_more_than_once': len([v for v, n in deletes.items()
                                           if n > 1]),
        }


def plan(driver, rounds, configs, cases_of):
    """``(round, kind, count, case)`` of every measurement, each round in
    an order rotated from the last (configurations ``(kind, count)``, then
    the cases ``cases_of(kind)``), with ``count`` schedulers of ``kind``
    running when it is yielded.
    """
    for index in range(rounds):
        for kind, count in rotated(configs, index):
            driver.use(kind, count)
            for case in rotated(cases_of(kind), index):
                yield index, kind, count, case


# -- the command lines -------------------------------------------------------

def choices(allowed, convert=str):
    """An argparse type: a comma-separated list of ``allowed`` values."""
    def parse(text):
        try:
            values = [convert(item) for item in text.split(',') if item]
        except ValueError:
            values = None
        if not values or any(value not in allowed for value in values):
            raise argparse.ArgumentTypeError(
                '%r: a comma-separated list of %s' % (
                    text, ', '.join(map(str, allowed))))
        return values
    return parse


def add_arguments(parser, min_computes):
    """The options every benchmark of the real cloud has."""
    parser.add_argument('--cloud', required=True, metavar='DIR',
                        help='the run folder of "python -m '
                        'tests.nova_real.cloud up --dir DIR"')
    parser.add_argument('--rounds', type=int, default=3,
                        help='rounds (every mode and case in each; default '
                        '%(default)s)')
    parser.add_argument('--min-computes', type=int, default=min_computes,
                        help='refuse a smaller cloud (default '
                        '%(default)s)')
    parser.add_argument('--output', metavar='FILE.json',
                        help='also write the JSON there')


def measure(parser, args, run, **options):
    """``run(cloud, rounds=..., min_computes=..., **options)`` on the cloud
    of ``--cloud``; its result, printed (and written to ``--output``).
    Exits 2 with one line when there is no cloud there, or it is too
    small, or it does not do what the benchmark needs.
    """
    if args.rounds < 1:
        parser.error('--rounds must be 1 or more')
    if not os.path.exists(os.path.join(args.cloud, 'cloud.json')):
        parser.exit(2, '%s: no cloud in %s (python -m tests.nova_real.cloud '
                    'up --dir %s --computes 8 starts one)\n'
                    % (parser.prog, args.cloud, args.cloud))
    cloud = cloud_mod.Cloud.load(args.cloud)
    try:
        result = run(cloud, rounds=args.rounds,
                     min_computes=args.min_computes, **options)
    except BenchError as error:
        parser.exit(2, '%s: %s\n' % (parser.prog, error))
    emit(result, args.output)
    return result


def check_size(cloud, min_computes):
    """The number of compute hosts; BenchError below ``min_computes``."""
    hosts = len(cloud.hosts)
    if hosts < min_computes:
        raise BenchError('the cloud has %d compute hosts, fewer than %d'
                         % (hosts, min_computes))
    return hosts


def cloud_config(cloud, **extra):
    """The ``config`` of a result: the cloud measured, and ``extra``."""
    config = {
        'computes': len(cloud.hosts), 'node': dict(cloud_mod.NODE),
        'allocation_ratios': dict(cloud_mod.RATIOS),
        'flavor': 'normal (2 vCPU, 2048 MB, 10 GB)',
        'preemptible_flavor': dict(SPOT), 'servers_per_full_host': PER_HOST,
        'cloud': cloud.dir}
    config.update(extra)
    return config
