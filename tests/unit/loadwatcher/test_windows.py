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


from preemptible_sched.loadwatcher import windows
from tests import base


class TestWindowStats(base.TestCase):

    def test_hand_computed(self):
        # values 10, 20, 30, 40: mean 25, population std sqrt(125).
        stats = windows.window_stats([0, 60, 120, 180], [10, 20, 30, 40],
                                     now=180, duration=900)
        self.assertEqual(25.0, stats[0])
        self.assertAlmostEqual(125 ** 0.5, stats[1])
        self.assertEqual(40.0, stats[2])

    def test_bounds_inclusive(self):
        # [now - d, now]: 300 s window at 400 keeps t = 100 .. 400.
        stats = windows.window_stats([99, 100, 400, 401], [1, 2, 3, 4],
                                     now=400, duration=300)
        self.assertEqual((2.5, 0.5, 3.0), stats)

    def test_empty_window(self):
        self.assertIsNone(windows.window_stats([0], [5], now=1000,
                                               duration=300))
        self.assertIsNone(windows.window_stats([], [], now=0, duration=300))


class TestHostSamples(base.TestCase):

    def test_three_windows(self):
        samples = windows.HostSamples()
        # one sample a minute for 20 minutes: cpu = minute, memory 50.
        for minute in range(21):
            samples.add(minute * 60.0, float(minute), 50.0)
        found = samples.windows(1200.0)
        # 5m: minutes 15..20 -> mean 17.5; 15m: minutes 5..20 -> 12.5
        self.assertEqual(17.5, found['5m']['cpu'][0])
        self.assertEqual(15.0, found['10m']['cpu'][0])
        self.assertEqual(12.5, found['15m']['cpu'][0])
        self.assertEqual((50.0, 0.0, 50.0), found['15m']['memory'])
        self.assertEqual(20.0, found['15m']['cpu'][2])

    def test_old_samples_forgotten(self):
        samples = windows.HostSamples()
        samples.add(0.0, 1.0, 1.0)
        samples.add(901.0, 2.0, 2.0)
        self.assertEqual(1, len(samples.samples))

    def test_missing_resource(self):
        samples = windows.HostSamples()
        samples.add(0.0, 10.0, None)
        found = samples.windows(0.0)
        self.assertEqual({'cpu'}, set(found['15m']))
