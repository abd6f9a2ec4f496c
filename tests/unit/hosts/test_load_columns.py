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


"""The load columns kept across passes against the per-host snapshot."""

import math
from unittest import mock

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
import numpy

from preemptible_sched.hosts import load
from preemptible_sched.hosts import load_columns
from preemptible_sched.hosts import load_reading
from preemptible_sched.hosts import manager as host_manager
from preemptible_sched import objects
from preemptible_sched.scheduler.weighers import \
    load_variation_risk_balancing as lvrb
from preemptible_sched.scheduler.weighers import \
    low_risk_over_commitment as lroc
from preemptible_sched.scheduler.weighers import target_load_packing as tlp
from tests import base

SIZES = st.sampled_from([(4.0, 8192.0), (8.0, 16384.0), (0.0, 0.0),
                         (4.0, 0.0)])
GOOD = st.floats(0.0, 100.0)
#: mostly good values (those hosts are read in the plain form), some bad
VALUES = st.one_of(GOOD, GOOD, GOOD, GOOD, GOOD, st.floats(-10.0, 120.0),
                   st.just(math.nan), st.just(math.inf), st.just('x'),
                   st.just(True), st.just(50))
RESOURCE = st.one_of(
    st.none(),
    st.fixed_dictionaries({'avg': VALUES}, optional={'std': VALUES}))
#: when the window ended, relative to the reading's time (None: unsaid)
ENDS = st.one_of(st.floats(-120.0, 5.0), st.floats(-120.0, 5.0),
                 st.floats(-400.0, 5.0), st.none(), st.just('late'))


@st.composite
def host_metrics(draw):
    kind = draw(st.sampled_from(['plain', 'plain', 'plain', 'window',
                                 'missing', 'empty', 'corrupt']))
    if kind == 'plain':
        # The common case: read at once, without host_load.
        return {'cpu': {'avg': draw(GOOD), 'std': draw(GOOD)},
                'memory': {'avg': draw(GOOD), 'std': draw(GOOD)},
                'window_end': draw(st.floats(-120.0, 5.0))}
    if kind == 'missing':
        return None
    if kind == 'empty':
        return {}
    if kind == 'corrupt':
        return 'not a mapping'
    metrics = {}
    for resource in ('cpu', 'memory'):
        entry = draw(RESOURCE)
        if entry is not None:
            metrics[resource] = entry
    end = draw(ENDS)
    if end is not None:
        metrics['window_end'] = end
    return metrics


VALUES_PLAIN = st.one_of(GOOD, GOOD, GOOD, GOOD, st.floats(-10.0, 120.0),
                         st.just(math.nan), st.just(math.inf))


@st.composite
def plain_metrics(draw, values=VALUES_PLAIN,
                  ends=st.one_of(st.floats(-120.0, 5.0),
                                 st.floats(-400.0, 5.0))):
    """Metrics in the plain form (a reading of those only, all good, is
    read at once, every row in place).
    """
    return {'cpu': {'avg': draw(values), 'std': draw(values)},
            'memory': {'avg': draw(values), 'std': draw(values)},
            'window_end': draw(ends)}


#: one pass: seconds since the last, a new reading (None: the same
#: windows object; else the metrics, and whether they come as a
#: mapping per host or as a Reading), the source's problem, instances
#: placed (host, vCPUs, expected, placed how long ago) and hosts emptied.
STEPS = st.tuples(
    st.sampled_from([0.0, 1.0, 30.0, 200.0, 400.0]),
    st.one_of(st.none(), st.tuples(
        st.one_of(st.lists(host_metrics(), min_size=6, max_size=6),
                  st.lists(plain_metrics(), min_size=6, max_size=6),
                  st.lists(plain_metrics(GOOD, st.floats(-120.0, 5.0)),
                           min_size=6, max_size=6)),
        st.sampled_from(['mapping', 'reading', 'reading']))),
    st.sampled_from([None, None, 'timeout']),
    st.lists(st.tuples(st.integers(0, 5), st.sampled_from([1, 2, 4]),
                       st.sampled_from([None, 0.5, 3.0]),
                       st.sampled_from([0.0, 30.0, 90.0, 3600.0])),
             max_size=3),
    st.lists(st.integers(0, 5), max_size=2))


def _windows(now, metrics, hosts):
    windows = {}
    for (name, _, _), entry in zip(hosts, metrics):
        if entry is None:
            continue
        if isinstance(entry, dict) and isinstance(
                entry.get('window_end'), float):
            entry = dict(entry, window_end=now + entry['window_end'])
        windows[name] = entry
    return windows


def _weights(manager, snapshot, spec):
    batch = manager.batch()
    context = objects.PassContext(now=snapshot.now, load=snapshot)
    return [weigher.weigh_all(batch, spec, context) for weigher in (
        tlp.TargetLoadPackingWeigher(),
        lvrb.LoadVariationRiskBalancingWeigher(),
        lroc.LowRiskOverCommitmentWeigher())]


class TestLoadColumns(base.TestCase):

    @settings(max_examples=80, deadline=None)
    @given(st.lists(SIZES, min_size=6, max_size=6),
           st.lists(STEPS, min_size=1, max_size=6),
           st.sampled_from([1.0, 1.5]),
           st.sampled_from([0, load.LoadSnapshot.FEW]),
           st.tuples(st.sampled_from(['kep', 'upstream']),
                     st.sampled_from([1.0, 0.5]),
                     st.sampled_from([1.0, 0.0]),
                     st.sampled_from([40.0, 75.0])))
    def test_same_as_building_the_snapshot(self, sizes, steps, multiplier,
                                           few, options):
        formula, margin, sensitivity, target = options
        self.flags(group='load_variation_risk_balancing', formula=formula,
                   safe_variance_margin=margin,
                   safe_variance_sensitivity=sensitivity)
        self.flags(group='target_load_packing', target_utilization=target)
        # The weights kept across passes are computed again in numpy
        # (few 0) or host by host.
        with mock.patch.object(load.LoadSnapshot, 'FEW', few):
            self._same_as_building_the_snapshot(sizes, steps, multiplier)

    def _same_as_building_the_snapshot(self, sizes, steps, multiplier):
        hosts = [('h%d' % index, cores, memory)
                 for index, (cores, memory) in enumerate(sizes)]
        manager = host_manager.HostManager(base.FakePlanner())
        # Registered over the passes: rows are added as hosts come.
        registered = 0
        columns = load_columns.LoadColumns()
        health, reference_health = load.MetricsHealth(), \
            load.MetricsHealth()
        memo = {}
        now, windows, serial, names = 1000.0, {}, 0, None
        spec = base.make_spec((2, 2048, 10), expected_vcpus=1.0)
        for advance, metrics, problem, placed, emptied in steps:
            if registered < len(hosts):
                registered = min(len(hosts), registered + 3)
                for name, _, _ in hosts[len(manager.table):registered]:
                    manager.add_host(objects.Host(name, vcpus=16,
                                                  memory_mb=65536,
                                                  disk_gb=1000))
            now += advance
            if metrics is not None:
                metrics, form = metrics
                windows = _windows(now, metrics, hosts)
                if form == 'reading':
                    # The names of the previous reading when the same.
                    windows = load_reading.Reading.of(windows, names)
                    names = windows.names
            for host, vcpus, expected, ago in placed:
                if host < registered:
                    serial += 1
                    manager.add_instance(hosts[host][0], base.make_instance(
                        'i%d' % serial, (vcpus, 1024, 1),
                        started_at=now - ago, placed_at=now - ago,
                        expected_vcpus=expected))
            for host in emptied:
                if host < registered:
                    state = manager.host_states[hosts[host][0]]
                    for instance_id in list(state.instances):
                        manager.remove_instance(instance_id)
            known = hosts[:registered]
            occupied = {name for name, _, _ in known
                        if manager.host_states[name].instances}
            reference = load.build(now, known, windows, occupied,
                                   source_problem=problem,
                                   multiplier=multiplier,
                                   health=reference_health, memo=memo)
            snapshot = columns.update(
                now, manager.table, windows,
                lambda names: [(cores, memory) for _, cores, memory
                               in hosts[:len(names)]],
                source_problem=problem, multiplier=multiplier,
                health=health)
            batch = manager.batch()
            self.assertEqual(reference.fallback, snapshot.fallback)
            self.assertEqual(dict(reference_health.counts),
                             dict(health.counts))
            self.assertEqual(reference.explain(batch),
                             snapshot.explain(batch))
            fields = load.BASE + load.DERIVED
            expected, got = (reference.columns(batch, fields),
                             snapshot.columns(batch, fields))
            for field in fields:
                numpy.testing.assert_array_equal(expected[field], got[field],
                                                 err_msg=field)
            for expected, got in zip(reference.recent(batch),
                                     snapshot.recent(batch)):
                numpy.testing.assert_array_equal(expected, got)
            if not reference.fallback:
                for expected, got in zip(
                        _weights(manager, reference, spec),
                        _weights(manager, snapshot, spec)):
                    numpy.testing.assert_array_equal(expected, got)

    def test_only_changed_hosts_are_computed_again(self):
        manager = host_manager.HostManager(base.FakePlanner())
        for name in ('a', 'b'):
            manager.add_host(objects.Host(name, vcpus=4, memory_mb=8192))
        columns = load_columns.LoadColumns()
        windows = {name: {'cpu': {'avg': 20.0}, 'window_end': 0.0}
                   for name in ('a', 'b')}

        def sizes(names):
            return [(4, 8192)] * len(names)
        first = columns.update(10.0, manager.table, windows, sizes)
        loads = dict(first.hosts)
        # Same windows, same occupancy, windows young: nothing computed.
        columns.update(20.0, manager.table, windows, sizes)
        self.assertIs(loads['a'], columns.loads['a'])
        self.assertIs(loads['b'], columns.loads['b'])
        # A new reading for b only (a's metrics are the same object).
        windows = dict(windows, b={'cpu': {'avg': 70.0}, 'window_end': 15.0})
        again = columns.update(30.0, manager.table, windows, sizes)
        self.assertIs(loads['a'], columns.loads['a'])
        self.assertEqual(70.0, again.hosts['b'].cpu_avg)
        # a's window ages past MAX_AGE_S: a only.
        b = columns.loads['b']
        stale = columns.update(301.0, manager.table, windows, sizes)
        self.assertTrue(math.isnan(stale.hosts['a'].cpu_avg))
        self.assertIs(b, columns.loads['b'])

    def test_recent_sums_follow_the_window_end(self):
        manager = host_manager.HostManager(base.FakePlanner())
        manager.add_host(objects.Host('a', vcpus=8, memory_mb=8192))
        manager.add_instance('a', base.make_instance(
            'i', (2, 1024, 1), started_at=100.0, placed_at=100.0))
        columns = load_columns.LoadColumns()

        def sizes(names):
            return [(8, 8192)] * len(names)

        def reading(end):
            return {'a': {'cpu': {'avg': 20.0, 'std': 1.0},
                          'memory': {'avg': 10.0, 'std': 0.0},
                          'window_end': end}}
        # Placed after the window's end less the margin: not in it yet.
        first = columns.update(120.0, manager.table, reading(110.0), sizes)
        self.assertEqual([2.0], first.recent(manager.batch())[0].tolist())
        # A later window shows it: no longer added.
        later = columns.update(230.0, manager.table, reading(220.0), sizes)
        self.assertEqual([0.0], later.recent(manager.batch())[0].tolist())
