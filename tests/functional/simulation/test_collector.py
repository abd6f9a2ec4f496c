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

"""A run collects young objects less often, and gives the collector back
as it found it, whether the run ends or fails.
"""

import gc

from preemptible_sched.simulation import runner
from tests import base
from tests.functional.simulation import test_memory_store as workloads


class TestCollectorDuringARun(base.TestCase):

    def setUp(self):
        super().setUp()
        before = gc.get_threshold()
        self.addCleanup(gc.set_threshold, *before)
        gc.set_threshold(650, 9, 11)

    def test_raised_during_the_run_restored_after(self):
        seen = []
        runner.Simulation(
            workloads.mixed_workload(count=10), workloads.small_cloud(),
            until=3600.0,
            on_event=lambda *args: seen.append(gc.get_threshold())).run()
        self.assertTrue(seen)
        self.assertEqual({(runner.YOUNG_OBJECTS, 9, 11)}, set(seen))
        self.assertEqual((650, 9, 11), gc.get_threshold())

    def test_restored_when_the_run_fails(self):
        def fail(*args):
            raise RuntimeError('stop')

        simulation = runner.Simulation(workloads.mixed_workload(count=10),
                                       workloads.small_cloud(),
                                       until=3600.0, on_event=fail)
        self.assertRaises(RuntimeError, simulation.run)
        self.assertEqual((650, 9, 11), gc.get_threshold())
