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


"""The fake and compute sources, and loading sources by name."""

import os

import fixtures
import testtools

from preemptible_sched import clock as clock_mod
from preemptible_sched.compute import fake
from preemptible_sched.compute import utilization
from preemptible_sched import exception
from preemptible_sched.loadwatcher import load_sources as sources
from preemptible_sched import objects
from tests import base
from tests import load_helpers as helpers


class TestFakeSource(base.TestCase):

    def setUp(self):
        super().setUp()
        # VM 1 at 1000 MHz: 100, 200, 300; VM 2 at 2000 MHz: 500, 1500.
        self.trace = helpers.make_bitbrains(
            self.useFixture(fixtures.TempDir()).path,
            {1: (1000, [100, 200, 300]), 2: (2000, [500, 1500])})

    def test_replays_one_vm_per_host(self):
        source = sources.load('fake', hosts=3, trace=self.trace, seed=7)
        self.assertEqual('fake', source.name)
        self.assertEqual(['host-A', 'host-B', 'host-C'],
                         [name for name, _, _ in source.hosts])
        # hosts cycle over the VMs: A and C replay VM 1, B replays VM 2
        shares = [trace.shares for _, trace, _ in source.hosts]
        self.assertEqual([[0.1, 0.2, 0.3], [0.25, 0.75], [0.1, 0.2, 0.3]],
                         shares)
        for now in (0.0, 299.0, 300.0, 1000.0, 86400.0):
            found = source.collect(now)
            for name, trace, offset in source.hosts:
                # a sample holds 5 minutes; the trace loops
                position = (trace.times[offset] + now) % trace.period
                expected = trace.shares[int(position // 300)]
                self.assertAlmostEqual(100.0 * expected, found[name][0])
                self.assertEqual(40.0, found[name][1])
        again = sources.load('fake', hosts=3, trace=self.trace, seed=7)
        self.assertEqual(source.collect(600.0), again.collect(600.0))

    def test_unknown_source(self):
        error = self.assertRaises(exception.UnknownPlugin, sources.load,
                                  'influx')
        self.assertEqual(['compute', 'fake', 'prometheus'], error.valid)


class TestComputeSource(base.TestCase):

    def test_fake_driver_host_utilization(self):
        clock = clock_mod.VirtualClock()
        self.flags(group='fake_driver', utilization_model='constant',
                   utilization_share=0.25, boot_times_hot=[10.0],
                   boot_times_cold=[10.0])
        driver = fake.FakeDriver(clock, hosts=[
            objects.Host('h1', vcpus=8, memory_mb=16000),
            objects.Host('h2', vcpus=8, memory_mb=16000)])
        driver.spawn('h1', objects.Instance(
            'i1', objects.Resources(4, 4000, 0)))
        source = sources.load('compute', driver=driver)
        # booting: memory counted, no CPU yet
        self.assertEqual({'h1': (0.0, 25.0), 'h2': (0.0, 0.0)},
                         source.collect(0.0))
        clock.run(until=20.0)
        # running: 0.25 x 4 vCPUs of 8 cores = 12.5 %
        self.assertEqual((12.5, 25.0), source.collect(20.0)['h1'])
        driver.host_down('h2')
        self.assertNotIn('h2', source.collect(20.0))


class TestPooledReplay(base.TestCase):

    def test_bitbrains_directory(self):
        path = helpers.make_bitbrains(
            self.useFixture(fixtures.TempDir()).path,
            {7: (2000, [0, 1000, 3000]), 9: (0, [5])})
        traces = utilization.read_bitbrains_directory(path)
        # VM 9 has no capacity: no utilisation can be made of it
        self.assertEqual(1, len(traces))
        self.assertEqual([0.0, 300.0, 600.0], traces[0].times)
        self.assertEqual([0.0, 0.5, 1.0], traces[0].shares)

    @testtools.skipUnless(os.path.isdir(helpers.SHARED_BITBRAINS),
                          'no shared Bitbrains sample')
    def test_shared_sample(self):
        traces = utilization.read_bitbrains_directory(
            helpers.SHARED_BITBRAINS)
        self.assertEqual(50, len(traces))

    def test_bad_directory(self):
        error = self.assertRaises(exception.InvalidInput,
                                  utilization.read_bitbrains_directory,
                                  self.useFixture(fixtures.TempDir()).path)
        self.assertIn('tasks.parquet', str(error))
