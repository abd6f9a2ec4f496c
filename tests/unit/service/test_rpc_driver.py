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

"""The ``rpc`` compute driver, its wire format and the reports endpoint."""

import threading

import oslo_messaging

from preemptible_sched import clock as clock_mod
from preemptible_sched import compute
from preemptible_sched.compute import rpc
from preemptible_sched import exception
from preemptible_sched import objects
from tests import base


def blade(name, up=True):
    return objects.Host(name=name, vcpus=8, memory_mb=16384, disk_gb=500,
                        up=up)


class FakeComputeAPI:
    """Records what the driver asks of the agents."""

    def __init__(self):
        self.calls = []
        self.asked = []     # list_instances: (host, finished)
        self.answers = {}
        self.agent_boots = []

    def spawn(self, host, instance, image=None, duration=None,
              agent_boot=None):
        self.calls.append(('spawn', host, instance['id'], image, duration))
        self.agent_boots.append(agent_boot)

    def terminate(self, host, instance_id):
        self.calls.append(('terminate', host, instance_id))

    def list_instances(self, host, finished=False):
        self.asked.append((host, finished))
        answer = self.answers[host]
        if isinstance(answer, Exception):
            raise answer
        return answer

    def announce(self):
        self.calls.append(('announce',))


class Sink(compute.ComputeEvents):
    """Records events as ``(name, args...)``; knows hosts it was told of."""

    def __init__(self):
        self.log = []

    def __getattribute__(self, name):
        if name in ('instance_started', 'instance_ended', 'instance_failed',
                    'instance_terminated', 'termination_failed', 'host_down',
                    'host_up', 'host_added'):
            return lambda *args: self.log.append((name,) + args)
        return super().__getattribute__(name)


class DriverTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.clock = clock_mod.VirtualClock(start=100.0)
        self.api = FakeComputeAPI()
        self.sink = Sink()
        self.driver = rpc.RPCComputeDriver(
            self.clock, self.sink, compute_api=self.api,
            known_hosts=[blade('host-A'), blade('host-B')])

    def events(self):
        self.clock.run()
        return list(self.sink.log)

    def start(self):
        """What the service does: the loop reads the hosts, then events
        are delivered.
        """
        self.driver.host_specs()
        self.driver.start_delivery()


class TestHosts(DriverTestCase):

    def test_needs_a_compute_api(self):
        self.assertRaises(ValueError, rpc.RPCComputeDriver, self.clock)

    def test_known_hosts_are_down_until_registered(self):
        self.driver.register(blade('host-A'), 'boot-1')
        self.assertEqual([('host-A', True), ('host-B', False)],
                         [(h.name, h.up) for h in self.driver.host_specs()])
        self.assertEqual(['host-B'], self.driver.wait_for_hosts(0))

    def test_wait_for_hosts(self):
        self.driver.register(blade('host-A'), 'boot-1')
        self.driver.register(blade('host-B'), 'boot-2')
        self.assertEqual([], self.driver.wait_for_hosts(0))

    def test_nothing_is_told_before_delivery(self):
        self.driver.register(blade('host-A'), 'boot-1')
        self.driver.register(blade('host-C'), 'boot-3')
        self.driver.report('instance_started', 'host-A', 'i1')
        self.assertEqual([], self.events())

    def test_host_registering_after_host_specs_is_added(self):
        self.driver.host_specs()
        self.driver.register(blade('host-C'), 'boot-3')
        self.driver.register(blade('host-A'), 'boot-1')
        self.driver.start_delivery()
        self.assertEqual([('host_up', 'host-A', 100.0),
                          ('host_added', blade('host-C'), 100.0)],
                         self.events())

    def test_host_in_host_specs_is_not_added_again(self):
        self.driver.register(blade('host-C'), 'boot-3')
        self.start()
        self.driver.register(blade('host-C'), 'boot-3')
        self.assertEqual([], self.events())

    def test_host_registering_while_delivering(self):
        self.start()
        self.driver.register(blade('host-C'), 'boot-3')
        self.driver.register(blade('host-C'), 'boot-3')
        self.assertEqual([('host_added', blade('host-C'), 100.0)],
                         self.events())

    def test_restarted_agent_loses_its_instances(self):
        self.driver.register(blade('host-A'), 'boot-1')
        self.start()
        self.driver.register(blade('host-A'), 'boot-2')
        self.assertEqual([('host_down', 'host-A', 100.0),
                          ('host_up', 'host-A', 100.0)], self.events())

    def test_host_down_and_up_reported_by_the_agent(self):
        self.driver.register(blade('host-A'), 'boot-1')
        self.start()
        self.driver.report('host_down', 'host-A')
        self.driver.report('host_down', 'host-A')
        self.assertEqual([('host_down', 'host-A', 100.0)], self.events())
        self.assertFalse(self.driver.host_specs()[0].up)
        self.driver.report('host_up', 'host-A')
        self.assertEqual(('host_up', 'host-A', 100.0), self.events()[-1])


class TestEvents(DriverTestCase):

    def test_held_until_delivery_then_in_order(self):
        self.driver.report('instance_started', 'host-A', 'i1')
        self.driver.report('instance_failed', 'host-A', 'i2', 'boom')
        self.clock.run(until=150.0)
        self.assertEqual([], self.sink.log)
        self.start()
        self.assertEqual([('instance_started', 'host-A', 'i1', 150.0),
                          ('instance_failed', 'host-A', 'i2', 150.0, 'boom')],
                         self.events())

    def test_stamped_with_our_clock(self):
        self.start()
        self.clock.run(until=200.0)
        self.driver.report('instance_terminated', 'host-B', 'v1')
        self.driver.report('termination_failed', 'host-B', 'v2', 'no')
        self.driver.report('instance_ended', 'host-B', 'i3')
        self.assertEqual([('instance_terminated', 'host-B', 'v1', 200.0),
                          ('termination_failed', 'host-B', 'v2', 200.0, 'no'),
                          ('instance_ended', 'host-B', 'i3', 200.0)],
                         self.events())

    def test_unknown_event(self):
        self.assertRaises(ValueError, self.driver.report, 'explode', 'h')


class TestRequests(DriverTestCase):

    def instance(self, instance_id='i1'):
        return objects.Instance(id=instance_id,
                                resources=objects.Resources(2, 4000, 40),
                                preemptible=True, flavor='medium')

    def test_spawn_and_terminate_go_to_the_agent(self):
        self.driver.register(blade('host-A'), 'boot-1')
        self.driver.spawn('host-A', self.instance(), image='img',
                          duration=60.0)
        self.driver.terminate('host-A', 'v1')
        self.assertEqual([('spawn', 'host-A', 'i1', 'img', 60.0),
                          ('terminate', 'host-A', 'v1')], self.api.calls)

    def test_spawn_names_the_agent_run_it_is_for(self):
        # Issue 26: a spawn left on the bus when the agent restarted must
        # be recognisable to the new run.
        self.driver.register(blade('host-A'), 'boot-1')
        self.driver.spawn('host-A', self.instance('i1'))
        self.driver.register(blade('host-A'), 'boot-2')
        self.driver.spawn('host-A', self.instance('i2'))
        self.assertEqual(['boot-1', 'boot-2'], self.api.agent_boots)

    def test_refused_for_unknown_or_down_hosts(self):
        self.start()
        self.driver.spawn('host-Z', self.instance())
        self.driver.terminate('host-B', 'v1')
        self.assertEqual([], self.api.calls)
        self.assertEqual(
            [('instance_failed', 'host-Z', 'i1', 100.0,
              'no agent registered for host host-Z'),
             ('termination_failed', 'host-B', 'v1', 100.0,
              'host host-B is down')], self.events())

    def test_list_instances_moves_start_times_to_our_clock(self):
        self.api.answers['host-A'] = {'now': 1000.0, 'instances': [
            {'id': 'i1', 'state': 'running', 'started_at': 990.0,
             'cpu_utilization': 0.5},
            {'id': 'i2', 'state': 'building', 'started_at': None}]}
        reports = self.driver.list_instances('host-A')
        self.assertEqual([objects.InstanceReport('i1', 'running', 90.0, 0.5),
                          objects.InstanceReport('i2', 'building', None)],
                         reports)

    def test_finished_instances_move_to_our_clock(self):
        self.api.answers['host-A'] = {'now': 1000.0, 'instances': [
            {'id': 'i1', 'state': 'running', 'started_at': 990.0}],
            'finished': [{'id': 'i2', 'state': 'ended', 'started_at': 900.0,
                          'ended_at': 950.0, 'boot': 4, 'reason': None}]}
        self.assertEqual(
            [objects.InstanceReport('i2', 'ended', 0.0, boot=4,
                                    ended_at=50.0)],
            self.driver.finished_instances('host-A'))
        self.assertEqual(1, len(self.driver.list_instances('host-A')))
        # The records are asked for only when they are wanted.
        self.assertEqual([('host-A', True), ('host-A', False)],
                         self.api.asked)
        # An agent of an earlier version says nothing of them.
        del self.api.answers['host-A']['finished']
        self.assertEqual([], self.driver.finished_instances('host-A'))

    def test_list_instances_timeout(self):
        self.api.answers['host-A'] = oslo_messaging.MessagingTimeout('late')
        error = self.assertRaises(rpc.ComputeUnreachable,
                                  self.driver.list_instances, 'host-A')
        self.assertIn('host-A', str(error))

    def test_list_instances_of_unknown_host(self):
        self.assertRaises(LookupError, self.driver.list_instances, 'host-Z')


class Unanswered(FakeComputeAPI):
    """An agent that went away: list_instances waits until released, as
    a call waits for its RPC timeout.
    """

    def __init__(self):
        super().__init__()
        self.asking = threading.Event()
        self.release = threading.Event()

    def list_instances(self, host, finished=False):
        self.asking.set()
        self.release.wait(60)
        raise oslo_messaging.MessagingTimeout('no answer')


class TestStop(DriverTestCase):
    """Issue 26: SIGTERM stops the scheduler within 10 s even while the
    clock's thread waits for an agent that no longer answers.
    """

    def setUp(self):
        super().setUp()
        self.api = Unanswered()
        self.addCleanup(self.api.release.set)
        self.driver = rpc.RPCComputeDriver(
            self.clock, self.sink, compute_api=self.api,
            known_hosts=[blade('host-A')])

    def ask_in_thread(self):
        raised = []

        def ask():
            try:
                self.driver.list_instances('host-A')
            except BaseException as error:  # noqa: B902 what it raised
                raised.append(error)
        thread = threading.Thread(target=ask, daemon=True)
        thread.start()
        self.assertTrue(self.api.asking.wait(10))
        return thread, raised

    def test_stop_cuts_a_waiting_call_short(self):
        thread, raised = self.ask_in_thread()
        self.assertTrue(thread.is_alive())     # it waits for the agent
        self.driver.stop()
        thread.join(10)
        self.assertFalse(thread.is_alive())
        self.assertEqual([exception.Stopping], [type(e) for e in raised])
        # Not an Exception: nothing on the way takes it for an
        # unreachable host and acts on it.
        self.assertNotIsInstance(raised[0], Exception)

    def test_no_call_once_stopped(self):
        self.driver.stop()
        self.assertRaises(exception.Stopping, self.driver.list_instances,
                          'host-A')
        self.assertFalse(self.api.asking.is_set())

    def test_the_agent_answering_first_wins(self):
        thread, raised = self.ask_in_thread()
        self.api.release.set()
        thread.join(10)
        self.assertEqual([rpc.ComputeUnreachable],
                         [type(e) for e in raised])
