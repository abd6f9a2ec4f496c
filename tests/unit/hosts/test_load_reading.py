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


"""A reading as arrays: the mapping it stands for, and how it is read."""

import math

import numpy

from preemptible_sched.hosts import load
from preemptible_sched.hosts import load_columns
from preemptible_sched.hosts import load_reading
from preemptible_sched.hosts import manager as host_manager
from preemptible_sched import objects
from tests import base


def _plain(cpu, memory, end, std=1.0):
    return {'cpu': {'avg': cpu, 'std': std},
            'memory': {'avg': memory, 'std': std}, 'window_end': end}


WINDOWS = {
    'a': _plain(10.0, 20.0, 100.0),
    # Not in the plain form: a missing deviation, an int, a resource
    # missing, another metric type, not a mapping.
    'b': {'cpu': {'avg': 10.0}, 'memory': {'avg': 5.0, 'std': 1.0},
          'window_end': 100.0},
    'c': _plain(10, 20.0, 100.0),
    'd': {'cpu': {'avg': 1.0, 'std': 0.0}, 'window_end': 100.0},
    'e': dict(_plain(1.0, 2.0, 100.0), gpu={'avg': 3.0}),
    'f': 'not a mapping',
    # Plain, but bad: judged by the reader.
    'g': _plain(math.nan, 120.0, 100.0),
}


class TestReading(base.TestCase):

    def test_the_mapping_it_stands_for(self):
        reading = load_reading.Reading.of(WINDOWS)
        self.assertEqual(['a', 'g'], reading.names)
        self.assertEqual({'b', 'c', 'd', 'e', 'f'}, set(reading.others))
        self.assertEqual(WINDOWS['a'], reading['a'])
        self.assertIs(WINDOWS['b'], reading['b'])
        # The same object every time (load.build reuses what it computed
        # from it while it is).
        self.assertIs(reading['a'], reading.get('a'))
        self.assertTrue(math.isnan(reading['g']['cpu']['avg']))
        self.assertEqual(len(WINDOWS), len(reading))
        self.assertEqual(set(WINDOWS), set(reading))
        self.assertNotIn('z', reading)
        self.assertIsNone(reading.get('z'))
        self.assertEqual(dict(WINDOWS, g=reading['g']), dict(reading))

    def test_values_column_by_column_read_only(self):
        reading = load_reading.Reading.of(WINDOWS)
        self.assertEqual([10.0, 1.0, 20.0, 1.0, 100.0],
                         reading.values[0].tolist())
        self.assertTrue(reading.values.flags.f_contiguous)
        self.assertFalse(reading.values.flags.writeable)
        self.assertRaises(ValueError, load_reading.Reading, ['a'],
                          numpy.zeros((2, 5)))

    def test_the_names_of_the_previous_reading_are_reused(self):
        first = load_reading.Reading.of(WINDOWS)
        again = load_reading.Reading.of(dict(WINDOWS), first.names)
        self.assertIs(first.names, again.names)
        other = load_reading.Reading.of({'a': WINDOWS['a']}, first.names)
        self.assertEqual(['a'], other.names)
        self.assertIs(first, load_reading.Reading.of(first))

    def test_read_as_the_mappings_are(self):
        # Bad metrics are rejected with the same problems either way.
        manager = host_manager.HostManager(base.FakePlanner())
        for name in sorted(WINDOWS) + ['h']:
            manager.add_host(objects.Host(name, vcpus=4, memory_mb=8192))
        manager.add_instance('h', base.make_instance('i', (1, 512, 1)))

        def sizes(names):
            return [(4, 8192)] * len(names)
        snapshots = []
        for windows in (WINDOWS, load_reading.Reading.of(WINDOWS)):
            health = load.MetricsHealth()
            snapshot = load_columns.LoadColumns().update(
                150.0, manager.table, windows, sizes, health=health)
            snapshots.append((snapshot.explain(), dict(health.counts)))
        self.assertEqual(snapshots[0], snapshots[1])
        hosts = snapshots[1][0]['hosts']
        self.assertEqual(['cpu avg = nan, ignored',
                          'memory avg = 120 %, absurd, ignored'],
                         hosts['g']['problems'])
        self.assertEqual('no usable metrics', hosts['h']['status'])
        self.assertEqual({'cpu': {'avg': 10.0, 'std': 1.0},
                          'memory': {'avg': 20.0, 'std': 1.0}},
                         {key: hosts['a'][key] for key in ('cpu', 'memory')})
