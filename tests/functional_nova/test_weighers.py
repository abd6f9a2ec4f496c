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

"""Weighers configured only in nova.conf decide where servers go.

The wrapped core weighers (``preemptible_sched.nova.weighers``) in
``[filter_scheduler] weight_classes`` with their ``[preemptible_sched]``
multipliers, on Nova's own path (Placement has room) and on the
preemption path.
"""

from tests.functional_nova import base
from tests.functional_nova import test_manager

LEAST_REQUESTED = ['preemptible_sched.nova.weighers.LeastRequestedWeigher']


class TestLeastRequestedSpreads(base.NovaTestCase):
    """host1 carries one normal server, host2 none: spreading (positive
    multiplier) sends the next server to host2.
    """

    FLAGS = {('filter_scheduler', 'weight_classes'): LEAST_REQUESTED,
             ('preemptible_sched', 'least_requested_weight_multiplier'):
                 1.0}
    EXPECTED = 'host2'

    def test_second_server_goes_where_the_weigher_says(self):
        self.boot(self.normal, host='host1', name='first')
        server = self.boot(self.normal, name='second')
        self.assertEqual(self.EXPECTED, server['OS-EXT-SRV-ATTR:host'])
        self.assert_usages_match_servers()


class TestLeastRequestedStacks(TestLeastRequestedSpreads):
    """The same with a negative multiplier: stacking, host1."""

    FLAGS = {('filter_scheduler', 'weight_classes'): LEAST_REQUESTED,
             ('preemptible_sched', 'least_requested_weight_multiplier'): -1.0}
    EXPECTED = 'host1'


class TestNegativeTerminationCostMultiplier(base.NovaTestCase):
    """The layout of :mod:`test_manager` with the termination-cost
    multiplier made negative: the dearest host's plan wins. host1's
    cheapest victim costs 1200 against host2's 900, so the normal server
    goes to host1 and s1d dies.
    """

    FLAGS = {('filter_scheduler', 'weight_classes'): test_manager.WEIGHERS,
             ('preemptible_sched',
              'termination_cost_weight_multiplier'): -10.0}

    def test_normal_server_goes_to_the_dearer_host(self):
        spots = self.fill(test_manager.LAYOUT)
        self.at(test_manager.NOW)
        before = self.server_ids()
        server = self.boot(self.normal, name='n1')
        self.assertEqual('host1', server['OS-EXT-SRV-ATTR:host'])
        gone = self.gone_since(before, 1)
        self.assertEqual({spots['s1d']['id']}, gone)
        self.assert_usages_match_servers()


class TestEveryCoreWeigherFromNovaConf(base.NovaTestCase):
    """All fourteen core weighers in ``weight_classes`` (with their
    multipliers' defaults): Nova's own pass places a server where there is
    room, and the engine makes room for a normal server on a full cloud.
    """

    FLAGS = {('filter_scheduler', 'weight_classes'): [
        'preemptible_sched.nova.weighers.all_weighers']}

    def test_room_free_and_room_made(self):
        self._delete_server(self.boot(self.normal, name='first'))
        spots = self.fill(test_manager.LAYOUT)
        self.at(test_manager.NOW)
        before = self.server_ids()
        self.boot(self.normal, name='n1')
        gone = self.gone_since(before, 1)
        self.assertEqual(1, len(gone))
        self.assertLessEqual(gone, {spot['id'] for spot in spots.values()})
        self.assert_no_host_over_capacity()


class TestEveryCoreWeigherFromNovaConfOnePass(
        TestEveryCoreWeigherFromNovaConf):

    ONE_PASS = True
