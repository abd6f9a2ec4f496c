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

"""The rpc driver checks its agents' heartbeats."""

from preemptible_sched import clock as clock_mod
from preemptible_sched import compute
from preemptible_sched.compute import rpc
from preemptible_sched import objects
from preemptible_sched.service import compute_reports
from preemptible_sched.service import payload_checks
from tests import base


def blade(name):
    return objects.Host(name=name, vcpus=8, memory_mb=16384, disk_gb=160)


class FakeComputeAPI:

    def __init__(self):
        self.casts = []

    def spawn(self, host, instance, image=None, duration=None):
        self.casts.append(('spawn', host, instance['id']))

    def terminate(self, host, instance_id):
        self.casts.append(('terminate', host, instance_id))


class Sink(compute.ComputeEvents):

    def __init__(self):
        self.log = []

    def __getattribute__(self, name):
        if name in ('instance_failed', 'termination_failed', 'host_down',
                    'host_up', 'host_added', 'host_unreachable'):
            return lambda *args, **kw: self.log.append((name,) + args)
        return super().__getattribute__(name)


class TestHeartbeats(base.TestCase):

    def setUp(self):
        super().setUp()
        self.clock = clock_mod.VirtualClock(start=100.0)
        self.api = FakeComputeAPI()
        self.sink = Sink()
        self.driver = rpc.RPCComputeDriver(
            self.clock, self.sink, compute_api=self.api,
            known_hosts=[blade('host-A'), blade('host-B')],
            heartbeat_timeout=30.0)
        self.driver.register(blade('host-A'), 'boot-A')
        self.driver.register(blade('host-B'), 'boot-B')
        self.driver.host_specs()
        self.driver.start_delivery()

    def beat_a_until(self, until):
        """host-A's agent registers every 10 s; host-B's is silent."""
        while self.clock.now() + 10 <= until:
            self.clock.run(until=self.clock.now() + 10)
            self.driver.register(blade('host-A'), 'boot-A')
        self.clock.run(until=until)

    def test_silent_agent_is_unreachable_not_down(self):
        self.beat_a_until(129)
        self.assertEqual([], self.sink.log)
        self.beat_a_until(160)
        # Unreachable (its instances are kept), not down (lost); the agent
        # that beats is left alone.
        self.assertEqual([('host_unreachable', 'host-B', 145.0)],
                         self.sink.log)
        self.assertEqual([('host-A', True), ('host-B', False)],
                         [(h.name, h.up) for h in self.driver.host_specs()])

    def test_unreachable_agent_that_beats_again_is_up(self):
        self.beat_a_until(160)
        self.driver.register(blade('host-B'), 'boot-B')
        self.clock.run(until=161)
        self.assertEqual([('host_unreachable', 'host-B', 145.0),
                          ('host_up', 'host-B', 160.0)], self.sink.log)

    def test_unreachable_agent_back_with_a_new_boot_lost_its_instances(self):
        self.beat_a_until(160)
        self.driver.register(blade('host-B'), 'boot-B2')
        self.clock.run(until=161)
        # Back with an empty blade: up (what it ran is reconciled as gone).
        self.assertEqual(('host_up', 'host-B', 160.0), self.sink.log[-1])

    def test_nothing_is_sent_to_an_unreachable_host(self):
        self.beat_a_until(160)
        instance = objects.Instance('vm', objects.Resources(1, 512, 10))
        self.driver.spawn('host-B', instance)
        self.driver.terminate('host-B', 'other')
        self.clock.run(until=161)
        self.assertEqual([], self.api.casts)
        self.assertEqual(
            [('instance_failed', 'host-B', 'vm', 160.0,
              'host host-B is unreachable'),
             ('termination_failed', 'host-B', 'other', 160.0,
              'host host-B is unreachable')], self.sink.log[1:])

    def test_no_timeout_no_check(self):
        driver = rpc.RPCComputeDriver(
            self.clock, self.sink, compute_api=self.api,
            known_hosts=[blade('host-C')])
        driver.register(blade('host-C'), 'boot-C')
        driver.host_specs()
        driver.start_delivery()
        self.clock.run(until=10000)
        self.assertEqual([], [entry for entry in self.sink.log
                              if entry[1] == 'host-C'])


class TestBootTokens(base.TestCase):
    """Reports carry the boot of the spawn they are about to the loop."""

    def test_boot_goes_from_the_report_to_the_loop(self):
        clock = clock_mod.VirtualClock(start=100.0)
        received = []

        class Events(compute.ComputeEvents):
            def instance_failed(self, host, instance_id, at, reason,
                                boot=None):
                received.append((host, instance_id, at, reason, boot))

        driver = rpc.RPCComputeDriver(clock, Events(),
                                      compute_api=FakeComputeAPI())
        driver.register(blade('host-A'), 'boot-A')
        driver.host_specs()
        driver.start_delivery()
        endpoint = compute_reports.ComputeReportsEndpoint(
            driver, check=payload_checks.check_report)
        endpoint.instance_failed({}, host='host-A', instance_id='vm',
                                 reason='refused', at=5.0, boot=7)
        endpoint.instance_failed({}, host='host-A', instance_id='old',
                                 reason='refused', at=5.0)
        # A boot that is not a token is refused with the report.
        endpoint.instance_failed({}, host='host-A', instance_id='bad',
                                 reason='refused', at=5.0, boot='x')
        clock.run()
        self.assertEqual([('host-A', 'vm', 100.0, 'refused', 7),
                          ('host-A', 'old', 100.0, 'refused', None)],
                         received)
