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

"""The soak's fault injection: the misbehaving compute side and bus."""

from preemptible_sched import clock as clock_mod
from preemptible_sched import compute
from preemptible_sched import objects
from tests import base
from tests.soak import faults
from tests.soak import scenarios


class Recorder(compute.ComputeEvents):
    def __init__(self):
        self.calls = []

    def __getattribute__(self, name):
        if name in ('instance_started', 'instance_ended', 'instance_failed',
                    'instance_terminated', 'termination_failed',
                    'host_down', 'host_up'):
            calls = object.__getattribute__(self, 'calls')
            return lambda *args, **kw: calls.append((name, args, kw))
        return object.__getattribute__(self, name)


class TestEventProxy(base.TestCase):

    def proxy(self, stamp='event', **plan):
        clock = clock_mod.VirtualClock()
        proxy = faults.EventProxy(clock, plan=scenarios.FaultPlan(**plan),
                                  stamp=stamp)
        target = Recorder()
        proxy.attach(target)
        return clock, proxy, target

    def test_boot_goes_on_by_keyword(self):
        clock, proxy, target = self.proxy()
        proxy.instance_started('h1', 'a', 1.0, boot=7)
        proxy.instance_failed('h1', 'b', 1.0, 'no', boot=8)
        proxy.instance_terminated('h1', 'c', 1.0, boot=9)
        proxy.termination_failed('h1', 'd', 1.0, 'no', boot=10)
        proxy.instance_ended('h1', 'e', 1.0, boot=11)
        clock.run()
        self.assertEqual([
            ('instance_started', ('h1', 'a', 1.0), {'boot': 7}),
            ('instance_failed', ('h1', 'b', 1.0, 'no'), {'boot': 8}),
            ('instance_terminated', ('h1', 'c', 1.0), {'boot': 9}),
            ('termination_failed', ('h1', 'd', 1.0, 'no'), {'boot': 10}),
            ('instance_ended', ('h1', 'e', 1.0), {'boot': 11})],
            target.calls)

    def test_no_boot_no_keyword(self):
        clock, proxy, target = self.proxy()
        proxy.instance_started('h1', 'a', 1.0)
        proxy.host_down('h1', 2.0)
        clock.run()
        self.assertEqual([('host_down', ('h1', 2.0), {}),
                          ('instance_started', ('h1', 'a', 1.0), {})],
                         sorted(target.calls))

    def test_delivery_stamp(self):
        clock, proxy, target = self.proxy(stamp='delivery',
                                          report_delay_p=1.0,
                                          report_max_delay=30.0)
        proxy.instance_started('h1', 'a', 0.0, boot=3)
        clock.run()
        (name, args, kw), = target.calls
        self.assertGreater(args[2], 0.0)
        self.assertEqual({'boot': 3}, kw)

    def test_reports_wait_for_the_next_scheduler(self):
        clock, proxy, target = self.proxy()
        proxy.detach()
        proxy.instance_started('h1', 'a', 1.0, boot=4)
        proxy.host_down('h2', 1.0)
        clock.run()
        self.assertEqual([], target.calls)
        proxy.attach(target)
        clock.run()
        # What a new scheduler learns from the hosts themselves is not
        # replayed.
        self.assertEqual(
            [('instance_started', ('h1', 'a', 1.0), {'boot': 4})],
            target.calls)

    def test_held_reports_arrive_late_on_request(self):
        clock, proxy, target = self.proxy(held_late_p=1.0,
                                          report_max_delay=30.0)
        proxy.detach()
        for index in range(5):
            proxy.instance_ended('h1', 'i%d' % index, 1.0, boot=index)
        clock.run()
        started = clock.now()
        proxy.attach(target)
        clock.run(until=started)
        self.assertEqual([], target.calls)
        clock.run()
        self.assertEqual(5, len(target.calls))
        self.assertEqual(5, proxy.faults['report_held_late'])
        self.assertLessEqual(clock.now(), started + 30.0)

    def test_duplicates_and_losses_are_counted(self):
        clock, proxy, target = self.proxy(report_duplicate_p=1.0)
        proxy.instance_started('h1', 'a', 1.0, boot=4)
        clock.run()
        self.assertEqual(2, len(target.calls))
        self.assertEqual(1, proxy.faults['report_duplicated'])
        clock, proxy, target = self.proxy(report_lost_p=1.0)
        proxy.instance_started('h1', 'a', 1.0)
        proxy.host_up('h1', 1.0)
        clock.run()
        self.assertEqual([('host_up', ('h1', 1.0), {})], target.calls)
        self.assertEqual(1, proxy.faults['report_lost'])


HOST = objects.Host('host-A', 4, 8192, 80)


class TestSoakDriver(base.TestCase):

    def driver(self, **plan):
        clock = clock_mod.VirtualClock()
        driver = faults.SoakDriver(clock, [HOST], seed=1,
                                   plan=scenarios.FaultPlan(**plan))
        driver.events = Recorder()
        return clock, driver

    def instance(self, instance_id, vcpus, boot=None):
        return objects.Instance(
            id=instance_id,
            resources=objects.Resources(vcpus, vcpus * 2048, vcpus * 20),
            preemptible=True, boot=boot)

    def test_refusal_for_want_of_room_is_an_overcommit(self):
        clock, driver = self.driver()
        driver.spawn('host-A', self.instance('a', 4, boot=1))
        driver.spawn('host-A', self.instance('b', 2, boot=2))
        clock.run()
        (at, host, instance_id, reason), = driver.overcommits
        self.assertEqual(('host-A', 'b'), (host, instance_id))
        self.assertIn('cannot hold', reason)
        self.assertEqual('refused', driver.last_phase('b')[1])
        failed = [call for call in driver.events.calls
                  if call[0] == 'instance_failed']
        self.assertEqual({'boot': 2}, failed[0][2])

    def test_injected_refusal_carries_the_boot(self):
        clock, driver = self.driver(spawn_refused_p=1.0)
        driver.spawn('host-A', self.instance('a', 1, boot=5))
        clock.run()
        self.assertEqual([('instance_failed', ('host-A', 'a', 0.0,
                                               'injected refusal: the host '
                                               'declined the spawn'),
                           {'boot': 5})], driver.events.calls)
        self.assertEqual(1, driver.faults['spawn_refused'])
        self.assertEqual([], driver.overcommits)

    def test_history_and_truth(self):
        clock, driver = self.driver()
        driver.spawn('host-A', self.instance('a', 2, boot=1), duration=50)
        clock.run(until=10)
        self.assertEqual({'host-A': {'a': 'running'}}, driver.truth())
        driver.terminate('host-A', 'a')
        clock.run()
        self.assertEqual(['spawned', 'started', 'terminated'],
                         [event[1] for event in driver.history['a']])
        self.assertEqual({'host-A': {}}, driver.truth())

    def test_injected_failures_stop_with_the_faults(self):
        clock, driver = self.driver()
        driver.fail_next_terminations(2)
        driver.spawn('host-A', self.instance('a', 2, boot=1))
        clock.run(until=30)
        driver.faulty = False
        driver.terminate('host-A', 'a')
        clock.run()
        self.assertEqual('terminated', driver.last_phase('a')[1])
        self.assertEqual(0, driver.faults['termination_failed'])
