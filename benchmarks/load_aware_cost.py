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

"""CPU time of a load-aware decision beside a RAM-only one.

For each cloud size (``--hosts``, default 1,000 and 10,000 blades of 8
vCPU, 16384 MB, 500 GB, one in two carrying a small instance placed long
ago), one scheduler per weigher set is built: ``ram`` (the RAM-only
reference, no load snapshot) and each load-aware weigher alone
(``--weighers``). A load-aware scheduler reads a
:class:`~preemptible_sched.loadwatcher.provider.LoadProvider` whose source
answers a new reading (new metrics for every host, as a watcher's window
refresh gives) every ``--reading-every`` passes, and the same object in
between; passes are ``--pass-seconds`` apart on the scheduler's clock. A
reading comes as a :class:`~preemptible_sched.hosts.load_reading.Reading`
(arrays, as the watcher and its HTTP client give it), or with
``--reading-form mappings`` as one mapping per host (the form before).

Each repetition times, for every scheduler in an order that rotates, one
pass: the snapshot update (load-aware only) and one decision for a
``medium`` request (2 vCPU, 4000 MB), in CPU time
(``time.process_time``); the placed instance is removed afterwards. The
mean over the repetitions includes the passes where a reading arrives;
those are also reported alone (``reading_pass_ms``), and the others
(``between_readings_ms``). Prints JSON on stdout::

    python benchmarks/load_aware_cost.py --hosts 1000,10000
"""

import argparse
import gc
import sys
import time

import numpy

from report import emit
from report import log
from report import machine

from preemptible_sched.conf import CONF
from preemptible_sched.hosts import load_reading
from preemptible_sched.loadwatcher import provider as provider_mod
from preemptible_sched import objects
from preemptible_sched.scheduler import filter_scheduler as scheduler

BLADE = objects.Resources(8, 16384, 500)
SMALL = objects.Resources(1, 2048, 20)
MEDIUM = objects.Resources(2, 4000, 40)
START = 100000.0
WEIGHERS = ('target_load_packing', 'load_variation_risk_balancing',
            'low_risk_over_commitment')
#: the target: a load-aware pass costs at most this times a RAM-only one
TARGET = 1.5
TARGET_TEXT = ('load-aware decision at 10000 hosts <= 1.5 x RAM-only, '
               'snapshot updates included')


class Source:
    """Metrics of every host, a new reading every ``every`` asks, as a
    watcher hands them over: a ``Reading`` (``form`` ``arrays``, what
    :meth:`.LoadWatcher.latest` and the HTTP client give) or one mapping
    per host (``mappings``, as they did before).
    """

    def __init__(self, names, every, seed, form='arrays'):
        self.names = names
        self.every = every
        self.rng = numpy.random.default_rng(seed)
        self.form = form
        self.asked = 0
        self.windows = None
        self.arrived = False

    def prepare(self, now):
        """Draw the next reading if one is due (untimed: the watcher's
        work, not the scheduler's).
        """
        self.arrived = self.asked % self.every == 0
        if self.arrived:
            size = len(self.names)
            values = numpy.empty((size, len(load_reading.COLUMNS)))
            values[:, 0::2] = self.rng.uniform(0, 90, (size, 3))
            values[:, 1:4:2] = self.rng.uniform(0, 15, (size, 2))
            values[:, 4] = now - 10.0
            reading = load_reading.Reading(self.names, values)
            if self.form == 'mappings':
                self.windows = {name: reading.metrics(row) for row, name
                                in enumerate(self.names)}
            else:
                self.windows = reading
        self.asked += 1

    def latest(self, now):
        return self.windows, None


class Driver:
    def __init__(self, hosts):
        self.hosts = hosts

    def host_specs(self):
        return self.hosts


def build(weigher, size, every, seed, form='arrays'):
    """(scheduler, provider or None, source or None) of one weigher."""
    CONF.set_override('weighers', [weigher], group='filter_scheduler')
    try:
        sched = scheduler.FilterScheduler()
    finally:
        CONF.clear_override('weighers', group='filter_scheduler')
    manager = sched.host_manager
    hosts = [objects.Host('node-%06d' % index, *BLADE)
             for index in range(size)]
    for index, host in enumerate(hosts):
        manager.add_host(host)
        if index % 2:
            manager.add_instance(host.name, objects.Instance(
                id='%s-old' % host.name, resources=SMALL,
                started_at=START - 86400, placed_at=START - 86400))
    if weigher == 'ram':
        return sched, None, None
    source = Source([host.name for host in hosts], every, seed, form)
    return sched, provider_mod.LoadProvider(source.latest, Driver(hosts)), \
        source


def one_pass(setup, repetition, now):
    """CPU seconds of one pass (snapshot update and decision)."""
    sched, load_provider, source = setup
    spec = objects.RequestSpec(id='bench-%d' % repetition, resources=MEDIUM,
                               flavor='medium')
    if source is not None:
        source.prepare(now)
    begin = time.process_time()
    snapshot = None
    if load_provider is not None:
        snapshot = load_provider.snapshot(now, sched.host_manager)
    decision = sched.select_destinations(
        spec, context=objects.PassContext(now=now, load=snapshot))
    elapsed = time.process_time() - begin
    for selection in decision.selections:
        sched.host_manager.remove_instance(selection.instance.id)
    return elapsed


def measure(size, weighers, repetitions, every, pass_s, seed,
            form='arrays'):
    names = ('ram',) + tuple(weighers)
    setups = {name: build(name, size, every, seed, form) for name in names}
    gc.collect()
    gc.freeze()
    times = {name: [] for name in names}
    arrivals = {name: [] for name in names}
    between = {name: [] for name in names}
    # A first pass each, untimed: the cold snapshot (every host computed).
    cold = {}
    for name in names:
        cold[name] = one_pass(setups[name], -1, START)
    for repetition in range(repetitions):
        now = START + (repetition + 1) * pass_s
        shift = repetition % len(names)
        for name in names[shift:] + names[:shift]:
            elapsed = one_pass(setups[name], repetition, now)
            times[name].append(elapsed)
            source = setups[name][2]
            if source is not None and source.arrived:
                arrivals[name].append(elapsed)
            else:
                between[name].append(elapsed)
    gc.unfreeze()
    ram = sum(times['ram']) / len(times['ram'])
    rows = []
    for name in names:
        mean = sum(times[name]) / len(times[name])
        calm = sum(between[name]) / len(between[name])
        rows.append({
            'hosts': size, 'weigher': name,
            'mean_ms': round(mean * 1e3, 4),
            'over_ram': round(mean / ram, 3),
            'between_readings_ms': round(calm * 1e3, 4),
            'between_readings_over_ram': round(calm / ram, 3),
            'first_pass_ms': round(cold[name] * 1e3, 3),
            'reading_pass_ms': (round(sum(arrivals[name]) /
                                      len(arrivals[name]) * 1e3, 3)
                                if arrivals[name] else None),
        })
        log('%6d hosts  %-32s %8.3f ms  %5.2f x ram' % (
            size, name, mean * 1e3, mean / ram))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--hosts', default='1000,10000')
    parser.add_argument('--weighers', default=','.join(WEIGHERS[:2]),
                        help='load-aware weighers, comma-separated (%s)'
                        % ', '.join(WEIGHERS))
    parser.add_argument('--repetitions', type=int, default=300)
    parser.add_argument('--reading-every', type=int, default=30,
                        help='passes between two metrics readings')
    parser.add_argument('--pass-seconds', type=float, default=2.0)
    parser.add_argument('--reading-form', choices=('arrays', 'mappings'),
                        default='arrays',
                        help='how a reading reaches the scheduler: arrays '
                        '(a Reading, as the watcher and its client give '
                        'it) or one mapping per host')
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--output', metavar='FILE')
    args = parser.parse_args(argv)
    try:
        sizes = [int(size) for size in args.hosts.split(',')]
    except ValueError:
        parser.error('--hosts: comma-separated integers expected')
    weighers = [name for name in args.weighers.split(',') if name]
    unknown = sorted(set(weighers) - set(WEIGHERS))
    if unknown or args.repetitions < 1 or args.reading_every < 1:
        parser.error('--weighers: unknown %s' % ', '.join(unknown) if unknown
                     else '--repetitions and --reading-every must be >= 1')
    CONF([], project='preemptible-sched')
    rows = []
    for size in sizes:
        rows.extend(measure(size, weighers, args.repetitions,
                            args.reading_every, args.pass_seconds,
                            args.seed, args.reading_form))
    largest = max(sizes)
    worst = max((row['over_ram'] for row in rows
                 if row['hosts'] == largest and row['weigher'] != 'ram'),
                default=None)
    document = {
        'machine': machine(),
        'setup': {'hosts': sizes, 'weighers': weighers,
                  'repetitions': args.repetitions,
                  'reading_every': args.reading_every,
                  'pass_seconds': args.pass_seconds, 'seed': args.seed,
                  'reading_form': args.reading_form,
                  'host': '8 vCPU, 16384 MB, 500 GB, one in two with a '
                          '1 vCPU instance', 'request': '2 vCPU, 4000 MB'},
        'results': rows,
        'target': {'text': TARGET_TEXT, 'hosts': largest,
                   'worst_over_ram': worst,
                   'met': worst is not None and worst <= TARGET},
    }
    emit(document, args.output)
    return 0


if __name__ == '__main__':
    sys.exit(main())
