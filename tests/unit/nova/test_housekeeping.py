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

from preemptible_sched.nova import housekeeping
from tests import base


def spot(name, since, vcpus=2, memory_mb=2048):
    return base.make_instance(name, (vcpus, memory_mb, 10), preemptible=True,
                              started_at=since, running_since=since)


class TestExpired(base.TestCase):

    def test_at_or_past_the_limit_oldest_first(self):
        instances = [spot('a', 100), spot('b', 0), spot('c', 401),
                     base.make_instance('booting', preemptible=True)]
        # At t = 500 with a 400 s limit: b ran 500, a 400 (the limit
        # itself), c 99; the booting one has not started.
        self.assertEqual(['b', 'a'], [
            i.id for i in housekeeping.expired(instances, 500, 400)])

    def test_no_limit(self):
        self.assertEqual([], housekeeping.expired([spot('a', 0)], 10 ** 9,
                                                  0))


class TestWatermark(base.TestCase):

    def test_shortfall_per_class(self):
        # 40 vCPUs with 36 used: 4 free, 25 % is 10, 6 short. 32768 MB
        # with 24576 used: 8192 free, 25 % is 8192, nothing short.
        self.assertEqual({'VCPU': 6}, housekeeping.shortfall(
            {'VCPU': 40, 'MEMORY_MB': 32768, 'DISK_GB': 100},
            {'VCPU': 36, 'MEMORY_MB': 24576, 'DISK_GB': 100}, 0.25))
        self.assertEqual({}, housekeeping.shortfall(
            {'VCPU': 40, 'MEMORY_MB': 32768},
            {'VCPU': 30, 'MEMORY_MB': 24576}, 0.25))

    def test_cheapest_first_until_nothing_is_short(self):
        # 6 vCPUs short; costs a 3, b 1, c 2, d 5 (2 vCPUs each): b, c
        # free 4, then a frees 6; d is left.
        costs = {'a': 3, 'b': 1, 'c': 2, 'd': 5}
        instances = [spot(name, 0) for name in 'abcd']
        victims, left = housekeeping.headroom_victims(
            {'VCPU': 6}, instances, lambda i: costs[i.id])
        self.assertEqual(['b', 'c', 'a'], [i.id for i in victims])
        self.assertEqual({}, left)

    def test_instances_freeing_nothing_short_are_skipped(self):
        # Only RAM is short: the diskless, RAM-less one is no help.
        instances = [spot('none', 0, vcpus=1, memory_mb=0),
                     spot('ram', 0, memory_mb=4096)]
        victims, left = housekeeping.headroom_victims(
            {'MEMORY_MB': 6000}, instances, lambda i: 0 if i.id == 'none'
            else 1)
        self.assertEqual(['ram'], [i.id for i in victims])
        self.assertEqual({'MEMORY_MB': 1904}, left)
