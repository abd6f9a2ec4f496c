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

"""Terminations only when no host has free room (issue: a 59 s cost next
to a 1,902 s one normalises to almost nothing)."""

from preemptible_sched import objects
from preemptible_sched.scheduler import filter_scheduler as scheduler
from tests import base

# Blades of 8 vCPU, 16,384 MB.
FREE_CPU_LITTLE_RAM = [objects.Instance('n-a', objects.Resources(
    4, 14000, 0), started_at=0.0)]


def preemptible(name, vcpus, memory_mb, runtime_s):
    return objects.Instance(name, objects.Resources(vcpus, memory_mb, 0),
                            True, started_at=-runtime_s)


def build(hosts):
    sched = scheduler.FilterScheduler(strategy='dual_state', seed=0)
    for name, instances in hosts:
        sched.host_manager.add_host(objects.Host(name, 8, 16384, 500))
        for instance in instances:
            sched.host_manager.add_instance(name, instance)
    return sched


class TestTerminateOnlyWhenNeeded(base.TestCase):

    def setUp(self):
        super().setUp()
        self.flags(group='filter_scheduler',
                   enabled_filters=['compute', 'resources'],
                   weighers=['ram', 'termination_cost'])
        self.flags(group='preemptible', termination_costs=['billing_period'])
        # host-a: takes 2 vCPU / 2,000 MB as it is, with little RAM left.
        # host-b: no vCPU free, RAM free; its cheapest victim forfeits 59 s.
        # host-c: no vCPU free; its cheapest victim forfeits 1,902 s.
        self.hosts = [
            ('host-a', FREE_CPU_LITTLE_RAM),
            ('host-b', [preemptible('b%d' % i, 2, 1000, 3600 + 59)
                        for i in range(4)]),
            ('host-c', [preemptible('c%d' % i, 2, 4000, 1902)
                        for i in range(4)]),
        ]
        self.request = objects.RequestSpec(
            'req', objects.Resources(2, 2000, 0))

    def decide(self):
        decision = build(self.hosts).select_destinations(self.request,
                                                         now=0.0)
        selection, = decision.selections
        return selection.host, selection.terminate

    def test_a_free_host_wins_whatever_the_weights(self):
        # Weights alone: host-a 10 (no termination) + 2000 / 12000 = 0.17
        # (free RAM 2,384 MB, between host-c's 384 and host-b's 12,384):
        # 10.17; host-b 10 x (1902 - 59) / 1902 = 9.69 + 1.0 = 10.69:
        # host-b would win and terminate b0.
        self.assertEqual(('host-a', []), self.decide())

    def test_the_operator_may_trade_a_termination_for_a_better_host(self):
        self.flags(group='scheduler', terminate_only_when_needed=False)
        self.assertEqual(('host-b', ['b0']), self.decide())

    def test_without_free_room_the_cheapest_termination_still_wins(self):
        self.hosts[0] = ('host-a', [objects.Instance('n-a', objects.Resources(
            8, 14000, 0), started_at=0.0)])
        self.assertEqual(('host-b', ['b0']), self.decide())
