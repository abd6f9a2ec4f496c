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


"""The fake driver's blades (compute/fake_hosts.py): host speed."""

from preemptible_sched.compute import fake_hosts
from tests import base


class TestHostSpeed(base.TestCase):
    """Run times given for a reference speed, scaled by each host's."""

    def test_scaled_duration_formula(self):
        # The SC18 example: 11 s at 4000 MHz.
        self.assertEqual(10.0,
                         fake_hosts.scaled_duration(11, 4100, 4000, True))
        self.assertEqual(12.0,
                         fake_hosts.scaled_duration(11, 3500, 4000, True))
        self.assertAlmostEqual(44000 / 4100,
                               fake_hosts.scaled_duration(11, 4100, 4000))
        # 41 s at 4100 MHz is exactly 40 s: no float shortfall to 39.
        self.assertEqual(40.0,
                         fake_hosts.scaled_duration(41, 4100, 4000, True))
        self.assertEqual(0.0, fake_hosts.scaled_duration(0, 3500, 4000, True))

    def test_unknown_speed_or_reference_runs_as_given(self):
        self.assertEqual(11, fake_hosts.scaled_duration(11, None, 4000, True))
        self.assertEqual(11, fake_hosts.scaled_duration(11, 3500, None, True))
        self.assertIsNone(fake_hosts.scaled_duration(None, 3500, 4000, True))

    def test_reference_seconds_inverts_scaled_duration(self):
        # 250 s on a 4000 MHz core do 500 s of work at 2000 MHz; 500 s at
        # 2000 MHz take 1000 s on 1000 MHz.
        self.assertEqual(500.0,
                         fake_hosts.reference_seconds(250.0, 4000, 2000))
        self.assertEqual(1000.0, fake_hosts.scaled_duration(500.0, 1000, 2000))
        self.assertEqual(250.0,
                         fake_hosts.reference_seconds(250.0, None, 2000))
        self.assertEqual(250.0,
                         fake_hosts.reference_seconds(250.0, 4000, None))
