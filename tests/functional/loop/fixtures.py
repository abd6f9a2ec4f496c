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

"""A scheduler loop on emulated blades under a virtual clock."""

import fixtures

from preemptible_sched import clock as clock_mod
from preemptible_sched.compute import fake
from preemptible_sched.db import api as db_api
from preemptible_sched.loop import scheduler_loop
from preemptible_sched import objects
from tests import base

MEDIUM = objects.Flavor('medium', 2, 4000, 40)
LARGE = objects.Flavor('large', 4, 8000, 80)


class Crash(Exception):
    """The scheduler process dies here (raised by crash hooks)."""


class CountingDriver(fake.FakeDriver):
    """The fake driver, recording spawns asked for, terminations done and
    spawns refused.
    """

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.terminated = []
        self.refused = []
        self.spawned = []

    def spawn(self, host, instance, image=None, duration=None):
        self.spawned.append(instance.id)
        return super().spawn(host, instance, image=image, duration=duration)

    def _terminated(self, fake_host, fake_instance):
        if fake_host.instances.get(fake_instance.instance.id) is \
                fake_instance:
            self.terminated.append(fake_instance.instance.id)
        return super()._terminated(fake_host, fake_instance)

    def _spawn_refusal(self, host, instance):
        reason = super()._spawn_refusal(host, instance)
        if reason:
            self.refused.append((instance.id, reason))
        return reason


class LoopTestCase(base.TestCase):
    """Blades, a store on a file, and helpers to drive the loop."""

    hosts = 1

    def setUp(self):
        super().setUp()
        self.flags(group='filter_scheduler',
                   enabled_filters=['compute', 'resources'],
                   weighers=['termination_cost'])
        self.flags(group='preemptible', termination_costs=['billing_period'])
        self.flags(group='fake_driver', host_count=self.hosts,
                   boot_times_hot=[2.0], boot_times_cold=[2.0],
                   termination_seconds=0.5)
        self.db_path = self.useFixture(
            fixtures.TempDir()).join('state.sqlite')
        self.clock = clock_mod.VirtualClock()
        self.driver = CountingDriver(self.clock, seed=1)
        self.loop = self.new_loop()

    def new_loop(self, crash_at=None):
        """A scheduler 'process': a fresh store handle and fresh memory.

        With ``crash_at`` (a crash point) it raises :class:`Crash` there,
        including during the recovery of its start.
        """
        store = db_api.Store('sqlite:///' + self.db_path)
        store.upgrade()
        loop = scheduler_loop.SchedulerLoop(self.clock, self.driver, store)
        if crash_at:
            def hook(where):
                if where == crash_at:
                    raise Crash(where)
            loop.executor.crash_hook = hook
        loop.start()
        return loop

    def submit(self, name, flavor=MEDIUM, preemptible=False, duration=None,
               priority=0.0):
        return self.loop.submit(objects.RequestSpec(
            name, flavor.resources, preemptible, flavor=flavor.name,
            priority=priority), duration=duration, image='cirros')

    def run_for(self, seconds):
        self.clock.run(until=self.clock.now() + seconds)

    def state(self, instance_id):
        return self.loop.store.get_instance(instance_id).state

    def request_status(self, request_id):
        return self.loop.store.get_request(request_id).status
