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

"""The decision lock on the defaults: neither ``coordination_url`` nor
``[oslo_concurrency] lock_path`` set, two scheduler workers on one host
(issue 26 item 8: both workers held the lock at once, though the docs say
the fallback covers one host's workers). A burst of normal boots onto hosts
full of preemptible servers: a victim for each, each named once and
deleted once, no host over capacity.
"""

import re

from tests.nova_real import test_preemption


class TestTwoWorkersOnTheDefaults(test_preemption.TestTwoSchedulers):

    SCHEDULER = {
        'scheduler': {'workers': '2'},
        'oslo_concurrency': {'lock_path': ''},
        'preemptible_sched': {'mode': 'retry', 'coordination_url': ''}}

    def test_burst_every_victim_single(self):
        offset = self._log_size('scheduler.log')
        self.burst()
        self.assert_within_capacity()
        # Two workers did decide: the decisions' log lines name two pids.
        log = self.log_since('scheduler', offset)
        deciders = set(re.findall(
            r'^\S+ \S+ (\d+) INFO preemptible_sched\.nova\.manager .* '
            r'servers displaced for it', log, re.MULTILINE))
        self.assertEqual(2, len(deciders), deciders)
