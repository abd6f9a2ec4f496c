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

"""Passes skip the moldable SLA requests that would fail as one did
(preemptible_sched.queue.replays), and decide exactly what asking every
request decides.

The shipped emulation in mode (a) (etc/preemptible-sched/experiments/sla:
90 containers submitted at once on 15 hosts) is run twice under the
virtual clock: with ``[scheduler] try_every_request`` (every waiting
request asked about in every pass, as before the skipping) and without.
Every container must start at the same time on the same hosts with the
same cores, although the second run asks the filter scheduler far less
often. (A failed decision draws from the scheduler's generator: skipping
without replaying its draws changes the hosts chosen after it.)
"""

import collections
import os

from preemptible_sched.conf import CONF
from preemptible_sched.simulation import infrastructure
from preemptible_sched.simulation import runner
from preemptible_sched.simulation.traces import reading
from tests import base

EXPERIMENT = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir,
                          os.pardir, 'etc', 'preemptible-sched',
                          'experiments', 'sla')


def path(name):
    return os.path.join(EXPERIMENT, name)


class TestSkippedAsIfAsked(base.TestCase):

    def replay(self, try_every_request):
        CONF(['--config-file', path('sla.conf')], project='preemptible-sched')
        self.addCleanup(CONF.reset)
        self.flags(group='scheduler', try_every_request=try_every_request)
        simulation = runner.Simulation(
            reading.read_workload(path('burst.csv'), 'csv'),
            infrastructure.read_infrastructure(path('hosts.csv')))
        result = simulation.run()
        copies = collections.defaultdict(list)
        for row in simulation.store.list_instances():
            copies[row.request_id].append(
                (row.host, row.vcpus, row.started_at))
        return (sorted(result.records, key=lambda record: record.id),
                {request: sorted(rows) for request, rows in copies.items()},
                len(simulation.loop.stats.decisions))

    def test_same_hosts_cores_and_starts_with_fewer_decisions(self):
        asked_records, asked_copies, asked = self.replay(True)
        records, copies, decisions = self.replay(False)
        self.assertEqual(90, len(copies))
        self.assertEqual(asked_copies, copies)
        self.assertEqual(asked_records, records)
        # Every waiting container was asked about in every pass before;
        # now about one per class and placement.
        self.assertLess(decisions * 5, asked)
