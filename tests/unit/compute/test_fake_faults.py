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


"""Failure injection of the fake compute driver (compute/fake_faults.py)."""

from preemptible_sched import objects
from tests.unit.compute.test_fake import FakeDriverTestCase
from tests.unit.compute.test_fake import medium


class TestFailureInjection(FakeDriverTestCase):

    def test_fail_next_spawns(self):
        self.driver.fail_next_spawns(count=2)
        for index in range(3):
            self.driver.spawn('host-A', medium('i%d' % index))
        self.assertEqual(objects.Resources(6, 12000, 120),
                         self.driver.used('host-A'))
        self.clock.run()
        reason = 'injected boot failure'
        self.assertEqual([('failed', 'host-A', 'i0', 5.0, reason),
                          ('failed', 'host-A', 'i1', 5.0, reason),
                          ('started', 'host-A', 'i2', 5.0)],
                         self.events.log)
        self.assertEqual(['i2'], self.ids())
        # Only i2, which started, warmed the image cache.
        self.assertEqual({'default'}, self.driver.images('host-A'))

    def test_failed_boot_leaves_the_cache_cold(self):
        self.driver.fail_next_spawns()
        self.driver.spawn('host-A', medium('i1'))
        self.clock.run()
        self.assertEqual(set(), self.driver.images('host-A'))

    def test_fail_next_spawns_on_one_host(self):
        self.driver.fail_next_spawns(host='host-B')
        self.driver.spawn('host-A', medium('a'))
        self.driver.spawn('host-B', medium('b'))
        self.driver.spawn('host-B', medium('b2'))
        self.clock.run()
        self.assertEqual([('started', 'host-A', 'a', 5.0),
                          ('failed', 'host-B', 'b', 5.0,
                           'injected boot failure'),
                          ('started', 'host-B', 'b2', 5.0)],
                         self.events.log)

    def test_refused_spawn_keeps_the_injected_failure(self):
        self.driver.fail_next_spawns()
        self.driver.spawn('host-X', medium('x'))
        self.driver.spawn('host-A', medium('a'))
        self.clock.run()
        self.assertEqual(['failed', 'failed'], self.events.names())
        self.assertEqual('injected boot failure', self.events.log[1][4])

    def test_negative_count_rejected(self):
        self.assertRaises(ValueError, self.driver.fail_next_spawns, -1)

    def test_fail_next_terminations(self):
        self.driver.spawn('host-A', medium('i1'), duration=100.0)
        self.clock.run(until=10.0)
        self.driver.fail_next_terminations(host='host-A')
        self.driver.terminate('host-A', 'i1')
        self.clock.run(until=50.0)
        self.assertEqual(('termination_failed', 'host-A', 'i1', 10.5,
                          'injected termination failure'),
                         self.events.log[-1])
        self.assertEqual(['i1'], self.ids())
        self.driver.terminate('host-A', 'i1')
        self.clock.run()
        self.assertEqual(('terminated', 'host-A', 'i1', 50.5),
                         self.events.log[-1])

    def test_failed_termination_keeps_the_instance_and_its_end(self):
        self.driver.spawn('host-A', medium('i1'), duration=100.0)
        self.clock.run(until=10.0)
        self.driver.fail_next_terminations()
        self.driver.terminate('host-A', 'absent')
        self.driver.terminate('host-A', 'i1')
        self.clock.run()
        self.assertEqual(['started', 'terminated', 'termination_failed',
                          'ended'], self.events.names())
        self.assertEqual(('ended', 'host-A', 'i1', 105.0),
                         self.events.log[-1])

    def test_crash_running_instance(self):
        self.driver.spawn('host-A', medium('i1'), duration=100.0)
        self.clock.run(until=10.0)
        self.driver.crash_instance('host-A', 'i1', 'kernel panic')
        self.assertEqual([], self.ids())
        self.clock.run()
        self.assertEqual([('started', 'host-A', 'i1', 5.0),
                          ('failed', 'host-A', 'i1', 10.0, 'kernel panic')],
                         self.events.log)

    def test_crash_mid_boot(self):
        self.driver.spawn('host-A', medium('i1'))
        self.clock.run(until=1.0)
        self.driver.crash_instance('host-A', 'i1', 'boom')
        self.clock.run()
        self.assertEqual([('failed', 'host-A', 'i1', 1.0, 'boom')],
                         self.events.log)

    def test_crash_while_terminating_still_answers_the_termination(self):
        self.driver.spawn('host-A', medium('i1'))
        self.clock.run(until=10.0)
        self.driver.terminate('host-A', 'i1')
        self.driver.crash_instance('host-A', 'i1', 'boom')
        self.clock.run()
        self.assertEqual([('started', 'host-A', 'i1', 5.0),
                          ('failed', 'host-A', 'i1', 10.0, 'boom'),
                          ('terminated', 'host-A', 'i1', 10.5)],
                         self.events.log)

    def test_crash_absent_instance(self):
        self.assertRaises(LookupError, self.driver.crash_instance,
                          'host-A', 'nope', 'boom')


class TestHostDownUp(FakeDriverTestCase):

    def setUp(self):
        super().setUp()
        self.driver.spawn('host-A', medium('running'), duration=100.0)
        self.driver.spawn('host-A', medium('terminating'))
        self.driver.spawn('host-B', medium('elsewhere'))
        self.clock.run(until=10.0)
        self.driver.spawn('host-A', medium('building'))
        self.driver.terminate('host-A', 'terminating')
        del self.events.log[:]

    def test_instances_vanish_and_pending_work_is_dropped(self):
        self.driver.host_down('host-A')
        self.assertEqual([], self.driver.list_instances('host-A'))
        self.assertEqual(objects.Resources(), self.driver.used('host-A'))
        self.assertFalse(self.driver.host_specs()[0].up)
        self.assertTrue(self.driver.host_specs()[1].up)
        self.clock.run()
        self.assertEqual([('host_down', 'host-A', 10.0)], self.events.log)
        self.assertEqual(['elsewhere'], self.ids('host-B'))

    def test_requests_to_a_down_host_fail(self):
        self.driver.host_down('host-A')
        self.driver.spawn('host-A', medium('new'))
        self.driver.terminate('host-A', 'running')
        self.clock.run()
        self.assertEqual(
            [('host_down', 'host-A', 10.0),
             ('failed', 'host-A', 'new', 10.0, 'host host-A is down'),
             ('termination_failed', 'host-A', 'running', 10.0,
              'host host-A is down')],
            self.events.log)

    def test_down_twice_reports_once(self):
        self.driver.host_down('host-A')
        self.driver.host_down('host-A')
        self.clock.run()
        self.assertEqual(['host_down'], self.events.names())

    def test_back_up_empty_with_its_image_cache(self):
        self.driver.host_down('host-A')
        self.clock.run(until=20.0)
        self.driver.host_up('host-A')
        self.driver.host_up('host-A')
        self.assertTrue(self.driver.host_specs()[0].up)
        self.assertEqual([], self.ids())
        self.driver.spawn('host-A', medium('again'))
        self.driver.spawn('host-A', medium('running'))
        self.clock.run()
        # 'running' ran here before the host went down: hot; 'again' is
        # new: cold.
        self.assertEqual([('host_down', 'host-A', 10.0),
                          ('host_up', 'host-A', 20.0),
                          ('started', 'host-A', 'running', 21.0),
                          ('started', 'host-A', 'again', 25.0)],
                         self.events.log)

    def test_up_host_up_does_nothing(self):
        self.driver.host_up('host-C')
        self.clock.run()
        self.assertNotIn('host_up', self.events.names())
