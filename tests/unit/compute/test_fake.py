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

import os

import stevedore

from preemptible_sched import clock as clock_mod
from preemptible_sched import compute
from preemptible_sched.compute import fake
from preemptible_sched.compute import fake_config
from preemptible_sched.compute import fake_hosts
from preemptible_sched.conf import opts
from preemptible_sched import exception
from preemptible_sched import objects
from tests import base
from tests.unit.compute import test_utilization

MEDIUM = objects.Resources(2, 4000, 40)
LARGE = objects.Resources(4, 8000, 80)
# Defaults of [fake_driver] boot_times_*; hand-checked against the option.
HOT = (1.5, 1.8, 1.9, 2.0, 2.0, 2.0, 2.1, 2.3, 2.6, 3.2)
COLD = (2.5, 3.0, 3.5, 4.0, 4.5, 6.0)


class Recorder(compute.ComputeEvents):
    """Records every event as a tuple ``(name, host, [id,] at[, reason])``."""

    def __init__(self):
        self.log = []

    def instance_started(self, host, instance_id, at):
        self.log.append(('started', host, instance_id, at))

    def instance_ended(self, host, instance_id, at):
        self.log.append(('ended', host, instance_id, at))

    def instance_failed(self, host, instance_id, at, reason):
        self.log.append(('failed', host, instance_id, at, reason))

    def instance_terminated(self, host, instance_id, at):
        self.log.append(('terminated', host, instance_id, at))

    def termination_failed(self, host, instance_id, at, reason):
        self.log.append(('termination_failed', host, instance_id, at,
                         reason))

    def host_down(self, host, at):
        self.log.append(('host_down', host, at))

    def host_up(self, host, at):
        self.log.append(('host_up', host, at))

    def names(self):
        return [entry[0] for entry in self.log]


def medium(instance_id):
    return objects.Instance(id=instance_id, resources=MEDIUM)


class FakeDriverTestCase(base.TestCase):
    """A driver on a virtual clock; boot 1 s hot and 5 s cold."""

    HOT = [1.0]
    COLD = [5.0]

    def setUp(self):
        super().setUp()
        self.flags(group='fake_driver', boot_times_hot=self.HOT,
                   boot_times_cold=self.COLD)
        self.clock = clock_mod.VirtualClock()
        self.events = Recorder()
        self.driver = self.make_driver()

    def make_driver(self, **kw):
        kw.setdefault('seed', 1)
        return fake.FakeDriver(self.clock, self.events, **kw)

    def spawn_at(self, when, host, instance_id, **kw):
        self.clock.run(until=when)
        self.driver.spawn(host, medium(instance_id), **kw)

    def ids(self, host='host-A'):
        return [report.id for report in self.driver.list_instances(host)]


class TestHosts(FakeDriverTestCase):

    def test_default_blades(self):
        specs = self.driver.host_specs()
        self.assertEqual(['host-A', 'host-B', 'host-C', 'host-D'],
                         [spec.name for spec in specs])
        for spec in specs:
            self.assertEqual((8, 16384, 500),
                             (spec.vcpus, spec.memory_mb, spec.disk_gb))
            self.assertIsNone(spec.reserved_memory_mb)
            self.assertTrue(spec.up)

    def test_blade_count_and_names_beyond_z(self):
        self.flags(group='fake_driver', host_count=28, vcpus=16,
                   memory_mb=32768, disk_gb=1000)
        specs = self.make_driver().host_specs()
        self.assertEqual(['host-A', 'host-Z', 'host-27', 'host-28'],
                         [specs[i].name for i in (0, 25, 26, 27)])
        self.assertEqual((16, 32768, 1000), (specs[0].vcpus,
                                             specs[0].memory_mb,
                                             specs[0].disk_gb))

    def test_given_hosts(self):
        host = objects.Host(name='agent-1', vcpus=4, memory_mb=8192,
                            disk_gb=100, attributes={'rack': '1'})
        driver = self.make_driver(hosts=[host])
        self.assertEqual([host], driver.host_specs())
        self.assertEqual(objects.Resources(4, 8192, 100),
                         driver.capacity('agent-1'))

    def test_same_host_twice_rejected(self):
        host = objects.Host(name='h', vcpus=1, memory_mb=1)
        self.assertRaises(ValueError, self.make_driver, hosts=[host, host])

    def test_unknown_host_in_queries(self):
        for method in (self.driver.list_instances, self.driver.images,
                       self.driver.used, self.driver.host_down):
            error = self.assertRaises(LookupError, method, 'host-X')
            self.assertIn('host-X', str(error))

    def test_registered_entry_point(self):
        manager = stevedore.DriverManager(
            'preemptible_sched.compute_drivers', 'fake',
            invoke_on_load=True, invoke_args=(self.clock,))
        self.assertIsInstance(manager.driver, fake.FakeDriver)
        self.assertIsInstance(manager.driver.events, compute.ComputeEvents)

    def test_options_listed_for_the_generator(self):
        groups = {getattr(group, 'name', group): group_opts
                  for group, group_opts in opts.list_opts()}
        names = {opt.name for opt in groups['fake_driver']}
        self.assertLessEqual({'host_count', 'vcpus', 'memory_mb', 'disk_gb',
                              'boot_times_hot', 'boot_times_cold',
                              'hot_start', 'termination_seconds',
                              'utilization_model', 'utilization_share',
                              'utilization_trace',
                              'random_seed'}, names)

    def test_empty_boot_times_rejected(self):
        self.flags(group='fake_driver', boot_times_cold=[])
        error = self.assertRaises(exception.InvalidInput, self.make_driver)
        self.assertEqual('[fake_driver] boot_times_cold', error.source)


class TestBoot(FakeDriverTestCase):

    def test_building_then_running(self):
        self.driver.spawn('host-A', medium('i1'))
        self.assertEqual([], self.events.log)
        self.assertEqual([objects.InstanceReport('i1', 'building')],
                         self.driver.list_instances('host-A'))
        self.clock.run()
        self.assertEqual([('started', 'host-A', 'i1', 5.0)], self.events.log)
        self.assertEqual(
            [objects.InstanceReport('i1', 'running', 5.0, 0.5)],
            self.driver.list_instances('host-A'))

    def by_image(self):
        self.flags(group='fake_driver', hot_start='image')
        self.driver = self.make_driver()

    def test_first_boot_of_an_instance_is_cold_wherever_it_runs(self):
        # hot_start = instance (the default): hot only for an instance
        # that ran on that host before, whatever the images.
        self.driver.spawn('host-A', medium('i1'), duration=10.0)
        self.driver.spawn('host-A', medium('i2'), duration=10.0)
        self.clock.run()                    # both start at 5, end at 15
        self.spawn_at(20, 'host-A', 'i1')   # back on host-A: hot
        self.spawn_at(20, 'host-B', 'i2')   # moved to host-B: cold
        self.spawn_at(20, 'host-A', 'i3')   # new, image run before: cold
        self.clock.run()
        self.assertEqual([('host-A', 'i1', 21.0), ('host-B', 'i2', 25.0),
                          ('host-A', 'i3', 25.0)],
                         [entry[1:4] for entry in self.events.log
                          if entry[0] == 'started' and entry[3] > 15])

    def test_cold_until_the_image_has_run_on_that_host(self):
        self.by_image()
        self.spawn_at(0, 'host-A', 'i1', image='cirros')
        # Same image while the first one is still building: still cold.
        self.spawn_at(1, 'host-A', 'i2', image='cirros')
        self.spawn_at(10, 'host-A', 'i3', image='cirros')
        self.spawn_at(20, 'host-A', 'i4', image='ubuntu')
        self.spawn_at(30, 'host-B', 'i5', image='cirros')
        self.clock.run()
        self.assertEqual([('started', 'host-A', 'i1', 5.0),
                          ('started', 'host-A', 'i2', 6.0),
                          ('started', 'host-A', 'i3', 11.0),
                          ('started', 'host-A', 'i4', 25.0),
                          ('started', 'host-B', 'i5', 35.0)],
                         self.events.log)
        self.assertEqual({'cirros', 'ubuntu'}, self.driver.images('host-A'))
        self.assertEqual({'cirros'}, self.driver.images('host-B'))

    def test_no_image_is_the_default_image(self):
        self.by_image()
        self.spawn_at(0, 'host-A', 'i1')
        self.spawn_at(10, 'host-A', 'i2', image='default')
        self.clock.run()
        self.assertEqual([5.0, 11.0],
                         [entry[3] for entry in self.events.log])
        self.assertEqual({'default'}, self.driver.images('host-A'))

    def test_duration_ends_at_started_plus_duration(self):
        self.driver.spawn('host-A', medium('i1'), duration=100.0)
        self.clock.run()
        self.assertEqual([('started', 'host-A', 'i1', 5.0),
                          ('ended', 'host-A', 'i1', 105.0)],
                         self.events.log)
        self.assertEqual([], self.ids())
        self.assertEqual(objects.Resources(), self.driver.used('host-A'))

    def test_without_duration_runs_until_terminated(self):
        self.driver.spawn('host-A', medium('i1'))
        self.clock.run()
        self.assertEqual(['started'], self.events.names())
        self.assertEqual(0, self.clock.pending())
        self.assertEqual(['i1'], self.ids())

    def test_state_changes_run_before_normal_callbacks(self):
        seen = []
        self.clock.call_at(5.0, lambda: seen.append(self.events.names()))
        self.driver.spawn('host-A', medium('i1'))
        self.clock.run()
        self.assertEqual([['started']], seen)

    def test_events_go_to_the_current_sink(self):
        self.driver.spawn('host-A', medium('i1'))
        self.driver.spawn('host-Z', medium('i2'))
        other = Recorder()
        self.driver.events = other
        self.clock.run()
        self.assertEqual([], self.events.log)
        self.assertEqual(['failed', 'started'], other.names())


class TestDefaultBootTimes(base.TestCase):
    """The default hot and cold sets, drawn with a seed."""

    def run_testbed(self, seed, driver_seed=True):
        clock = clock_mod.VirtualClock()
        events = Recorder()
        kw = {'seed': seed} if driver_seed else {}
        driver = fake.FakeDriver(clock, events, **kw)
        # One instance per blade (cold), then three more per blade (hot).
        for index in range(16):
            host = fake_config.blade_name(index % 4)
            clock.run(until=index * 10.0)
            driver.spawn(host, medium('i%02d' % index), duration=1000.0)
        clock.run()
        return events.log

    def boot_times(self, log):
        started = [entry for entry in log if entry[0] == 'started']
        return [at - int(instance_id[1:]) * 10.0
                for _, _, instance_id, at in started]

    def test_defaults_are_around_the_measured_overhead(self):
        self.assertEqual(2.0, sorted(HOT)[len(HOT) // 2])
        self.assertAlmostEqual(2.14, sum(HOT) / len(HOT))
        self.assertGreater(min(COLD), sorted(HOT)[len(HOT) // 2])

    def test_first_boot_per_host_cold_then_hot(self):
        # A host-wide image cache: the first boot per blade is cold.
        self.flags(group='fake_driver', hot_start='image')
        times = self.boot_times(self.run_testbed(seed=11))
        for index, boot in enumerate(times):
            expected = COLD if index < 4 else HOT
            self.assertIn(round(boot, 6), expected)

    def test_first_boot_of_every_instance_cold(self):
        # hot_start = instance: sixteen instances, sixteen first boots.
        for boot in self.boot_times(self.run_testbed(seed=11)):
            self.assertIn(round(boot, 6), COLD)

    def test_same_seed_same_events(self):
        self.assertEqual(self.run_testbed(seed=7), self.run_testbed(seed=7))

    def test_other_seed_other_boot_times(self):
        self.assertNotEqual(self.boot_times(self.run_testbed(seed=7)),
                            self.boot_times(self.run_testbed(seed=8)))

    def test_random_seed_option_used_without_seed(self):
        self.flags(group='fake_driver', random_seed=7)
        self.assertEqual(self.run_testbed(seed=7),
                         self.run_testbed(seed=None, driver_seed=False))


class TestCapacity(FakeDriverTestCase):

    def test_four_mediums_fit_a_fifth_fails(self):
        for index in range(5):
            self.driver.spawn('host-A', medium('m%d' % index))
        self.assertEqual(objects.Resources(8, 16000, 160),
                         self.driver.used('host-A'))
        self.clock.run()
        failed = [entry for entry in self.events.log if entry[0] == 'failed']
        self.assertEqual(1, len(failed))
        self.assertEqual(('failed', 'host-A', 'm4', 0.0), failed[0][:4])
        self.assertIn('host-A cannot hold', failed[0][4])
        self.assertIn('vcpus', failed[0][4])
        self.assertEqual(['m0', 'm1', 'm2', 'm3'], self.ids())

    def test_building_instances_hold_their_room(self):
        self.driver.spawn('host-A', objects.Instance('big', LARGE))
        self.driver.spawn('host-A', objects.Instance('big2', LARGE))
        self.driver.spawn('host-A', medium('m'))
        self.clock.run(until=0.0)
        self.assertEqual(['failed'], self.events.names())

    def test_room_is_back_when_an_instance_is_gone(self):
        for index in range(4):
            self.driver.spawn('host-A', medium('m%d' % index),
                              duration=10.0 * (index + 1))
        self.clock.run(until=15.0)
        # m0 started at 5.0 and ended at 15.0.
        self.assertEqual(['started'] * 4 + ['ended'], self.events.names())
        self.driver.spawn('host-A', medium('m4'))
        self.clock.run(until=20.0)                  # a first boot: cold
        self.assertEqual(('started', 'host-A', 'm4', 20.0),
                         self.events.log[-1])

    def test_memory_alone_refuses(self):
        self.driver.spawn('host-A', objects.Instance(
            'fat', objects.Resources(1, 16385, 1)))
        self.clock.run()
        self.assertIn('not enough memory_mb', self.events.log[0][4])

    def test_reserved_and_ratios_of_the_host(self):
        host = objects.Host(name='h', vcpus=8, memory_mb=16384, disk_gb=500,
                            reserved_memory_mb=4384)
        driver = self.make_driver(hosts=[host])
        self.assertEqual(objects.Resources(8, 12000, 500),
                         driver.capacity('h'))
        self.flags(group='compute', cpu_allocation_ratio=2.0)
        self.assertEqual(16, self.make_driver(hosts=[host]).capacity('h')[0])

    def test_duplicate_id_fails_and_keeps_the_first(self):
        self.driver.spawn('host-A', medium('i1'))
        self.driver.spawn('host-B', medium('i1'))
        self.clock.run()
        self.assertEqual(('failed', 'host-B', 'i1', 0.0,
                          'instance i1 already exists on host-A'),
                         self.events.log[0])
        self.assertEqual(('started', 'host-A', 'i1', 5.0),
                         self.events.log[1])
        self.assertEqual([], self.ids('host-B'))

    def test_unknown_host_fails(self):
        self.driver.spawn('host-X', medium('i1'))
        self.clock.run()
        self.assertEqual([('failed', 'host-X', 'i1', 0.0,
                           'no host host-X on this driver')],
                         self.events.log)


class TestTerminate(FakeDriverTestCase):

    def setUp(self):
        super().setUp()
        self.driver.spawn('host-A', medium('i1'), duration=100.0)
        self.clock.run(until=20.0)
        del self.events.log[:]

    def test_gone_after_termination_seconds(self):
        self.driver.terminate('host-A', 'i1')
        self.clock.run(until=20.4)
        self.assertEqual([], self.events.log)
        self.assertEqual(['i1'], self.ids())
        self.clock.run()
        self.assertEqual([('terminated', 'host-A', 'i1', 20.5)],
                         self.events.log)
        self.assertEqual([], self.ids())
        self.assertEqual(objects.Resources(), self.driver.used('host-A'))

    def test_cancels_the_end(self):
        self.driver.terminate('host-A', 'i1')
        self.clock.run()
        self.assertNotIn('ended', self.events.names())

    def test_termination_seconds_option(self):
        self.flags(group='fake_driver', termination_seconds=0)
        driver = self.make_driver()
        driver.spawn('host-A', medium('j'))
        self.clock.run(until=30.0)
        driver.terminate('host-A', 'j')
        self.assertEqual(['started'], self.events.names())
        self.clock.run(until=30.0)
        self.assertEqual(('terminated', 'host-A', 'j', 30.0),
                         self.events.log[-1])

    def test_absent_instance_answered_at_once(self):
        self.driver.terminate('host-A', 'nope')
        self.assertEqual([], self.events.log)
        self.clock.run(until=20.0)
        self.assertEqual([('terminated', 'host-A', 'nope', 20.0)],
                         self.events.log)

    def test_twice_answers_twice_at_the_same_time(self):
        self.driver.terminate('host-A', 'i1')
        self.clock.run(until=20.2)
        self.driver.terminate('host-A', 'i1')
        self.clock.run()
        self.assertEqual([('terminated', 'host-A', 'i1', 20.5)] * 2,
                         self.events.log)
        self.driver.terminate('host-A', 'i1')
        self.clock.run()
        self.assertEqual(('terminated', 'host-A', 'i1', 20.5),
                         self.events.log[-1])
        self.assertEqual(3, len(self.events.log))

    def test_mid_boot(self):
        # The image has run on host-A: a hot boot of 1 s, until 21.0.
        self.driver.spawn('host-A', medium('i2'), duration=10.0)
        self.clock.run(until=20.6)
        self.driver.terminate('host-A', 'i2')
        self.assertEqual('building',
                         self.driver.list_instances('host-A')[1].state)
        self.clock.run()
        self.assertEqual([('terminated', 'host-A', 'i2', 21.1),
                          ('ended', 'host-A', 'i1', 105.0)],
                         self.events.log)

    def test_unknown_host(self):
        self.driver.terminate('host-X', 'i1')
        self.clock.run(until=20.0)
        self.assertEqual([('termination_failed', 'host-X', 'i1', 20.0,
                           'no host host-X on this driver')],
                         self.events.log)


class TestUtilization(FakeDriverTestCase, test_utilization.TraceFileMixin):

    def shares(self, driver, host='host-A'):
        return [report.cpu_utilization
                for report in driver.list_instances(host)]

    def test_constant_share(self):
        self.flags(group='fake_driver', utilization_share=0.25)
        driver = self.make_driver()
        driver.spawn('host-A', medium('i1'))
        self.assertEqual([0.0], self.shares(driver))
        self.clock.run(until=1000.0)
        self.assertEqual([0.25], self.shares(driver))

    def test_random_walk(self):
        self.flags(group='fake_driver', utilization_model='random_walk',
                   utilization_share=0.5, utilization_step=0.1,
                   utilization_interval=60.0)
        driver = self.make_driver()
        driver.spawn('host-A', medium('i1'))
        series = []
        for minute in range(60):
            # Started at 5.0: sample in the middle of each interval.
            self.clock.run(until=5.0 + 60 * minute + 30)
            series.append(self.shares(driver)[0])
        self.assertEqual(0.5, series[0])
        for before, after in zip(series, series[1:]):
            self.assertLessEqual(abs(after - before), 0.1 + 1e-12)
            self.assertTrue(0.0 <= after <= 1.0)
        self.assertGreater(len(set(series)), 1)

    def test_reading_utilisation_does_not_change_events(self):
        self.flags(group='fake_driver', utilization_model='random_walk',
                   boot_times_hot=HOT, boot_times_cold=COLD)

        def run(read):
            clock = clock_mod.VirtualClock()
            events = Recorder()
            driver = fake.FakeDriver(clock, events, seed=3)
            for index in range(8):
                clock.run(until=index * 10.0)
                if read:
                    driver.list_instances('host-A')
                driver.spawn('host-A', medium('i%d' % index),
                             duration=15.0)
            clock.run()
            return events.log

        self.assertEqual(run(read=False), run(read=True))

    def test_replay_synthetic_trace(self):
        path = self.write_trace(test_utilization.HEADER +
                                '0; 1; 1000; 100; 0\n'
                                '300; 1; 1000; 200; 0\n'
                                '600; 1; 1000; 300; 0\n')
        self.flags(group='fake_driver', utilization_model='replay',
                   utilization_trace=path)
        driver = self.make_driver()
        driver.spawn('host-A', medium('i1'))
        series = []
        for step in range(3):
            self.clock.run(until=5.0 + 300 * step)
            series.append(self.shares(driver)[0])
        # Whatever the seeded offset, the three samples in cyclic order.
        rotations = [[0.1, 0.2, 0.3], [0.2, 0.3, 0.1], [0.3, 0.1, 0.2]]
        self.assertIn(series, rotations)

    def test_replay_real_bitbrains_file_seeded(self):
        path = test_utilization.BITBRAINS
        if not os.path.exists(path):
            self.skipTest('Bitbrains sample not found at %s' % path)
        self.flags(group='fake_driver', utilization_model='replay',
                   utilization_trace=path)
        model = fake_config.utilization_model()

        def shares(seed):
            clock = clock_mod.VirtualClock()
            driver = fake.FakeDriver(clock, seed=seed)
            for index in range(4):
                driver.spawn('host-A', medium('i%d' % index))
            clock.run(until=3600.0)
            return [report.cpu_utilization
                    for report in driver.list_instances('host-A')]

        first = shares(5)
        self.assertEqual(first, shares(5))
        self.assertNotEqual(first, shares(6))
        for share in first:
            self.assertIn(share, model.shares)

    def test_replay_needs_a_trace(self):
        self.flags(group='fake_driver', utilization_model='replay')
        error = self.assertRaises(exception.InvalidInput, self.make_driver)
        self.assertEqual('[fake_driver] utilization_trace', error.source)

    def test_replay_bad_trace_stops_the_driver(self):
        path = self.write_trace(test_utilization.HEADER + '0; 1; x; 1; 0\n')
        self.flags(group='fake_driver', utilization_model='replay',
                   utilization_trace=path)
        error = self.assertRaises(exception.InvalidInput, self.make_driver)
        self.assertEqual('%s: line 2: CPU capacity provisioned [MHZ] '
                         "'x' is not a number" % path, str(error))


class TestRealClock(base.TestCase):

    def test_runs_on_a_scaled_real_clock(self):
        self.flags(group='fake_driver', boot_times_cold=[2.0])
        clock = clock_mod.RealClock(time_scale=1000.0)

        class StopOnStart(Recorder):
            def instance_started(self, host, instance_id, at):
                super().instance_started(host, instance_id, at)
                clock.stop()

        events = StopOnStart()
        driver = fake.FakeDriver(clock, events, seed=1)
        spawned_at = clock.now()
        driver.spawn('host-A', medium('i1'))
        clock.run(until=spawned_at + 600.0)
        self.assertEqual(['started'], events.names())
        self.assertGreaterEqual(events.log[0][3] - spawned_at, 2.0)
        self.assertLess(events.log[0][3] - spawned_at, 600.0)


class BootRecorder(compute.ComputeEvents):
    """Records ``(name, host, id, at, boot)`` of the instance events."""

    def __init__(self):
        self.log = []

    def _record(name):
        def record(self, host, instance_id, at, *rest, boot=None):
            self.log.append((name, host, instance_id, at, boot))
        return record

    instance_started = _record('started')
    instance_ended = _record('ended')
    instance_failed = _record('failed')
    instance_terminated = _record('terminated')
    termination_failed = _record('termination_failed')


class TestFinishedInstances(FakeDriverTestCase):
    """A host remembers how its instances finished, with their boot."""

    def setUp(self):
        super().setUp()
        self.events = BootRecorder()
        self.driver.events = self.events

    def spawn(self, instance_id, boot, host='host-A', **kw):
        instance = medium(instance_id)
        instance.boot = boot
        self.driver.spawn(host, instance, **kw)

    def finished(self, host='host-A'):
        return [(report.id, report.state, report.started_at,
                 report.ended_at, report.boot, report.reason)
                for report in self.driver.finished_instances(host)]

    def test_ended_failed_terminated_and_crashed_are_remembered(self):
        self.spawn('ends', 1, duration=10)
        self.spawn('goes', 2)
        self.spawn('dies', 3)
        self.driver.fail_next_spawns(1)
        self.spawn('fails', 4)
        self.clock.run(until=6)
        self.driver.terminate('host-A', 'goes')
        self.driver.crash_instance('host-A', 'dies', 'oom')
        self.clock.run(until=100)
        self.assertEqual([
            ('fails', 'failed', None, 5.0, 4, 'injected boot failure'),
            ('dies', 'failed', 5.0, 6.0, 3, 'oom'),
            ('goes', 'terminated', 5.0, 6.0 + self.driver.termination_seconds,
             2, None),
            ('ends', 'ended', 5.0, 15.0, 1, None)], self.finished())
        self.assertEqual([], self.ids())

    def test_terminating_a_finished_instance_says_how_it_finished(self):
        self.spawn('ends', 7, duration=10)
        self.driver.fail_next_spawns(1)
        self.spawn('fails', 8)
        self.clock.run(until=20)
        del self.events.log[:]
        for instance_id in ('ends', 'fails', 'never'):
            self.driver.terminate('host-A', instance_id)
        self.clock.run(until=21)
        # Answered at 20, each at the time it finished ('ends' ended at
        # 15, 'fails' failed its boot at 5); the unknown one now.
        self.assertEqual([('ended', 'host-A', 'ends', 15.0, 7),
                          ('failed', 'host-A', 'fails', 5.0, 8),
                          ('terminated', 'host-A', 'never', 20, None)],
                         self.events.log)

    def test_a_new_boot_replaces_the_record(self):
        self.spawn('vm', 1, duration=10)
        self.clock.run(until=20)
        self.assertEqual(['vm'], [r[0] for r in self.finished()])
        self.spawn('vm', 2)
        self.assertEqual([], self.finished())
        self.assertEqual(['vm'], self.ids())

    def test_bounded_and_forgotten_when_the_host_goes_down(self):
        self.patch(fake_hosts, 'FINISHED_KEPT', 3)
        for index in range(4):         # a blade holds four
            self.spawn('vm-%d' % index, index, duration=1 + index)
        self.clock.run(until=20)
        self.assertEqual(['vm-1', 'vm-2', 'vm-3'],
                         [r[0] for r in self.finished()])
        self.assertEqual([], self.finished('host-B'))
        self.driver.host_down('host-A')
        self.assertEqual([], self.finished())

    def test_a_spawn_delivered_twice_is_handled_once(self):
        self.spawn('vm', 3, duration=10)
        self.spawn('vm', 3, duration=10)        # while it builds
        self.clock.run(until=8)
        self.spawn('vm', 3, duration=10)        # while it runs
        self.clock.run(until=30)
        self.spawn('vm', 3, duration=10)        # after it ended
        self.clock.run(until=60)
        self.assertEqual([('started', 'host-A', 'vm', 5.0, 3),
                          ('ended', 'host-A', 'vm', 15.0, 3)],
                         self.events.log)
        # Another boot of it is a new spawn.
        self.spawn('vm', 4)
        self.clock.run(until=70)
        self.assertEqual(('started', 'host-A', 'vm', 61.0, 4),  # hot
                         self.events.log[-1])


class TestHostSpeed(FakeDriverTestCase):
    """Run times given for a reference speed, scaled by each host's."""

    HOT = [0.0]
    COLD = [0.0]

    def test_each_host_runs_at_its_speed(self):
        self.flags(group='fake_driver', reference_cpu_mhz=4000.0,
                   integer_durations=True)
        driver = self.make_driver(hosts=[
            objects.Host('fast', 4, 1024, cpu_mhz=4100.0),
            objects.Host('slow', 2, 1024, cpu_mhz=3500.0),
            objects.Host('unknown', 2, 1024)])
        for host in ('fast', 'slow', 'unknown'):
            driver.spawn(host, objects.Instance(host + '-i',
                                                objects.Resources(1, 0, 0)),
                         duration=11.0)
        self.clock.run()
        ended = {entry[2]: entry[3] for entry in self.events.log
                 if entry[0] == 'ended'}
        self.assertEqual({'fast-i': 10.0, 'slow-i': 12.0,
                          'unknown-i': 11.0}, ended)

    def test_no_reference_no_scaling(self):
        driver = self.make_driver(hosts=[
            objects.Host('fast', 4, 1024, cpu_mhz=4100.0)])
        driver.spawn('fast', objects.Instance('i', objects.Resources(1, 0,
                                                                     0)),
                     duration=11.0)
        self.clock.run()
        self.assertEqual([('started', 'fast', 'i', 0.0),
                          ('ended', 'fast', 'i', 11.0)], self.events.log)

    def test_work_done_at_the_reference_speed(self):
        self.flags(group='fake_driver', reference_cpu_mhz=2000.0)
        driver = self.make_driver(hosts=[
            objects.Host('fast', 4, 1024, cpu_mhz=4000.0),
            objects.Host('slow', 4, 1024, cpu_mhz=1000.0),
            objects.Host('unknown', 4, 1024)])
        self.assertEqual(500.0, driver.work_done('fast', 250.0))
        self.assertEqual(125.0, driver.work_done('slow', 250.0))
        self.assertEqual(250.0, driver.work_done('unknown', 250.0))
        self.assertEqual(250.0, driver.work_done('gone', 250.0))

    def test_work_done_without_reference_is_host_seconds(self):
        driver = self.make_driver(hosts=[
            objects.Host('fast', 4, 1024, cpu_mhz=4000.0)])
        self.assertEqual(250.0, driver.work_done('fast', 250.0))
