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

"""Clocks: deterministic order, cancelling, failures, real time."""

import threading

from preemptible_sched import clock
from tests import base


class TestVirtualClock(base.TestCase):

    def test_order_is_time_then_priority_then_sequence(self):
        vc = clock.VirtualClock()
        seen = []
        vc.call_at(5, seen.append, 'late', priority=clock.LATE)
        vc.call_at(5, seen.append, 'normal-1')
        vc.call_at(5, seen.append, 'urgent', priority=clock.URGENT)
        vc.call_at(5, seen.append, 'normal-2')
        vc.call_at(1, seen.append, 'first')
        vc.run()
        self.assertEqual(['first', 'urgent', 'normal-1', 'normal-2', 'late'],
                         seen)
        self.assertEqual(5.0, vc.now())

    def test_run_until_stops_there_and_keeps_the_rest(self):
        vc = clock.VirtualClock(start=10)
        seen = []
        vc.call_later(5, seen.append, 15)
        vc.call_later(20, seen.append, 30)
        vc.run(until=20)
        self.assertEqual(([15], 20.0, 1), (seen, vc.now(), vc.pending()))
        vc.run()
        self.assertEqual([15, 30], seen)

    def test_cancelled_callbacks_do_not_run(self):
        vc = clock.VirtualClock()
        seen = []
        vc.call_later(1, seen.append, 'no').cancel()
        vc.call_later(2, seen.append, 'yes')
        self.assertEqual(1, vc.pending())
        vc.run()
        self.assertEqual(['yes'], seen)

    def test_the_past_is_now(self):
        vc = clock.VirtualClock(start=100)
        seen = []
        vc.call_at(50, lambda: seen.append(vc.now()))
        vc.run()
        self.assertEqual([100.0], seen)

    def test_failures_propagate(self):
        vc = clock.VirtualClock()
        vc.call_later(1, lambda: 1 / 0)
        self.assertRaises(ZeroDivisionError, vc.run)

    def test_step(self):
        vc = clock.VirtualClock()
        vc.call_later(3, lambda: None)
        self.assertTrue(vc.step())
        self.assertEqual(3.0, vc.now())
        self.assertFalse(vc.step())


class TestRealClock(base.TestCase):

    def test_time_scale_speeds_time_up(self):
        rc = clock.RealClock(time_scale=1000.0)
        start = rc.now()
        fired = []
        rc.call_later(100.0, lambda: fired.append(rc.now()))   # 0.1 s
        rc.run(until=start + 200.0)
        self.assertEqual(1, len(fired))
        self.assertGreaterEqual(fired[0], start + 100.0)

    def test_a_stop_before_run_is_kept(self):
        rc = clock.RealClock()
        rc.stop()
        rc.call_later(3600, self.fail, 'ran')
        rc.run()    # returns at once instead of waiting an hour

    def test_other_threads_may_schedule_and_stop(self):
        rc = clock.RealClock(time_scale=1.0)
        seen = []

        def other():
            rc.call_soon(
                lambda: seen.append(threading.current_thread().name))
            rc.call_soon(rc.stop)
        threading.Thread(target=other, name='rpc').start()
        rc.run()
        self.assertEqual([threading.current_thread().name], seen)

    def test_time_scale_must_be_positive(self):
        self.assertRaises(ValueError, clock.RealClock, time_scale=0)
